//! Opening what the walk found under the served folder so that the open itself cannot
//! leave the folder.
//!
//! The walk (`paths::resolve`) checks a path and hands its canonical form to the cache,
//! which opens it later: a folder swapped for a link in between (by anyone who may write
//! in the served folder) would send an open by path outside. On Linux 5.6 and later the
//! open resolves the path from the folder's own handle with `openat2`, refusing any link
//! on the way (the path is canonical, so a link there is a swap) and any step out: nothing
//! outside is opened at all, not even a FIFO or a device (opened without waiting, then
//! refused, by an open by path). Where `openat2` is missing (older kernels, or a sandbox
//! that denies it), the file is opened by path and what was opened must lie under the
//! folder by the path of its handle, before anything is read from it.
//!
//! The walk goes by path, so the handle follows the path where another folder takes it (a
//! deploy by rename: `mv new DIR`): with the old folder's handle kept, the index listed
//! the new folder's archives and the opens found the old folder's, or nothing once it was
//! deleted. A link put at the path is not followed: the handle stays.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

use crate::folder::Folder;

/// The served folder, for opening files under it: on Linux held by its handle, which
/// follows its path to another folder but not to a link.
#[derive(Debug)]
pub struct Beneath {
    root: PathBuf,
    folder: RwLock<Arc<Folder>>,
}

impl Beneath {
    /// The folder at `root`, a canonical path.
    pub fn new(root: PathBuf) -> io::Result<Beneath> {
        let folder = RwLock::new(Arc::new(Folder::open(&root)?));
        Ok(Beneath { root, folder })
    }

    /// The folder's canonical path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The folder held, or the one its path names now, if that is another folder (not a
    /// link), which is held from now on.
    fn current(&self) -> Arc<Folder> {
        let held = Arc::clone(&self.folder.read().unwrap_or_else(PoisonError::into_inner));
        #[cfg(target_os = "linux")]
        {
            use crate::regular::identity;
            let (Ok(now), Ok(then)) = (
                std::fs::symlink_metadata(&self.root),
                held.handle().metadata(),
            ) else {
                return held;
            };
            if !now.is_dir() || identity(&now) == identity(&then) {
                return held;
            }
            // Opened by path, which may have changed again since: it must be the folder
            // looked at, not a link put there in between.
            let Ok(replaced) = Folder::open(&self.root) else {
                return held;
            };
            if replaced.handle().metadata().map(|m| identity(&m)).ok() != Some(identity(&now)) {
                return held;
            }
            let replaced = Arc::new(replaced);
            *self.folder.write().unwrap_or_else(PoisonError::into_inner) = Arc::clone(&replaced);
            tracing::warn!(
                target: "ngi::serve",
                "{}: now another folder than the one served until now (replaced, as a deploy \
                 by rename does): serving that one",
                crate::report::ShowPath::shown(self.root.as_path())
            );
            replaced
        }
        #[cfg(not(target_os = "linux"))]
        held
    }

    /// Opens `path` (canonical, under the folder) for reading, without waiting on a FIFO.
    /// Not under the folder by the time of the open: `NotFound`, the answer of a missing
    /// file, so that nothing tells what lies outside.
    pub fn open(&self, path: &Path) -> io::Result<File> {
        let Ok(inner) = path.strip_prefix(self.root()) else {
            return Err(io::ErrorKind::NotFound.into());
        };
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags, ResolveFlags};
            use rustix::io::Errno;
            let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
            let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS;
            let folder = self.current();
            match rustix::fs::openat2(folder.handle(), inner, flags, Mode::empty(), resolve) {
                Ok(handle) => return Ok(File::from(handle)),
                Err(Errno::NOSYS | Errno::PERM) => {}
                // A link on the way (ELOOP) or a step out (EXDEV): a swap since the walk.
                Err(Errno::LOOP | Errno::XDEV) => return Err(io::ErrorKind::NotFound.into()),
                Err(e) => return Err(e.into()),
            }
        }
        let _ = inner;
        self.open_by_path(path)
    }

    /// The open where `openat2` is not to be had: by path, then checked by its handle.
    fn open_by_path(&self, path: &Path) -> io::Result<File> {
        let file = crate::regular::open(path)?;
        if opened_inside(self.root(), &file) {
            Ok(file)
        } else {
            Err(io::ErrorKind::NotFound.into())
        }
    }
}

/// Whether `file` lies under `root` by the path the kernel gives its handle (Linux:
/// `/proc/self/fd/N`). Where there is no such path to read (another system, or no
/// `/proc`), the walk's check stands alone.
fn opened_inside(root: &Path, file: &File) -> bool {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let fd = Path::new("/proc/self/fd");
        match std::fs::read_link(fd.join(file.as_raw_fd().to_string())) {
            // A file unlinked since (replaced by a rename) reads "PATH (deleted)": still
            // under the root by its components.
            Ok(real) => real.starts_with(root),
            // Only where there is no /proc at all; any other failure (a sandbox that
            // denies it) refuses.
            Err(_) => std::fs::metadata(fd).is_err_and(|e| e.kind() == io::ErrorKind::NotFound),
        }
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (root, file);
        true
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::io::Read;

    /// A folder `root` holding `in/a.res` and a link `out` to a folder beside it that
    /// holds `a.res` too; both files hold their own name.
    fn folders(name: &str) -> (PathBuf, Beneath) {
        let base = std::env::temp_dir().join(format!("ngi-beneath-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        for (dir, text) in [("root/in", "inside"), ("outside", "outside")] {
            std::fs::create_dir_all(base.join(dir)).unwrap();
            std::fs::write(base.join(dir).join("a.res"), text).unwrap();
        }
        std::os::unix::fs::symlink(base.join("outside"), base.join("root/out")).unwrap();
        let root = base.join("root").canonicalize().unwrap();
        (base, Beneath::new(root).unwrap())
    }

    fn text(file: io::Result<File>) -> io::Result<String> {
        let mut text = String::new();
        file?.read_to_string(&mut text)?;
        Ok(text)
    }

    #[test]
    fn nothing_is_opened_through_a_link_or_outside() {
        let (base, beneath) = folders("open");
        let root = beneath.root().to_path_buf();
        assert_eq!(
            text(beneath.open(&root.join("in/a.res"))).unwrap(),
            "inside"
        );
        for path in [
            root.join("out/a.res"),
            root.join("in/../../outside/a.res"),
            base.join("outside/a.res"),
        ] {
            let refused = beneath.open(&path).unwrap_err();
            assert_eq!(
                refused.kind(),
                io::ErrorKind::NotFound,
                "{path:?}: {refused}"
            );
        }
        // The way without `openat2` refuses by the handle's path.
        assert_eq!(
            text(beneath.open_by_path(&root.join("in/a.res"))).unwrap(),
            "inside"
        );
        let refused = beneath.open_by_path(&root.join("out/a.res")).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::NotFound);
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn the_folder_is_held_by_its_handle() {
        let (base, beneath) = folders("held");
        let root = beneath.root().to_path_buf();
        // The folder's path now names the outside folder; the handle keeps the old one.
        std::fs::rename(&root, base.join("moved")).unwrap();
        std::os::unix::fs::symlink(base.join("outside"), &root).unwrap();
        std::fs::create_dir(base.join("outside/in")).unwrap();
        std::fs::write(base.join("outside/in/a.res"), "outside").unwrap();
        assert_eq!(
            text(beneath.open(&root.join("in/a.res"))).unwrap(),
            "inside"
        );
        std::fs::remove_dir_all(base).unwrap();
    }

    #[test]
    fn another_folder_at_its_path_is_followed() {
        let (base, beneath) = folders("replaced");
        let root = beneath.root().to_path_buf();
        std::fs::rename(&root, base.join("old")).unwrap();
        std::fs::create_dir_all(root.join("in")).unwrap();
        std::fs::write(root.join("in/a.res"), "replaced").unwrap();
        assert_eq!(
            text(beneath.open(&root.join("in/a.res"))).unwrap(),
            "replaced"
        );
        // The old folder gone too: the new one is still held.
        std::fs::remove_dir_all(base.join("old")).unwrap();
        assert_eq!(
            text(beneath.open(&root.join("in/a.res"))).unwrap(),
            "replaced"
        );
        std::fs::remove_dir_all(base).unwrap();
    }
}
