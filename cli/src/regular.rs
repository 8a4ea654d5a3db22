//! Files the command reads: regular files only, opened without waiting on a FIFO, and
//! sized before they are read whole.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The most a file given to `add` or `pack` as an entry's bytes can hold: the formats'
/// sizes are 32-bit.
pub const ENTRY_MAX: u64 = u32::MAX as u64;

/// What tells a file from another at the same path: its device and inode (Unix); `None`
/// elsewhere, where the metadata holds nothing that does.
pub fn identity(meta: &std::fs::Metadata) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Whether two files' metadata are known to be of one file (Unix: the same device and
/// inode; elsewhere never).
pub fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    identity(a).is_some_and(|id| Some(id) == identity(b))
}

/// Opens `path` for reading if it is a regular file (links followed). On Linux it is
/// opened without blocking (`O_NONBLOCK`, which changes nothing for a regular file's
/// reads), so that a FIFO is refused by its metadata instead of waiting for a writer.
pub fn open(path: &Path) -> io::Result<File> {
    open_with(path, false)
}

/// [`open`], refusing a symbolic link as the last component (Linux: `ELOOP`): for files
/// a folder lists by name, which were checked to be no links, so that one swapped for a
/// link since is not followed out of the folder.
pub fn open_no_link(path: &Path) -> io::Result<File> {
    open_with(path, true)
}

fn open_with(path: &Path, no_link: bool) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::OFlags;
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if no_link {
            OFlags::NOFOLLOW
        } else {
            OFlags::empty()
        };
        options.custom_flags((OFlags::NONBLOCK | nofollow).bits() as i32);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = no_link;
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// The whole regular file at `path`, not a link (as [`open_no_link`]), refused before a
/// byte is read if it holds more than `max` bytes (and if it grows past them while it is
/// read).
pub fn read(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    read_open(open_no_link(path)?, max)
}

/// [`read`] of a file already open (by [`open`] or [`open_no_link`]).
pub fn read_open(file: File, max: u64) -> io::Result<Vec<u8>> {
    let len = file.metadata()?.len();
    let too_large = |len: u64| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "{}, more than the {max} it may hold",
                crate::count::bytes(len)
            ),
        )
    };
    if len > max {
        return Err(too_large(len));
    }
    // A failed allocation is an error of the file, not an abort of the process.
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(|_| {
            io::Error::new(
                io::ErrorKind::OutOfMemory,
                format!("{len} bytes, more than the memory there is to read it into"),
            )
        })?;
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A FIFO is refused at once, never waited on; so is a device, and a file larger than
    /// the bound, before it is read.
    #[cfg(target_os = "linux")]
    #[test]
    fn only_regular_files_within_the_bound_are_read() {
        let dir = ngi_tests::scratch::Scratch::new("regular");
        let fifo = dir.join("fifo");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
        )
        .unwrap();
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || done.send(open(&fifo).map(drop).map_err(|e| e.kind())));
        let outcome = finished.recv_timeout(std::time::Duration::from_secs(10));
        assert_eq!(outcome, Ok(Err(io::ErrorKind::InvalidInput)), "a FIFO");
        let e = read(Path::new("/dev/zero"), 10).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "a device");
        let file = dir.join("eleven");
        std::fs::write(&file, b"eleven byte").unwrap();
        assert_eq!(read(&file, 11).unwrap(), b"eleven byte");
        let e = read(&file, 10).unwrap_err();
        assert_eq!(e.to_string(), "11 bytes, more than the 10 it may hold");
        let one = dir.join("one");
        std::fs::write(&one, b"1").unwrap();
        let e = read(&one, 0).unwrap_err();
        assert_eq!(e.to_string(), "1 byte, more than the 0 it may hold");
    }

    /// `open_no_link` refuses a link where `open` follows it.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_link_is_refused_where_asked() {
        let dir = ngi_tests::scratch::Scratch::new("regular-link");
        let file = dir.join("file");
        std::fs::write(&file, b"bytes").unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(open(&link).is_ok());
        assert!(open_no_link(&file).is_ok());
        let e = open_no_link(&link).unwrap_err();
        assert_eq!(
            e.raw_os_error(),
            Some(rustix::io::Errno::LOOP.raw_os_error())
        );
    }
}
