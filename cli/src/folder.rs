//! A folder in which a command makes files by name. On Linux every file is looked at,
//! created, renamed and removed relative to one handle of the folder, opened once: a
//! folder swapped for a symbolic link while the command runs (by anyone who may write in
//! its parent) is not followed, and the files go on into the folder first opened, as
//! `extract -o` and `unpack` promise. Elsewhere the folder's path is joined with each
//! name, and such a swap is followed.
//!
//! Names are single file names (no separator): those `names::file_name` makes, and the
//! temporary names made here.

use std::collections::HashSet;
use std::ffi::{OsStr, OsString};
use std::fs::{File, Permissions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

/// An open folder; see the module's documentation.
#[derive(Debug)]
pub struct Folder {
    path: PathBuf,
    #[cfg(target_os = "linux")]
    handle: File,
    /// The one file never to be replaced here, by its device and inode: the archive the
    /// command reads (see [`Folder::keeping`]).
    kept: Option<(u64, u64)>,
}

/// What a name in a folder is, a symbolic link not followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Regular,
    /// The file the folder keeps ([`Folder::keeping`]), under any of its names.
    Kept,
    /// A folder, a link, a device...: what it is, said as "exists and is ..." goes on
    /// ("a symbolic link", "a folder", "not a regular file").
    Other(&'static str),
}

impl Kind {
    const LINK: Kind = Kind::Other("a symbolic link");
    const FOLDER: Kind = Kind::Other("a folder");
    const SPECIAL: Kind = Kind::Other("not a regular file");

    /// What a file of `file_type` is (never [`Kind::Kept`]).
    pub fn of(file_type: std::fs::FileType) -> Kind {
        if file_type.is_file() {
            Kind::Regular
        } else if file_type.is_symlink() {
            Kind::LINK
        } else if file_type.is_dir() {
            Kind::FOLDER
        } else {
            Kind::SPECIAL
        }
    }
}

impl Folder {
    /// Opens the folder at `path` (a link to a folder, given as `path`, is followed once,
    /// here).
    pub fn open(path: &Path) -> io::Result<Folder> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            // A handle only to make things in: a folder one may write in but not list
            // (mode 0300) takes files too.
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let handle = rustix::fs::open(path, flags, Mode::empty())?;
            Ok(Folder {
                path: path.to_path_buf(),
                handle: File::from(handle),
                kept: None,
            })
        }
        #[cfg(not(target_os = "linux"))]
        Ok(Folder {
            path: path.to_path_buf(),
            kept: None,
        })
    }

    /// The folder, told that the file of `metadata` (the archive a command reads) is to
    /// be kept: [`kind`](Folder::kind) names it [`Kind::Kept`] under any of its names,
    /// so that `--force` does not replace the archive with one of its own entries.
    pub fn keeping(mut self, metadata: &std::fs::Metadata) -> Folder {
        self.kept = crate::regular::identity(metadata);
        self
    }

    /// The folder that holds `target`, opened, and `target`'s name in it.
    pub fn of(target: &Path) -> io::Result<(Folder, &OsStr)> {
        let name = target
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "names no file"))?;
        let folder = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        Ok((Folder::open(folder)?, name))
    }

    /// The folder's handle, for opening files relative to it in ways this type does not
    /// (`openat2` beneath it, say).
    #[cfg(target_os = "linux")]
    pub fn handle(&self) -> &File {
        &self.handle
    }

    /// The path of `name` in the folder, for messages (and for what only takes a path).
    pub fn join(&self, name: impl AsRef<OsStr>) -> PathBuf {
        self.path.join(name.as_ref())
    }

    /// What `name` is, or `None` when nothing is there.
    pub fn kind(&self, name: impl AsRef<OsStr>) -> io::Result<Option<Kind>> {
        // Whether it is a regular file, and its device and inode.
        #[cfg(target_os = "linux")]
        let found = rustix::fs::statat(&self.handle, name.as_ref(), nofollow())
            .map(|stat| {
                use rustix::fs::FileType;
                let kind = match FileType::from_raw_mode(stat.st_mode) {
                    FileType::RegularFile => Kind::Regular,
                    FileType::Symlink => Kind::LINK,
                    FileType::Directory => Kind::FOLDER,
                    _ => Kind::SPECIAL,
                };
                (kind, Some((stat.st_dev, stat.st_ino)))
            })
            .map_err(io::Error::from);
        #[cfg(not(target_os = "linux"))]
        let found = std::fs::symlink_metadata(self.join(name))
            .map(|m| (Kind::of(m.file_type()), crate::regular::identity(&m)));
        match found {
            Ok((Kind::Regular, id)) if id.is_some() && id == self.kept => Ok(Some(Kind::Kept)),
            Ok((kind, _)) => Ok(Some(kind)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The permissions of `name`, when it is a regular file (a link's own mode, 0777,
    /// is no file's to take), without its setuid, setgid and sticky bits: the file that
    /// takes them is a new one, owned by whoever runs `ngi` (root too), with the
    /// archive's bytes in it.
    pub fn permissions(&self, name: impl AsRef<OsStr>) -> Option<Permissions> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::FileType;
            use std::os::unix::fs::PermissionsExt;
            let stat = rustix::fs::statat(&self.handle, name.as_ref(), nofollow()).ok()?;
            let regular = FileType::from_raw_mode(stat.st_mode).is_file();
            regular.then(|| Permissions::from_mode(stat.st_mode & 0o777))
        }
        #[cfg(not(target_os = "linux"))]
        {
            let permissions = std::fs::symlink_metadata(self.join(name))
                .ok()
                .filter(|m| m.is_file())
                .map(|m| m.permissions());
            #[cfg(unix)]
            let permissions = permissions.map(|p| {
                use std::os::unix::fs::PermissionsExt;
                Permissions::from_mode(p.mode() & 0o777)
            });
            permissions
        }
    }

    /// Gives `file`, which is to take the place of `name`, the permissions of the
    /// regular file there (none when there is none): a private file must not come back
    /// readable by all.
    pub fn keep_permissions(&self, file: &File, name: impl AsRef<OsStr>) -> io::Result<()> {
        match self.permissions(name) {
            Some(permissions) => file.set_permissions(permissions),
            None => Ok(()),
        }
    }

    /// The names in the folder.
    pub fn names(&self) -> io::Result<HashSet<OsString>> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            use std::os::unix::ffi::OsStrExt;
            // The handle is for making things in: listing takes a handle that may read.
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
            let listing = rustix::fs::openat(&self.handle, ".", flags, Mode::empty())?;
            let mut names = HashSet::new();
            for entry in rustix::fs::Dir::new(listing)? {
                let name = entry?.file_name().to_bytes().to_vec();
                if name != b"." && name != b".." {
                    names.insert(OsStr::from_bytes(&name).to_os_string());
                }
            }
            Ok(names)
        }
        #[cfg(not(target_os = "linux"))]
        std::fs::read_dir(&self.path)?
            .map(|entry| Ok(entry?.file_name()))
            .collect()
    }

    /// Creates the new file `name`, failing on anything already there (a link is not
    /// followed).
    pub fn create_new(&self, name: impl AsRef<OsStr>) -> io::Result<File> {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let flags =
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            // The mode `File::create` gives, less the umask.
            let mode = Mode::from_raw_mode(0o666);
            Ok(File::from(rustix::fs::openat(
                &self.handle,
                name.as_ref(),
                flags,
                mode,
            )?))
        }
        #[cfg(not(target_os = "linux"))]
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(self.join(name))
    }

    /// A new file named after `target`, that no other run can be using, and its name.
    ///
    /// The name holds `%n`, which no extracted entry's file name can (they have `%` only
    /// before two upper-case hex digits, or as a whole name, [`crate::names::file_name`]):
    /// an archive cannot name an entry after this run's temporary file and have
    /// `--force` take it for a file to replace.
    pub fn create_temp(&self, target: &OsStr) -> io::Result<(OsString, File)> {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        // At most 64 bytes of the name: with the rest it must stay within a file name's
        // 255 (an archive named with 240 bytes could not be edited at all). The process
        // id and the counter make it unique.
        let mut stem = target.to_string_lossy().into_owned();
        while stem.len() > 64 {
            stem.pop();
        }
        loop {
            let n = COUNTER.fetch_add(1, Ordering::Relaxed);
            let temp = OsString::from(format!(".{stem}.%ngi-{}-{n}.tmp", process_id()));
            match self.create_new(&temp) {
                Ok(file) => return Ok((temp, file)),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
    }

    /// Renames `from` to `to`, replacing what is at `to` (a link there is replaced, not
    /// the file it names).
    pub fn rename(&self, from: impl AsRef<OsStr>, to: impl AsRef<OsStr>) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            let (from, to) = (from.as_ref(), to.as_ref());
            Ok(rustix::fs::renameat(&self.handle, from, &self.handle, to)?)
        }
        #[cfg(not(target_os = "linux"))]
        std::fs::rename(self.join(from), self.join(to))
    }

    /// Removes the file (or link) `name`.
    pub fn remove(&self, name: impl AsRef<OsStr>) -> io::Result<()> {
        #[cfg(target_os = "linux")]
        {
            let flags = rustix::fs::AtFlags::empty();
            Ok(rustix::fs::unlinkat(&self.handle, name.as_ref(), flags)?)
        }
        #[cfg(not(target_os = "linux"))]
        std::fs::remove_file(self.join(name))
    }

    /// Makes the renames and removals in the folder durable.
    pub fn sync(&self) -> io::Result<()> {
        // Through the path: a handle made with `O_PATH` cannot be synced, and a sync
        // writes nothing that a swapped folder could misplace.
        #[cfg(unix)]
        {
            File::open(&self.path)?.sync_all()
        }
        #[cfg(not(unix))]
        Ok(())
    }
}

#[cfg(target_os = "linux")]
fn nofollow() -> rustix::fs::AtFlags {
    rustix::fs::AtFlags::SYMLINK_NOFOLLOW
}

/// The process's id, asked of the system once (`extract --force` names a temporary file
/// per entry, and `getpid` is a system call each time).
fn process_id() -> u32 {
    static ID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ID.get_or_init(std::process::id)
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use crate::save::Replacing;
    use ngi_tests::scratch::Scratch;
    use std::fs;
    use std::io::Write;

    /// The folder `out` is opened, then swapped for a link to `elsewhere`, as someone who
    /// may write in its parent could do while a command runs.
    fn swapped(scratch: &Scratch) -> (Folder, PathBuf, PathBuf) {
        let (out, moved, elsewhere) = (
            scratch.join("out"),
            scratch.join("out.moved"),
            scratch.join("elsewhere"),
        );
        fs::create_dir(&out).unwrap();
        fs::create_dir(&elsewhere).unwrap();
        fs::write(out.join("old"), b"old").unwrap();
        fs::write(elsewhere.join("old"), b"victim").unwrap();
        let folder = Folder::open(&out).unwrap();
        fs::rename(&out, &moved).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &out).unwrap();
        (folder, moved, elsewhere)
    }

    #[test]
    fn files_go_into_the_folder_opened_after_it_is_swapped_for_a_link() {
        let scratch = Scratch::new("folder-swap");
        let (folder, moved, elsewhere) = swapped(&scratch);
        // A new file, as `extract` makes it.
        let (new, mut file) = Replacing::create(&folder, "new".as_ref(), false).unwrap();
        file.write_all(b"new").unwrap();
        drop(file);
        new.finish().unwrap();
        // A file replaced under `--force`.
        assert_eq!(folder.kind("old").unwrap(), Some(Kind::Regular));
        let (old, mut file) = Replacing::create(&folder, "old".as_ref(), true).unwrap();
        file.write_all(b"replaced").unwrap();
        drop(file);
        old.finish().unwrap();
        // The manifest of `unpack`.
        let fill = |out: &mut dyn Write| out.write_all(b"manifest");
        crate::save::write_atomic_in(&folder, "ngi.toml".as_ref(), fill, |_| Ok(())).unwrap();
        assert_eq!(fs::read(moved.join("new")).unwrap(), b"new");
        assert_eq!(fs::read(moved.join("old")).unwrap(), b"replaced");
        assert_eq!(fs::read(moved.join("ngi.toml")).unwrap(), b"manifest");
        let mut left: Vec<_> = fs::read_dir(&elsewhere)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        left.sort();
        assert_eq!(left, ["old"]);
        assert_eq!(fs::read(elsewhere.join("old")).unwrap(), b"victim");
    }

    #[test]
    fn what_is_there_is_looked_at_in_the_folder_opened() {
        let scratch = Scratch::new("folder-look");
        let (folder, moved, elsewhere) = swapped(&scratch);
        fs::write(moved.join("ngi.toml"), b"manifest").unwrap();
        let mut names: Vec<_> = folder.names().unwrap().into_iter().collect();
        names.sort();
        assert_eq!(names, ["ngi.toml", "old"]);
        assert!(!elsewhere.join("ngi.toml").exists());
        // What unpack's check of its manifest sees.
        assert_eq!(folder.kind("ngi.toml").unwrap(), Some(Kind::Regular));
    }

    #[test]
    fn a_temporary_file_bears_the_mark_no_extracted_file_name_has() {
        let scratch = Scratch::new("folder-temp");
        let folder = Folder::open(&scratch).unwrap();
        let (temp, _file) = folder.create_temp(OsStr::new("X")).unwrap();
        let temp = temp.to_str().unwrap();
        assert!(temp.starts_with(".X.%ngi-"), "{temp}");
        folder.remove(temp).unwrap();
    }

    /// Root replacing a user's setuid file made a setuid program of root's with the
    /// archive's bytes in it: the special bits are not taken over.
    #[test]
    fn setuid_setgid_and_sticky_bits_are_not_lent() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = Scratch::new("folder-setuid");
        let folder = Folder::open(&scratch).unwrap();
        fs::write(scratch.join("tool"), b"t").unwrap();
        fs::set_permissions(scratch.join("tool"), Permissions::from_mode(0o7755)).unwrap();
        assert_eq!(
            folder.permissions("tool").map(|p| p.mode() & 0o7777),
            Some(0o755)
        );
    }

    /// A link's own mode (0777) was taken for the file that replaced it, bypassing the
    /// umask: only a regular file's permissions are kept.
    #[test]
    fn only_a_regular_file_lends_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let scratch = Scratch::new("folder-mode");
        let folder = Folder::open(&scratch).unwrap();
        fs::write(scratch.join("private"), b"p").unwrap();
        fs::set_permissions(scratch.join("private"), Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(scratch.join("private"), scratch.join("link")).unwrap();
        std::os::unix::fs::symlink(scratch.join("none"), scratch.join("dangling")).unwrap();
        let mode = |name: &str| folder.permissions(name).map(|p| p.mode() & 0o7777);
        assert_eq!(mode("private"), Some(0o600));
        assert_eq!(
            (mode("link"), mode("dangling"), mode("none")),
            (None, None, None)
        );
        // Written over the dangling link: a new file's mode, not 0777.
        let fill = |out: &mut dyn Write| out.write_all(b"new");
        crate::save::write_atomic(&scratch.join("dangling"), fill, |_| Ok(())).unwrap();
        let written = fs::symlink_metadata(scratch.join("dangling")).unwrap();
        assert!(written.is_file());
        assert_ne!(written.permissions().mode() & 0o777, 0o777);
    }

    #[test]
    fn a_link_in_the_folder_is_neither_followed_nor_replaced_by_a_new_file() {
        let scratch = Scratch::new("folder-link");
        let (folder, moved, elsewhere) = swapped(&scratch);
        std::os::unix::fs::symlink(elsewhere.join("old"), moved.join("link")).unwrap();
        assert_eq!(
            folder.kind("link").unwrap(),
            Some(Kind::Other("a symbolic link"))
        );
        assert_eq!(folder.kind("none").unwrap(), None);
        let refused = folder.create_new("link").unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(elsewhere.join("old")).unwrap(), b"victim");
    }
}
