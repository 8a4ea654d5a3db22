//! Scratch folders for tests that work on real files: one per test, under the system's
//! temporary folder, removed when the test ends, so that a run of the suite leaves nothing
//! behind. A test that fails keeps its folder and says where, for whoever debugs it.

use std::ffi::OsStr;
use std::ops::Deref;
use std::path::Path;

use tempfile::TempDir;

/// A fresh, empty folder named `ngi-<tag>-<random>`, removed with everything in it when
/// dropped, unless the thread is panicking (a failed assertion).
///
/// It dereferences to its [`Path`], so `dir.join("a.res")`, `fs::read_dir(&dir)` and
/// `Command::arg(&dir)` read as they would on a `PathBuf`.
///
/// ```
/// let dir = ngi_tests::scratch::Scratch::new("doc");
/// std::fs::write(dir.join("a.res"), b"NRes").unwrap();
/// let kept = dir.to_path_buf();
/// drop(dir);
/// assert!(!kept.exists());
/// ```
#[derive(Debug)]
pub struct Scratch {
    dir: TempDir,
}

impl Scratch {
    /// Creates the folder; `tag` names the test in the folder's name.
    pub fn new(tag: &str) -> Scratch {
        let dir = tempfile::Builder::new()
            .prefix(&format!("ngi-{tag}-"))
            .tempdir()
            .expect("the temporary folder takes a new folder");
        Scratch { dir }
    }
}

impl Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.dir.path()
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        self.dir.path()
    }
}

impl AsRef<OsStr> for Scratch {
    fn as_ref(&self) -> &OsStr {
        self.dir.path().as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        // The files of a failed test are its evidence: keep them, and name the folder
        // beside the assertion's message.
        if std::thread::panicking() {
            self.dir.disable_cleanup(true);
            eprintln!(
                "kept the failed test's files in {}",
                self.dir.path().display()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_goes_when_the_test_passes() {
        let dir = Scratch::new("pass");
        std::fs::create_dir(dir.join("inner")).unwrap();
        std::fs::write(dir.join("inner/a.bin"), b"abc").unwrap();
        let path = dir.to_path_buf();
        assert!(path.is_dir());
        drop(dir);
        assert!(!path.exists());
    }

    #[test]
    fn the_folder_stays_when_the_test_fails() {
        let (sender, receiver) = std::sync::mpsc::channel();
        let failed = std::thread::spawn(move || {
            let dir = Scratch::new("fail");
            sender.send(dir.to_path_buf()).unwrap();
            panic!("a failing assertion");
        })
        .join();
        assert!(failed.is_err());
        let path = receiver.recv().unwrap();
        assert!(path.is_dir(), "{} kept", path.display());
        std::fs::remove_dir_all(&path).unwrap();
    }

    #[test]
    fn two_folders_of_one_tag_are_apart() {
        let (a, b) = (Scratch::new("twice"), Scratch::new("twice"));
        assert_ne!(&*a, &*b);
        let name = a.file_name().unwrap().to_str().unwrap();
        assert!(name.starts_with("ngi-twice-"), "{name}");
    }
}
