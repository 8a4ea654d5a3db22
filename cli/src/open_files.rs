//! Output files created by several workers at once, within the open-file limit: what keeps
//! `extract -j N` from failing where `-j 1` succeeds when `N` files at once are more than
//! the process may hold (`ulimit -n`).
//!
//! A file that cannot be created for want of file descriptors ("Too many open files",
//! EMFILE or ENFILE) while others of the run are open is not taken as failed: one thread
//! (which never holds two) would not have met the limit. The worker waits for fewer files
//! to be open and tries again, and the run holds no more files at once than it did then.
//! Only such a failure with no other file of the run open is reported, so every `N` ends
//! with the same files and messages as `-j 1`. Any other failure (permissions, a full
//! disk) is reported at once, as one thread would meet it too. (Only Linux's errors are
//! told apart; elsewhere every failure is reported at once.)

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
                Err(e) if counts.open == 0 || !out_of_descriptors(&e) => {
                    // Others may wait for a place this one will not take.
                    drop(counts);
                    self.closed.notify_all();
                    return Err(e);
                }
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
        // Every waiter checks again: one woken alone might fail and leave the rest asleep.
        self.files.closed.notify_all();
    }
}

/// Whether `e` says the process or the system has no file descriptor left.
#[cfg(target_os = "linux")]
fn out_of_descriptors(e: &std::io::Error) -> bool {
    use rustix::io::Errno;
    matches!(Errno::from_io_error(e), Some(Errno::MFILE | Errno::NFILE))
}

#[cfg(not(target_os = "linux"))]
fn out_of_descriptors(_: &std::io::Error) -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `open` returns with no file descriptor left (EMFILE, 24 on Linux).
    fn too_many_open_files() -> std::io::Error {
        std::io::Error::from_raw_os_error(24)
    }

    /// A real file that has no name (unlinked at once), so no test leaves one behind.
    fn scratch_file() -> std::io::Result<File> {
        tempfile::tempfile()
    }

    /// A creation that fails for want of descriptors while another file is open waits
    /// for it to close and is tried again, and the most open at once drops to what was
    /// open when it failed.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_failure_with_others_open_waits_and_retries() {
        let files = OpenFiles::new(4);
        let first = files.create(scratch_file).unwrap();
        let tries = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            let second = scope.spawn(|| {
                files.create(|| {
                    // Fails while `first` is open, as a full file table would.
                    if tries.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0 {
                        Err(too_many_open_files())
                    } else {
                        scratch_file()
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

    /// Any other failure is reported at once, others open or not, and changes nothing.
    #[test]
    fn other_failures_are_reported_at_once() {
        let files = OpenFiles::new(4);
        let _first = files.create(scratch_file).unwrap();
        let e = files
            .create(|| Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied)))
            .err()
            .expect("the failure comes back");
        assert_eq!(e.kind(), std::io::ErrorKind::PermissionDenied);
        let counts = files.lock();
        assert_eq!((counts.open, counts.most), (1, 4));
    }

    /// Two workers wait for a place; the one woken first fails for good. The other must
    /// still be woken and get its file (woken one at a time, it slept on for ever).
    #[cfg(target_os = "linux")]
    #[test]
    fn a_waiter_that_fails_for_good_leaves_the_others_awake() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicUsize, Ordering};
        use std::time::Duration;
        let files = Arc::new(OpenFiles::new(4));
        let first = files.create(scratch_file).unwrap();
        let b_tries = Arc::new(AtomicUsize::new(0));
        let (done, results) = std::sync::mpsc::channel();
        let b = {
            let (files, tries, done) = (files.clone(), b_tries.clone(), done.clone());
            std::thread::spawn(move || {
                let outcome = files.create(|| {
                    if tries.fetch_add(1, Ordering::SeqCst) == 0 {
                        Err(too_many_open_files())
                    } else {
                        Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied))
                    }
                });
                done.send(("b", outcome.is_ok())).unwrap();
            })
        };
        while b_tries.load(Ordering::SeqCst) == 0 {
            std::thread::yield_now();
        }
        // `b` now waits with at most one file open; `c` queues behind it.
        let c = {
            let (files, done) = (files.clone(), done.clone());
            std::thread::spawn(move || {
                let outcome = files.create(scratch_file);
                done.send(("c", outcome.is_ok())).unwrap();
            })
        };
        std::thread::sleep(Duration::from_millis(50));
        drop(first);
        let mut seen = Vec::new();
        for _ in 0..2 {
            let result = results.recv_timeout(Duration::from_secs(10));
            seen.push(result.expect("a worker was left waiting"));
        }
        seen.sort();
        assert_eq!(seen, [("b", false), ("c", true)]);
        b.join().unwrap();
        c.join().unwrap();
    }
}
