//! No allocation on the embedded-io path: a counting global allocator watches an RsLi
//! library of every method and an NRes archive opened from an `embedded_io::Read + Seek`
//! source into a `heapless::Vec`, every entry read through `embedded_io::Read` with small
//! buffers, and a bare `DecodeReader` over a truncated stream failing.

use embedded_io::Read;
use ngi_core::archive::{Entry, Slots};
use ngi_core::io::DecodeReader;
use ngi_core::io::embedded::{SliceSource, open_seekable};
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
