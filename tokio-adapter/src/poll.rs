//! The one poll loop every reader of this crate runs, whichever trait family (tokio or
//! futures-io) calls it and whatever the input (a caller's `AsyncBufRead`, an entry's
//! bytes in memory, an entry's range of a file): fill the input, call the core's
//! [`StreamDecoder`], consume exactly what it used, return as soon as any output exists.
//!
//! The rules the issue and DESIGN.md ask of it live in [`StreamDecoder`] (sticky codec
//! errors, truncation never a short success, no spin) or here (sticky source errors,
//! bounded work and tokio's coop budget per poll). All progress is in the structs; a
//! `Pending` never leaves anything in a local.

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::{Duration, Instant};

use ngi_core::Status;
use ngi_core::codec::BoxedDecoder;
use ngi_core::io::StreamDecoder;

use crate::error::Sticky;

/// The most decoded bytes one poll produces: one unit of tokio's coop budget (128 a
/// tick) stands for at most this much work, so a task decoding from memory yields at
/// least every 4 MiB of output.
pub(crate) const POLL_OUTPUT: usize = 32 * 1024;

/// The most packed bytes one codec call is offered: with input in memory a call could
/// otherwise parse megabytes of blocks that produce nothing (empty Deflate blocks) in one
/// go.
pub(crate) const CALL_INPUT: usize = 64 * 1024;

/// The most time a reader spends decoding in the polls between two `Pending`s that give the
/// runtime its turn (a wait for the source, the coop budget, this yield; not the reader's
/// own wake after a poll of nothing), whatever the codec: tokio's coop budget (one unit a
/// poll, 128 a tick) alone let a task go on for 4 MiB of output, which an LZHUF stream of
/// incompressible bytes takes 90 ms to decode (a probe's 1 ms ticker came 300 ms late
/// beside four such streams on two workers). Counted over the polls' own time only, not the
/// caller's between them.
pub(crate) const POLL_TIME: Duration = Duration::from_millis(1);

/// The codec calls one poll makes that produce nothing (packed bytes going into the
/// codec's state: Deflate block headers, say) before it yields to the runtime.
pub(crate) const POLL_CALLS: usize = 16;

/// The decoded bytes `AsyncBufRead::poll_fill_buf` holds, allocated on the first call
/// (and no larger than what is left of the stream): readers only ever read through
/// `AsyncRead` need no such buffer.
pub(crate) const BUFFER_LEN: usize = 16 * 1024;

/// Packed bytes as one of the trait families gives them; `Via` picks the family, so that
/// one type can be read through either.
pub(crate) trait Input<Via> {
    /// The bytes at hand, an empty slice at the end of the input.
    fn poll_input(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>;
    /// `amount` bytes of them used.
    fn consume_input(&mut self, amount: usize);
}

/// Read a caller's input through `tokio::io::AsyncBufRead`.
#[derive(Debug)]
pub(crate) enum ViaTokio {}

/// Read a caller's input through `futures_io::AsyncBufRead`.
#[cfg(feature = "futures-io")]
#[derive(Debug)]
pub(crate) enum ViaFutures {}

/// Read an entry's own input (see `packed.rs`).
#[derive(Debug)]
pub(crate) enum Direct {}

impl<R: tokio::io::AsyncBufRead + Unpin> Input<ViaTokio> for R {
    fn poll_input(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Pin::new(self).poll_fill_buf(cx)
    }
    fn consume_input(&mut self, amount: usize) {
        Pin::new(self).consume(amount);
    }
}

#[cfg(feature = "futures-io")]
impl<R: futures_io::AsyncBufRead + Unpin> Input<ViaFutures> for R {
    fn poll_input(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Pin::new(self).poll_fill_buf(cx)
    }
    fn consume_input(&mut self, amount: usize) {
        Pin::new(self).consume(amount);
    }
}

/// A packed stream's input, its decoder, and the decoded bytes `poll_fill_buf` handed out
/// and not yet consumed.
pub(crate) struct Decoding<R> {
    input: R,
    engine: Engine,
    buffer: Box<[u8]>,
    /// `buffer[start..end]` is decoded and not yet consumed.
    start: usize,
    end: usize,
    /// Decoded bytes still to be thrown away before the first byte handed out (a reader
    /// that starts inside a packed entry decodes its way there).
    skip: u64,
}

impl<R: fmt::Debug> fmt::Debug for Decoding<R> {
    // Lengths and counts, not the buffered bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Decoding")
            .field("input", &self.input)
            .field("produced", &self.engine.core.produced())
            .field("expected_len", &self.engine.core.expected_len())
            .field("consumed", &self.engine.core.consumed())
            .field("held", &(self.end - self.start))
            .field("skip", &self.skip)
            .field("failed", &self.engine.failed)
            .finish()
    }
}

/// The decoder and the first error met (the core keeps its own; this also keeps the
/// source's).
#[derive(Debug)]
struct Engine {
    core: StreamDecoder<BoxedDecoder>,
    failed: Option<Sticky>,
    /// Time spent in [`poll_decode`](Engine::poll_decode) since it last returned
    /// `Pending` (see [`POLL_TIME`]).
    busy: Duration,
}

impl<R> Decoding<R> {
    pub(crate) fn new(input: R, core: StreamDecoder<BoxedDecoder>) -> Decoding<R> {
        Decoding {
            input,
            engine: Engine {
                core,
                failed: None,
                busy: Duration::ZERO,
            },
            buffer: Box::default(),
            start: 0,
            end: 0,
            skip: 0,
        }
    }

    /// The same decoding, throwing away its first `count` decoded bytes.
    pub(crate) fn skipping(mut self, count: u64) -> Decoding<R> {
        self.skip = count;
        self
    }

    pub(crate) fn input(&self) -> &R {
        &self.input
    }

    pub(crate) fn input_mut(&mut self) -> &mut R {
        &mut self.input
    }

    pub(crate) fn into_input(self) -> R {
        self.input
    }

    pub(crate) fn core(&self) -> &StreamDecoder<BoxedDecoder> {
        &self.engine.core
    }

    /// Decoded bytes still to come: what `AsyncRead` callers size their room by.
    pub(crate) fn remaining(&self) -> u64 {
        let core = &self.engine.core;
        let held = (self.end - self.start) as u64;
        core.expected_len()
            .saturating_sub(core.produced())
            .saturating_add(held)
            .saturating_sub(self.skip)
    }

    /// How much of `offered` bytes of a caller's room one read is to initialise and
    /// decode into: what is left of the stream (at least 1, so that the end of an empty
    /// one is checked), at most a poll's worth.
    pub(crate) fn read_room(&self, offered: usize) -> usize {
        let left = self.remaining().clamp(1, POLL_OUTPUT as u64) as usize;
        offered.min(left)
    }

    /// `AsyncRead`: bytes a `poll_fill_buf` left unconsumed first, then decoded straight
    /// into `out`.
    pub(crate) fn poll_read<V>(
        &mut self,
        cx: &mut Context<'_>,
        out: &mut [u8],
    ) -> Poll<io::Result<usize>>
    where
        R: Input<V>,
    {
        ready!(self.poll_skip(cx))?;
        if self.start < self.end {
            let held = &self.buffer[self.start..self.end];
            let n = held.len().min(out.len());
            out[..n].copy_from_slice(&held[..n]);
            self.start += n;
            return Poll::Ready(Ok(n));
        }
        self.engine.poll_decode(&mut self.input, cx, out)
    }

    /// tokio's `AsyncRead::poll_read`: initialises only the room one read can use.
    pub(crate) fn poll_read_buf<V>(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>>
    where
        R: Input<V>,
    {
        let room = self.read_room(buf.remaining());
        let n = ready!(self.poll_read(cx, buf.initialize_unfilled_to(room)))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }

    /// `AsyncBufRead::poll_fill_buf`.
    pub(crate) fn poll_fill_buf<V>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>
    where
        R: Input<V>,
    {
        ready!(self.poll_skip(cx))?;
        self.poll_fill_held(cx)
    }

    /// Decodes into the held buffer when it is used up; what it holds.
    fn poll_fill_held<V>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>
    where
        R: Input<V>,
    {
        if self.start == self.end {
            if self.buffer.is_empty() {
                // A stream of size 0 still takes a call (to check its packed bytes).
                // Room for the bytes to skip too, so that skipping goes a buffer at a time.
                let left = self.remaining().saturating_add(self.skip);
                let left = left.clamp(1, BUFFER_LEN as u64) as usize;
                self.buffer = vec![0; left].into_boxed_slice();
            }
            let n = ready!(
                self.engine
                    .poll_decode(&mut self.input, cx, &mut self.buffer)
            )?;
            (self.start, self.end) = (0, n);
        }
        Poll::Ready(Ok(&self.buffer[self.start..self.end]))
    }

    /// Decodes and throws away what is left to skip, through the held buffer: at most
    /// [`POLL_OUTPUT`] bytes a poll, as a read decodes, before it yields to the runtime.
    /// Tokio's coop budget alone stopped it only after 4 MiB, and never outside a tokio
    /// task (60 MiB in one poll under another executor).
    fn poll_skip<V>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>
    where
        R: Input<V>,
    {
        let mut skipped = 0;
        while self.skip > 0 {
            if skipped >= POLL_OUTPUT {
                cx.waker().wake_by_ref();
                return Poll::Pending;
            }
            let held = ready!(self.poll_fill_held(cx))?.len();
            if held == 0 {
                // The end came first: the core has checked the stream's size, so this is
                // the end of a stream shorter than the skip, which the caller refused.
                self.skip = 0;
                break;
            }
            let n = held.min(usize::try_from(self.skip).unwrap_or(usize::MAX));
            self.consume(n);
            self.skip -= n as u64;
            skipped += n;
        }
        if skipped > 0 {
            // The first bytes handed out come in the next poll: with them in this one, a
            // poll that ended the skip decoded up to 48 KiB.
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(Ok(()))
    }

    /// `AsyncBufRead::consume`.
    pub(crate) fn consume(&mut self, amount: usize) {
        self.start = self.start.saturating_add(amount).min(self.end);
    }
}

impl Engine {
    /// One poll's decoding ([`poll_decode_once`](Engine::poll_decode_once)), or a yield to
    /// the runtime once the polls since it last had its turn have taken [`POLL_TIME`].
    fn poll_decode<R: Input<V>, V>(
        &mut self,
        input: &mut R,
        cx: &mut Context<'_>,
        out: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        if self.busy >= POLL_TIME {
            self.busy = Duration::ZERO;
            // As `yield_now` does: on a tokio runtime the wake waits until the worker
            // has looked at its timers and I/O, which a plain wake would leave to every
            // 61st task it runs (its `event_interval`); elsewhere it is a plain wake.
            let _ = std::pin::pin!(tokio::task::yield_now()).poll(cx);
            return Poll::Pending;
        }
        let started = Instant::now();
        let Poll::Ready(decoded) = self.poll_decode_once(input, cx, out) else {
            // The source or the coop budget will wake the task: the runtime gets its turn.
            self.busy = Duration::ZERO;
            return Poll::Pending;
        };
        self.busy += started.elapsed();
        match decoded {
            Ok(Some(n)) => Poll::Ready(Ok(n)),
            Err(e) => Poll::Ready(Err(e)),
            Ok(None) => {
                // Every call took input into the codec's state and none gave output yet:
                // go on after the runtime has run the others. A plain wake, and this
                // poll's time still counts: on tokio such a wake looks at timers and I/O
                // only every 61st poll, and 200 MB of empty Deflate blocks held a 1 ms
                // timer for 180 ms when it reset the count.
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    /// One poll's decoding: `Ok(Some(n))` for `n` bytes (0 at the end), `Ok(None)` when the
    /// codec took input and gave nothing yet, `Pending` when the source or the coop budget
    /// has registered the waker.
    fn poll_decode_once<R: Input<V>, V>(
        &mut self,
        input: &mut R,
        cx: &mut Context<'_>,
        out: &mut [u8],
    ) -> Poll<io::Result<Option<usize>>> {
        if let Some(failed) = &self.failed {
            return Poll::Ready(Err(failed.to_io()));
        }
        if out.is_empty() || self.core.is_done() {
            return Poll::Ready(Ok(Some(0)));
        }
        let coop = ready!(tokio::task::coop::poll_proceed(cx));
        let room = out.len().min(POLL_OUTPUT);
        let out = &mut out[..room];
        for _ in 0..POLL_CALLS {
            let (bytes, waiting) = match input.poll_input(cx) {
                Poll::Ready(Ok(bytes)) => (bytes, false),
                // Output the codec holds needs room, not input (the rest of a match, a
                // stream of size 0): a source that stays open without sending (a socket
                // whose peer waits for an answer) kept a stream's last bytes in.
                Poll::Pending if self.core.may_go_on_without_input() => (&[][..], true),
                Poll::Pending => return Poll::Pending,
                // The source's own "try again" is not the stream's fault, and not kept.
                Poll::Ready(Err(e)) if is_transient(&e) => return Poll::Ready(Err(e)),
                Poll::Ready(Err(e)) => {
                    return Poll::Ready(Err(self.fail(Sticky::Source(e.into()))));
                }
            };
            let ended = bytes.is_empty() && !waiting;
            let bytes = &bytes[..bytes.len().min(CALL_INPUT)];
            let progress = match self.core.decode(bytes, ended, out) {
                Ok(progress) => progress,
                Err(e) => return Poll::Ready(Err(self.fail(Sticky::Stream(e)))),
            };
            input.consume_input(progress.consumed);
            if progress.produced > 0 || progress.status == Status::Done {
                coop.made_progress();
                return Poll::Ready(Ok(Some(progress.produced)));
            }
            if waiting {
                // The source's waker is registered: it wakes this task when it has more.
                return Poll::Pending;
            }
        }
        // The core's no-progress rule guarantees each call consumed something, so polls
        // of nothing end.
        coop.made_progress();
        Poll::Ready(Ok(None))
    }

    fn fail(&mut self, error: Sticky) -> io::Error {
        let io = error.to_io();
        self.failed = Some(error);
        io
    }
}

/// Errors a source may give and then go on (`Interrupted`, `WouldBlock`): passed on, not
/// kept, as `std::io::BufReader` does, so that a caller's retry loop can retry.
fn is_transient(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::Interrupted | io::ErrorKind::WouldBlock
    )
}
