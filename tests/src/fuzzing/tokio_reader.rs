//! The `tokio_reader` body: ngi-tokio's readers against the core's synchronous ones.

use std::io;

use ngi_core::OpenOptions;
use ngi_core::archive::{Catalog, Entry};
use ngi_core::io::StreamError;
use ngi_tokio::{Archive, DecodeReader};

use super::{ENTRY_BUDGET, MAX_ENTRY};
use crate::corpus::Rng;
use crate::tokio_io::{Trickle, read_to_end_polled};

/// `[flags, seed, archive...]`, flags as the opener's (bit 0 the media trailer, bit 1
/// raw mode, bit 2 at most 2 entries, and bit 3 `max_entry_size` of 1 KiB). The archive
/// is opened by `ngi_tokio::Archive::from_bytes_with` and must give the core catalog's
/// verdict (the same `archive::Error` inside the `io::Error`); then each entry is read
/// through `Archive::reader` with read sizes drawn from the seed (1 byte when it is 0) and
/// through a `DecodeReader` over its packed bytes arriving in pieces with `Pending` before
/// each, both polled without a runtime. Each must give exactly what the core's
/// `Catalog::reader` gives: the same bytes, or the same `StreamError` (entry, file offset,
/// codec error) with the matching `io::ErrorKind`, again on the next read; the reader's
/// refusals (`reader()`'s checks, the limits) the same `archive::Error`. Never a spin:
/// polls are bounded by the input's size.
pub fn tokio_reader(data: &[u8]) {
    let [flags, seed, archive @ ..] = data else {
        return;
    };
    let mut limits = ngi_core::Limits::DEFAULT;
    if flags & 4 != 0 {
        limits = limits.with_max_entries(2);
    }
    if flags & 8 != 0 {
        limits = limits.with_max_entry_size(1024);
    }
    let options = OpenOptions::DEFAULT
        .with_limits(limits)
        .with_media_trailer(flags & 1 != 0)
        .with_raw(flags & 2 != 0);
    let sync = Catalog::open(archive, options);
    let opened = Archive::from_bytes_with(bytes::Bytes::copy_from_slice(archive), options);
    let (catalog, tokio) = match (sync, opened) {
        (Ok(c), Ok(a)) => (c, a),
        (Err(want), Err(got)) => {
            assert_eq!(archive_error(&got), Some(want), "open verdict");
            return;
        }
        (x, y) => panic!("open: core {:?}, ngi-tokio {:?}", x.err(), y.err()),
    };
    assert_eq!(tokio.entries(), catalog.entries(), "the same catalog");
    let mut rng = Rng::new(u64::from(*seed));
    let mut size = move || if *seed == 0 { 1 } else { 1 + rng.below(5000) };
    let mut budget = ENTRY_BUDGET;
    for (i, entry) in catalog.entries().iter().enumerate() {
        if entry.size > MAX_ENTRY as u64 || entry.size > budget as u64 {
            continue;
        }
        budget -= entry.size as usize;
        let want = sync_read(&catalog, archive, i, &options);
        let got = tokio
            .reader(i)
            .map_err(|e| archive_error(&e).expect("an archive error"));
        match (want, got) {
            (Err(Refused(want)), Err(got)) => assert_eq!(got, want, "entry {i}: refusal"),
            (Ok(want), Ok(mut reader)) => {
                let polls = 64 + 4 * (entry.packed_len as usize + entry.size as usize);
                let got = read_to_end_polled(&mut reader, &mut size, polls);
                let failed = got.end.is_err();
                compare(i, &want, got.bytes, got.end);
                if failed {
                    let again = read_to_end_polled(&mut reader, || 1, 4);
                    compare(i, &want, Vec::new(), again.end);
                }
                // Through a caller's AsyncBufRead that pends and trickles.
                check_decode_reader(&catalog, archive, i, entry, &want, u64::from(*seed));
            }
            (Err(Refused(want)), Ok(_)) => {
                panic!("entry {i}: the core refuses ({want:?}), ngi-tokio reads")
            }
            (Ok(_), Err(got)) => panic!("entry {i}: ngi-tokio refuses ({got:?}), the core reads"),
        }
    }
}

/// The core's refusal of an entry before any read.
struct Refused(ngi_core::archive::Error);

/// What the core's synchronous reader gives for entry `i`: refused, or read (bytes, or the
/// stream's error).
fn sync_read(
    catalog: &Catalog<Vec<Entry>>,
    file: &[u8],
    i: usize,
    options: &OpenOptions,
) -> Result<Result<Vec<u8>, StreamError>, Refused> {
    let mut reader = catalog.reader(i, file).map_err(Refused)?;
    catalog.check_limits(i, &options.limits).map_err(Refused)?;
    let mut out = Vec::new();
    Ok(match io::Read::read_to_end(&mut reader, &mut out) {
        Ok(_) => Ok(out),
        Err(e) => Err(stream_error(&e)),
    })
}

fn check_decode_reader(
    catalog: &Catalog<Vec<Entry>>,
    file: &[u8],
    i: usize,
    entry: &Entry,
    want: &Result<Vec<u8>, StreamError>,
    seed: u64,
) {
    let (Ok(packed), Ok(core)) = (catalog.packed(i, file), catalog.boxed_stream_decoder(i)) else {
        panic!("entry {i}: readable, yet no packed bytes or decoder");
    };
    let mut reader = DecodeReader::from_stream(Trickle::new(packed.to_vec(), seed), core);
    let polls = 64 + 8 * (packed.len() + entry.size as usize);
    let got = read_to_end_polled(&mut reader, || 1 + (seed as usize % 7) * 1000, polls);
    compare(i, want, got.bytes, got.end);
    if want.is_ok() {
        let used = reader.decoder().consumed() as usize;
        assert_eq!(
            reader.get_ref().rest().len(),
            packed.len() - used,
            "entry {i}: the rest stays"
        );
    }
}

fn compare(i: usize, want: &Result<Vec<u8>, StreamError>, bytes: Vec<u8>, end: io::Result<()>) {
    match (want, end) {
        (Ok(want), Ok(())) => assert!(*want == bytes, "entry {i}: bytes"),
        (Err(want), Err(got)) => {
            assert_eq!(stream_error(&got), *want, "entry {i}: error");
            let kind = if want.is_truncated() {
                io::ErrorKind::UnexpectedEof
            } else {
                io::ErrorKind::InvalidData
            };
            assert_eq!(got.kind(), kind, "entry {i}: error kind");
        }
        (want, got) => panic!(
            "entry {i}: core {want:?}, ngi-tokio {got:?} after {} bytes",
            bytes.len()
        ),
    }
}

fn stream_error(e: &io::Error) -> StreamError {
    *e.get_ref()
        .and_then(|x| x.downcast_ref::<StreamError>())
        .unwrap_or_else(|| panic!("not a stream error: {e:?}"))
}

/// The core's error inside an `io::Error` of opening or of `reader()`.
pub fn archive_error(e: &io::Error) -> Option<ngi_core::archive::Error> {
    e.get_ref()
        .and_then(|x| x.downcast_ref::<ngi_core::archive::Error>())
        .copied()
}
