//! ngi-tokio conformance: every corpus sample under every method (RsLi) and stored (NRes),
//! read through `Archive::reader` (1-byte reads, random sizes with empty reads between,
//! `read_to_end`, `AsyncBufRead` with random consumes), `Archive::stream` (default and
//! odd chunk lengths) and the futures-io impls, from a file and from memory; and every
//! corpus stream through `DecodeReader` over inputs that answer `Pending` before every
//! piece and deliver 1-byte pieces (a `Trickle`, and a `StreamReader` over 1-byte chunks
//! with empty chunks between). Each must give the core's one-shot bytes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use futures::StreamExt;
use ngi_core::archive::Catalog;
use ngi_core::codec::unpack_into;
use ngi_core::{Method, OpenOptions};
use ngi_tests::corpus::Rng;
use ngi_tests::streams::{Stream, streams};
use ngi_tests::tokio_io::{Dribble, Expected, Trickle, corpus_archives};
use ngi_tokio::{Archive, DEFAULT_STREAM_CHUNK, DecodeReader, EntryStream};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt};

/// Entries up to this size are also read a byte at a time through every path; larger
/// ones a byte at a time through the file path only (the slowest, with the most `Pending`).
const ONE_BYTE_ALL: usize = 64 * 1024;

struct Fixture {
    name: &'static str,
    bytes: Vec<u8>,
    expected: Vec<Expected>,
    file: PathBuf,
}

fn fixtures() -> &'static [Fixture] {
    static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        corpus_archives()
            .into_iter()
            .map(|(name, bytes, expected)| {
                // The core's one-shot decode is the reference; the builder must agree
                // with the corpus.
                let catalog = Catalog::open(&bytes, OpenOptions::DEFAULT).expect("opens");
                assert_eq!(catalog.len(), expected.len());
                for (i, e) in expected.iter().enumerate() {
                    let entry = catalog.entry(i).expect("entry");
                    let packed = catalog.packed(i, &bytes).expect("packed");
                    let mut out = vec![0u8; entry.size as usize];
                    let method = entry.method.expect("method");
                    unpack_into(method, entry.key, packed, &mut out).expect("one-shot");
                    assert!(out == e.plain, "{}: one-shot", e.name);
                }
                let file = lasting_file(&format!("tokio-reader-{name}"), &bytes);
                Fixture {
                    name,
                    bytes,
                    expected,
                    file,
                }
            })
            .collect()
    })
}

/// `bytes` in a file of cargo's scratch folder for tests (`target/tmp`). The fixtures are
/// a static, which is never dropped, so a file in the system's temporary folder would be
/// left there by every run; this one has a fixed name that each run replaces whole (a
/// rename, so that a concurrent run never reads it half written).
fn lasting_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mut file = tempfile::NamedTempFile::new_in(dir).expect("target/tmp takes a file");
    file.write_all(bytes).expect("target/tmp is writable");
    let path = dir.join(name);
    file.persist(&path).expect("the file takes its name");
    path
}

/// Every way of opening a fixture: from its file (cached chunks read in place, and every
/// read on the blocking pool, in small chunks) and from memory.
async fn opened(f: &Fixture) -> [(&'static str, Archive); 3] {
    let file = Archive::open(&f.file).await.expect("opens from the file");
    let pool = file
        .clone()
        .with_cached_reads_inline(false)
        .with_read_chunk(5000);
    let memory = Archive::from_bytes(f.bytes.clone().into()).expect("opens from memory");
    assert_eq!(file.entries(), memory.entries());
    [("file", file), ("file-pool", pool), ("memory", memory)]
}

/// Reads to the end with read sizes from `size` and an empty read before each.
async fn read_sized(mut r: impl AsyncRead + Unpin, mut size: impl FnMut() -> usize) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 70_000];
    loop {
        assert_eq!(r.read(&mut []).await.expect("empty read"), 0);
        let n = size().clamp(1, buf.len());
        match r.read(&mut buf[..n]).await.expect("reads") {
            0 => return out,
            got => {
                assert!(got <= n);
                out.extend_from_slice(&buf[..got]);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_entry_reads_the_same_in_any_sizes() {
    let mut rng = Rng::new(0xA5_7C);
    for f in fixtures() {
        for (how, archive) in opened(f).await {
            for (i, e) in f.expected.iter().enumerate() {
                let what = format!("{} {how} {}", f.name, e.name);
                let mut whole = Vec::new();
                archive
                    .reader(i)
                    .unwrap()
                    .read_to_end(&mut whole)
                    .await
                    .unwrap();
                assert!(whole == e.plain, "{what}: read_to_end");
                assert!(archive.read(i).await.unwrap() == e.plain, "{what}: read");
                let got = read_sized(archive.reader(i).unwrap(), || 1 + rng.below(9000)).await;
                assert!(got == e.plain, "{what}: random reads");
                if e.plain.len() <= ONE_BYTE_ALL || how == "file-pool" {
                    let got = read_sized(archive.reader(i).unwrap(), || 1).await;
                    assert!(got == e.plain, "{what}: 1-byte reads");
                }
            }
        }
    }
}

/// `reader_from` at the start, one byte in, the middle, one byte before the end and the
/// end, for every entry of every method, from a file and from memory: the entry's bytes
/// from there on, through `read_to_end`, random-sized reads and `AsyncBufRead`. Past the
/// end is `InvalidInput`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_entry_reads_the_same_from_any_offset() {
    let mut rng = Rng::new(0x0FF5);
    for f in fixtures() {
        for (how, archive) in opened(f).await {
            for (i, e) in f.expected.iter().enumerate() {
                let size = e.plain.len() as u64;
                let starts = [
                    0,
                    1,
                    size / 2,
                    size.saturating_sub(1),
                    size,
                    rng.below(9000) as u64,
                ];
                for start in starts.into_iter().filter(|&s| s <= size) {
                    let what = format!("{} {how} {} from {start}", f.name, e.name);
                    let want = &e.plain[start as usize..];
                    let reader = archive.reader_from(i, start).unwrap();
                    assert_eq!(reader.unpacked_size(), size, "{what}");
                    assert_eq!(reader.remaining(), size - start, "{what}");
                    let got = read_sized(reader, || 1 + rng.below(9000)).await;
                    assert!(got == want, "{what}: random reads");
                    let mut buffered = archive.reader_from(i, start).unwrap();
                    let mut got = Vec::new();
                    loop {
                        let chunk = buffered.fill_buf().await.unwrap();
                        if chunk.is_empty() {
                            break;
                        }
                        let n = chunk.len().min(1 + rng.below(5000));
                        got.extend_from_slice(&chunk[..n]);
                        buffered.consume(n);
                    }
                    assert!(got == want, "{what}: fill_buf");
                    let stream = EntryStream::from(archive.reader_from(i, start).unwrap());
                    let chunks: Vec<_> = stream
                        .with_chunk_len(1000)
                        .map(|c| c.expect("a chunk"))
                        .collect()
                        .await;
                    assert!(chunks.iter().rev().skip(1).all(|c| c.len() == 1000));
                    assert!(chunks.concat() == want, "{what}: stream");
                }
                let past = archive.reader_from(i, size + 1).unwrap_err();
                assert_eq!(past.kind(), std::io::ErrorKind::InvalidInput, "{}", e.name);
            }
        }
    }
}

#[tokio::test]
async fn every_entry_reads_the_same_through_async_buf_read() {
    let mut rng = Rng::new(0xB0F);
    for f in fixtures() {
        for (how, archive) in opened(f).await {
            for (i, e) in f.expected.iter().enumerate() {
                let mut r = archive.reader(i).unwrap();
                let mut out = Vec::new();
                loop {
                    let buf = r.fill_buf().await.unwrap();
                    if buf.is_empty() {
                        break;
                    }
                    let n = (1 + rng.below(2 * buf.len())).min(buf.len());
                    out.extend_from_slice(&buf[..n]);
                    r.consume(n);
                    // Mixed with reads: bytes held by fill_buf come first.
                    if rng.below(4) == 0 {
                        let mut small = [0u8; 7];
                        let k = r.read(&mut small).await.unwrap();
                        out.extend_from_slice(&small[..k]);
                    }
                }
                assert!(out == e.plain, "{} {how} {}: fill_buf", f.name, e.name);
            }
        }
    }
}

#[tokio::test]
async fn every_entry_streams_the_same_in_chunks() {
    for f in fixtures() {
        for (how, archive) in opened(f).await {
            for (i, e) in f.expected.iter().enumerate() {
                for chunk_len in [DEFAULT_STREAM_CHUNK, 1000, 1] {
                    if chunk_len == 1 && e.plain.len() > 4096 {
                        continue;
                    }
                    let stream = archive.stream(i).unwrap().with_chunk_len(chunk_len);
                    let chunks: Vec<_> = stream.map(|c| c.expect("a chunk")).collect().await;
                    let (last, full) = chunks
                        .split_last()
                        .map_or((None, &[][..]), |(l, f)| (Some(l), f));
                    assert!(full.iter().all(|c| c.len() == chunk_len), "full chunks");
                    assert!(last.is_none_or(|c| !c.is_empty() && c.len() <= chunk_len));
                    let got: Vec<u8> = chunks.concat();
                    assert!(
                        got == e.plain,
                        "{} {how} {}: stream({chunk_len})",
                        f.name,
                        e.name
                    );
                }
            }
        }
    }
}

/// A reader part of whose bytes were read, some of them held by `fill_buf` and not
/// consumed, streams on from the first byte not consumed: nothing is lost or repeated.
#[tokio::test]
async fn a_reader_partly_read_streams_the_rest() {
    let mut rng = Rng::new(0x57E4);
    for f in fixtures() {
        for (how, archive) in opened(f).await {
            for (i, e) in f.expected.iter().enumerate() {
                let mut reader = archive.reader(i).unwrap();
                let mut got = vec![0u8; rng.below(e.plain.len() + 1)];
                reader.read_exact(&mut got).await.unwrap();
                let held = reader.fill_buf().await.unwrap().len();
                let consumed = rng.below(held + 1);
                got.extend_from_slice(&reader.fill_buf().await.unwrap()[..consumed]);
                reader.consume(consumed);
                let stream = EntryStream::from(reader);
                let chunks: Vec<_> = stream.map(|c| c.expect("a chunk")).collect().await;
                got.extend(chunks.concat());
                assert!(got == e.plain, "{} {how} {}", f.name, e.name);
            }
        }
    }
}

#[tokio::test]
async fn every_entry_reads_the_same_through_futures_io() {
    for f in fixtures() {
        for (how, archive) in opened(f).await {
            for (i, e) in f.expected.iter().enumerate() {
                let mut out = Vec::new();
                let mut r = archive.reader(i).unwrap();
                futures::io::AsyncReadExt::read_to_end(&mut r, &mut out)
                    .await
                    .unwrap();
                assert!(
                    out == e.plain,
                    "{} {how} {}: futures read_to_end",
                    f.name,
                    e.name
                );
                // futures-io's BufRead, a line at a time (the text samples have lines).
                let mut lines = Vec::new();
                let mut r = archive.reader(i).unwrap();
                loop {
                    let mut line = Vec::new();
                    if futures::io::AsyncBufReadExt::read_until(&mut r, b'\n', &mut line)
                        .await
                        .unwrap()
                        == 0
                    {
                        break;
                    }
                    lines.extend_from_slice(&line);
                }
                assert!(
                    lines == e.plain,
                    "{} {how} {}: futures read_until",
                    f.name,
                    e.name
                );
            }
        }
    }
    // From memory the readers need no tokio runtime at all: another executor polls them.
    let f = &fixtures()[0];
    let archive = Archive::from_bytes(f.bytes.clone().into()).unwrap();
    for (i, e) in f.expected.iter().enumerate() {
        let out = read_on_futures_executor(archive.reader(i).unwrap()).unwrap();
        assert!(out == e.plain, "{}: futures executor", e.name);
    }
}

/// Reads `reader` to its end through futures-io on the futures executor, on a thread of
/// its own (an executor blocking inside a tokio task would hold up tokio's wake-ups).
fn read_on_futures_executor(
    mut reader: impl futures::io::AsyncRead + Unpin + Send + 'static,
) -> std::io::Result<Vec<u8>> {
    std::thread::spawn(move || {
        futures::executor::block_on(async move {
            let mut out = Vec::new();
            futures::io::AsyncReadExt::read_to_end(&mut reader, &mut out)
                .await
                .map(|_| out)
        })
    })
    .join()
    .expect("the futures executor reads")
}

fn one_shot(s: &Stream) -> Vec<u8> {
    let mut out = vec![0u8; s.plain.len()];
    let used = unpack_into(s.method, s.key, &s.packed, &mut out).expect("the stream decodes");
    assert_eq!(used, s.packed.len());
    assert!(out == s.plain, "{}: one-shot", s.name);
    out
}

#[tokio::test]
async fn decode_reader_over_pending_trickles() {
    let mut rng = Rng::new(0x7121);
    for s in streams(usize::MAX) {
        let want = one_shot(&s);
        let size = s.plain.len() as u64;
        // Pieces of 1..=300 bytes with Pending before each; random read sizes.
        let seed = 1 + rng.next_u64() % 1000;
        let mut r = DecodeReader::new(Trickle::new(s.packed.clone(), seed), s.method, size, s.key);
        let got = read_sized(&mut r, || 1 + rng.below(20_000)).await;
        assert!(got == want, "{}: trickle", s.name);
        assert!(
            r.get_ref().pendings > 0 || s.packed.is_empty(),
            "{}: it pended",
            s.name
        );
        assert!(
            r.into_inner().rest().is_empty(),
            "{}: every byte used",
            s.name
        );
        if s.packed.len() <= ONE_BYTE_ALL {
            // 1-byte pieces, Pending before each, 1-byte reads.
            let r = DecodeReader::new(Trickle::new(s.packed.clone(), 0), s.method, size, s.key);
            assert!(
                read_sized(r, || 1).await == want,
                "{}: 1-byte trickle",
                s.name
            );
            // An HTTP body's shape: 1-byte chunks, empty chunks between, Pending between.
            let body = tokio_util::io::StreamReader::new(Dribble::new(s.packed.clone()));
            let mut out = Vec::new();
            DecodeReader::new(body, s.method, size, s.key)
                .read_to_end(&mut out)
                .await
                .unwrap();
            assert!(out == want, "{}: StreamReader of 1-byte chunks", s.name);
        }
        // The same through futures-io, on another executor (on its own thread: an
        // executor blocking inside a tokio task would hold up tokio's wake-ups).
        let trickle = Trickle::new(s.packed.clone(), seed);
        let got = read_on_futures_executor(DecodeReader::new(trickle, s.method, size, s.key));
        assert!(got.unwrap() == want, "{}: futures-io trickle", s.name);
    }
}

#[tokio::test]
async fn decode_reader_leaves_what_follows_the_stream() {
    for s in streams(5000) {
        let mut packed = s.packed.clone();
        packed.extend_from_slice(b"NEXT");
        let size = s.plain.len() as u64;
        let mut r = DecodeReader::new(Trickle::new(packed, 3), s.method, size, s.key);
        let mut out = Vec::new();
        r.read_to_end(&mut out).await.unwrap();
        assert!(out == s.plain, "{}", s.name);
        assert_eq!(r.decoder().consumed(), s.packed.len() as u64, "{}", s.name);
        // Deflate may have looked at bytes past its end; none is consumed.
        assert_eq!(r.into_inner().rest(), b"NEXT", "{}", s.name);
    }
}

#[tokio::test]
async fn lookups_and_metadata_are_the_cores() {
    for f in fixtures() {
        let catalog = Catalog::open(&f.bytes, OpenOptions::DEFAULT).unwrap();
        for (how, archive) in opened(f).await {
            assert_eq!(archive.len(), catalog.len(), "{how}");
            assert_eq!(archive.entries(), catalog.entries(), "{how}");
            assert_eq!(archive.format(), catalog.format(), "{how}");
            for (i, e) in catalog.entries().iter().enumerate() {
                assert_eq!(archive.find(e.name()), catalog.find(e.name()), "{how} {i}");
                let r = archive.reader(i).unwrap();
                assert_eq!((r.index(), r.unpacked_size()), (i, e.size));
            }
            assert_eq!(archive.find(b"no such entry"), None);
            let err = archive.reader(catalog.len()).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
            assert!(matches!(
                ngi_tests::fuzzing::archive_error(&err),
                Some(ngi_core::archive::Error::NoSuchEntry { .. })
            ));
        }
    }
    // Every method is in the RsLi fixture.
    let methods: std::collections::BTreeSet<Method> =
        fixtures()[0].expected.iter().map(|e| e.method).collect();
    assert_eq!(methods.len(), Method::ALL.len());
}

/// `Archive::read` holds no more than the entry: its `Vec`'s capacity is its length
/// (`read_to_end` doubled the buffer, so an entry of 3 MiB and a byte held 4 MiB), from a
/// file and from memory, stored and packed alike.
#[tokio::test]
async fn read_whole_holds_no_more_than_the_entry() {
    let mut rng = Rng::new(31);
    let data = rng.bytes((3 << 20) + 1);
    let mut builder = ngi_core::rsli::Builder::new();
    builder.add(b"STORED", Method::Stored, &data).unwrap();
    builder.add(b"PACKED", Method::Lzss, &data).unwrap();
    builder.add(b"EMPTY", Method::Deflate, b"").unwrap();
    let bytes = builder.build().unwrap();
    let file = lasting_file("read-whole.rsli", &bytes);
    let from_file = Archive::open(&file).await.unwrap();
    let from_memory = Archive::from_bytes(bytes.into()).unwrap();
    for archive in [from_file, from_memory] {
        for (index, want) in [(0, &data[..]), (1, &data[..]), (2, &[][..])] {
            let got = archive.read(index).await.unwrap();
            assert!(got == want, "entry {index}");
            assert_eq!(got.capacity(), got.len(), "entry {index}");
        }
    }
}

/// Output the codec holds (the rest of a match, a stream of size 0) is given while the
/// source waits: over a connection that stays open, LZSS and LZHUF kept an entry's last
/// byte until the peer sent more or closed, and a stream of size 0 never ended.
#[tokio::test]
async fn decode_reader_gives_what_it_holds_while_its_source_waits() {
    use tokio::io::AsyncWriteExt;
    let mut rng = Rng::new(0x0FE3);
    for s in streams(usize::MAX) {
        for read_len in [4096, 1 + rng.below(70_000)] {
            let (mut peer, ours) = tokio::io::duplex(s.packed.len() + 64);
            peer.write_all(&s.packed).await.unwrap();
            let size = s.plain.len() as u64;
            let mut r = DecodeReader::new(tokio::io::BufReader::new(ours), s.method, size, s.key);
            let (mut out, mut buf) = (Vec::new(), vec![0u8; read_len]);
            loop {
                let wait = std::time::Duration::from_secs(10);
                let read = tokio::time::timeout(wait, r.read(&mut buf)).await;
                let n = read
                    .unwrap_or_else(|_| panic!("{} ({read_len}): waits at {}", s.name, out.len()))
                    .unwrap();
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert!(out == s.plain, "{} ({read_len})", s.name);
            drop(peer);
        }
    }
}
