//! The archive being edited with files joined after it, as one source for the save's
//! plan: an NRes payload `add` takes from a file is copied from that file as the archive
//! is written, never held in memory (a 3 GB file was read whole first, and aborted `add`
//! when the allocation failed).

use std::fs::File;
use std::io;

use ngi_core::io::ReadAt;

/// The archive's bytes, then each joined file's.
pub struct Joined<'a> {
    archive: &'a File,
    archive_len: u64,
    /// Each file with the offset it starts at in the source, in order.
    files: Vec<(u64, File)>,
    len: u64,
}

impl<'a> Joined<'a> {
    /// The archive alone.
    pub fn new(archive: &'a File) -> io::Result<Joined<'a>> {
        let archive_len = archive.metadata()?.len();
        Ok(Joined {
            archive,
            archive_len,
            files: Vec::new(),
            len: archive_len,
        })
    }

    /// The source's length: where the next file joined starts.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Joins `len` bytes of `file` after everything before it; returns their offset. A
    /// file shorter than `len` when it is read ends the source there, and the write of
    /// the plan fails.
    pub fn push(&mut self, file: File, len: u64) -> u64 {
        let start = self.len;
        self.files.push((start, file));
        self.len = start.saturating_add(len);
        start
    }
}

impl ReadAt for Joined<'_> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        if offset < self.archive_len {
            let n = buf
                .len()
                .min(usize::try_from(self.archive_len - offset).unwrap_or(usize::MAX));
            return self.archive.read_at(&mut buf[..n], offset);
        }
        let i = self.files.partition_point(|(start, _)| *start <= offset);
        let Some((start, file)) = i.checked_sub(1).and_then(|i| self.files.get(i)) else {
            return Ok(0);
        };
        let end = self.files.get(i).map_or(self.len, |(next, _)| *next);
        if offset >= end {
            return Ok(0);
        }
        let n = buf
            .len()
            .min(usize::try_from(end - offset).unwrap_or(usize::MAX));
        file.read_at(&mut buf[..n], offset - start)
    }

    fn source_len(&self) -> io::Result<u64> {
        Ok(self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_run_across_the_archive_and_the_files() {
        let dir = ngi_tests::scratch::Scratch::new("joined");
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).unwrap();
            File::open(path).unwrap()
        };
        let archive = write("archive", b"ARCHIVE");
        let mut joined = Joined::new(&archive).unwrap();
        assert_eq!(joined.push(write("a", b"first"), 5), 7);
        // Only the 2 bytes said are joined; the empty file adds nothing.
        assert_eq!(joined.push(write("b", b"second"), 2), 12);
        assert_eq!(joined.push(write("c", b""), 0), 14);
        assert_eq!(joined.push(write("d", b"xyz"), 3), 14);
        assert_eq!(joined.source_len().unwrap(), 17);
        let mut whole = Vec::new();
        let mut at = 0;
        loop {
            let mut piece = [0u8; 4];
            let n = joined.read_at(&mut piece, at).unwrap();
            if n == 0 {
                break;
            }
            whole.extend_from_slice(&piece[..n]);
            at += n as u64;
        }
        assert_eq!(whole, b"ARCHIVEfirstsexyz");
        assert_eq!(joined.read_at(&mut [0; 4], 99).unwrap(), 0);
    }
}
