//! Output files created by several workers at once, within the open-file limit: what keeps
//! `extract -j N` from failing where `-j 1` succeeds when `N` files at once are more than
//! the process may hold (`ulimit -n`).
//!
//! A file that cannot be created while others of the run are open is not taken as failed:
//! the limit may be the cause, and one thread (which never holds two) would not have met
//! it. The worker waits for fewer files to be open and tries again, and the run holds no
//! more files at once than it did then. Only a failure with no other file of the run open
//! is reported, so every `N` ends with the same files and messages as `-j 1`.

use std::fs::File;
use std::sync::{Condvar, Mutex, MutexGuard};

/// The files the workers hold open, and how many they may.
pub struct OpenFiles {
    state: Mutex<Counts>,
    closed: Condvar,
}

struct Counts {
    open: usize,
    most: usize,
}

/// One file of an [`OpenFiles`]; its place is given back when it is dropped.
pub struct Held<'a> {
    file: Option<File>,
    files: &'a OpenFiles,
}

impl OpenFiles {
    /// At most `most` files open at once (at least one).
    pub fn new(most: usize) -> Self {
        OpenFiles {
            state: Mutex::new(Counts {
                open: 0,
                most: most.max(1),
            }),
            closed: Condvar::new(),
        }
    }

    /// The file `create` makes, once fewer than the most are open. Creating runs under the
    /// lock (it is one system call, short beside a decoding) so that the count of files
    /// open when it fails is exact.
    pub fn create(&self, create: impl Fn() -> std::io::Result<File>) -> std::io::Result<Held<'_>> {
        let mut counts = self.lock();
        loop {
            while counts.open >= counts.most {
                counts = self
                    .closed
                    .wait(counts)
                    .unwrap_or_else(|poisoned| poisoned.into_inner());
            }
            match create() {
                Ok(file) => {
                    counts.open += 1;
                    return Ok(Held {
                        file: Some(file),
                        files: self,
                    });
                }
                Err(e) if counts.open == 0 => return Err(e),
                // Fewer at once from now on: as many as were open when it failed.
                Err(_) => counts.most = counts.open,
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, Counts> {
        // The counts are updated in single statements; a panic elsewhere leaves them whole.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Held<'_> {
    /// The file.
    pub fn file(&mut self) -> &mut File {
        self.file
            .as_mut()
            .expect("a held file is present until dropped")
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        // Closed before its place is given back, so the place is really free.
        drop(self.file.take());
        let mut counts = self.files.lock();
        counts.open -= 1;
        drop(counts);
        self.files.closed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch_file(name: &str) -> std::io::Result<File> {
        let dir = std::env::temp_dir().join(format!("ngi-open-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir)?;
        File::create(dir.join(name))
    }

    /// A creation that fails while another file is open waits for it to close and is
    /// tried again, and the most open at once drops to what was open when it failed.
    #[test]
    fn a_failure_with_others_open_waits_and_retries() {
        let files = OpenFiles::new(4);
        let first = files.create(|| scratch_file("a")).unwrap();
        let tries = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let second = scope.spawn(|| {
                files.create(|| {
                    // Fails while `first` is open, as a full file table would.
                    if tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                        Err(std::io::Error::other("too many open files"))
                    } else {
                        scratch_file("b")
                    }
                })
            });
            while tries.load(std::sync::atomic::Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            drop(first);
            assert!(second.join().unwrap().is_ok());
        });
        assert_eq!(tries.into_inner(), 2);
        assert_eq!(files.lock().most, 1);
        assert_eq!(files.lock().open, 0);
    }

    /// With no other file open a failure is the answer, and nothing is counted open.
    #[test]
    fn a_failure_alone_is_reported() {
        let files = OpenFiles::new(3);
        let e = files
            .create(|| Err(std::io::Error::other("no room")))
            .err()
            .expect("the failure comes back");
        assert_eq!(e.to_string(), "no room");
        assert_eq!(files.lock().open, 0);
        assert_eq!(files.lock().most, 3);
    }
}
