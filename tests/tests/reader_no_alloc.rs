//! No allocation on the embedded-io path: a counting global allocator watches an RsLi
//! library of every method and an NRes archive opened from an `embedded_io::Read + Seek`
//! source into a `heapless::Vec`, every entry read through `embedded_io::Read` with small
//! buffers, and a bare `DecodeReader` over a truncated stream failing.

use embedded_io::{BufRead, Read};
use ngi_core::archive::{Entry, Slots};
use ngi_core::io::DecodeReader;
use ngi_core::io::embedded::{SeekEntryReader, SliceSource, open_seekable};
use ngi_core::nres::{NewEntry, Writer};
use ngi_core::rsli::Builder;
use ngi_core::{Method, OpenOptions};
use ngi_tests::alloc_count::{Counting, allocations_in};
use ngi_tests::corpus;
use ngi_tests::streams::pack;
use std::hint::black_box;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_counter_sees_allocations() {
    assert!(allocations_in(|| drop(black_box(vec![1u8; 100]))) >= 1);
}

/// A checksum of what a reader yields, read through a small stack buffer.
fn drain(mut reader: impl Read) -> Result<(u64, u64), ()> {
    let (mut len, mut sum) = (0u64, 0u64);
    let mut buf = [0u8; 97];
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return Ok((len, sum)),
            Ok(n) => {
                for &b in &buf[..n] {
                    sum = sum.wrapping_mul(31).wrapping_add(u64::from(b));
                }
                len += n as u64;
            }
            Err(_) => return Err(()),
        }
    }
}

fn checksum(data: &[u8]) -> (u64, u64) {
    let sum = data
        .iter()
        .fold(0u64, |s, &b| s.wrapping_mul(31).wrapping_add(u64::from(b)));
    (data.len() as u64, sum)
}

#[test]
fn opening_and_reading_every_method_allocates_nothing() {
    // Everything that may allocate is made before the counter is armed.
    let text = corpus::text(40 * 1024)[..40 * 1024].to_vec();
    let mut builder = Builder::new();
    let mut want = Vec::new();
    for (i, method) in Method::ALL.into_iter().enumerate() {
        let data = &text[i * 1000..i * 1000 + 5000 + i * 3000];
        builder
            .add(format!("E{i}").as_bytes(), method, data)
            .unwrap();
        want.push(checksum(data));
    }
    let rsli = builder.build().unwrap();
    let mut writer = Writer::new();
    writer
        .add(
            NewEntry {
                name: b"a.txt",
                ..NewEntry::default()
            },
            &text[..3000],
        )
        .unwrap();
    let nres = writer.finish();
    let mut got = Vec::with_capacity(16);
    let mut nres_got = None;
    let count = allocations_in(|| {
        let mut entries: heapless::Vec<Entry, 16> = heapless::Vec::new();
        let mut source = SliceSource::new(&rsli);
        let catalog = open_seekable(&mut source, &mut entries, OpenOptions::DEFAULT).unwrap();
        for i in 0..catalog.len() {
            let reader = catalog.seek_reader(i, &mut source).unwrap();
            got.push(drain(reader));
        }
        let mut slots = [Entry::EMPTY; 2];
        let mut source = SliceSource::new(&nres);
        let catalog =
            open_seekable(&mut source, Slots::new(&mut slots), OpenOptions::DEFAULT).unwrap();
        nres_got = Some(drain(catalog.seek_reader(0, &mut source).unwrap()));
    });
    assert_eq!(count, 0, "allocations");
    let got: Vec<_> = got.into_iter().map(Result::unwrap).collect();
    assert_eq!(got, want);
    assert_eq!(nres_got, Some(Ok(checksum(&text[..3000]))));
}

/// One reader pointed at entry after entry (`reuse_seek_reader`) reads each as a new
/// `seek_reader` does, whatever it read before: every method after every other, after the
/// last entry read in part or failed (a Deflate entry cut short). An index out of range
/// is refused and leaves the reader as it was. Nothing is allocated.
#[test]
fn one_reader_reused_for_every_entry_reads_as_new_ones() {
    let text = corpus::text(40 * 1024)[..40 * 1024].to_vec();
    let mut builder = Builder::new();
    for (i, method) in Method::ALL.into_iter().chain([Method::Deflate]).enumerate() {
        // Leading spaces, which LZSS and LZHUF streams take from their ring's initial
        // spaces: a ring left as the last entry had it gives other bytes.
        let mut data = vec![b' '; 64];
        data.extend_from_slice(&text[i * 700..i * 700 + 3000 + i * 1500]);
        builder
            .add(format!("E{i}").as_bytes(), method, &data)
            .unwrap();
    }
    let mut rsli = builder.build().unwrap();
    let cut = Method::ALL.len();
    ngi_tests::hostile::patch_rsli(&mut rsli, |i, e| {
        if i == cut {
            e.packed_size /= 2;
        }
    });
    // What a new reader of each entry gives.
    let mut entries: heapless::Vec<Entry, 16> = heapless::Vec::new();
    let mut source = SliceSource::new(&rsli);
    let catalog = open_seekable(&mut source, &mut entries, OpenOptions::DEFAULT).unwrap();
    let count = catalog.len();
    let want: Vec<_> = (0..count)
        .map(|i| drain(catalog.seek_reader(i, &mut source).unwrap()))
        .collect();
    assert!(want[cut].is_err() && want[..cut].iter().all(Result::is_ok));

    let mut got = Vec::with_capacity(count * count);
    let mut reader = Box::new(SeekEntryReader::idle(SliceSource::new(&rsli)));
    let mut refused = Vec::with_capacity(count);
    let allocations = allocations_in(|| {
        assert_eq!(
            drain(&mut *reader),
            Ok((0, 0)),
            "an idle reader reads nothing"
        );
        for before in 0..count {
            for after in 0..count {
                catalog.reuse_seek_reader(before, &mut reader).unwrap();
                let mut part = [0u8; 100];
                let read = if after % 2 == 0 {
                    reader.read(&mut part).unwrap_or(0)
                } else {
                    // Bytes left in the BufRead buffer, which the next entry must not
                    // give.
                    let held = reader.fill_buf().map_or(0, |b| b.len().min(7));
                    reader.consume(held);
                    held
                };
                if after == 0 {
                    let refusal = catalog.reuse_seek_reader(count, &mut reader).is_err();
                    let rest = drain(&mut *reader).map(|(len, _)| read as u64 + len);
                    refused.push((refusal, rest));
                    catalog.reuse_seek_reader(before, &mut reader).unwrap();
                    let _ = reader.read(&mut part);
                }
                catalog.reuse_seek_reader(after, &mut reader).unwrap();
                got.push(drain(&mut *reader));
            }
        }
    });
    assert_eq!(allocations, 0, "allocations");
    for (before, (refusal, read)) in refused.into_iter().enumerate() {
        assert!(refusal, "index {count} is refused");
        // The reader read on in the entry it had.
        if let Ok((len, _)) = want[before] {
            assert_eq!(read, Ok(len), "entry {before} read on after the refusal");
        }
    }
    for (n, got) in got.iter().enumerate() {
        let (before, after) = (n / count, n % count);
        assert_eq!(*got, want[after], "entry {after} after entry {before}");
    }
}

/// A source whose reads fail from offset `fail_at` on, recording where the first one that
/// failed was to start.
struct FailsFrom<'a> {
    inner: SliceSource<'a>,
    at: u64,
    fail_at: u64,
    failed_at: Option<u64>,
}

#[derive(Debug)]
struct BusError;

impl std::fmt::Display for BusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("bus error")
    }
}

impl std::error::Error for BusError {}

impl embedded_io::Error for BusError {
    fn kind(&self) -> embedded_io::ErrorKind {
        embedded_io::ErrorKind::Other
    }
}

impl embedded_io::ErrorType for FailsFrom<'_> {
    type Error = BusError;
}

impl Read for FailsFrom<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, BusError> {
        if self.at >= self.fail_at {
            self.failed_at.get_or_insert(self.at);
            return Err(BusError);
        }
        let n = self.inner.read(buf).unwrap_or_else(|never| match never {});
        self.at += n as u64;
        Ok(n)
    }
}

impl embedded_io::Seek for FailsFrom<'_> {
    fn seek(&mut self, pos: embedded_io::SeekFrom) -> Result<u64, BusError> {
        self.at = self.inner.seek(pos).unwrap_or_else(|never| match never {});
        Ok(self.at)
    }
}

/// A source's own error says nothing of the entry; the reader's decoder says which entry
/// it was reading and where the read that failed was to start.
#[test]
fn a_failing_source_is_placed_by_the_decoder() {
    let text = corpus::text(200_000)[..200_000].to_vec();
    let mut builder = Builder::new();
    builder.add(b"FIRST", Method::Stored, b"first").unwrap();
    builder.add(b"BIG", Method::Deflate, &text).unwrap();
    let rsli = builder.build().unwrap();
    let mut entries: heapless::Vec<Entry, 4> = heapless::Vec::new();
    let catalog = open_seekable(
        &mut SliceSource::new(&rsli),
        &mut entries,
        OpenOptions::DEFAULT,
    )
    .unwrap();
    let range = catalog.packed_range(1).unwrap();
    let fail_at = range.start + (range.end - range.start) / 2;
    let mut source = FailsFrom {
        inner: SliceSource::new(&rsli),
        at: 0,
        fail_at,
        failed_at: None,
    };
    let mut reader = catalog.seek_reader(1, &mut source).unwrap();
    let mut buf = [0u8; 100];
    let error = loop {
        match reader.read(&mut buf) {
            Ok(0) => panic!("the source fails before the end"),
            Ok(_) => {}
            Err(e) => break e,
        }
    };
    assert!(matches!(
        error,
        ngi_core::io::embedded::ReadError::Source(BusError)
    ));
    let decoder = reader.decoder();
    let offset = decoder.offset();
    assert_eq!(decoder.entry(), Some(1));
    assert_eq!(Some(offset), reader.into_inner().into_inner().failed_at);
    assert!(
        range.contains(&offset) && offset >= fail_at,
        "{offset} in {range:?}"
    );
}

#[test]
fn a_failing_stream_allocates_nothing() {
    let data = corpus::text(20_000)[..20_000].to_vec();
    let packed: Vec<Vec<u8>> = Method::ALL.iter().map(|&m| pack(m, &data)).collect();
    let mut failed = 0;
    let count = allocations_in(|| {
        for (method, packed) in Method::ALL.into_iter().zip(&packed) {
            let short = &packed[..packed.len() / 2];
            let reader = DecodeReader::new(short, method, 20_000, ngi_tests::streams::KEY);
            if drain(reader).is_err() {
                failed += 1;
            }
        }
    });
    assert_eq!(count, 0, "allocations");
    assert_eq!(failed, Method::ALL.len(), "every half stream fails");
}
