//! ngi-tokio against bad input: the hostile catalogue through `Archive::open_with` (from a
//! file) and `Archive::from_bytes_with`, then `reader()` and a read to the end, with the
//! catalogue's verdicts; every prefix of the sample archives, from memory and from a
//! file, with the core's verdicts; every prefix of the small corpus streams through
//! `DecodeReader`: an error (the core's), never a short `Ok`; a file cut after it was
//! opened: `UnexpectedEof`.

use std::io::ErrorKind;

use futures::StreamExt;
use ngi_core::archive::{Catalog, Error as ArchiveError};
use ngi_core::codec::unpack_into;
use ngi_core::error::DecodeError;
use ngi_core::io::StreamError;
use ngi_core::rsli::RsliError;
use ngi_core::{Method, OpenOptions};
use ngi_tests::fuzzing::{archive_error, tokio_reader};
use ngi_tests::hostile::{self, Case, Error, Expect, Produce};
use ngi_tests::samples;
use ngi_tests::streams::streams;
use ngi_tests::tokio_io::{TempFile, Trickle, read_to_end_polled};
use ngi_tokio::{Archive, DecodeReader};
use tokio::io::AsyncReadExt;

fn options(case: &Case) -> OpenOptions {
    OpenOptions::DEFAULT
        .with_limits(case.limits)
        .with_media_trailer(case.media_trailer)
}

/// The catalogue's error as the core's catalog reports it.
fn as_archive(e: &Error) -> Option<ArchiveError> {
    match *e {
        Error::Nres(e) => Some(ArchiveError::Nres(e)),
        Error::Rsli(e) => Some(ArchiveError::Rsli(e)),
        Error::Limit(_) => None,
    }
}

/// What reading entry `index` through ngi-tokio gives, in the catalogue's terms.
async fn produce(archive: &Archive, index: usize) -> Produce {
    let archive_fault = |e: std::io::Error| {
        archive_error(&e)
            .and_then(Error::of_catalog)
            .unwrap_or_else(|| panic!("entry {index}: not an error of a format: {e:?}"))
    };
    let mut reader = match archive.reader(index) {
        Ok(r) => r,
        Err(e) => return Produce::Fails(archive_fault(e)),
    };
    let mut out = Vec::new();
    match reader.read_to_end(&mut out).await {
        Ok(_) => Produce::Bytes(out),
        Err(e) => {
            PARTIAL.with(|p| *p.borrow_mut() = out);
            let fault = Error::of_read(&e)
                .unwrap_or_else(|| panic!("entry {index}: not a decoding fault: {e:?}"));
            let Error::Rsli(RsliError::Decode { error, .. }) = fault else {
                unreachable!("of_read gives decoding faults");
            };
            let eof = matches!(error, DecodeError::Truncated { .. });
            assert_eq!(
                e.kind() == ErrorKind::UnexpectedEof,
                eof,
                "entry {index}: kind"
            );
            // Sticky.
            let again = reader.read(&mut [0u8; 16]).await.expect_err("sticky");
            assert_eq!(again.kind(), e.kind());
            Produce::Fails(fault)
        }
    }
}

thread_local! {
    /// The bytes `produce`'s reader gave before its error, for the stream's to agree with.
    static PARTIAL: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// What `stream()` gives for entry `index`, as `produce` words it: the chunks' bytes, or
/// the one error that ends the stream (after which it ends; the chunks before it agree
/// with what the reader gave before its error).
async fn produce_streamed(archive: &Archive, index: usize) -> Result<Vec<u8>, StreamError> {
    let mut stream = archive
        .stream(index)
        .expect("reader() accepted it")
        .with_chunk_len(700);
    let mut out = Vec::new();
    while let Some(item) = stream.next().await {
        match item {
            Ok(chunk) => {
                assert!(
                    !chunk.is_empty() && chunk.len() <= 700,
                    "entry {index}: chunk"
                );
                out.extend_from_slice(&chunk);
            }
            Err(e) => {
                assert!(
                    stream.next().await.is_none(),
                    "entry {index}: the error ends it"
                );
                // Both are prefixes of the entry (how far each got before the fault
                // depends on where its calls ended); they agree as far as both go.
                let partial = PARTIAL.with(|p| p.borrow().clone());
                let common = out.len().min(partial.len());
                assert!(
                    out[..common] == partial[..common],
                    "entry {index}: streamed bytes"
                );
                return Err(*e
                    .get_ref()
                    .and_then(|x| x.downcast_ref())
                    .expect("a stream error"));
            }
        }
    }
    Ok(out)
}

/// Entries whose stream ended in a fault (the reader's), so that the comparison is known
/// to have been made.
static STREAM_FAULTS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Everything wrong with one case through one way of opening.
async fn check(case: &Case, opened: std::io::Result<Archive>, how: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    let name = format!("{} ({how})", case.name);
    match (&case.expect, opened) {
        (Expect::Open(want), Err(got)) => {
            // A case cut before its magic (or with a bad one) is for a parser told the
            // format; opening detects it, and says UnknownFormat as the core's catalog does.
            let core = Catalog::open(&case.bytes, options(case)).err();
            let got = archive_error(&got);
            let detected = matches!(got, Some(ArchiveError::UnknownFormat { .. })) && got == core;
            if got != as_archive(want) && !detected {
                wrong.push(format!("{name}: open: got {got:?}, want {want:?}"));
            }
        }
        (Expect::Open(want), Ok(_)) => wrong.push(format!("{name}: opens, want {want:?}")),
        (Expect::Opens(_), Err(got)) => wrong.push(format!("{name}: open fails: {got:?}")),
        (Expect::Opens(want), Ok(archive)) => {
            if archive.len() != want.entries.len() {
                wrong.push(format!("{name}: {} entries", archive.len()));
            }
            for (query, index) in &want.lookups {
                if archive.find(query) != *index {
                    wrong.push(format!("{name}: find({query:?})"));
                }
            }
            for (index, expected) in want.entries.iter().enumerate() {
                // The budget's own limit (`--max-total`) is the command's, not a reader's.
                if matches!(expected, Produce::Fails(Error::Limit(_))) {
                    continue;
                }
                let got = produce(&archive, index).await;
                if got != *expected {
                    wrong.push(format!(
                        "{name}: entry {index}: got {got:?}, want {expected:?}"
                    ));
                }
                // The stream agrees with the reader.
                let streamed = match &got {
                    Produce::Fails(Error::Rsli(RsliError::Decode { .. })) | Produce::Bytes(_) => {
                        Some(produce_streamed(&archive, index).await)
                    }
                    _ => None,
                };
                let agrees = match (&got, &streamed) {
                    (Produce::Bytes(b), Some(Ok(s))) => b == s,
                    (
                        Produce::Fails(Error::Rsli(RsliError::Decode {
                            entry,
                            offset,
                            error,
                        })),
                        Some(Err(StreamError::Decode {
                            entry: e,
                            offset: o,
                            error: x,
                        })),
                    ) => (Some(*entry), offset, error) == (*e, o, x),
                    (_, None) => true,
                    _ => false,
                };
                if !agrees {
                    wrong.push(format!("{name}: entry {index}: stream() {streamed:?}"));
                }
                if matches!(streamed, Some(Err(_))) {
                    STREAM_FAULTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }
    }
    wrong
}

#[tokio::test]
async fn the_hostile_catalogue_gives_its_verdicts() {
    let mut wrong = Vec::new();
    let cases = hostile::catalogue();
    for (n, case) in cases.iter().enumerate() {
        let memory = Archive::from_bytes_with(case.bytes.clone().into(), options(case));
        wrong.extend(check(case, memory, "memory").await);
        let file = TempFile::new(&format!("hostile-{n}"), &case.bytes);
        let opened = Archive::open_with(&file.0, options(case)).await;
        wrong.extend(check(case, opened, "file").await);
    }
    assert!(
        wrong.is_empty(),
        "{} wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    let faults = STREAM_FAULTS.load(std::sync::atomic::Ordering::Relaxed);
    assert!(faults >= 10, "{faults} corrupt entries streamed");
}

fn sample_archives() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("nres", samples::nres()),
        ("rsli", samples::rsli()),
        ("all-methods", samples::all_methods()),
    ]
}

#[test]
fn every_prefix_of_the_samples_from_memory_gives_the_core_verdict() {
    for (what, bytes) in sample_archives() {
        // The fuzz body compares every verdict and byte with the core's readers. The two
        // small samples are read a byte at a time, the larger all-methods one in random
        // sizes; every third prefix again with the trailer honoured.
        let seed = if what == "all-methods" { 3u8 } else { 0 };
        for len in 0..=bytes.len() {
            tokio_reader(&[&[0u8, seed][..], &bytes[..len]].concat());
            if len % 3 == 0 {
                tokio_reader(&[&[1u8, 7][..], &bytes[..len]].concat());
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_prefix_of_the_samples_from_a_file_gives_the_core_verdict() {
    for (what, bytes) in sample_archives() {
        for len in 0..=bytes.len() {
            let prefix = &bytes[..len];
            let file = TempFile::new(&format!("prefix-{what}"), prefix);
            let core = Catalog::open(prefix, OpenOptions::DEFAULT);
            let archive = match (core, Archive::open(&file.0).await) {
                (Err(want), Err(got)) => {
                    assert_eq!(archive_error(&got), Some(want), "{what}[..{len}]");
                    continue;
                }
                (Ok(core), Ok(archive)) => (core, archive),
                (x, y) => panic!(
                    "{what}[..{len}]: core {:?}, ngi-tokio {:?}",
                    x.err(),
                    y.err()
                ),
            };
            let (core, archive) = archive;
            for i in 0..core.len() {
                let want = core.reader(i, prefix).map(|mut r| {
                    let mut out = Vec::new();
                    std::io::Read::read_to_end(&mut r, &mut out).map(|_| out)
                });
                let got = match archive.reader(i) {
                    Err(e) => Err(archive_error(&e).expect("an archive error")),
                    Ok(mut r) => {
                        let mut out = Vec::new();
                        Ok(r.read_to_end(&mut out).await.map(|_| out))
                    }
                };
                match (want, got) {
                    (Err(w), Err(g)) => assert_eq!(w, g, "{what}[..{len}] entry {i}"),
                    (Ok(Ok(w)), Ok(Ok(g))) => assert!(w == g, "{what}[..{len}] entry {i}"),
                    (Ok(Err(w)), Ok(Err(g))) => {
                        assert_eq!(w.kind(), g.kind(), "{what}[..{len}] entry {i}");
                        assert_eq!(w.to_string(), g.to_string(), "{what}[..{len}] entry {i}");
                    }
                    (w, g) => panic!("{what}[..{len}] entry {i}: core {w:?}, ngi-tokio {g:?}"),
                }
            }
        }
    }
}

#[test]
fn every_prefix_of_small_streams_is_an_error_never_a_short_ok() {
    let mut checked = 0;
    for s in streams(4097) {
        let size = s.plain.len();
        for len in 0..s.packed.len() {
            let prefix = &s.packed[..len];
            let mut want = vec![0u8; size];
            let core = unpack_into(s.method, s.key, prefix, &mut want);
            for seed in [None, Some(len as u64)] {
                let polls = 64 + 8 * (len + size);
                let got = match seed {
                    None => {
                        let mut r = DecodeReader::new(prefix, s.method, size as u64, s.key);
                        read_to_end_polled(&mut r, || 1 + len % 5000, polls)
                    }
                    Some(seed) => {
                        let source = Trickle::new(prefix.to_vec(), seed);
                        let mut r = DecodeReader::new(source, s.method, size as u64, s.key);
                        read_to_end_polled(&mut r, || 1, polls)
                    }
                };
                match (core, got.end) {
                    (Ok(_), Ok(())) => assert!(got.bytes == want, "{} [..{len}]", s.name),
                    (Err(e), Err(io)) => {
                        let stream = io
                            .get_ref()
                            .and_then(|x| x.downcast_ref::<StreamError>())
                            .expect("a stream error");
                        assert_eq!(stream.decode_error(), Some(e), "{} [..{len}]", s.name);
                        let eof = matches!(e, DecodeError::Truncated { .. });
                        assert_eq!(io.kind() == ErrorKind::UnexpectedEof, eof);
                        assert!(got.bytes.len() <= size);
                    }
                    (c, g) => panic!(
                        "{} [..{len}]: core {c:?}, ngi-tokio {g:?} after {} bytes",
                        s.name,
                        got.bytes.len()
                    ),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "{checked} prefixes");
}

#[tokio::test]
async fn a_file_cut_after_opening_ends_its_entries_early() {
    let bytes = samples::all_methods();
    let file = TempFile::new("cut-after-open", &bytes);
    let opened = Archive::open(&file.0).await.unwrap();
    // In the middle of the XOR entry's bytes: it and every entry after it are cut.
    let xor = opened
        .entries()
        .iter()
        .find(|e| e.method == Some(Method::Xor))
        .unwrap();
    let cut = xor.offset + xor.packed_len / 2;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file.0)
        .unwrap()
        .set_len(cut)
        .unwrap();
    // Cached chunks read in place, and every read on the blocking pool.
    for archive in [opened.clone(), opened.with_cached_reads_inline(false)] {
        cut_entries(&archive, cut).await;
    }
}

async fn cut_entries(archive: &Archive, cut: u64) {
    let (mut whole, mut truncated, mut stored_cut) = (0, 0, 0);
    for (i, entry) in archive.entries().iter().enumerate() {
        let mut out = Vec::new();
        let mut reader = archive.reader(i).unwrap();
        let read = reader.read_to_end(&mut out);
        let read = tokio::time::timeout(std::time::Duration::from_secs(30), read)
            .await
            .expect("the read ends");
        if entry.offset + entry.packed_len <= cut {
            read.unwrap();
            assert_eq!(out, samples::all_methods_text(entry.method.unwrap()));
            whole += 1;
        } else {
            let e = read.expect_err("the file ends inside the entry");
            assert_eq!(e.kind(), ErrorKind::UnexpectedEof, "entry {i}: {e}");
            let stream = e
                .get_ref()
                .and_then(|x| x.downcast_ref::<StreamError>())
                .unwrap();
            assert!(stream.is_truncated() && stream.entry() == Some(entry.index));
            assert!(out.len() < entry.size as usize);
            // The stream gives the bytes before the cut first, then the error. For stored
            // and XOR entries those are exactly the bytes the file still holds.
            let mut chunks = archive.stream(i).unwrap().with_chunk_len(1000);
            let mut streamed = Vec::new();
            let mut end = None;
            while let Some(item) = chunks.next().await {
                match item {
                    Ok(chunk) => streamed.extend_from_slice(&chunk),
                    Err(e) => end = Some(e.kind()),
                }
            }
            assert_eq!(end, Some(ErrorKind::UnexpectedEof), "entry {i}");
            if matches!(entry.method, Some(Method::Stored | Method::Xor)) {
                let held = cut.saturating_sub(entry.offset) as usize;
                assert_eq!(streamed.len(), held, "entry {i}: the bytes before the cut");
                assert!(streamed == out, "entry {i}");
                stored_cut += usize::from(held > 0);
            }
            truncated += 1;
        }
    }
    assert!(whole > 0 && truncated > 0, "{whole} whole, {truncated} cut");
    assert_eq!(stored_cut, 1, "the XOR entry is cut in its middle");
}
