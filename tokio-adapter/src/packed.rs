//! An entry's packed bytes as the decoder's input: a slice of the archive's `Bytes`
//! (zero-copy), or its range of the file read by positional reads on tokio's blocking
//! pool, one bounded chunk at a time, never past the range.

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

use crate::error::join_error;
use crate::poll::{Direct, Input};

/// One entry's packed bytes.
#[derive(Debug)]
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
            Packed::File(range) => range.pos = range.pos.saturating_add(amount),
        }
    }
}

/// A range of a file, read a chunk at a time on the blocking pool.
#[derive(Debug)]
pub(crate) struct FileRange {
    file: Arc<File>,
    runtime: Handle,
    /// The file offset of the next read.
    next: u64,
    /// The end of the range: nothing at or past it is ever read.
    end: u64,
    chunk: usize,
    /// The last chunk read; `buffer[pos..]` is not yet used. Empty (not even allocated)
    /// until the first read, and away on the blocking pool while one is in flight.
    buffer: Vec<u8>,
    pos: usize,
    /// The read in flight. Dropping it detaches the task: the read finishes and its
    /// buffer is freed with it.
    reading: Option<JoinHandle<(Vec<u8>, io::Result<usize>)>>,
}

impl FileRange {
    pub(crate) fn new(file: Arc<File>, runtime: Handle, range: Range<u64>, chunk: usize) -> Self {
        FileRange {
            file,
            runtime,
            next: range.start,
            end: range.end,
            chunk: chunk.max(1),
            buffer: Vec::new(),
            pos: 0,
            reading: None,
        }
    }

    fn poll_input(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        loop {
            if self.pos < self.buffer.len() {
                return Poll::Ready(Ok(&self.buffer[self.pos..]));
            }
            if let Some(reading) = &mut self.reading {
                let done = ready!(Pin::new(reading).poll(cx));
                self.reading = None;
                let (buffer, read) = done.map_err(join_error)?;
                (self.buffer, self.pos) = (buffer, 0);
                match read? {
                    // The file is shorter than when it was opened: the input ends here,
                    // and the decoder reports the stream as truncated.
                    0 => self.end = self.next,
                    n => self.next += n as u64,
                }
                continue;
            }
            if self.next >= self.end {
                return Poll::Ready(Ok(&[]));
            }
            let len = (self.end - self.next).min(self.chunk as u64) as usize;
            let mut buffer = std::mem::take(&mut self.buffer);
            buffer.clear();
            buffer.resize(len, 0);
            let (file, offset) = (Arc::clone(&self.file), self.next);
            self.reading = Some(self.runtime.spawn_blocking(move || {
                let read = read_up_to(&file, &mut buffer, offset);
                buffer.truncate(*read.as_ref().unwrap_or(&0));
                (buffer, read)
            }));
        }
    }
}

/// Fills `buf` from `offset` as far as the file goes.
fn read_up_to(file: &File, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read_at(&mut buf[filled..], offset + filled as u64) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}
