//! `ngi_core::io::DecodeReader` conformance: every corpus stream of every method through
//! `std::io::Read` (1-byte reads and random sizes, zero-length reads between), through
//! `std::io::BufRead`, and through `embedded_io::Read` over a source that yields one byte
//! per call, equal to the one-shot decode; every prefix of small streams and sampled
//! prefixes of large ones truncated: `UnexpectedEof` and never `Ok` with short output;
//! trailing bytes left in `inner`; sticky errors.

use std::io::{BufRead, ErrorKind, Read};

use ngi_core::Method;
use ngi_core::codec::unpack_into;
use ngi_core::io::{DecodeReader, StreamError};
use ngi_tests::corpus::Rng;
use ngi_tests::streams::{Stream, streams};

fn one_shot(s: &Stream) -> Vec<u8> {
    let mut out = vec![0u8; s.plain.len()];
    let used = unpack_into(s.method, s.key, &s.packed, &mut out).expect("the stream decodes");
    assert_eq!(used, s.packed.len(), "{}: the whole stream is used", s.name);
    assert_eq!(out, s.plain, "{}: one-shot", s.name);
    out
}

fn reader<'p>(s: &Stream, packed: &'p [u8]) -> DecodeReader<&'p [u8]> {
    // `&[u8]` is a `BufRead` for both std and embedded_io: name the std trait's methods.
    DecodeReader::new(packed, s.method, s.plain.len() as u64, s.key)
}

/// Reads to the end with read sizes from `size`, a zero-length read before every read,
/// and returns the output or the error.
fn read_all(mut r: impl Read, mut size: impl FnMut() -> usize) -> Result<Vec<u8>, std::io::Error> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 70_000];
    loop {
        assert_eq!(r.read(&mut [])?, 0, "a zero-length read is Ok(0)");
        let n = size().clamp(1, buf.len());
        match r.read(&mut buf[..n])? {
            0 => return Ok(out),
            got => {
                assert!(got <= n);
                out.extend_from_slice(&buf[..got]);
            }
        }
    }
}

#[test]
fn every_stream_reads_the_same_in_any_sizes() {
    let mut rng = Rng::new(0x0DEC0DE);
    for s in streams(usize::MAX) {
        let want = one_shot(&s);
        let got = read_all(reader(&s, &s.packed), || 1).unwrap();
        assert!(got == want, "{}: 1-byte reads", s.name);
        let got = read_all(reader(&s, &s.packed), || 1 + rng.below(9000)).unwrap();
        assert!(got == want, "{}: random reads", s.name);
        let mut whole = Vec::new();
        reader(&s, &s.packed).read_to_end(&mut whole).unwrap();
        assert!(whole == want, "{}: read_to_end", s.name);
    }
}

#[test]
fn every_stream_reads_the_same_through_bufread() {
    let mut rng = Rng::new(77);
    for s in streams(usize::MAX) {
        let mut r = reader(&s, &s.packed);
        let mut out = Vec::new();
        loop {
            let available = r.fill_buf().unwrap();
            if available.is_empty() {
                break;
            }
            let take = (1 + rng.below(300)).min(available.len());
            out.extend_from_slice(&available[..take]);
            r.consume(take);
            // Mixing Read into BufRead: the buffered bytes come first.
            if rng.below(4) == 0 {
                let mut one = [0u8; 3];
                let n = r.read(&mut one).unwrap();
                out.extend_from_slice(&one[..n]);
            }
        }
        assert!(out == s.plain, "{}: BufRead", s.name);
    }
}

#[test]
fn trailing_bytes_stay_in_inner() {
    for s in streams(usize::MAX) {
        let mut packed = s.packed.clone();
        packed.extend_from_slice(b"NEXT STREAM");
        let mut r = reader(&s, &packed);
        let got = read_all(&mut r, || 4096).unwrap();
        assert!(got == s.plain, "{}", s.name);
        // Every stream here is exactly its bytes, the empty Deflate block of an empty
        // entry included.
        assert_eq!(r.decoder().consumed(), s.packed.len() as u64, "{}", s.name);
        assert_eq!(r.into_inner(), b"NEXT STREAM", "{}", s.name);
    }
}

/// The prefixes of a stream to truncate it at: all of them for small streams, 24 spread
/// over a large one (its first and last few included).
fn prefixes(len: usize, rng: &mut Rng) -> Vec<usize> {
    if len <= 1200 {
        return (0..len).collect();
    }
    let mut cuts: Vec<usize> = (0..4).chain(len - 4..len).collect();
    cuts.extend((0..16).map(|_| rng.below(len)));
    cuts
}

#[test]
fn every_truncation_is_unexpected_eof_and_sticky() {
    let mut rng = Rng::new(2026);
    let mut cut = 0usize;
    for s in streams(usize::MAX) {
        if s.plain.is_empty() {
            continue;
        }
        for len in prefixes(s.packed.len(), &mut rng) {
            let mut r = reader(&s, &s.packed[..len]);
            // 1-byte reads where the output is small, larger ones over long outputs.
            let sizes = match (cut % 3, s.plain.len() <= 16 * 1024) {
                (0, true) => 1,
                (1, true) => 7,
                _ => 32 * 1024,
            };
            cut += 1;
            let e = match read_all(&mut r, || sizes) {
                Ok(out) => panic!(
                    "{}: {len} of {} packed bytes gave Ok with {} of {} bytes",
                    s.name,
                    s.packed.len(),
                    out.len(),
                    s.plain.len()
                ),
                Err(e) => e,
            };
            assert_eq!(
                e.kind(),
                ErrorKind::UnexpectedEof,
                "{}: cut {len}: {e}",
                s.name
            );
            let inner = e
                .get_ref()
                .and_then(|i| i.downcast_ref::<StreamError>())
                .copied()
                .expect("the StreamError inside");
            assert!(inner.is_truncated());
            assert_eq!(inner.offset(), len as u64, "{}: where it ran out", s.name);
            // The codec's error is in the text, and not again as the source.
            assert!(std::error::Error::source(&e).is_none(), "{e}");
            assert!(
                e.to_string().contains("packed stream ends"),
                "the codec's error: {e}"
            );
            // Sticky, whatever the buffer, the zero-length read included.
            for buf in [&mut [0u8; 1][..], &mut [0u8; 100], &mut []] {
                let again = r.read(buf).unwrap_err();
                assert_eq!(again.kind(), ErrorKind::UnexpectedEof);
            }
            assert!(r.fill_buf().is_err());
        }
    }
}

#[test]
fn corrupt_deflate_is_invalid_data_naming_the_offset() {
    let mut r = DecodeReader::new(&[0x07u8, 0, 0, 0][..], Method::Deflate, 4, 0).for_entry(3, 900);
    let e = r.read(&mut [0u8; 4]).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::InvalidData);
    let inner = e.get_ref().unwrap().downcast_ref::<StreamError>().unwrap();
    assert_eq!((inner.entry(), inner.offset()), (Some(3), 900));
    assert!(e.to_string().contains("entry 3"), "{e}");
    // The cause is said once along the chain, as `anyhow`'s `{:#}` walks it: it was also
    // the source, and such a report said "reserved block type 3" twice.
    let mut chain = Vec::new();
    let mut next: Option<&dyn std::error::Error> = Some(&e);
    while let Some(error) = next {
        chain.push(error.to_string());
        next = error.source();
    }
    assert_eq!(
        chain.join(": ").matches("reserved block type").count(),
        1,
        "{chain:?}"
    );
    assert_eq!(
        r.read(&mut [0u8; 4]).unwrap_err().kind(),
        ErrorKind::InvalidData
    );
}

/// An `embedded_io::BufRead` that hands out one byte per `fill_buf`.
struct OneByte<'a>(&'a [u8]);

impl embedded_io::ErrorType for OneByte<'_> {
    type Error = core::convert::Infallible;
}

impl embedded_io::Read for OneByte<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
        let n = buf.len().min(self.0.len()).min(1);
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

impl embedded_io::BufRead for OneByte<'_> {
    fn fill_buf(&mut self) -> Result<&[u8], Self::Error> {
        Ok(&self.0[..self.0.len().min(1)])
    }
    fn consume(&mut self, amount: usize) {
        self.0 = &self.0[amount.min(self.0.len())..];
    }
}

#[test]
fn embedded_io_over_a_one_byte_source() {
    use embedded_io::Read as _;
    let mut rng = Rng::new(5);
    for s in streams(usize::MAX) {
        let mut r = DecodeReader::new(OneByte(&s.packed), s.method, s.plain.len() as u64, s.key);
        let mut out = Vec::new();
        let mut buf = [0u8; 5000];
        loop {
            assert_eq!(r.read(&mut []).unwrap(), 0);
            let n = 1 + rng.below(buf.len());
            match r.read(&mut buf[..n]).unwrap() {
                0 => break,
                got => out.extend_from_slice(&buf[..got]),
            }
        }
        assert!(out == s.plain, "{}: embedded-io", s.name);
        // Truncated by one byte: a Stream error, sticky.
        if let Some(short) = s
            .packed
            .len()
            .checked_sub(1)
            .filter(|_| !s.plain.is_empty())
        {
            let mut r = DecodeReader::new(
                OneByte(&s.packed[..short]),
                s.method,
                s.plain.len() as u64,
                s.key,
            );
            let mut sink = [0u8; 4096];
            let e = loop {
                match r.read(&mut sink) {
                    Ok(0) => panic!("{}: Ok(0) before the end", s.name),
                    Ok(_) => {}
                    Err(e) => break e,
                }
            };
            let ngi_core::io::embedded::ReadError::Stream(inner) = e else {
                panic!("{}: {e:?}", s.name)
            };
            assert!(inner.is_truncated(), "{}", s.name);
            assert_eq!(
                embedded_io::Error::kind(&e),
                embedded_io::ErrorKind::InvalidData
            );
            assert_eq!(r.read(&mut sink).unwrap_err(), e, "sticky");
        }
    }
}

/// A source that has given all it has and stays open (a non-blocking socket whose peer
/// waits for an answer): `WouldBlock` from then on, never the end.
struct Waiting<'a>(&'a [u8]);

impl Read for Waiting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Waiting<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        match self.0.is_empty() {
            true => Err(ErrorKind::WouldBlock.into()),
            false => Ok(self.0),
        }
    }
    fn consume(&mut self, amount: usize) {
        self.0 = &self.0[amount.min(self.0.len())..];
    }
}

/// Output the codec holds (the rest of a match, a stream of size 0) is given before the
/// source is asked again: LZSS and LZHUF kept an entry's last byte until the source sent
/// more or ended, so a reader over an open socket never finished.
#[test]
fn what_the_codec_holds_comes_before_the_source_is_asked() {
    let mut rng = Rng::new(0x0FE2);
    for s in streams(usize::MAX) {
        let size = s.plain.len() as u64;
        for read_len in [1, 4096, 1 + rng.below(70_000)] {
            let mut r = DecodeReader::new(Waiting(&s.packed), s.method, size, s.key);
            let mut out = Vec::new();
            let mut buf = vec![0u8; read_len];
            loop {
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => out.extend_from_slice(&buf[..n]),
                    Err(e) => panic!("{} ({read_len}): {e} after {} bytes", s.name, out.len()),
                }
            }
            assert!(out == s.plain, "{} ({read_len})", s.name);
        }
    }
}

/// A reused embedded reader (`reuse_seek_reader`) of an entry of size 0 ends as a new
/// `seek_reader` does: at once, without asking its source (a size-0 stream needs no
/// input, and a source may block until it has more to give).
#[test]
fn a_reused_reader_of_an_empty_entry_does_not_ask_its_source() {
    use embedded_io::{ErrorType, Read, Seek, SeekFrom};
    use ngi_core::archive::Entry;
    use ngi_core::io::embedded::{SeekEntryReader, SliceSource, open_seekable};
    use ngi_core::rsli::Builder;
    use ngi_core::{Method, OpenOptions};
    use std::cell::Cell;

    struct Counted<'a> {
        inner: SliceSource<'a>,
        reads: &'a Cell<usize>,
    }
    impl ErrorType for Counted<'_> {
        type Error = core::convert::Infallible;
    }
    impl Read for Counted<'_> {
        fn read(&mut self, buf: &mut [u8]) -> Result<usize, Self::Error> {
            self.reads.set(self.reads.get() + 1);
            self.inner.read(buf)
        }
    }
    impl Seek for Counted<'_> {
        fn seek(&mut self, pos: SeekFrom) -> Result<u64, Self::Error> {
            self.inner.seek(pos)
        }
    }

    let mut builder = Builder::new();
    builder.add(b"FULL", Method::Lzss, &[7u8; 300]).unwrap();
    builder.add(b"EMPTY", Method::Lzss, &[]).unwrap();
    let mut rsli = builder.build().unwrap();
    // The empty entry's table row points at FULL's packed bytes (a table may share
    // bytes): a stream of size 0 with bytes, which its codec need not read.
    let mut full = None;
    ngi_tests::hostile::patch_rsli(&mut rsli, |_, e| {
        if e.unpacked_size != 0 {
            full = Some((e.data_offset, e.packed_size));
        }
    });
    let (offset, packed) = full.unwrap();
    ngi_tests::hostile::patch_rsli(&mut rsli, |_, e| {
        if e.unpacked_size == 0 {
            (e.data_offset, e.packed_size) = (offset, packed);
        }
    });
    let mut entries: heapless::Vec<Entry, 4> = heapless::Vec::new();
    let mut source = SliceSource::new(&rsli);
    let catalog = open_seekable(&mut source, &mut entries, OpenOptions::DEFAULT).unwrap();
    let empty = (0..catalog.len())
        .find(|&i| catalog.entry(i).unwrap().size == 0)
        .unwrap();
    let range = catalog.packed_range(empty).unwrap();
    assert!(range.end > range.start, "the empty entry has packed bytes");

    let reads = Cell::new(0);
    let counted = Counted {
        inner: SliceSource::new(&rsli),
        reads: &reads,
    };
    let mut fresh = catalog.seek_reader(empty, counted).unwrap();
    assert_eq!(fresh.read(&mut [0u8; 16]).unwrap(), 0);
    let fresh_reads = reads.get();

    let reads = Cell::new(0);
    let counted = Counted {
        inner: SliceSource::new(&rsli),
        reads: &reads,
    };
    let mut reused = Box::new(SeekEntryReader::idle(counted));
    catalog.reuse_seek_reader(empty, &mut reused).unwrap();
    assert_eq!(reused.read(&mut [0u8; 16]).unwrap(), 0);
    assert_eq!(
        reads.get(),
        fresh_reads,
        "a reused reader asks its source as a new one does"
    );
    assert_eq!(
        fresh_reads, 0,
        "a size-0 stream ends before the source is asked"
    );
}
