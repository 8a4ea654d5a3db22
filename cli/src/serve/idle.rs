//! A connection's idle timer: a socket that has moved no byte either way for the idle time
//! fails its pending read or write with `TimedOut`, which ends the connection. This is
//! what frees a stream whose client stopped reading (hyper then waits on a write that
//! never completes, and polls the body no more). A keep-alive connection nobody uses is
//! closed by whichever comes first, this timer or hyper's header-read timer (the request
//! timeout), which also runs while a connection waits for its next request.
//!
//! While a response is being prepared (the request read, its status line not yet made)
//! no byte moves either, and hyper keeps a read pending to see the client leave: the
//! timer does not count then ([`Preparing`]). The request timeout bounds that time, with
//! a 503; an `--idle-timeout` below the time a response took to prepare closed the
//! connection with no answer at all.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::{Instant, Sleep};

/// The responses of one connection being prepared: the service holds a [`Preparation`]
/// from the call until its response (the status line and headers) is made.
#[derive(Debug, Clone, Default)]
pub struct Preparing(Arc<AtomicUsize>);

impl Preparing {
    pub fn start(&self) -> Preparation {
        self.0.fetch_add(1, Ordering::Relaxed);
        Preparation(self.clone())
    }

    fn any(&self) -> bool {
        self.0.load(Ordering::Relaxed) > 0
    }
}

/// One response being prepared, until dropped.
#[derive(Debug)]
pub struct Preparation(Preparing);

impl Drop for Preparation {
    fn drop(&mut self) {
        (self.0).0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// `io` with an idle timer, reset by every read or write that moves bytes, and held
/// while a response is being prepared.
#[derive(Debug)]
pub struct IdleTimeout<T> {
    io: T,
    idle: Duration,
    timer: Pin<Box<Sleep>>,
    preparing: Preparing,
}

impl<T> IdleTimeout<T> {
    pub fn new(io: T, idle: Duration, preparing: Preparing) -> Self {
        IdleTimeout {
            io,
            idle,
            timer: Box::pin(tokio::time::sleep(idle)),
            preparing,
        }
    }

    fn moved(&mut self) {
        let deadline = Instant::now() + self.idle;
        self.timer.as_mut().reset(deadline);
    }

    /// What a pending operation turns into: still pending, or the timeout once it is due
    /// (while a response is being prepared, the timer starts over instead).
    fn pending<R>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<R>> {
        if self.timer.as_mut().poll(cx).is_pending() {
            return Poll::Pending;
        }
        if self.preparing.any() {
            self.moved();
            // Polled once more so that the new deadline wakes the task.
            return match self.timer.as_mut().poll(cx) {
                Poll::Ready(()) => self.pending(cx),
                Poll::Pending => Poll::Pending,
            };
        }
        Poll::Ready(Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no byte sent or received for {:?}", self.idle),
        )))
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
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_silent_peer_times_out_and_a_busy_one_does_not() {
        let (near, mut far) = tokio::io::duplex(64);
        let mut near = IdleTimeout::new(near, Duration::from_secs(5), Preparing::default());
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

    #[tokio::test(start_paused = true)]
    async fn a_response_in_preparation_holds_the_timer() {
        let (near, mut far) = tokio::io::duplex(64);
        let preparing = Preparing::default();
        let mut near = IdleTimeout::new(near, Duration::from_secs(5), preparing.clone());
        let preparation = preparing.start();
        let mut byte = [0u8; 1];
        // Twice the idle time with nothing moved, then the response's first byte.
        let read = tokio::time::timeout(Duration::from_secs(10), near.read(&mut byte)).await;
        assert!(read.is_err(), "the read must still be pending: {read:?}");
        drop(preparation);
        far.write_all(b"x").await.unwrap();
        near.read_exact(&mut byte).await.unwrap();
        // Prepared: the timer counts again.
        let started = Instant::now();
        let e = near.read(&mut byte).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(5));
    }
}
