//! The archive being edited with files joined after it, as one source for the save's
//! plan: a payload `add` takes from a file as it is (NRes, and stored or XOR RsLi) is
//! copied from that file as the archive is written, never held in memory (a 3 GB file
//! was read whole first, and aborted `add` when the allocation failed).
//!
//! A file is opened when the plan first reads it, one at a time (the plan reads them in
//! order), so that adding thousands of files needs no more descriptors than one; and
//! it must be the file measured and hold the bytes measured: one replaced, shortened or
//! lengthened since is an error naming it, never a payload of other bytes.

use std::cell::RefCell;
use std::fs::File;
use std::io;
use std::path::PathBuf;

use ngi_core::io::ReadAt;

use crate::regular;
use crate::report::ShowPath;

/// A file joined to the source.
struct Part {
    /// Where it starts in the source.
    start: u64,
    path: PathBuf,
    len: u64,
    /// What tells it from another file at the same path (Unix: device and inode).
    identity: Option<(u64, u64)>,
}

/// The archive's bytes, then each joined file's.
pub struct Joined<'a> {
    archive: &'a File,
    archive_len: u64,
    parts: Vec<Part>,
    len: u64,
    /// The file open for reading: its index in `parts`.
    open: RefCell<Option<(usize, File)>>,
}

impl<'a> Joined<'a> {
    /// The archive alone.
    pub fn new(archive: &'a File) -> io::Result<Joined<'a>> {
        let archive_len = archive.metadata()?.len();
        Ok(Joined {
            archive,
            archive_len,
            parts: Vec::new(),
            len: archive_len,
            open: RefCell::new(None),
        })
    }

    /// Joins the file at `path`, measured by `meta` (of a handle open on it), after
    /// everything before it; returns where it starts.
    pub fn push(&mut self, path: PathBuf, meta: &std::fs::Metadata) -> u64 {
        let start = self.len;
        let len = meta.len();
        self.parts.push(Part {
            start,
            path,
            len,
            identity: regular::identity(meta),
        });
        self.len = start.saturating_add(len);
        start
    }

    /// Reads part `index` at `at` (inside it) into `buf`, opening it if it is not open.
    fn read_part(&self, index: usize, buf: &mut [u8], at: u64) -> io::Result<usize> {
        let Some(part) = self.parts.get(index) else {
            return Ok(0);
        };
        let mut open = self.open.borrow_mut();
        if open.as_ref().is_none_or(|(i, _)| *i != index) {
            let file = crate::regular::open(&part.path)
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", part.path.shown())))?;
            let meta = file.metadata()?;
            if regular::identity(&meta) != part.identity || meta.len() != part.len {
                return Err(changed(part));
            }
            *open = Some((index, file));
        }
        let Some((_, file)) = open.as_ref() else {
            return Ok(0);
        };
        let n = ReadAt::read_at(file, buf, at)?;
        // Its last bytes: nothing may follow them (a file under /proc says 0 bytes and
        // has more), and they must all be there.
        let end = at + n as u64;
        if n == 0 && at < part.len || end == part.len && ReadAt::read_at(file, &mut [0], end)? > 0 {
            return Err(changed(part));
        }
        Ok(n)
    }
}

fn changed(part: &Part) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "{}: changed while it was added (it held {})",
            part.path.shown(),
            crate::count::bytes(part.len)
        ),
    )
}

impl ReadAt for Joined<'_> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        if offset < self.archive_len {
            let n = buf
                .len()
                .min(usize::try_from(self.archive_len - offset).unwrap_or(usize::MAX));
            return self.archive.read_at(&mut buf[..n], offset);
        }
        let i = self.parts.partition_point(|part| part.start <= offset);
        let Some(index) = i.checked_sub(1) else {
            return Ok(0);
        };
        let Some(part) = self.parts.get(index) else {
            return Ok(0);
        };
        let end = part.start.saturating_add(part.len);
        if offset >= end {
            return Ok(0);
        }
        let n = buf
            .len()
            .min(usize::try_from(end - offset).unwrap_or(usize::MAX));
        self.read_part(index, &mut buf[..n], offset - part.start)
    }

    fn source_len(&self) -> io::Result<u64> {
        Ok(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(joined: &Joined<'_>) -> io::Result<Vec<u8>> {
        let mut whole = Vec::new();
        let mut at = 0;
        loop {
            let mut piece = [0u8; 4];
            let n = joined.read_at(&mut piece, at)?;
            if n == 0 {
                return Ok(whole);
            }
            whole.extend_from_slice(&piece[..n]);
            at += n as u64;
        }
    }

    #[test]
    fn reads_run_across_the_archive_and_the_files_and_changes_are_refused() {
        let dir = ngi_tests::scratch::Scratch::new("joined");
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            let meta = std::fs::metadata(&path).unwrap();
            (path, meta)
        };
        let archive_path = write("archive", b"ARCHIVE").0;
        let archive = File::open(archive_path).unwrap();
        let mut joined = Joined::new(&archive).unwrap();
        let (a, meta_a) = write("a", b"first");
        assert_eq!(joined.push(a.clone(), &meta_a), 7);
        let (b, meta_b) = write("b", b"");
        assert_eq!(joined.push(b, &meta_b), 12);
        let (c, meta_c) = write("c", b"xyz");
        assert_eq!(joined.push(c.clone(), &meta_c), 12);
        assert_eq!(joined.source_len().unwrap(), 15);
        assert_eq!(read_all(&joined).unwrap(), b"ARCHIVEfirstxyz");
        assert_eq!(joined.read_at(&mut [0; 4], 99).unwrap(), 0);

        // Longer, shorter, or another file at the path: an error naming it.
        for bytes in [&b"xyzw"[..], b"xy"] {
            std::fs::write(&c, bytes).unwrap();
            let e = read_all(&joined).unwrap_err();
            assert!(e.to_string().contains("changed while it was added"), "{e}");
            assert!(e.to_string().contains(&c.shown().to_string()), "{e}");
        }
        std::fs::write(&c, b"xyz").unwrap();
        assert_eq!(read_all(&joined).unwrap(), b"ARCHIVEfirstxyz", "as it was");
        // Another file at `a`'s path (the one open now is `c`), made before the old one
        // goes, so that it cannot take its inode.
        std::fs::write(dir.join("a.new"), b"first").unwrap();
        std::fs::rename(dir.join("a.new"), &a).unwrap();
        let e = read_all(&joined).unwrap_err();
        assert!(e.to_string().contains("changed while it was added"), "{e}");
    }
}
