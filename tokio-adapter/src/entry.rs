//! One entry of an [`Archive`](crate::Archive), read: as `AsyncRead + AsyncBufRead`
//! ([`EntryReader`]) or as a `Stream` of `Bytes` ([`EntryStream`]).

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::{BufMut, Bytes};
use ngi_core::codec::BoxedDecoder;
use ngi_core::io::StreamDecoder;
use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};

use crate::packed::Packed;
use crate::poll::{Decoding, Direct};

/// The most memory a chunk reserves before bytes arrive to fill it: a size a file
/// claims is not taken on trust (a 68-byte file can claim an entry of 4 GiB).
pub(crate) const RESERVE_AHEAD: usize = 1 << 20;

/// The chunk length of an [`EntryStream`] unless [`EntryStream::with_chunk_len`] says
/// otherwise: 64 KiB (4 KiB chunks cap throughput, tokio PR #4086).
pub const DEFAULT_STREAM_CHUNK: usize = 64 * 1024;

/// The most decoded bytes one `poll_next` of an [`EntryStream`] adds to its chunk: a
/// default chunk in one poll, a longer one over several.
const POLL_CHUNK: usize = DEFAULT_STREAM_CHUNK;

/// The decoded bytes of one entry, from [`Archive::reader`](crate::Archive::reader):
/// tokio `AsyncRead + AsyncBufRead` (and futures-io's, with feature `futures-io`), owned:
/// `Send + Sync + Unpin + 'static`.
///
/// It reads only its entry's packed range. The input ending before the entry's decoded
/// size is an error of kind `UnexpectedEof`, corrupt data `InvalidData`; either has the
/// core's [`StreamError`](ngi_core::io::StreamError) as its inner error (`get_ref`), which
/// names the entry and the file offset of the fault, and carries the codec's error in its
/// `Decode` variant (and its text). A read of the file that fails is an error of the
/// read's kind with a [`ReadError`](crate::ReadError) inside, naming the entry and the
/// offset.
/// Errors stick: every later read gives the same one. A read returns `Ok` with nothing
/// only at the end of the entry or for an empty buffer.
///
/// # Memory
/// The decoder of the entry's method, on the heap (32 bytes stored or XOR, 4 152 LZSS,
/// 9 792 LZHUF, 42 648 Deflate), plus, for an archive opened from a file, up to two
/// buffers of the archive's read chunk (the chunk being decoded and the next;
/// [`DEFAULT_READ_CHUNK`](crate::DEFAULT_READ_CHUNK), 24 KiB; none for an archive in
/// memory), plus a buffer of up to 16 KiB of decoded bytes once
/// [`poll_fill_buf`](AsyncBufRead::poll_fill_buf) is used. The reader itself is 328
/// bytes on 64-bit targets. Nothing depends on the entry's size. Measured (1000 readers open at once,
/// each having read a byte, heap counted over all threads), for a file with every read
/// on the blocking pool (two buffers) / in memory: LZSS 53 888 / 4 480 bytes per reader,
/// LZHUF 59 528 / 10 120, Deflate 92 384 / 42 976.
///
/// # Work per poll
/// A poll decodes at most 32 KiB (a reader that starts inside a packed entry decodes its
/// way there at most 32 KiB a poll too), offers the codec at most 64 KiB of packed bytes
/// per call, and spends at least one unit of tokio's coop budget (the blocking pool's join
/// handle spends its own). A reader also yields once its polls since it last waited (for
/// the file, the budget or such a yield) have decoded for a millisecond, whatever the codec
/// and whether or not they produced bytes: one unit a poll alone let a slow codec (LZHUF,
/// 45 MiB/s on incompressible bytes) run 90 ms between yields, and polls that only parse
/// empty Deflate blocks held a runtime's timers for 180 ms. So decoding a large entry from
/// memory lets the other tasks of its runtime run, and its timers fire, under any executor
/// (on tokio the yield waits for the worker to look at its timers and I/O, as `yield_now`'s
/// does). An [`EntryStream`] decodes at most 64 KiB a `poll_next`, whatever its chunk
/// length. (So a read inside a tokio task must be awaited, not run by another executor's
/// `block_on`, which would wait for ever: see the [crate](crate) docs.)
///
/// # Cancel safety
/// Reads may be dropped at any point (`select!`, timeouts): every byte decoded is either
/// returned or kept in the reader for the next read. Dropping the reader frees it at
/// once; a positional read it had on the blocking pool finishes there and its buffer is
/// freed with it. The archive is not affected.
#[derive(Debug)]
pub struct EntryReader {
    index: usize,
    /// The entry's bytes before the first the decoder produces (a stored entry read from
    /// an offset).
    base: u64,
    decoding: Decoding<Packed>,
}

impl EntryReader {
    pub(crate) fn new(index: usize, packed: Packed, core: StreamDecoder<BoxedDecoder>) -> Self {
        EntryReader {
            index,
            base: 0,
            decoding: Decoding::new(packed, core),
        }
    }

    /// The same reader, whose decoder starts `base` bytes into the entry.
    pub(crate) fn starting_at(mut self, base: u64) -> Self {
        self.base = base;
        self
    }

    /// The same reader, throwing away the first `count` bytes it decodes.
    pub(crate) fn skipping(mut self, count: u64) -> Self {
        self.decoding = self.decoding.skipping(count);
        self
    }

    /// The entry's index in its archive.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The entry's decoded size (for a reader from
    /// [`reader_from`](crate::Archive::reader_from), more than it gives in all).
    pub fn unpacked_size(&self) -> u64 {
        self.base
            .saturating_add(self.decoding.core().expected_len())
    }

    /// Decoded bytes still to come.
    pub fn remaining(&self) -> u64 {
        self.decoding.remaining()
    }

    /// The decoder, for what it has done: bytes produced and packed bytes consumed, its
    /// fault if it has one.
    pub fn decoder(&self) -> &StreamDecoder<BoxedDecoder> {
        self.decoding.core()
    }

    #[cfg(feature = "futures-io")]
    pub(crate) fn decoding_mut(&mut self) -> &mut Decoding<Packed> {
        &mut self.decoding
    }
}

impl AsyncRead for EntryReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_mut().decoding.poll_read_buf::<Direct>(cx, buf)
    }
}

impl AsyncBufRead for EntryReader {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().decoding.poll_fill_buf::<Direct>(cx)
    }

    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().decoding.consume(amount);
    }
}

/// The decoded bytes of one entry as a `Stream` of [`Bytes`], from
/// [`Archive::stream`](crate::Archive::stream): chunks of
/// [`DEFAULT_STREAM_CHUNK`] bytes (the last may be shorter; an empty entry gives none),
/// each its own allocation, so a chunk held by a consumer pins nothing else.
/// `Send + Sync + Unpin + 'static`.
///
/// A fault ends the stream with one `Err` (the [`EntryReader`]'s error), after the chunk
/// of the bytes handed out before it: those of the decoder's calls before the failing
/// one (a call that fails gives none of its output, so a Deflate stream decoded in few
/// calls may end with fewer bytes than its error counts as produced). A source's
/// transient error (`Interrupted`, `WouldBlock`), which a reader passes on for its
/// caller to retry, ends the stream too: a stream cannot be told to try again.
///
/// Any [`EntryReader`] becomes a stream with [`From`]: one from
/// [`Archive::reader_from`](crate::Archive::reader_from) streams an entry from an offset
/// (an HTTP range, a resumed download), and one partly read streams what it has not given
/// yet, the bytes a `poll_fill_buf` holds first.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use futures::TryStreamExt;
/// use ngi_tokio::EntryStream;
///
/// let archive = ngi_tokio::Archive::open("../samples/sample.nres").await?;
/// let index = archive.find(b"readme.txt").expect("the sample has it");
/// let whole = archive.read(index).await?;
/// let tail = EntryStream::from(archive.reader_from(index, 4)?).with_chunk_len(16);
/// let chunks: Vec<_> = tail.try_collect().await?;
/// assert_eq!(chunks.concat(), whole[4..]);
/// # Ok(())
/// # }
/// ```
///
/// # Cancel safety
/// `poll_next` may be abandoned at any point: a partly filled chunk stays in the stream
/// and is completed by the next poll. Dropping the stream frees it (as dropping its
/// reader does).
pub struct EntryStream {
    reader: EntryReader,
    chunk_len: usize,
    chunk: Vec<u8>,
    /// The length the chunk being filled is to have.
    target: usize,
    /// The last item (the end, or an error) has been given.
    finished: bool,
    /// An error that came while the chunk held bytes: the stream's next item, after them.
    /// A sticky one would come again from the reader, but a transient one would not, and
    /// the stream would go on past it.
    deferred: Option<io::Error>,
}

impl EntryStream {
    pub(crate) fn new(reader: EntryReader) -> EntryStream {
        EntryStream {
            reader,
            chunk_len: DEFAULT_STREAM_CHUNK,
            chunk: Vec::new(),
            target: 0,
            finished: false,
            deferred: None,
        }
    }

    /// The same stream giving chunks of `len` bytes (at least 1) from the next chunk on;
    /// `usize::MAX` gives the entry as one chunk. A chunk reserves at most 1 MiB before
    /// any byte arrives, whatever `len` and the size the entry claims, then grows with the
    /// bytes.
    #[must_use]
    pub fn with_chunk_len(mut self, len: usize) -> EntryStream {
        self.chunk_len = len.max(1);
        self
    }

    /// The length of the chunks it gives.
    pub fn chunk_len(&self) -> usize {
        self.chunk_len
    }

    /// The reader under it.
    pub fn reader(&self) -> &EntryReader {
        &self.reader
    }

    /// The reader under it, with the bytes of a partly filled chunk. An error the stream
    /// held for its next item is the reader's again if it sticks; a transient one is gone,
    /// and the reader tries again.
    pub fn into_parts(self) -> (EntryReader, Bytes) {
        (self.reader, Bytes::from(self.chunk))
    }

    fn take_chunk(&mut self) -> Bytes {
        self.target = 0;
        Bytes::from(std::mem::take(&mut self.chunk))
    }
}

impl From<EntryReader> for EntryStream {
    /// The reader's bytes still to come, in chunks of
    /// [`DEFAULT_STREAM_CHUNK`] bytes.
    fn from(reader: EntryReader) -> EntryStream {
        EntryStream::new(reader)
    }
}

impl std::fmt::Debug for EntryStream {
    // The reader and the chunk's length, not its bytes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryStream")
            .field("reader", &self.reader)
            .field("chunk_len", &self.chunk_len)
            .field("filled", &self.chunk.len())
            .field("finished", &self.finished)
            .field("deferred", &self.deferred)
            .finish()
    }
}

impl futures_core::FusedStream for EntryStream {
    fn is_terminated(&self) -> bool {
        self.finished && self.chunk.is_empty()
    }
}

impl futures_core::Stream for EntryStream {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.finished {
            return Poll::Ready(None);
        }
        if let Some(e) = this.deferred.take() {
            this.finished = true;
            return Poll::Ready(Some(Err(e)));
        }
        if this.target == 0 {
            // No larger than what is left of the entry (at least 1 to see its end).
            let left = this.reader.decoding.remaining();
            this.target = left.clamp(1, this.chunk_len as u64) as usize;
            // `left` is the size the file claims: reserved as bytes arrive, not on its word.
            this.chunk = Vec::with_capacity(this.target.min(RESERVE_AHEAD));
        }
        // Longer chunks take several polls: the loop alone would decode a whole entry
        // given as one chunk in one poll outside a tokio task, whose coop budget is what
        // stops it inside one.
        let mut allowance = POLL_CHUNK;
        while this.chunk.len() < this.target {
            if allowance == 0 {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            // Grown when full, by as much as it holds and never past the target, as
            // `Archive::read` grows its buffer: left to `BytesMut`, a full chunk grew by
            // doubling, and a 3 MiB chunk held 4 MiB, one of 129 MiB 256 MiB. A `Vec`
            // grows in place where the allocator can (a large block is remapped, not
            // copied): a new buffer for each step held the old one beside it, and a
            // 65 MiB chunk peaked at 128 MiB resident.
            if this.chunk.len() == this.chunk.capacity() {
                let held = this.chunk.len();
                this.chunk
                    .reserve_exact(held.max(RESERVE_AHEAD).min(this.target - held));
            }
            let room = (this.target - this.chunk.len()).min(allowance);
            let mut limited = (&mut this.chunk).limit(room);
            let read = ready!(tokio_util::io::poll_read_buf(
                Pin::new(&mut this.reader),
                cx,
                &mut limited
            ));
            match read {
                Ok(0) => {
                    this.finished = true;
                    break;
                }
                Ok(n) => allowance = allowance.saturating_sub(n),
                // The bytes before the fault first; the error comes next.
                Err(e) if !this.chunk.is_empty() => {
                    this.deferred = Some(e);
                    return Poll::Ready(Some(Ok(this.take_chunk())));
                }
                Err(e) => {
                    this.finished = true;
                    return Poll::Ready(Some(Err(e)));
                }
            }
        }
        if this.chunk.is_empty() {
            return Poll::Ready(None);
        }
        Poll::Ready(Some(Ok(this.take_chunk())))
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;
    use crate::packed::Packed;
    use crate::{Archive, OpenOptions};

    /// A transient error (`WouldBlock`, which a FUSE file system may give a read) that
    /// comes while a chunk holds bytes ends the stream after that chunk, as one before
    /// any byte does. It was dropped, and the stream went on as if nothing had happened.
    #[tokio::test]
    async fn a_transient_error_after_some_bytes_ends_the_stream() {
        let bytes: Vec<u8> = (0..1500u32).map(|i| (i * 7 % 251) as u8).collect();
        let path = std::env::temp_dir().join(format!("ngi-tokio-entry-{}", std::process::id()));
        std::fs::write(&path, &bytes).unwrap();
        let opened = Archive::open_with(&path, OpenOptions::DEFAULT.with_raw(true)).await;
        std::fs::remove_file(&path).unwrap();
        let archive = opened
            .unwrap()
            .with_read_chunk(512)
            .with_cached_reads_inline(false);
        let mut reader = archive.reader(0).unwrap();
        let Packed::File(range) = reader.decoding.input_mut() else {
            panic!("an archive opened from a file reads it");
        };
        // The second read of the file, made while the first 512 bytes are decoded.
        range.fail_read = Some((512, io::ErrorKind::WouldBlock));
        let mut stream = EntryStream::new(reader).with_chunk_len(1000);
        let first = stream.next().await.unwrap().unwrap();
        assert_eq!(first[..], bytes[..512]);
        let e = stream.next().await.unwrap().unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        assert!(stream.next().await.is_none());
    }
}
