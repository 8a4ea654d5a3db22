//! A connection's idle timer: a socket that has moved no byte either way for the idle time
//! fails its pending read or write with `TimedOut`, which ends the connection. This is
//! what frees a stream whose client stopped reading (hyper then waits on a write that
//! never completes, and polls the body no more). A keep-alive connection nobody uses is
//! closed by whichever comes first, this timer or hyper's header-read timer (the request
//! timeout), which also runs while a connection waits for its next request.
//!
//! While a response is being prepared (the request read, its status line not yet made)
//! no byte moves either, and hyper keeps a read pending to see the client leave: the
//! timer does not count then ([`Activity::preparing`]). The request timeout bounds that
//! time, with a 503; an `--idle-timeout` below the time a response took to prepare closed
//! the connection with no answer at all. Nor does it count while a body works on its next
//! bytes ([`Activity::producing`]), for up to [`MAX_HELD_BY_BODY`] idle periods: the
//! range of a packed entry decodes the rest of the entry before its last chunk goes out,
//! and a busy server took longer than the idle time over it, closing the connection
//! mid-body while the client waited.
//!
//! Once the server stops, a connection with no request in it (none being prepared or
//! sent, [`Activity::exchanging`]) reads the end of its input: hyper closes it. A
//! client that had sent part of a request's head held the shutdown until the request
//! timeout.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// What one connection is doing, as its service tells: the requests whose responses are
/// being prepared (from the call until the status line and headers are made), and those
/// in exchange (from the call until the body is sent or dropped).
#[derive(Debug, Clone, Default)]
pub struct Activity(Arc<[AtomicUsize; 3]>);

const PREPARING: usize = 0;
const EXCHANGING: usize = 1;
const PRODUCING: usize = 2;

impl Activity {
    /// A request's response being prepared, until the guard is dropped.
    pub fn preparing(&self) -> Busy {
        Busy::new(self, PREPARING)
    }

    /// A request in exchange, until the guard is dropped.
    pub fn exchanging(&self) -> Busy {
        Busy::new(self, EXCHANGING)
    }

    /// A response's body at work on its next bytes (hyper waits for the body, not for
    /// the socket), until the guard is dropped.
    pub fn producing(&self) -> Busy {
        Busy::new(self, PRODUCING)
    }

    fn any(&self, what: usize) -> bool {
        self.0[what].load(Ordering::Relaxed) > 0
    }

    /// Whether a body of the connection is at work.
    #[cfg(test)]
    pub(super) fn producing_now(&self) -> bool {
        self.any(PRODUCING)
    }
}

/// One of an [`Activity`]'s counts, held until dropped.
#[derive(Debug)]
pub struct Busy(Activity, usize);

impl Busy {
    fn new(activity: &Activity, what: usize) -> Busy {
        activity.0[what].fetch_add(1, Ordering::Relaxed);
        Busy(activity.clone(), what)
    }

    /// The connection's activity it counts in.
    pub fn activity(&self) -> &Activity {
        &self.0
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        (self.0).0[self.1].fetch_sub(1, Ordering::Relaxed);
    }
}

/// The idle periods in a row a body at work may hold the timer for, with no byte moved:
/// a decode takes that long only on a machine far busier than any `--idle-timeout` was
/// chosen for, and a body whose read never ends (a hung network mount) must not hold its
/// connection and stream for ever.
pub const MAX_HELD_BY_BODY: u32 = 4;

/// `io` with an idle timer, reset by every read or write that moves bytes, and held
/// while a response is being prepared or (for at most [`MAX_HELD_BY_BODY`] idle periods)
/// its body is at work; and the end of its input once `stopping` is set with no request
/// in exchange.
#[derive(Debug)]
pub struct IdleTimeout<T> {
    io: T,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
    /// Idle periods held by a body at work since bytes last moved.
    held_by_body: u32,
    activity: Activity,
    stopping: Arc<AtomicBool>,
}

/// The idle timer's error, inside the `io::Error` (`TimedOut`) it fails an operation
/// with: what tells the log it from the system's time-outs.
#[derive(Debug)]
pub struct IdleTimedOut(Duration);

impl std::fmt::Display for IdleTimedOut {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "no byte sent or received for {:?}", self.0)
    }
}

impl std::error::Error for IdleTimedOut {}

impl<T> IdleTimeout<T> {
    pub fn new(io: T, idle: Duration, activity: Activity, stopping: Arc<AtomicBool>) -> Self {
        IdleTimeout {
            io,
            idle,
            timer: Box::pin(tokio::time::sleep(idle)),
            held_by_body: 0,
            activity,
            stopping,
        }
    }

    fn moved(&mut self) {
        self.held_by_body = 0;
        self.restart();
    }

    fn restart(&mut self) {
        let deadline = Instant::now() + self.idle;
        self.timer.as_mut().reset(deadline);
    }

    /// What a pending operation turns into: still pending, or the timeout once it is due
    /// (while a response is being prepared or its body is at work, the timer starts over
    /// instead).
    fn pending<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        while self.timer.as_mut().poll(cx).is_ready() {
            let held = self.activity.any(PREPARING)
                || self.activity.any(PRODUCING) && self.held_by_body < MAX_HELD_BY_BODY;
            if !held {
                let e = IdleTimedOut(self.idle);
                return Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, e)));
            }
            if !self.activity.any(PREPARING) {
                self.held_by_body += 1;
            }
            // Polled again, so that the new deadline wakes the task.
            self.restart();
        }
        Poll::Pending
    }

    /// `result` of an operation: resets the timer when it moved bytes.
    fn after<R>(
        &mut self,
        cx: &mut Context<'_>,
        result: Poll<io::Result<R>>,
        moved: bool,
    ) -> Poll<io::Result<R>> {
        match result {
            Poll::Pending => self.pending(cx),
            Poll::Ready(r) => {
                if moved {
                    self.moved();
                }
                Poll::Ready(r)
            }
        }
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for IdleTimeout<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.stopping.load(Ordering::Relaxed) && !this.activity.any(EXCHANGING) {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let result = Pin::new(&mut this.io).poll_read(cx, buf);
        let moved = buf.filled().len() > before;
        this.after(cx, result, moved)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for IdleTimeout<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write(cx, buf);
        let moved = matches!(result, Poll::Ready(Ok(n)) if n > 0);
        this.after(cx, result, moved)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        let moved = matches!(result, Poll::Ready(Ok(n)) if n > 0);
        this.after(cx, result, moved)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_flush(cx);
        this.after(cx, result, false)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let result = Pin::new(&mut this.io).poll_shutdown(cx);
        this.after(cx, result, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

    /// One end of a pipe with a 5 s idle timer counting `activity`, and the other end.
    fn timed(activity: &Activity) -> (IdleTimeout<DuplexStream>, DuplexStream) {
        let (near, far) = tokio::io::duplex(64);
        let idle = Duration::from_secs(5);
        let near = IdleTimeout::new(near, idle, activity.clone(), Arc::default());
        (near, far)
    }

    #[tokio::test(start_paused = true)]
    async fn a_silent_peer_times_out_and_a_busy_one_does_not() {
        let (mut near, mut far) = timed(&Activity::default());
        // Bytes every 4 s keep it alive past 5 s.
        let writer = tokio::spawn(async move {
            for _ in 0..3 {
                tokio::time::sleep(Duration::from_secs(4)).await;
                far.write_all(b"x").await.unwrap();
            }
            far
        });
        let mut byte = [0u8; 1];
        for _ in 0..3 {
            near.read_exact(&mut byte).await.unwrap();
        }
        let _far = writer.await.unwrap();
        let started = Instant::now();
        let e = near.read(&mut byte).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }

    /// While a response is prepared, or its body makes its next bytes, the timer does
    /// not count; once that is done, it does again.
    #[tokio::test(start_paused = true)]
    async fn the_server_at_work_holds_the_timer() {
        for work in [Activity::preparing, Activity::producing] {
            let activity = Activity::default();
            let (mut near, mut far) = timed(&activity);
            let busy = work(&activity);
            let mut byte = [0u8; 1];
            // Twice the idle time with nothing moved, then the response's first byte.
            let read = tokio::time::timeout(Duration::from_secs(10), near.read(&mut byte)).await;
            assert!(read.is_err(), "the read must still be pending: {read:?}");
            drop(busy);
            far.write_all(b"x").await.unwrap();
            near.read_exact(&mut byte).await.unwrap();
            let started = Instant::now();
            let e = near.read(&mut byte).await.unwrap_err();
            assert_eq!(e.kind(), io::ErrorKind::TimedOut);
            assert_eq!(started.elapsed(), Duration::from_secs(5));
        }
    }

    /// A body that never ends its work (a read of a hung mount) holds the timer for
    /// [`MAX_HELD_BY_BODY`] idle periods, then the connection times out; a byte moved
    /// starts the count over.
    #[tokio::test(start_paused = true)]
    async fn a_body_at_work_holds_the_timer_for_a_bounded_time() {
        let activity = Activity::default();
        let (mut near, mut far) = timed(&activity);
        let _producing = activity.producing();
        let mut byte = [0u8; 1];
        for _ in 0..2 {
            let read = tokio::time::timeout(Duration::from_secs(20), near.read(&mut byte)).await;
            assert!(read.is_err(), "the read must still be pending: {read:?}");
            far.write_all(b"x").await.unwrap();
            near.read_exact(&mut byte).await.unwrap();
        }
        let started = Instant::now();
        let e = near.read(&mut byte).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        let held = MAX_HELD_BY_BODY + 1;
        assert_eq!(started.elapsed(), Duration::from_secs(5) * held);
        let inner = e.get_ref().and_then(|e| e.downcast_ref::<IdleTimedOut>());
        assert!(inner.is_some(), "{e:?}");
        assert_eq!(e.to_string(), "no byte sent or received for 5s");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stopping_server_ends_the_input_of_connections_with_no_exchange() {
        let (near, mut far) = tokio::io::duplex(64);
        let (activity, stopping) = (Activity::default(), Arc::new(AtomicBool::new(false)));
        let mut near = IdleTimeout::new(
            near,
            Duration::from_secs(60),
            activity.clone(),
            stopping.clone(),
        );
        far.write_all(b"ab").await.unwrap();
        let exchange = activity.exchanging();
        stopping.store(true, Ordering::Relaxed);
        // A request in exchange reads on.
        let mut byte = [0u8; 1];
        near.read_exact(&mut byte).await.unwrap();
        drop(exchange);
        // None: the end, whatever the peer has sent.
        assert_eq!(near.read(&mut byte).await.unwrap(), 0);
    }
}
