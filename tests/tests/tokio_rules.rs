//! ngi-tokio's rules one at a time, where the conformance tests would not single them
//! out: a poll's work is bounded even when the input in memory is megabytes of blocks that
//! produce nothing; a source's `Interrupted` is passed on and not kept; `Debug` shows
//! counts, not buffers; a failed read of the file is a `ReadError`; a file cut while read
//! ends the entry there; `fill_buf`/`consume` of both trait families; a stream's chunks
//! and its end.

use std::io;
use std::os::unix::fs::FileExt;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use ngi_core::Method;
use ngi_core::rsli::Builder;
use ngi_tokio::{Archive, DecodeReader};
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};

/// An archive in memory of one entry, `name`, packed with `method`.
fn one_entry(name: &[u8], method: Method, data: &[u8]) -> Archive {
    let mut builder = Builder::new();
    builder.add(name, method, data).unwrap();
    Archive::from_bytes(builder.build().unwrap().into()).unwrap()
}

/// A Deflate stream of `empty` empty stored blocks, then a last one holding `data`.
fn empty_blocks_then(empty: usize, data: &[u8]) -> Vec<u8> {
    let mut stream = [0x00u8, 0x00, 0x00, 0xFF, 0xFF].repeat(empty);
    let len = data.len() as u16;
    stream.push(0x01);
    stream.extend_from_slice(&len.to_le_bytes());
    stream.extend_from_slice(&(!len).to_le_bytes());
    stream.extend_from_slice(data);
    stream
}

#[test]
fn a_poll_over_blocks_that_produce_nothing_is_bounded() {
    // 4 MB of empty blocks in memory: one poll must not parse them all.
    let packed = empty_blocks_then(800_000, b"at last");
    let mut reader = DecodeReader::new(&packed[..], Method::Deflate, 7, 0);
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = [0u8; 16];
    let mut polls = 0;
    let mut got = Vec::new();
    loop {
        polls += 1;
        assert!(polls < 1000, "no end");
        let before = reader.decoder().consumed();
        let mut buf = ReadBuf::new(&mut out);
        match Pin::new(&mut reader).poll_read(&mut cx, &mut buf) {
            Poll::Pending => {
                // 16 codec calls of at most 64 KiB each.
                let worked = reader.decoder().consumed() - before;
                assert!(worked <= 16 * 64 * 1024, "one poll took {worked} bytes");
            }
            Poll::Ready(r) => {
                r.unwrap();
                if buf.filled().is_empty() {
                    break;
                }
                got.extend_from_slice(buf.filled());
            }
        }
    }
    assert_eq!(got, b"at last");
    assert!(polls >= 4, "{polls} polls for 4 MB of empty blocks");
}

/// Reads `reader` through reads of `room` bytes polled outside any task, to its end or
/// past `limit` bytes, each poll decoding at most 32 KiB; the bytes, and the polls made.
fn read_in_bounded_polls(
    mut reader: ngi_tokio::EntryReader,
    room: usize,
    limit: usize,
) -> (Vec<u8>, usize) {
    let mut cx = Context::from_waker(Waker::noop());
    let (mut out, mut got, mut polls) = (vec![0u8; room], Vec::new(), 0);
    loop {
        polls += 1;
        assert!(polls < 10_000, "no end");
        let before = reader.decoder().produced();
        let mut buf = ReadBuf::new(&mut out);
        let poll = Pin::new(&mut reader).poll_read(&mut cx, &mut buf);
        let worked = reader.decoder().produced() - before;
        assert!(worked <= 32 << 10, "one poll decoded {worked} bytes");
        if let Poll::Ready(r) = poll {
            r.unwrap();
            if buf.filled().is_empty() || got.len() > limit {
                return (got, polls);
            }
            got.extend_from_slice(buf.filled());
        }
    }
}

/// A reader that starts deep inside a packed entry, and a stream of the entry as one
/// chunk, polled outside any tokio task (where no coop budget stops them): each poll
/// decodes a bounded amount and asks to be polled again. One poll decoded 60 MiB to
/// reach the start, and one `poll_next` the whole entry.
#[test]
fn a_poll_outside_tokio_does_bounded_work() {
    const SIZE: usize = 8 << 20;
    let data: Vec<u8> = (0..SIZE as u32).map(|i| (i % 251) as u8).collect();
    let archive = one_entry(b"BIG", Method::Lzss, &data);
    let mut cx = Context::from_waker(Waker::noop());

    let start = SIZE as u64 - 100;
    let reader = archive.reader_from(0, start).unwrap();
    let (got, polls) = read_in_bounded_polls(reader, 100, usize::MAX);
    assert!(got == data[start as usize..]);
    assert!(polls > SIZE / (32 << 10), "{polls} polls");
    // Read with room to spare from 16 KiB in: the poll that ended the skip went on to
    // decode into the room, 48 KiB in one poll (a probe's case).
    let reader = archive.reader_from(0, 16 << 10).unwrap();
    let (got, _) = read_in_bounded_polls(reader, 64 << 10, 1 << 20);
    assert!(got[..] == data[16 << 10..][..got.len()]);

    let mut stream = archive.stream(0).unwrap().with_chunk_len(usize::MAX);
    let (mut polls, mut chunks) = (0, Vec::new());
    loop {
        polls += 1;
        assert!(polls < 10_000, "no end");
        let before = stream.reader().decoder().produced();
        let poll = futures_core::Stream::poll_next(Pin::new(&mut stream), &mut cx);
        let worked = stream.reader().decoder().produced() - before;
        assert!(worked <= 64 << 10, "one poll_next decoded {worked} bytes");
        match poll {
            Poll::Ready(Some(chunk)) => chunks.push(chunk.unwrap()),
            Poll::Ready(None) => break,
            Poll::Pending => {}
        }
    }
    assert_eq!(chunks.len(), 1, "the entry as one chunk");
    assert!(chunks[0] == data);
}

/// Wakes counted.
struct CountingWaker(std::sync::atomic::AtomicUsize);

impl std::task::Wake for CountingWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A slow codec over input in memory yields now and then, each time with a wake, though
/// every poll could go on: one unit of tokio's coop budget a poll let an LZHUF stream of
/// incompressible bytes run 90 ms between yields (a probe's 1 ms ticker came 300 ms
/// late), and outside tokio it never yielded. Decoding 8 MiB of it takes far more than
/// the millisecond a reader may go on for on any machine, so yields must come.
#[test]
fn a_slow_codec_yields_by_time_with_its_input_in_memory() {
    let mut x = 7u64;
    let data: Vec<u8> = (0..8 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let archive = one_entry(b"NOISE", Method::Lzhuf, &data);
    let wakes = std::sync::Arc::new(CountingWaker(0.into()));
    let waker = Waker::from(wakes.clone());
    let mut cx = Context::from_waker(&waker);
    let mut reader = archive.reader(0).unwrap();
    let (mut out, mut got, mut pending) = (vec![0u8; 64 << 10], Vec::new(), 0);
    loop {
        let mut buf = ReadBuf::new(&mut out);
        match Pin::new(&mut reader).poll_read(&mut cx, &mut buf) {
            Poll::Pending => pending += 1,
            Poll::Ready(r) => {
                r.unwrap();
                if buf.filled().is_empty() {
                    break;
                }
                got.extend_from_slice(buf.filled());
            }
        }
    }
    assert!(got == data);
    assert!(pending > 0, "no yield in 8 MiB of LZHUF");
    assert_eq!(wakes.0.load(std::sync::atomic::Ordering::SeqCst), pending);
}

/// Packed bytes that fail once with `kind` when `at` of them are consumed, and then
/// would go on.
struct FailsOnceAt {
    bytes: Vec<u8>,
    pos: usize,
    at: usize,
    kind: io::ErrorKind,
    failed: bool,
}

impl FailsOnceAt {
    fn new(bytes: Vec<u8>, at: usize, kind: io::ErrorKind) -> FailsOnceAt {
        FailsOnceAt {
            bytes,
            pos: 0,
            at,
            kind,
            failed: false,
        }
    }
}

impl AsyncRead for FailsOnceAt {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        unreachable!("read through AsyncBufRead: {}", buf.remaining())
    }
}

impl tokio::io::AsyncBufRead for FailsOnceAt {
    fn poll_fill_buf(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        if this.pos == this.at && !this.failed {
            this.failed = true;
            return Poll::Ready(Err(io::Error::new(this.kind, "the disk is on fire")));
        }
        let end = if this.pos < this.at {
            this.at
        } else {
            this.bytes.len()
        };
        Poll::Ready(Ok(&this.bytes[this.pos..end]))
    }
    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().pos += amount;
    }
}

#[tokio::test]
async fn a_sources_interrupted_is_passed_on_not_kept() {
    let text = b"interrupted once, then read to the end as if nothing happened".repeat(50);
    let packed = ngi_tests::streams::pack(Method::Lzss, &text);
    let half = packed.len() / 2;
    let source = FailsOnceAt::new(packed, half, io::ErrorKind::Interrupted);
    let mut reader = DecodeReader::new(source, Method::Lzss, text.len() as u64, 0);
    let mut out = Vec::new();
    let mut buf = [0u8; 100];
    let mut interrupted = 0;
    loop {
        match reader.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => interrupted += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(interrupted, 1);
    assert_eq!(out, text);
}

#[tokio::test]
async fn debug_shows_counts_not_bytes() {
    let data = vec![7u8; 1 << 20];
    let archive = one_entry(b"BIG", Method::Stored, &data);
    let mut reader = archive.reader(0).unwrap();
    reader.read_exact(&mut [0u8; 1000]).await.unwrap();
    let shown = format!("{reader:?} {:?} {archive:?}", archive.stream(0).unwrap());
    assert!(shown.len() < 2000, "{} characters: {shown}", shown.len());
    assert!(shown.contains("produced: 1000"), "{shown}");
}

#[tokio::test]
async fn a_sources_lasting_error_sticks() {
    let text = b"never read".to_vec();
    let source = FailsOnceAt::new(text.clone(), 0, io::ErrorKind::Other);
    let mut reader = DecodeReader::new(source, Method::Stored, text.len() as u64, 0);
    let mut buf = [0u8; 64];
    for _ in 0..3 {
        let e = reader.read(&mut buf).await.expect_err("sticky");
        assert_eq!(e.kind(), io::ErrorKind::Other);
        assert_eq!(e.to_string(), "the disk is on fire");
    }
}

#[tokio::test]
async fn a_file_reader_never_reads_past_the_packed_range() {
    // The LZSS entry's packed size cut 10 bytes short, the next entry's bytes right after
    // it: a reader that read on would decode the whole text.
    let mut bytes = ngi_tests::samples::all_methods();
    let lzss = ngi_tests::samples::ALL_METHODS
        .iter()
        .position(|(_, m)| *m == Method::Lzss)
        .unwrap();
    ngi_tests::hostile::patch_rsli(&mut bytes, |i, e| {
        if i == lzss {
            e.packed_size -= 10;
        }
    });
    let file = ngi_tests::tokio_io::TempFile::new("past-range", &bytes);
    for (chunk, inline) in [
        (512, true),
        (512, false),
        (ngi_tokio::DEFAULT_READ_CHUNK, false),
    ] {
        let from_file = Archive::open(&file.0).await.unwrap().with_read_chunk(chunk);
        let from_file = from_file.with_cached_reads_inline(inline);
        let in_memory = Archive::from_bytes(bytes.clone().into()).unwrap();
        for archive in [from_file, in_memory] {
            let mut out = Vec::new();
            let e = archive
                .reader(lzss)
                .unwrap()
                .read_to_end(&mut out)
                .await
                .unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{archive:?}");
            let stream = e
                .get_ref()
                .and_then(|x| x.downcast_ref::<ngi_core::io::StreamError>());
            let entry = archive.entry(lzss).unwrap();
            assert_eq!(stream.unwrap().offset(), entry.offset + entry.packed_len);
        }
    }
}

#[tokio::test]
async fn a_read_initialises_no_more_than_the_entry_needs() {
    let archive = one_entry(b"TEN", Method::Lzss, b"ten bytes!");
    let mut reader = archive.reader(0).unwrap();
    let mut room = vec![std::mem::MaybeUninit::<u8>::uninit(); 1 << 20];
    let mut buf = ReadBuf::uninit(&mut room);
    loop {
        let before = buf.filled().len();
        std::future::poll_fn(|cx| Pin::new(&mut reader).poll_read(cx, &mut buf))
            .await
            .unwrap();
        if buf.filled().len() == before {
            break;
        }
    }
    assert_eq!(buf.filled(), b"ten bytes!");
    // What is left of the entry (and 1 byte to see its end), never the caller's 1 MiB.
    assert!(buf.initialized().len() <= 11, "{}", buf.initialized().len());
}

/// An index past the last entry is the caller's mistake, `InvalidInput`, for both
/// formats and every way in (it was `InvalidData`, the kind of a bad file).
#[test]
fn an_index_past_the_end_is_invalid_input() {
    for bytes in [ngi_tests::samples::rsli(), ngi_tests::samples::nres()] {
        let archive = Archive::from_bytes(bytes.clone().into()).unwrap();
        for index in [archive.len(), usize::MAX] {
            assert_eq!(
                archive.reader(index).unwrap_err().kind(),
                io::ErrorKind::InvalidInput
            );
            assert_eq!(
                archive.stream(index).unwrap_err().kind(),
                io::ErrorKind::InvalidInput
            );
            let catalog =
                ngi_core::io::open_at(bytes.as_slice(), ngi_core::OpenOptions::DEFAULT).unwrap();
            let e = io::Error::from(catalog.reader(index, bytes.as_slice()).unwrap_err());
            assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        }
    }
}

/// A read of the file that fails is a `ngi_tokio::ReadError` naming the entry and the
/// offset, the first time and every time after (the error sticks): it was wrapped as any
/// other source error, so the downcast the docs show found nothing. The failure here: the
/// runtime the archive was opened on, whose blocking pool its reads run on, is gone.
#[test]
fn a_failed_read_of_the_file_is_a_read_error() {
    use tokio::io::AsyncReadExt;
    let dir = ngi_tests::scratch::Scratch::new("rules-read-error");
    let path = dir.join("a.nres");
    let mut writer = ngi_core::nres::Writer::new();
    for (name, len) in [("first", 8), ("big", 100_000)] {
        let entry = ngi_core::nres::NewEntry {
            name: name.as_bytes(),
            ..Default::default()
        };
        writer.add(entry, &vec![7; len]).unwrap();
    }
    std::fs::write(&path, writer.finish()).unwrap();
    let opened_on = tokio::runtime::Runtime::new().unwrap();
    let archive = opened_on
        .block_on(ngi_tokio::Archive::open(&path))
        .unwrap()
        .with_cached_reads_inline(false);
    drop(opened_on);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut reader = archive.reader(1).unwrap();
        let mut out = Vec::new();
        for attempt in 0..2 {
            let e = reader.read_to_end(&mut out).await.unwrap_err();
            let read = e
                .get_ref()
                .and_then(|i| i.downcast_ref::<ngi_tokio::ReadError>());
            let read = read.unwrap_or_else(|| panic!("attempt {attempt}: {e:?}"));
            assert_eq!((read.entry(), read.offset()), (1, 24), "{e}");
            assert!(
                e.to_string()
                    .starts_with("entry 1: reading the file at offset 24: ")
            );
        }
        assert!(out.is_empty());
    });
}

/// `FusedStream::is_terminated` is false until the stream has ended (a `select!` skips a
/// terminated stream), true after.
#[tokio::test]
async fn an_entry_stream_is_terminated_only_at_its_end() {
    use futures::StreamExt;
    use futures_core::FusedStream;
    let archive = one_entry(b"A", Method::Stored, b"hello");
    let mut stream = archive.stream(0).unwrap();
    assert!(!stream.is_terminated(), "a fresh stream is not terminated");
    assert_eq!(&stream.next().await.unwrap().unwrap()[..], b"hello");
    assert!(stream.next().await.is_none());
    assert!(stream.is_terminated());
}

/// Each chunk is sized by what is left of the entry, so that the last, short chunk holds
/// only its bytes, not a whole chunk's length.
#[tokio::test]
async fn the_last_chunk_of_a_stream_holds_only_its_bytes() {
    use futures::StreamExt;
    let data: Vec<u8> = (0..1005u32).map(|i| i as u8).collect();
    let archive = one_entry(b"A", Method::Stored, &data);
    let mut stream = archive.stream(0).unwrap().with_chunk_len(1000);
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first[..], data[..1000]);
    let last = stream.next().await.unwrap().unwrap();
    assert_eq!(last[..], data[1000..]);
    let held = last
        .try_into_mut()
        .expect("the chunk is its own")
        .capacity();
    assert!(held < 1000, "a 5-byte chunk holds {held} bytes");
    assert!(stream.next().await.is_none());
}

/// A file found cut while an entry is read on the blocking pool ends the entry there,
/// even when the file grows back before the next read: reading on would give the bytes
/// from further on, after a hole, as the entry's.
#[tokio::test]
async fn an_entry_cut_on_the_pool_ends_there_though_the_file_grows_back() {
    use ngi_tests::tokio_io::TempFile;
    let data: Vec<u8> = (0..65536u32).map(|i| (i * 7 % 251) as u8).collect();
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, &data).unwrap();
    let bytes = builder.build().unwrap();
    let start = bytes.windows(256).position(|w| w == &data[..256]).unwrap();
    let file = TempFile::new("cut-regrow", &bytes);
    let archive = Archive::open(&file.0)
        .await
        .unwrap()
        .with_read_chunk(4096)
        .with_cached_reads_inline(false);
    let mut reader = archive.reader(0).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file.0)
        .unwrap()
        .set_len((start + 6000) as u64)
        .unwrap();
    let (mut got, mut buf) = (Vec::new(), [0u8; 1000]);
    while got.len() < 6000 {
        let n = reader.read(&mut buf).await.unwrap();
        assert!(n > 0);
        got.extend_from_slice(&buf[..n]);
    }
    // Written again in place, whole.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file.0)
        .unwrap()
        .write_all_at(&bytes, 0)
        .unwrap();
    let e = loop {
        match reader.read(&mut buf).await {
            Ok(0) => panic!("a short Ok"),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) => break e,
        }
    };
    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "{e}");
    assert!(
        got == data[..got.len()],
        "{} bytes, not the entry's",
        got.len()
    );
    assert_eq!(got.len(), 6000);
}

/// A `DecodeReader` read through tokio's `fill_buf`/`consume` gives its stream once.
#[tokio::test]
async fn a_decode_reader_reads_the_same_through_async_buf_read() {
    use tokio::io::AsyncBufReadExt;
    let plain = b"hello, world ".repeat(1000);
    let mut reader = DecodeReader::new(&plain[..], Method::Stored, plain.len() as u64, 0);
    let mut got = Vec::new();
    loop {
        let buf = reader.fill_buf().await.unwrap();
        if buf.is_empty() {
            break;
        }
        let n = buf.len().min(100);
        got.extend_from_slice(&buf[..n]);
        reader.consume(n);
        assert!(got.len() <= plain.len(), "more bytes than the stream holds");
    }
    assert!(got == plain);
}

/// A `DecodeReader` and an `EntryReader` read through futures-io's `fill_buf` and
/// `consume` give their streams once.
#[tokio::test]
async fn futures_io_fill_buf_and_consume_give_the_stream_once() {
    async fn drain<R: futures::io::AsyncBufRead + Unpin>(mut reader: R, len: usize) -> Vec<u8> {
        let mut got = Vec::new();
        loop {
            let buf = futures::io::AsyncBufReadExt::fill_buf(&mut reader)
                .await
                .unwrap();
            if buf.is_empty() {
                return got;
            }
            let n = buf.len().min(100);
            got.extend_from_slice(&buf[..n]);
            futures::io::AsyncBufReadExt::consume_unpin(&mut reader, n);
            assert!(got.len() <= len, "more bytes than the stream holds");
        }
    }
    let plain = b"hello, world ".repeat(1000);
    let source = futures::io::Cursor::new(&plain[..]);
    let decode = DecodeReader::new(source, Method::Stored, plain.len() as u64, 0);
    assert!(drain(decode, plain.len()).await == plain);
    let archive = one_entry(b"A", Method::Stored, &plain);
    assert!(drain(archive.reader(0).unwrap(), plain.len()).await == plain);
}
