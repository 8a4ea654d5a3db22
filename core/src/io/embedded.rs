//! `embedded_io` (feature `embedded-io`): the decoding reader over an
//! `embedded_io::BufRead`, an entry's packed range of a `Read + Seek` source, and the
//! driver that opens a catalog from one. Nothing here allocates.

use core::fmt;

use embedded_io::{BufRead, ErrorKind, ErrorType, Read, Seek, SeekFrom};

use super::reader::{Fault, Source};
use super::span::Span;
use super::{DecodeReader, OpenError, StreamError};
use crate::archive::{Catalog, EntryStore, Error, Opener};
use crate::codec::Decoder;
use crate::options::OpenOptions;

/// Why a [`DecodeReader`] over an `embedded_io` source failed: the stream (sticky), or the
/// source (its error `E`, passed through).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError<E> {
    /// The packed stream is truncated or corrupt; names the entry and the file offset.
    Stream(StreamError),
    /// The source failed.
    Source(E),
}

impl<E: fmt::Display> fmt::Display for ReadError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Stream(e) => e.fmt(f),
            ReadError::Source(e) => e.fmt(f),
        }
    }
}

impl<E: core::error::Error + 'static> core::error::Error for ReadError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            ReadError::Stream(e) => core::error::Error::source(e),
            ReadError::Source(e) => e.source(),
        }
    }
}

impl<E: embedded_io::Error + 'static> embedded_io::Error for ReadError<E> {
    /// `InvalidData` for a bad stream (truncated ones included: `embedded_io` has no
    /// `UnexpectedEof`; [`StreamError::is_truncated`] tells them apart), the source's kind
    /// otherwise.
    fn kind(&self) -> ErrorKind {
        match self {
            ReadError::Stream(_) => ErrorKind::InvalidData,
            ReadError::Source(e) => e.kind(),
        }
    }
}

/// The packed source as `embedded_io` sees it.
struct Embedded;

impl<R: BufRead> Source<R> for Embedded {
    type Error = R::Error;
    fn fill(inner: &mut R) -> Result<&[u8], R::Error> {
        inner.fill_buf()
    }
    fn consume(inner: &mut R, amount: usize) {
        inner.consume(amount);
    }
}

fn to_read_error<E>(fault: Fault<E>) -> ReadError<E> {
    match fault {
        Fault::Stream(e) => ReadError::Stream(e),
        Fault::Source(e) => ReadError::Source(e),
    }
}

impl<R: BufRead, const N: usize, D> ErrorType for DecodeReader<R, N, D>
where
    R::Error: 'static,
{
    type Error = ReadError<R::Error>;
}

/// Decoded bytes; see [`DecodeReader`] for the rules.
impl<R: BufRead, const N: usize, D: Decoder> Read for DecodeReader<R, N, D>
where
    R::Error: 'static,
{
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        self.read_from::<Embedded>(buf).map_err(to_read_error)
    }
}

/// Decoded bytes through the reader's own `N`-byte buffer.
impl<R: BufRead, const N: usize, D: Decoder> BufRead for DecodeReader<R, N, D>
where
    R::Error: 'static,
{
    fn fill_buf(&mut self) -> Result<&[u8], Self::Error> {
        self.fill_from::<Embedded>().map_err(to_read_error)
    }
    fn consume(&mut self, amount: usize) {
        self.consume_buffered(amount);
    }
}

/// Bytes the opening driver reads at a time, from a buffer on the stack.
const OPEN_CHUNK: usize = 256;

/// Opens the archive in `source` (an `embedded_io::Read + Seek`: a flash region, a file of
/// an embedded file system) as a catalog with its entries in `store`, reading only the
/// header, the directory or table and the trailer ([`Opener`]) through a 256-byte stack
/// buffer. The length is taken by seeking to the end.
///
/// ```
/// use ngi_core::archive::{Entry, Slots};
/// use ngi_core::io::embedded::{open_seekable, SliceSource};
/// use ngi_core::OpenOptions;
///
/// let mut file = [0u8; 16];
/// file[..4].copy_from_slice(b"NRes");
/// file[4..8].copy_from_slice(&0x100u32.to_le_bytes());
/// file[12..16].copy_from_slice(&16u32.to_le_bytes());
/// let mut storage = [Entry::EMPTY; 4];
/// let catalog = open_seekable(&mut SliceSource::new(&file), Slots::new(&mut storage), OpenOptions::DEFAULT)?;
/// assert!(catalog.is_empty());
/// # Ok::<(), ngi_core::io::OpenError<core::convert::Infallible>>(())
/// ```
///
/// # Errors
///
/// * [`OpenError::Source`] when seeking or reading `source` fails (a read that fails
///   with [`ErrorKind::Interrupted`] is made again).
/// * [`OpenError::Eof`] when a read gives nothing inside the length the seek to the end
///   found.
/// * [`OpenError::Archive`] with the opener's error ([`Opener::feed`]): an unknown format,
///   a header that breaks its format's rules, an entry count above the limit, a store too
///   small.
pub fn open_seekable<R: Read + Seek, S: EntryStore>(
    source: &mut R,
    store: S,
    options: OpenOptions,
) -> Result<Catalog<S>, OpenError<R::Error>> {
    let file_len = source.seek(SeekFrom::End(0)).map_err(OpenError::Source)?;
    let mut opener = Opener::new(file_len, store, options);
    let mut buffer = [0u8; OPEN_CHUNK];
    let mut position = file_len;
    while let Some(range) = opener.need()? {
        if position != range.start {
            position = source
                .seek(SeekFrom::Start(range.start))
                .map_err(OpenError::Source)?;
        }
        let len = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
        let piece = buffer.get_mut(..len.min(OPEN_CHUNK)).unwrap_or_default();
        // An interrupted read is made again, as the std driver does (`open_at`).
        let n = loop {
            match source.read(piece) {
                Err(e) if embedded_io::Error::kind(&e) == ErrorKind::Interrupted => continue,
                read => break read.map_err(OpenError::Source)?.min(piece.len()),
            }
        };
        if n == 0 {
            return Err(OpenError::Eof {
                offset: range.start,
            });
        }
        position = position.saturating_add(n as u64);
        opener.feed(piece.get(..n).unwrap_or_default())?;
    }
    Ok(opener.finish()?)
}

/// The packed range of one entry of an `embedded_io::Read + Seek` source as an
/// `embedded_io::BufRead`, through an `N`-byte buffer of its own: it seeks before each
/// refill (so sources shared by several readers in turn stay right) and never reads a
/// byte outside the range. A source shorter than the range ends early, which the decoder
/// above it reports as truncation.
pub struct SeekRange<R, const N: usize = 512> {
    source: R,
    span: Span,
    buffer: [u8; N],
}

impl<R: fmt::Debug, const N: usize> fmt::Debug for SeekRange<R, N> {
    // Where it is in the range, not the bytes it holds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeekRange")
            .field("source", &self.source)
            .field("span", &self.span)
            .finish_non_exhaustive()
    }
}

impl<R: Read + Seek, const N: usize> SeekRange<R, N> {
    /// A reader of `range` of `source`.
    pub fn new(source: R, range: core::ops::Range<u64>) -> Self {
        const { assert!(N > 0, "a SeekRange's buffer holds at least one byte") };
        SeekRange {
            source,
            span: Span::new(range),
            buffer: [0; N],
        }
    }

    /// The source back.
    pub fn into_inner(self) -> R {
        self.source
    }
}

impl<R: Read + Seek, const N: usize> ErrorType for SeekRange<R, N> {
    type Error = R::Error;
}

impl<R: Read + Seek, const N: usize> BufRead for SeekRange<R, N> {
    fn fill_buf(&mut self) -> Result<&[u8], R::Error> {
        if let Some((at, want)) = self.span.refill(N) {
            self.source.seek(SeekFrom::Start(at))?;
            let piece = self.buffer.get_mut(..want).unwrap_or_default();
            let n = self.source.read(piece)?.min(want);
            self.span.refilled(n);
        }
        Ok(self.buffer.get(self.span.buffered()).unwrap_or_default())
    }

    fn consume(&mut self, amount: usize) {
        self.span.consume(amount);
    }
}

impl<R: Read + Seek, const N: usize> Read for SeekRange<R, N> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, R::Error> {
        // `embedded_io::Read`: an empty read returns at once, touching no source.
        if buf.is_empty() {
            return Ok(0);
        }
        let available = self.fill_buf()?;
        let n = available.len().min(buf.len());
        buf.iter_mut().zip(available).for_each(|(d, &s)| *d = s);
        self.consume(n);
        Ok(n)
    }
}

/// An entry of a catalog read from an `embedded_io::Read + Seek` source and decoded:
/// `embedded_io::Read + BufRead`, fixed state, no allocation ([`Catalog::seek_reader`]).
pub type SeekEntryReader<R> = DecodeReader<SeekRange<R>>;

impl<S: EntryStore> Catalog<S> {
    /// Entry `index` of `source` (the file this catalog was opened from, positioned
    /// anywhere: the reader seeks), decoded as it is read, never outside the entry's
    /// packed range; errors name the entry and the file offset. Pass `&mut source` to keep
    /// it.
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s. The source is not read here: its errors,
    /// and the stream's, come from the reader.
    pub fn seek_reader<R: Read + Seek>(
        &self,
        index: usize,
        source: R,
    ) -> Result<SeekEntryReader<R>, Error> {
        let (range, core) = self.entry_stream(index)?;
        Ok(DecodeReader::from_stream(
            SeekRange::new(source, range),
            core,
        ))
    }
}

/// A byte slice as an `embedded_io::Read + Seek` source (a memory-mapped flash region,
/// say), for hosts and tests: `&[u8]` is `Read` in `embedded_io` but not `Seek`.
///
/// It never fails (its error type is `Infallible`): a seek before the start goes to 0,
/// where `embedded_io` would have an error, and one past the end reads nothing.
#[derive(Debug, Clone)]
pub struct SliceSource<'a> {
    bytes: &'a [u8],
    position: u64,
}

impl<'a> SliceSource<'a> {
    /// A source over `bytes`, positioned at 0.
    pub fn new(bytes: &'a [u8]) -> Self {
        SliceSource { bytes, position: 0 }
    }
}

impl ErrorType for SliceSource<'_> {
    type Error = core::convert::Infallible;
}

impl Read for SliceSource<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let start = usize::try_from(self.position).unwrap_or(usize::MAX);
        let rest = self.bytes.get(start..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf.iter_mut().zip(rest).for_each(|(d, &s)| *d = s);
        self.position += n as u64;
        Ok(n)
    }
}

impl Seek for SliceSource<'_> {
    fn seek(&mut self, pos: SeekFrom) -> Result<u64, Self::Error> {
        let len = self.bytes.len() as u64;
        self.position = match pos {
            SeekFrom::Start(at) => at,
            SeekFrom::End(delta) => len.saturating_add_signed(delta),
            SeekFrom::Current(delta) => self.position.saturating_add_signed(delta),
        };
        Ok(self.position)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{Entry, Slots};

    /// An error that asks for the call to be made again.
    #[derive(Debug)]
    struct Hiccup;

    impl fmt::Display for Hiccup {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("interrupted")
        }
    }

    impl core::error::Error for Hiccup {}

    impl embedded_io::Error for Hiccup {
        fn kind(&self) -> ErrorKind {
            ErrorKind::Interrupted
        }
    }

    /// A slice whose every other read is interrupted; it counts the calls it gets.
    struct Flaky<'a> {
        inner: SliceSource<'a>,
        calls: usize,
    }

    impl ErrorType for Flaky<'_> {
        type Error = Hiccup;
    }

    impl Read for Flaky<'_> {
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, Hiccup> {
            self.calls += 1;
            if self.calls % 2 == 1 {
                return Err(Hiccup);
            }
            self.inner.read(buf).map_err(|never| match never {})
        }
    }

    impl Seek for Flaky<'_> {
        fn seek(&mut self, pos: SeekFrom) -> Result<u64, Hiccup> {
            self.calls += 1;
            self.inner.seek(pos).map_err(|never| match never {})
        }
    }

    /// `open_seekable` gave up on the first interrupted read, where `open_at` reads again;
    /// and an empty read of a range reader sought and read its source.
    #[test]
    fn interrupted_reads_are_made_again_and_an_empty_read_touches_nothing() {
        let mut file = [0u8; 16];
        file[..4].copy_from_slice(b"NRes");
        file[4..8].copy_from_slice(&0x100u32.to_le_bytes());
        file[12..16].copy_from_slice(&16u32.to_le_bytes());
        let mut storage = [Entry::EMPTY; 2];
        let mut flaky = Flaky {
            inner: SliceSource::new(&file),
            calls: 0,
        };
        let store = Slots::new(&mut storage);
        let catalog = open_seekable(&mut flaky, store, OpenOptions::DEFAULT).unwrap();
        assert!(catalog.is_empty());
        assert!(flaky.calls >= 3, "{} calls", flaky.calls);

        let calls = flaky.calls;
        let mut range: SeekRange<_, 8> = SeekRange::new(&mut flaky, 0..16);
        assert_eq!(range.read(&mut []).unwrap(), 0);
        assert_eq!(flaky.calls, calls);
    }
}
