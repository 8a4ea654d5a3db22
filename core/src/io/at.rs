//! Positional sources (`std`): a file read at offsets, so one open file serves any number
//! of readers at once, and the drivers that open a catalog from one.

use std::io;
use std::sync::Arc;

use super::span::Span;
use super::{DecodeReader, OpenError};
use crate::archive::{Catalog, Entry, EntryStore, Error, Opener};
use crate::options::OpenOptions;

/// A source read at offsets without a cursor: `std::fs::File` (`FileExt::read_at` on
/// Unix, `seek_read` on Windows), a byte slice, and shared or borrowed forms of them
/// (`&T`, `Arc<T>`, `Box<T>`). Readers of one source never disturb each other.
pub trait ReadAt {
    /// Reads bytes at `offset` into `buf`, returning how many; 0 at or past the end.
    ///
    /// # Errors
    ///
    /// * Any I/O error of the source, as it is; the end of the source is not one.
    ///   [`io::ErrorKind::Interrupted`] asks for the read to be made again, as the
    ///   drivers here ([`open_at`], [`write_plan`](crate::edit::write_plan)) do.
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    /// The length of the source.
    ///
    /// # Errors
    ///
    /// * Any I/O error of the source in finding its length (a `File`'s metadata).
    fn source_len(&self) -> io::Result<u64>;
}

#[cfg(any(unix, windows))]
impl ReadAt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_at(self, buf, offset)
        }
        #[cfg(windows)]
        {
            std::os::windows::fs::FileExt::seek_read(self, buf, offset)
        }
    }
    fn source_len(&self) -> io::Result<u64> {
        Ok(self.metadata()?.len())
    }
}

impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        let rest = self.get(start..).unwrap_or_default();
        let n = rest.len().min(buf.len());
        buf.iter_mut().zip(rest).for_each(|(d, &s)| *d = s);
        Ok(n)
    }
    fn source_len(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }
}

impl ReadAt for std::vec::Vec<u8> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.as_slice().read_at(buf, offset)
    }
    fn source_len(&self) -> io::Result<u64> {
        Ok(self.len() as u64)
    }
}

impl<T: ReadAt + ?Sized> ReadAt for &T {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        (**self).read_at(buf, offset)
    }
    fn source_len(&self) -> io::Result<u64> {
        (**self).source_len()
    }
}

impl<T: ReadAt + ?Sized> ReadAt for Arc<T> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        (**self).read_at(buf, offset)
    }
    fn source_len(&self) -> io::Result<u64> {
        (**self).source_len()
    }
}

impl<T: ReadAt + ?Sized> ReadAt for std::boxed::Box<T> {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        (**self).read_at(buf, offset)
    }
    fn source_len(&self) -> io::Result<u64> {
        (**self).source_len()
    }
}

/// Bytes read at a time by the opening drivers: directories and tables are read in pieces
/// of this size, whatever their length.
const OPEN_CHUNK: usize = 16 * 1024;

/// Opens the archive in `source` as a catalog whose entries are in a new `Vec`, reading
/// only the header, the directory or table, and the trailer ([`Opener`]).
///
/// ```
/// use std::io::Read;
/// use ngi_core::OpenOptions;
///
/// let file = std::fs::File::open("../samples/sample.rsli")?;
/// let catalog = ngi_core::io::open_at(&file, OpenOptions::DEFAULT)?;
/// let index = catalog.find(b"readme.txt").expect("an entry of that name");
/// let mut text = String::new();
/// catalog.reader(index, &file)?.read_to_string(&mut text)?;
/// assert!(text.starts_with("ngi sample RsLi library"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// [`open_at_in`]'s, but for [`Error::StorageTooSmall`]: a `Vec` holds any count.
pub fn open_at<F: ReadAt + ?Sized>(
    source: &F,
    options: OpenOptions,
) -> Result<Catalog<std::vec::Vec<Entry>>, OpenError<io::Error>> {
    open_at_in(source, std::vec::Vec::new(), options)
}

/// [`open_at`] with the entries in `store`.
///
/// # Errors
///
/// * [`OpenError::Source`] when `source` fails to give its length or to read
///   ([`io::ErrorKind::Interrupted`] reads are made again).
/// * [`OpenError::Eof`] when a read gives nothing inside the length the source reported
///   (a file cut while it is read).
/// * [`OpenError::Archive`] with the opener's error ([`Opener::feed`]): an unknown format,
///   a header that breaks its format's rules, an entry count above the limit, a store too
///   small.
pub fn open_at_in<F: ReadAt + ?Sized, S: EntryStore>(
    source: &F,
    store: S,
    options: OpenOptions,
) -> Result<Catalog<S>, OpenError<io::Error>> {
    let file_len = source.source_len().map_err(OpenError::Source)?;
    let mut opener = Opener::new(file_len, store, options);
    let mut buffer = [0u8; OPEN_CHUNK];
    while let Some(range) = opener.need()? {
        let len = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
        let piece = buffer.get_mut(..len.min(OPEN_CHUNK)).unwrap_or_default();
        let n = loop {
            match source.read_at(piece, range.start) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                other => break other.map_err(OpenError::Source)?,
            }
        };
        if n == 0 {
            return Err(OpenError::Eof {
                offset: range.start,
            });
        }
        // A source that claims more than the piece holds gave the piece: taking its word
        // would feed nothing and ask for the same range forever.
        opener.feed(piece.get(..n.min(piece.len())).unwrap_or_default())?;
    }
    Ok(opener.finish()?)
}

/// The packed range of one entry of a positional source as a `std::io::BufRead`: it reads
/// `start..end` in chunks and never a byte outside. A source shorter than the range ends
/// early, which the decoder above it reports as truncation.
pub struct RangeReader<F> {
    source: F,
    span: Span,
    buffer: std::vec::Vec<u8>,
    chunk: usize,
}

impl<F: core::fmt::Debug> core::fmt::Debug for RangeReader<F> {
    // Where it is in the range, not the bytes it holds (up to a chunk, 64 KiB).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RangeReader")
            .field("source", &self.source)
            .field("span", &self.span)
            .field("chunk", &self.chunk)
            .finish_non_exhaustive()
    }
}

/// The chunk a [`RangeReader`] reads at a time by default: 64 KiB (4 KiB chunks cap
/// throughput).
pub const DEFAULT_CHUNK: usize = 64 * 1024;

/// The largest chunk a [`RangeReader`] reads at a time, whatever it is asked for: 8 MiB.
/// Its buffer is sized from the range, which an archive declares, so an unbounded chunk
/// would let a file's claim size an allocation.
pub const MAX_CHUNK: usize = 8 << 20;

impl<F: ReadAt> RangeReader<F> {
    /// A reader of `range` of `source`, [`DEFAULT_CHUNK`] bytes at a time.
    pub fn new(source: F, range: core::ops::Range<u64>) -> RangeReader<F> {
        RangeReader::with_chunk(source, range, DEFAULT_CHUNK)
    }

    /// A reader of `range` of `source`, `chunk` bytes at a time (at least 1, at most
    /// [`MAX_CHUNK`]). Its buffer is never larger than the range.
    pub fn with_chunk(source: F, range: core::ops::Range<u64>, chunk: usize) -> RangeReader<F> {
        RangeReader {
            source,
            span: Span::new(range),
            buffer: std::vec::Vec::new(),
            chunk: chunk.clamp(1, MAX_CHUNK),
        }
    }

    /// The bytes of the range not yet read from the source, plus those buffered.
    pub fn remaining(&self) -> u64 {
        self.span.remaining()
    }

    /// The source.
    pub fn get_ref(&self) -> &F {
        &self.source
    }

    /// The source back.
    pub fn into_inner(self) -> F {
        self.source
    }
}

impl<F: ReadAt> io::BufRead for RangeReader<F> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some((at, want)) = self.span.refill(self.chunk) {
            // Never larger than the range: a 10-byte entry costs 10 bytes of buffer.
            if self.buffer.len() < want {
                self.buffer.resize(want, 0);
            }
            let piece = self.buffer.get_mut(..want).unwrap_or_default();
            let n = self.source.read_at(piece, at)?.min(want);
            self.span.refilled(n);
        }
        Ok(self.buffer.get(self.span.buffered()).unwrap_or_default())
    }

    fn consume(&mut self, amount: usize) {
        self.span.consume(amount);
    }
}

impl<F: ReadAt> io::Read for RangeReader<F> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Nothing asked, nothing read from the source (a refill would be up to a chunk).
        if buf.is_empty() {
            return Ok(0);
        }
        let available = io::BufRead::fill_buf(self)?;
        let n = available.len().min(buf.len());
        buf.iter_mut().zip(available).for_each(|(d, &s)| *d = s);
        io::BufRead::consume(self, n);
        Ok(n)
    }
}

/// An entry of a catalog read from a positional source and decoded: `std::io::Read +
/// BufRead`, owned, never reading outside the entry's packed range
/// ([`Catalog::reader`]).
pub type EntryReader<F> = DecodeReader<RangeReader<F>>;

impl<S: EntryStore> Catalog<S> {
    /// Entry `index` of `source` (the file this catalog was opened from), decoded as it is
    /// read: the [`DecodeReader`] over the entry's packed range
    /// ([`packed_range`](Catalog::packed_range), checked here), its errors naming the
    /// entry and the file offset. Pass `&file` to borrow, an `Arc<File>` to share one open
    /// file among readers on many threads.
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s. The source is not read here: its errors,
    /// and the stream's, come from the reader.
    pub fn reader<F: ReadAt>(&self, index: usize, source: F) -> Result<EntryReader<F>, Error> {
        let (range, core) = self.entry_stream(index)?;
        Ok(DecodeReader::from_stream(
            RangeReader::new(source, range),
            core,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Method;
    use crate::rsli::Builder;
    use std::io::{BufRead, Read};

    fn library() -> std::vec::Vec<u8> {
        let mut builder = Builder::new();
        builder.add(b"A", Method::Stored, b"first entry").unwrap();
        builder.add(b"B", Method::Lzss, &[b'x'; 3000]).unwrap();
        builder.build().unwrap()
    }

    /// Bytes buffered but not consumed are given again before the source is read on: a
    /// partial `consume` keeps the rest, and an empty `consume` keeps all.
    #[test]
    fn a_range_reader_keeps_what_was_not_consumed() {
        let bytes: &[u8] = b"0123456789";
        let mut r = RangeReader::with_chunk(bytes, 0..10, 4);
        assert_eq!(r.fill_buf().unwrap(), b"0123");
        r.consume(1);
        assert_eq!(r.fill_buf().unwrap(), b"123");
        r.consume(0);
        assert_eq!(r.fill_buf().unwrap(), b"123");
        r.consume(3);
        assert_eq!(r.fill_buf().unwrap(), b"4567");
        let mut one = [0u8; 1];
        assert_eq!(r.read(&mut one).unwrap(), 1);
        let mut out = std::vec::Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!((one[0], out.as_slice()), (b'4', &b"56789"[..]));
    }

    /// A table longer than the opener's 16 KiB buffer (700 entries, 22 400 bytes) is
    /// read in pieces, each no longer than asked for.
    #[test]
    fn a_table_longer_than_a_chunk_opens_in_pieces() {
        let mut builder = Builder::new();
        for i in 0..700u32 {
            builder
                .add(
                    std::format!("E{i}").as_bytes(),
                    Method::Stored,
                    &i.to_le_bytes(),
                )
                .unwrap();
        }
        let bytes = builder.build().unwrap();
        let source = Watched::new(&bytes);
        let catalog = open_at(&source, OpenOptions::DEFAULT).unwrap();
        assert_eq!(catalog.len(), 700);
        let longest = source.longest.get();
        assert!(longest <= OPEN_CHUNK, "{longest}");
        let mut four = [0u8; 4];
        catalog
            .reader(699, bytes.as_slice())
            .unwrap()
            .read_exact(&mut four)
            .unwrap();
        assert_eq!(u32::from_le_bytes(four), 699);
    }

    /// A range read to its end asks its source nothing more, whatever the reader is
    /// asked (an empty read of a file costs a system call).
    #[test]
    fn a_range_read_to_its_end_asks_its_source_nothing_more() {
        let source = Watched::new(b"0123456789");
        let mut r = RangeReader::with_chunk(&source, 2..7, 5);
        let mut out = std::vec::Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!((out.as_slice(), source.reads.get()), (&b"23456"[..], 1));
        assert!(r.fill_buf().unwrap().is_empty());
        assert_eq!(r.read(&mut [0u8; 4]).unwrap(), 0);
        assert_eq!(source.reads.get(), 1, "no read after the range's end");
    }

    /// Bytes as a source that counts the reads asked of it and their longest buffer.
    struct Watched<'a> {
        bytes: &'a [u8],
        reads: core::cell::Cell<usize>,
        longest: core::cell::Cell<usize>,
    }

    impl<'a> Watched<'a> {
        fn new(bytes: &'a [u8]) -> Self {
            Watched {
                bytes,
                reads: core::cell::Cell::new(0),
                longest: core::cell::Cell::new(0),
            }
        }
    }

    impl ReadAt for Watched<'_> {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            self.reads.set(self.reads.get() + 1);
            self.longest.set(self.longest.get().max(buf.len()));
            ReadAt::read_at(self.bytes, buf, offset)
        }
        fn source_len(&self) -> io::Result<u64> {
            ReadAt::source_len(self.bytes)
        }
    }

    #[test]
    fn a_range_reader_never_leaves_its_range() {
        let bytes: &[u8] = b"0123456789";
        let mut r = RangeReader::with_chunk(bytes, 2..7, 2);
        let mut out = std::vec::Vec::new();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"23456");
        assert_eq!(r.remaining(), 0);
        assert!(r.fill_buf().unwrap().is_empty());
        // A range past the source's end ends with the source.
        let mut r = RangeReader::new(bytes, 8..20);
        out.clear();
        r.read_to_end(&mut out).unwrap();
        assert_eq!(out, b"89");
    }

    #[test]
    fn a_file_cut_after_opening_is_truncation_of_its_entries() {
        let bytes = library();
        let catalog = open_at(bytes.as_slice(), OpenOptions::DEFAULT).unwrap();
        let whole = catalog.reader(1, bytes.as_slice()).unwrap();
        assert_eq!(whole.bytes().count(), 3000);
        let cut = &bytes[..bytes.len() - 3];
        let e = catalog
            .reader(1, cut)
            .unwrap()
            .read_to_end(&mut std::vec::Vec::new())
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        let inner = e
            .get_ref()
            .unwrap()
            .downcast_ref::<super::super::StreamError>();
        assert_eq!(inner.and_then(|s| s.entry()), Some(1));
    }

    /// A source that claims more bytes than it has.
    struct Liar(std::vec::Vec<u8>);

    impl ReadAt for Liar {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            self.0.read_at(buf, offset)
        }
        fn source_len(&self) -> io::Result<u64> {
            Ok(self.0.len() as u64 + 100)
        }
    }

    /// A source whose every other read is interrupted (a signal), before reading.
    struct Interrupting {
        bytes: std::vec::Vec<u8>,
        calls: core::cell::Cell<u32>,
    }

    impl ReadAt for Interrupting {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            self.calls.set(self.calls.get() + 1);
            if self.calls.get() % 2 == 1 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            self.bytes.read_at(buf, offset)
        }
        fn source_len(&self) -> io::Result<u64> {
            Ok(self.bytes.len() as u64)
        }
    }

    /// The drivers make an interrupted read again, as `ReadAt` asks: opening, and
    /// writing a save's plan.
    #[test]
    fn interrupted_reads_are_made_again() {
        let bytes = library();
        let source = Interrupting {
            bytes: bytes.clone(),
            calls: 0.into(),
        };
        let catalog = open_at(&source, OpenOptions::DEFAULT).unwrap();
        let whole = open_at(bytes.as_slice(), OpenOptions::DEFAULT).unwrap();
        assert_eq!(catalog.entries(), whole.entries());
        let plan = crate::edit::Plan::new(std::vec![crate::edit::Piece::Copy {
            offset: 0,
            len: bytes.len() as u64,
        }]);
        let mut out = std::vec::Vec::new();
        crate::edit::write_plan(&plan, &source, &mut out).unwrap();
        assert_eq!(out, bytes);
        assert!(source.calls.get() >= 6, "{} reads", source.calls.get());
    }

    /// A source whose `Debug` is its name alone.
    struct Quiet(std::vec::Vec<u8>);

    impl core::fmt::Debug for Quiet {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            f.write_str("Quiet")
        }
    }

    impl ReadAt for Quiet {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            self.0.read_at(buf, offset)
        }
        fn source_len(&self) -> io::Result<u64> {
            Ok(self.0.len() as u64)
        }
    }

    /// `{:?}` of a reader says where it is: it printed the codec's window and tables and
    /// the chunk it held, 120 000 characters and more. An empty read reads no source.
    #[test]
    fn a_reader_is_shown_in_a_line_and_an_empty_read_reads_nothing() {
        let mut builder = Builder::new();
        let methods = Method::ALL.into_iter();
        let methods = methods.filter(|&m| cfg!(feature = "deflate") || m != Method::Deflate);
        for (i, method) in methods.enumerate() {
            let payload = std::vec![b'x' + i as u8; 100_000];
            builder.add(&[b'A' + i as u8], method, &payload).unwrap();
        }
        let source = Quiet(builder.build().unwrap());
        let catalog = open_at(&source, OpenOptions::DEFAULT).unwrap();
        for i in 0..catalog.len() {
            let mut reader = catalog.reader(i, &source).unwrap();
            reader.read_exact(&mut [0u8; 5000]).unwrap();
            let shown = std::format!("{reader:?}");
            assert!(shown.len() < 600, "entry {i}: {} characters", shown.len());
            assert!(shown.contains("produced: 5000"), "entry {i}: {shown}");
        }
        let range = catalog.packed_range(0).unwrap();
        let mut range_reader = RangeReader::new(Overcount(source.0), range);
        assert_eq!(range_reader.read(&mut []).unwrap(), 0);
        assert!(range_reader.buffer.is_empty(), "nothing was read into it");
    }

    /// A source that reports one byte more than each read could hold.
    struct Overcount(std::vec::Vec<u8>);

    impl ReadAt for Overcount {
        fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            Ok(self.0.as_slice().read_at(buf, offset)? + 1)
        }
        fn source_len(&self) -> io::Result<u64> {
            Ok(self.0.len() as u64)
        }
    }

    /// A count past the buffer is taken as the buffer full: the opener goes on (it once
    /// asked for the same range forever), and so does a range reader.
    #[test]
    fn a_source_that_overcounts_its_reads_is_read_as_full_reads() {
        let bytes = library();
        let catalog = open_at(&Overcount(bytes.clone()), OpenOptions::DEFAULT).unwrap();
        assert_eq!(catalog.len(), 2);
        let mut out = std::vec::Vec::new();
        let range = catalog.packed_range(0).unwrap();
        RangeReader::with_chunk(Overcount(bytes), range, 4)
            .read_to_end(&mut out)
            .unwrap();
        assert_eq!(out, b"first entry");
    }

    /// The chunk is capped: a range declared far past the source cannot size the buffer.
    #[test]
    fn a_huge_chunk_is_capped() {
        let bytes: &[u8] = b"0123456789";
        let mut r = RangeReader::with_chunk(bytes, 0..u64::MAX, usize::MAX);
        assert_eq!(r.fill_buf().unwrap(), b"0123456789");
        assert_eq!(r.buffer.len(), MAX_CHUNK);
    }

    #[test]
    fn a_source_shorter_than_it_says_is_eof_where_it_ends() {
        let bytes = library();
        let len = bytes.len() as u64;
        // The trailer is read from where the claimed end would put it: past the bytes.
        match open_at(&Liar(bytes), OpenOptions::DEFAULT) {
            Err(OpenError::Eof { offset }) => assert_eq!(offset, len + 100 - 6),
            other => panic!("{other:?}"),
        }
    }
}
