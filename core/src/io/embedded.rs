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
/// source (its error `E`, passed through; the reader's
/// [`decoder`](DecodeReader::decoder) says which entry and where:
/// [`entry`](super::StreamDecoder::entry) and [`offset`](super::StreamDecoder::offset)).
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadError<E> {
    /// The packed stream is truncated or corrupt; names the entry and the file offset.
    Stream(StreamError),
    /// The source failed, with this error of its own, which says nothing of the entry:
    /// `reader.decoder().entry()` and `reader.decoder().offset()` do.
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
    pub const fn new(source: R, range: core::ops::Range<u64>) -> Self {
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

    /// Reads `range` of the same source from now on; buffered bytes are dropped.
    fn aim(&mut self, range: core::ops::Range<u64>) {
        self.span = Span::new(range);
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
///
/// Its state is some 47 KiB (most of it the Deflate decoder's window), and building one
/// by value moves it, so [`Catalog::seek_reader`] needs stack for more than one of them.
/// A program that reads entry after entry holds one reader (in a `static`, say: see
/// [`idle`](DecodeReader::idle)) and points it at each entry in turn with
/// [`Catalog::reuse_seek_reader`], which writes the new state in place.
pub type SeekEntryReader<R> = DecodeReader<SeekRange<R>>;

impl<R: Read + Seek> DecodeReader<SeekRange<R>> {
    /// A reader of nothing over `source` (it reads 0 bytes), to be pointed at entries with
    /// [`Catalog::reuse_seek_reader`]. A `const fn`, so that the reader can be built at
    /// compile time in a `static` rather than on the stack:
    ///
    /// ```
    /// use std::sync::Mutex;
    /// use embedded_io::Read;
    /// use ngi_core::archive::{Catalog, Entry, Slots};
    /// use ngi_core::io::embedded::{SeekEntryReader, SliceSource};
    /// use ngi_core::OpenOptions;
    ///
    /// static ARCHIVE: &[u8] = include_bytes!("../../../samples/sample.rsli");
    /// // On a device without std, a critical-section mutex does the same.
    /// static READER: Mutex<SeekEntryReader<SliceSource<'static>>> =
    ///     Mutex::new(SeekEntryReader::idle(SliceSource::new(ARCHIVE)));
    ///
    /// let mut slots = [Entry::EMPTY; 8];
    /// let catalog = Catalog::open_in(ARCHIVE, Slots::new(&mut slots), OpenOptions::DEFAULT)?;
    /// let mut reader = READER.lock().unwrap();
    /// let mut total = 0;
    /// for index in 0..catalog.len() {
    ///     catalog.reuse_seek_reader(index, &mut reader)?;
    ///     let mut chunk = [0u8; 64];
    ///     loop {
    ///         let n = reader.read(&mut chunk)?;
    ///         if n == 0 {
    ///             break;
    ///         }
    ///         total += n as u64;
    ///     }
    /// }
    /// let sizes: u64 = (0..catalog.len()).map(|i| catalog.entry(i).unwrap().size).sum();
    /// assert_eq!(total, sizes);
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub const fn idle(source: R) -> Self {
        DecodeReader::for_entry_stream(
            SeekRange::new(source, 0..0),
            crate::codec::Method::Stored,
            0,
            0,
            None,
            0,
        )
    }
}

impl<S: EntryStore> Catalog<S> {
    /// Entry `index` of `source` (the file this catalog was opened from, positioned
    /// anywhere: the reader seeks), decoded as it is read, never outside the entry's
    /// packed range; stream errors name the entry and the file offset, and the source's
    /// errors come as it gave them ([`ReadError::Source`], where the reader's decoder
    /// tells the entry and offset). Pass `&mut source` to keep it.
    ///
    /// The reader is returned by value, and its state is some 47 KiB: building it takes
    /// stack for more than one of them (135 to 145 KiB in a release build, measured on
    /// x86-64 and thumbv7em). To read entry after entry with little stack, hold one
    /// reader and point it at each with [`reuse_seek_reader`](Catalog::reuse_seek_reader)
    /// (about 10 KiB on thumbv7em).
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s. The source is not read here: its errors,
    /// and the stream's, come from the reader.
    #[inline(always)]
    pub fn seek_reader<R: Read + Seek>(
        &self,
        index: usize,
        source: R,
    ) -> Result<SeekEntryReader<R>, Error> {
        let (range, entry, method) = self.decoding_method(index)?;
        let (size, key, entry, start) = (entry.size, entry.key, entry.index, range.start);
        Ok(DecodeReader::for_entry_stream(
            SeekRange::new(source, range),
            method,
            size,
            key,
            Some(entry),
            start,
        ))
    }

    /// Points `reader` (a [`seek_reader`](Catalog::seek_reader) or an
    /// [`idle`](DecodeReader::idle) one, over the file this catalog was opened from) at
    /// entry `index`, as if it were `seek_reader(index, source)` of its source, but with
    /// the decoder's state written where the reader is: no new state is built on the
    /// stack and moved (see [`Unpacker::reset`](crate::codec::Unpacker::reset) for the
    /// little it takes when the method changes). What the reader had not read of its last
    /// entry is dropped, and so is a fault it stopped on.
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s; the reader is then left as it was.
    pub fn reuse_seek_reader<R: Read + Seek>(
        &self,
        index: usize,
        reader: &mut SeekEntryReader<R>,
    ) -> Result<(), Error> {
        let (range, entry, method) = self.decoding_method(index)?;
        let start = range.start;
        reader.get_mut().aim(range);
        reader.restart_with(|core| {
            core.restart(method, entry.size, entry.key, Some(entry.index), start);
        });
        Ok(())
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
    pub const fn new(bytes: &'a [u8]) -> Self {
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
