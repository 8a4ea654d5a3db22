//! Inputs and drivers for the tests of ngi-tokio and its fuzz body: a source that answers
//! `Pending` every other poll and hands out its bytes in small pieces (tokio's and
//! futures-io's `AsyncBufRead`), a `Stream` of 1-byte chunks with empty chunks between
//! (for `tokio_util::io::StreamReader`), and a runtime-free driver that reads a reader to
//! its end with read sizes of the caller's choice, bounded in polls so that a spin fails.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, Waker};

use bytes::Bytes;

use crate::corpus::Rng;

/// Bytes handed out by `poll_fill_buf` in pieces of 1 byte (seed 0) or 1..=300 bytes
/// drawn from the seed, with `Pending` (and a wake-up) before every piece.
#[derive(Debug)]
pub struct Trickle {
    bytes: Bytes,
    rng: Rng,
    one: bool,
    /// The piece on offer (`bytes[..window]`), 0 when a new one is to be drawn.
    window: usize,
    /// The next poll answers `Pending`.
    pend: bool,
    /// Polls answered `Pending`, for the tests to check that the interleaving happened.
    pub pendings: usize,
}

impl Trickle {
    /// A source of `bytes`, pieces drawn from `seed`.
    pub fn new(bytes: impl Into<Bytes>, seed: u64) -> Trickle {
        Trickle {
            bytes: bytes.into(),
            rng: Rng::new(seed),
            one: seed == 0,
            window: 0,
            pend: true,
            pendings: 0,
        }
    }

    /// What is not yet consumed.
    pub fn rest(&self) -> &[u8] {
        &self.bytes
    }

    fn poll_piece(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        if self.pend && !self.bytes.is_empty() {
            self.pend = false;
            self.pendings += 1;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if self.window == 0 {
            self.window = if self.one { 1 } else { 1 + self.rng.below(300) };
        }
        let n = self.window.min(self.bytes.len());
        Poll::Ready(Ok(&self.bytes[..n]))
    }

    fn take(&mut self, amount: usize) {
        let amount = amount.min(self.window).min(self.bytes.len());
        let _ = self.bytes.split_to(amount);
        self.window -= amount;
        if self.window == 0 {
            self.pend = true;
        }
    }

    fn read_into(&mut self, cx: &mut Context<'_>, out: &mut [u8]) -> Poll<io::Result<usize>> {
        let piece = std::task::ready!(self.poll_piece(cx))?;
        let n = piece.len().min(out.len());
        out[..n].copy_from_slice(&piece[..n]);
        self.take(n);
        Poll::Ready(Ok(n))
    }
}

impl tokio::io::AsyncRead for Trickle {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = std::task::ready!(self.get_mut().read_into(cx, buf.initialize_unfilled()))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncBufRead for Trickle {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().poll_piece(cx)
    }
    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().take(amount);
    }
}

impl futures_io::AsyncRead for Trickle {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().read_into(cx, buf)
    }
}

impl futures_io::AsyncBufRead for Trickle {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().poll_piece(cx)
    }
    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().take(amount);
    }
}

/// `bytes` as a `Stream` of 1-byte chunks with an empty chunk after each, and `Pending`
/// before every item: for `tokio_util::io::StreamReader`, which is how an HTTP body
/// reaches a `DecodeReader`.
#[derive(Debug)]
pub struct Dribble {
    bytes: Bytes,
    step: u8,
}

impl Dribble {
    /// A stream of `bytes`.
    pub fn new(bytes: impl Into<Bytes>) -> Dribble {
        Dribble {
            bytes: bytes.into(),
            step: 0,
        }
    }
}

impl futures_core::Stream for Dribble {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        this.step = (this.step + 1) % 4;
        match this.step {
            1 | 3 => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            2 if !this.bytes.is_empty() => Poll::Ready(Some(Ok(this.bytes.split_to(1)))),
            2 => Poll::Ready(None),
            _ => Poll::Ready(Some(Ok(Bytes::new()))),
        }
    }
}

/// How [`read_to_end_polled`] ended.
#[derive(Debug)]
pub struct Polled {
    /// The bytes read.
    pub bytes: Vec<u8>,
    /// `Ok` at the end, or the error the reader gave.
    pub end: io::Result<()>,
    /// `Pending` answers seen.
    pub pendings: usize,
}

/// Reads `reader` (tokio `AsyncRead`) to its end without a runtime, polling with a no-op
/// waker (a `Pending` is polled again at once), with read sizes from `size`. Panics on a
/// read larger than asked, an `Ok(0)` for a non-empty buffer before `expected` bytes
/// (with `expected` known), or more than `max_polls` polls (a spin).
pub fn read_to_end_polled<R: tokio::io::AsyncRead + Unpin>(
    reader: &mut R,
    mut size: impl FnMut() -> usize,
    max_polls: usize,
) -> Polled {
    let mut cx = Context::from_waker(Waker::noop());
    let mut out = Vec::new();
    let mut buf = vec![0u8; 70_000];
    let mut pendings = 0;
    for _ in 0..max_polls {
        let n = size().clamp(1, buf.len());
        let mut read = tokio::io::ReadBuf::new(&mut buf[..n]);
        match Pin::new(&mut *reader).poll_read(&mut cx, &mut read) {
            Poll::Pending => pendings += 1,
            Poll::Ready(Err(e)) => {
                return Polled {
                    bytes: out,
                    end: Err(e),
                    pendings,
                };
            }
            Poll::Ready(Ok(())) if read.filled().is_empty() => {
                return Polled {
                    bytes: out,
                    end: Ok(()),
                    pendings,
                };
            }
            Poll::Ready(Ok(())) => {
                assert!(read.filled().len() <= n, "read more than asked");
                out.extend_from_slice(read.filled());
            }
        }
    }
    panic!(
        "no end after {max_polls} polls ({} bytes out): a spin",
        out.len()
    );
}

/// One entry of a [`corpus_archives`] archive: its name and what it decodes to.
#[derive(Debug, Clone)]
pub struct Expected {
    /// The entry's name, for messages.
    pub name: String,
    /// The method it is packed with.
    pub method: ngi_core::Method,
    /// Its decoded bytes.
    pub plain: Vec<u8>,
}

/// The conformance corpus as archives of both formats: one RsLi holding every sample
/// under every method (packed by ngi's builder: LZSS/LZHUF by the encoders proven
/// against pylzss, lhasa and jlha, Deflate by miniz_oxide), and one NRes holding every
/// sample. Each archive comes with its entries' expected bytes, in directory order.
pub fn corpus_archives() -> Vec<(&'static str, Vec<u8>, Vec<Expected>)> {
    let corpus = crate::corpus::corpus();
    let mut rsli = ngi_core::rsli::Builder::new();
    rsli.seed(0x70C1_0000).presorted(false).deflate_level(6);
    let mut rsli_expected = Vec::new();
    for method in ngi_core::Method::ALL {
        for (s, sample) in corpus.iter().enumerate() {
            let name = format!("C{s:02}M{:03X}", method.bits());
            rsli.add(name.as_bytes(), method, &sample.data)
                .expect("corpus entry is valid");
            rsli_expected.push(Expected {
                name: format!("{} {method}", sample.name),
                method,
                plain: sample.data.clone(),
            });
        }
    }
    let mut nres = ngi_core::nres::Writer::new();
    let mut nres_expected = Vec::new();
    for sample in &corpus {
        let entry = ngi_core::nres::NewEntry {
            name: sample.name.as_bytes(),
            ..ngi_core::nres::NewEntry::default()
        };
        nres.add(entry, &sample.data)
            .expect("corpus entry is valid");
        nres_expected.push(Expected {
            name: sample.name.clone(),
            method: ngi_core::Method::Stored,
            plain: sample.data.clone(),
        });
    }
    vec![
        (
            "rsli",
            rsli.build().expect("corpus library builds"),
            rsli_expected,
        ),
        ("nres", nres.finish(), nres_expected),
    ]
}

/// A file under the system's temporary folder, named for the test, removed when dropped.
#[derive(Debug)]
pub struct TempFile(pub tempfile::TempPath);

impl TempFile {
    /// Writes `bytes` to a new file named after `tag`.
    pub fn new(tag: &str, bytes: &[u8]) -> TempFile {
        let mut file = tempfile::Builder::new()
            .prefix(&format!("ngi-tokio-{tag}-"))
            .tempfile()
            .expect("the temporary folder takes a new file");
        std::io::Write::write_all(&mut file, bytes).expect("temporary file is writable");
        TempFile(file.into_temp_path())
    }
}
