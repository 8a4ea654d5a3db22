//! An entry's packed bytes as the decoder's input: a slice of the archive's `Bytes`
//! (zero-copy), or its range of the file read by positional reads on tokio's blocking
//! pool, one bounded chunk at a time, never past the range.

use std::fmt;
use std::fs::File;
use std::future::Future;
use std::io;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use bytes::{Buf, Bytes};
use ngi_core::io::ReadAt;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use crate::error::{ReadError, join_error};
use crate::poll::{Direct, Input};

/// One entry's packed bytes.
pub(crate) enum Packed {
    /// What is left of them, in memory.
    Memory(Bytes),
    /// Read from the file.
    File(FileRange),
}

impl Input<Direct> for Packed {
    fn poll_input(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        match self {
            Packed::Memory(bytes) => Poll::Ready(Ok(bytes)),
            Packed::File(range) => range.poll_input(cx),
        }
    }

    fn consume_input(&mut self, amount: usize) {
        match self {
            Packed::Memory(bytes) => bytes.advance(amount.min(bytes.len())),
            Packed::File(range) => {
                range.pos = range.pos.saturating_add(amount).min(range.current.len());
            }
        }
    }
}

impl fmt::Debug for Packed {
    // Where the bytes are and how many are left, not the bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Packed::Memory(bytes) => f
                .debug_struct("Memory")
                .field("left", &bytes.len())
                .finish(),
            Packed::File(range) => f
                .debug_struct("File")
                .field("entry", &range.entry)
                .field("next", &range.next)
                .field("end", &range.end)
                .field("chunk", &range.chunk)
                .field(
                    "held",
                    &(range.current.len() - range.pos.min(range.current.len())),
                )
                .field("reading", &range.reading.is_some())
                .finish(),
        }
    }
}

/// A range of a file, read a chunk at a time on the blocking pool, one chunk ahead: while
/// the decoder works through one chunk, the next is being read, so a reader of a file in
/// the page cache seldom waits for the pool.
pub(crate) struct FileRange {
    /// The entry, for the errors.
    entry: u32,
    file: Arc<File>,
    runtime: Handle,
    /// The file offset the next read starts at.
    next: u64,
    /// The end of the range: nothing at or past it is ever read.
    end: u64,
    chunk: usize,
    /// The chunk the decoder is given; `current[pos..]` is not yet used. Empty (not even
    /// allocated) until the first read.
    current: Vec<u8>,
    pos: usize,
    /// The buffer of the next read, when none is in flight.
    spare: Vec<u8>,
    /// Try `cached::read` before the blocking pool.
    inline: bool,
    /// The last inline read found the chunk not cached: read ahead on the pool.
    cold: bool,
    /// The read in flight: its buffer, and whether it was filled (else the file ends
    /// inside the range). Dropping the reader cancels it if it has not started (the pool
    /// then drops it, and its buffer, without reading), else detaches it: the read
    /// finishes and its buffer is freed with it.
    reading: Option<JoinHandle<(Vec<u8>, io::Result<bool>)>>,
    /// Where the read in flight starts, for its error.
    reading_at: u64,
    /// Tests: the read that starts at this offset fails once, with this kind.
    #[cfg(test)]
    pub(crate) fail_read: Option<(u64, io::ErrorKind)>,
}

impl Drop for FileRange {
    fn drop(&mut self) {
        // Readers dropped while the blocking pool is busy (clients that went away) would
        // otherwise each still cost the pool a read nobody wants.
        if let Some(reading) = &self.reading {
            reading.abort();
        }
    }
}

impl FileRange {
    pub(crate) fn new(
        entry: u32,
        file: Arc<File>,
        runtime: Handle,
        range: Range<u64>,
        chunk: usize,
        inline: bool,
    ) -> Self {
        FileRange {
            inline,
            cold: false,
            entry,
            file,
            runtime,
            next: range.start,
            end: range.end,
            chunk: chunk.max(1),
            current: Vec::new(),
            pos: 0,
            spare: Vec::new(),
            reading: None,
            reading_at: range.start,
            #[cfg(test)]
            fail_read: None,
        }
    }

    fn poll_input(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        loop {
            if self.pos < self.current.len() {
                if self.cold {
                    // The file is not in the page cache: overlap the next read with this
                    // chunk's decoding.
                    self.read_ahead();
                }
                return Poll::Ready(Ok(&self.current[self.pos..]));
            }
            let Some(reading) = &mut self.reading else {
                if self.next >= self.end {
                    return Poll::Ready(Ok(&[]));
                }
                if !self.read_cached() {
                    self.read_ahead();
                }
                continue;
            };
            let done = ready!(Pin::new(reading).poll(cx));
            self.reading = None;
            // A failed read is as if it had not been made: the next poll reads the same
            // chunk again. Else a "try again" (`WouldBlock`, which the decoder passes on
            // without keeping) went on from the chunk after it, and the entry decoded
            // with a chunk missing.
            let (buffer, filled) = done.map_err(|e| {
                self.next = self.reading_at;
                ReadError {
                    entry: self.entry,
                    offset: self.reading_at,
                    error: join_error("a read on tokio's blocking pool", e),
                }
                .into_io()
            })?;
            let filled = match filled {
                Ok(filled) => filled,
                Err(e) => {
                    self.next = self.reading_at;
                    self.spare = buffer;
                    return Poll::Ready(Err(e));
                }
            };
            self.spare = std::mem::replace(&mut self.current, buffer);
            self.pos = 0;
            if !filled {
                // The file is shorter than when it was opened: the input ends after these
                // bytes, and the decoder reports the stream as truncated.
                self.end = self.next;
            }
        }
    }

    /// Reads the next chunk here and now if the page cache holds it (Linux: `preadv2`
    /// with `RWF_NOWAIT`, which fails with `EAGAIN` rather than wait for the disk), so a
    /// cached file costs no trip to the blocking pool. Whether it did; when not, the
    /// blocking pool reads it (and decides what a short file means).
    fn read_cached(&mut self) -> bool {
        if !self.inline {
            self.cold = true;
            return false;
        }
        let len = (self.end - self.next).min(self.chunk as u64) as usize;
        self.spare.clear();
        self.spare.resize(len, 0);
        match cached::read(&self.file, &mut self.spare, self.next) {
            Some(n) if n > 0 => {
                self.spare.truncate(n);
                std::mem::swap(&mut self.current, &mut self.spare);
                self.pos = 0;
                self.next += n as u64;
                self.cold = false;
                true
            }
            Some(_) => false,
            None => {
                // Not cached (or not supported here): the blocking pool, a chunk ahead.
                self.cold = true;
                false
            }
        }
    }

    /// Starts reading the next chunk into the spare buffer, unless a read is in flight or
    /// the range is all read.
    fn read_ahead(&mut self) {
        if self.reading.is_some() || self.next >= self.end {
            return;
        }
        let len = (self.end - self.next).min(self.chunk as u64) as usize;
        let mut buffer = std::mem::take(&mut self.spare);
        buffer.clear();
        buffer.resize(len, 0);
        let (file, offset) = (Arc::clone(&self.file), self.next);
        self.reading_at = offset;
        self.next += len as u64;
        let entry = self.entry;
        #[cfg(test)]
        if let Some((_, kind)) = self.fail_read.take_if(|(at, _)| *at == offset) {
            self.reading = Some(
                self.runtime
                    .spawn_blocking(move || (buffer, Err(kind.into()))),
            );
            return;
        }
        self.reading = Some(self.runtime.spawn_blocking(move || {
            let read = read_up_to(&file, &mut buffer, offset);
            buffer.truncate(*read.as_ref().unwrap_or(&0));
            let read = read.map_err(|(at, error)| {
                ReadError {
                    entry,
                    offset: at,
                    error,
                }
                .into_io()
            });
            (buffer, read.map(|n| n == len))
        }));
    }
}

/// Fills `buf` from `offset` as far as the file goes; a failure with the offset of the
/// read that failed.
fn read_up_to(file: &File, buf: &mut [u8], offset: u64) -> Result<usize, (u64, io::Error)> {
    let mut filled = 0;
    while filled < buf.len() {
        let at = offset + filled as u64;
        match file.read_at(&mut buf[filled..], at) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err((at, e)),
        }
    }
    Ok(filled)
}

/// Reads that the page cache answers without blocking, or refuses.
mod cached {
    use std::fs::File;

    /// Reads at `offset` into `buf` if that cannot block: `Some(bytes read)` (possibly
    /// fewer than asked, 0 at the end of the file), `None` when the data is not cached,
    /// the call is not supported, or it failed (the blocking read then reports it).
    #[cfg(target_os = "linux")]
    pub(super) fn read(file: &File, buf: &mut [u8], offset: u64) -> Option<usize> {
        use rustix::io::{ReadWriteFlags, preadv2};
        let mut slices = [std::io::IoSliceMut::new(buf)];
        preadv2(file, &mut slices, offset, ReadWriteFlags::NOWAIT).ok()
    }

    #[cfg(not(target_os = "linux"))]
    pub(super) fn read(_: &File, _: &mut [u8], _: u64) -> Option<usize> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next chunk `range` gives, copied out.
    async fn next_chunk(range: &mut FileRange) -> io::Result<Vec<u8>> {
        std::future::poll_fn(|cx| range.poll_input(cx).map_ok(<[u8]>::to_vec)).await
    }

    /// A read of the blocking pool that fails with `WouldBlock` (a FUSE file system may
    /// give one) is passed on, and the next poll reads the same chunk again: it went on
    /// from the chunk after, so the entry decoded with 16 bytes missing.
    #[tokio::test]
    async fn a_failed_read_is_made_again_at_the_same_offset() {
        let bytes: Vec<u8> = (0..64).collect();
        let path = std::env::temp_dir().join(format!("ngi-tokio-packed-{}", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let file = Arc::new(File::open(&path).unwrap());
        std::fs::remove_file(&path).unwrap();
        let runtime = Handle::current();
        let mut range = FileRange::new(0, file, runtime.clone(), 0..64, 16, false);
        assert_eq!(next_chunk(&mut range).await.unwrap(), &bytes[..16]);
        range.pos = 16;
        // The read of the second chunk, in flight, fails.
        range.reading_at = 16;
        range.next = 32;
        range.reading = Some(
            runtime.spawn_blocking(|| (vec![0xEE; 16], Err(io::ErrorKind::WouldBlock.into()))),
        );
        let e = next_chunk(&mut range).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        assert_eq!(next_chunk(&mut range).await.unwrap(), &bytes[16..32]);
    }
}
