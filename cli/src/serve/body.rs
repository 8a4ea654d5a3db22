//! An entry's body: decoded whole before the status line when it is small (so a corrupt
//! entry is a 500, never a complete response with wrong bytes), or streamed when it is
//! large (a fault mid-way aborts the connection: the client sees a body shorter than its
//! `Content-Length`). Either holds one of the server's stream permits until it is sent.

use std::collections::{HashSet, VecDeque};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, ready};

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::{BufMut, Bytes, BytesMut};
use futures_core::Stream;
use ngi_tokio::{Archive, EntryReader};
use tokio::io::AsyncBufRead;
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::io::poll_read_buf;

use super::error_response;

/// The bytes a streamed body is sent in.
pub const STREAM_CHUNK: usize = 64 * 1024;

/// The bytes past a range its end check may decode before the status line: a fault found
/// in them is a 500. Past them the check goes on as the body is sent, so that the status
/// line does not wait for a long entry's end.
const END_CHECK_BEFORE_STATUS: u64 = 1 << 20;

/// The bytes the end check decodes at a time while the body is sent, before it gives the
/// runtime its turn.
const END_CHECK_AT_A_TIME: u64 = 256 << 10;

/// What a streamed body checks before its last chunk goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndCheck {
    /// Nothing: bytes stored as they are (or XORed) have no check, a range that stops
    /// short of the end needs no decoding past it, and an entry decoded to its end once
    /// already (see [`Verified`]) has been checked.
    None,
    /// The body runs to the entry's end: the decoder confirms the packed stream ends
    /// there.
    AtTheEnd,
    /// A range of a packed entry that stops short of its end: the rest is decoded and
    /// thrown away, and the end confirmed. A corrupt stream whose fault lies past the
    /// range was sent as a whole 206 of wrong bytes.
    DecodeToTheEnd,
}

/// The entries decoded to their end without a fault (by their archive's path and their
/// `ETag`, which names the open file's identity and the entry; the path too, as off Unix
/// the tag has no identity but size and time), so that a range of one needs no decoding
/// past it: a downloader fetching an entry in many ranges pays for one full decode, not
/// one per range. At most [`Verified::MAX`] are kept, the oldest forgotten first.
#[derive(Debug, Default)]
pub struct Verified {
    known: Mutex<(HashSet<u64>, VecDeque<u64>)>,
}

impl Verified {
    const MAX: usize = 1 << 16;

    /// The key of the entry with `etag` in the archive at `path`.
    pub fn key(path: &std::path::Path, etag: &str) -> u64 {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        BuildHasherDefault::<DefaultHasher>::default().hash_one((path, etag))
    }

    pub fn contains(&self, key: u64) -> bool {
        self.lock().0.contains(&key)
    }

    pub fn insert(&self, key: u64) {
        let mut known = self.lock();
        let (set, order) = &mut *known;
        if set.insert(key) {
            order.push_back(key);
            if order.len() > Self::MAX {
                if let Some(oldest) = order.pop_front() {
                    set.remove(&oldest);
                }
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashSet<u64>, VecDeque<u64>)> {
        // Each change is one insert with its eviction: a panic leaves the two consistent.
        self.known
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Entry `index`'s bytes `range`, streamed.
pub struct StreamedEntry<'a> {
    pub archive: &'a Archive,
    pub index: usize,
    pub range: std::ops::Range<u64>,
    pub end_check: EndCheck,
    /// Where a successful end check is recorded, under the entry's key.
    pub verified: (Arc<Verified>, u64),
    /// "ARCHIVE: entry N \"NAME\"", for the errors.
    pub about: String,
}

impl StreamedEntry<'_> {
    /// The body, with its first chunk decoded already: a fault in it is still a 500,
    /// where after the headers it could only abort the connection (with `--buffer-up-to
    /// 0`, a reply with nothing in it at all). A body of one chunk that runs to the
    /// entry's end has its end checked before the status line too. A range of one chunk
    /// that would decode past its end for the check decodes the first
    /// [`END_CHECK_BEFORE_STATUS`] bytes of it before the status line (a fault just past
    /// the range was a reply with nothing in it) and the rest after it, as the body is
    /// read, so that the status line does not wait for the rest of the entry (a
    /// `bytes=0-0` probe of a 240 MB entry ran into the request timeout).
    pub async fn body(self, permit: OwnedSemaphorePermit) -> Result<Body, Response> {
        let StreamedEntry {
            archive,
            index,
            range,
            end_check,
            verified,
            about,
        } = self;
        let reader = archive.reader_from(index, range.start).map_err(|e| {
            error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                about_entry(&about, index, &e),
            )
        })?;
        let mut streamed = Streamed {
            reader,
            archive: archive.clone(),
            left: range.end - range.start,
            end_check,
            end_checked: end_check == EndCheck::None,
            verified,
            chunk: BytesMut::new(),
            first: None,
            last: None,
            done: false,
            head_out: false,
            about,
            index,
            _permit: permit,
        };
        let mut failed = match std::future::poll_fn(|cx| streamed.poll_chunk(cx)).await {
            Some(Ok(chunk)) if streamed.left == 0 => {
                streamed.last = Some(chunk);
                None
            }
            Some(Ok(chunk)) => {
                streamed.first = Some(chunk);
                None
            }
            Some(Err(e)) => Some(e),
            None => None,
        };
        if failed.is_none() && streamed.left == 0 {
            let mut budget = match end_check {
                EndCheck::AtTheEnd => u64::MAX,
                EndCheck::DecodeToTheEnd => END_CHECK_BEFORE_STATUS,
                EndCheck::None => 0,
            };
            failed = std::future::poll_fn(|cx| streamed.poll_end(cx, &mut budget))
                .await
                .err();
        }
        if let Some(e) = failed {
            if changed(archive) {
                return Err(rewritten(&streamed.about));
            }
            let message = about_entry(&streamed.about, index, &e);
            tracing::warn!(target: "ngi::serve", "{message}");
            return Err(error_response(StatusCode::INTERNAL_SERVER_ERROR, message));
        }
        Ok(Body::from_stream(streamed))
    }
}

/// A response's body, holding its request's [`Busy`](super::idle::Busy) exchange until it
/// is sent or dropped, and a producing one while the body works on its next bytes (from
/// a `Pending` to the next item), which the idle timer does not count.
pub struct Exchanged {
    body: Body,
    exchange: super::idle::Busy,
    producing: Option<super::idle::Busy>,
}

impl Exchanged {
    pub fn wrap(body: Body, exchange: super::idle::Busy) -> Body {
        Body::new(Exchanged {
            body,
            exchange,
            producing: None,
        })
    }
}

impl hyper::body::Body for Exchanged {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<hyper::body::Frame<Bytes>, axum::Error>>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        match polled {
            Poll::Pending if this.producing.is_none() => {
                this.producing = Some(this.exchange.activity().producing());
            }
            Poll::Pending => {}
            Poll::Ready(_) => this.producing = None,
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        hyper::body::Body::is_end_stream(&self.body)
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        hyper::body::Body::size_hint(&self.body)
    }
}

/// `error` of entry `index` after `about` (which names the entry): the core's messages
/// name it by index too, and it is said once.
pub fn about_entry(about: &str, index: usize, error: &dyn std::fmt::Display) -> String {
    format!(
        "{about}: {}",
        crate::open::after_entry(index, &error.to_string())
    )
}

/// Whether the archive's file was written since it was opened (or cannot be told): the
/// bytes read may mix two versions, and must not go out under the old validators. Its
/// size or modification time tell (so a `touch` counts, and a rewrite within the
/// granularity of the filesystem's times goes unseen).
pub fn changed(archive: &Archive) -> bool {
    archive.file_changed().unwrap_or(true)
}

/// The answer when the file changed under a buffered read: the next request opens the
/// new file.
pub fn rewritten(about: &str) -> Response {
    tracing::warn!(target: "ngi::serve", "{about}: the archive was rewritten while it was read");
    let mut busy = error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("{about}: the archive was rewritten while it was read; try again"),
    );
    busy.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    busy
}

/// A body decoded whole (up to `--buffer-up-to`), as one chunk, holding one of the
/// server's stream permits until hyper drops it (sent, or the client gone): the bytes
/// are in memory until then, and `--max-streams` is what bounds how many such bodies are.
pub struct Buffered {
    bytes: Option<Bytes>,
    _permit: OwnedSemaphorePermit,
}

impl Buffered {
    pub fn new(bytes: Bytes, permit: OwnedSemaphorePermit) -> Buffered {
        Buffered {
            bytes: Some(bytes),
            _permit: permit,
        }
    }
}

impl Stream for Buffered {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Poll::Ready(self.get_mut().bytes.take().map(Ok))
    }
}

/// A streamed body: the decoded bytes in chunks of [`STREAM_CHUNK`], holding one of the
/// server's stream permits until it is dropped (at the end, on a fault, or when the client
/// goes away: hyper drops the body with the connection), so the open-stream count is
/// exact.
///
/// The last chunk is held back until the archive's file is known not to have been
/// written since it was opened (bytes read across an in-place rewrite may mix two
/// versions, under the old `ETag`), and, for a packed entry, until the decoder has
/// confirmed the end of the packed stream (a Deflate stream whose last block is cut, say,
/// fails only there; a range that stops short decodes the rest to get there): hyper stops
/// polling a body once `Content-Length` bytes are out, so a fault found after them would
/// never reach the client.
struct Streamed {
    reader: EntryReader,
    archive: Archive,
    /// Bytes still to decode into chunks.
    left: u64,
    end_check: EndCheck,
    end_checked: bool,
    verified: (Arc<Verified>, u64),
    chunk: BytesMut,
    /// The first chunk, read before the status line, until the body is polled.
    first: Option<Bytes>,
    /// The last chunk, while the end is being checked.
    last: Option<Bytes>,
    done: bool,
    /// Whether the body has let hyper send the status line: it has once it returned
    /// anything, or `Pending`. A fault found before that leaves the client a reply with
    /// nothing in it, so the end check after the status line waits for it.
    head_out: bool,
    /// "ARCHIVE: entry N \"NAME\"", and N, for the log.
    about: String,
    index: usize,
    _permit: OwnedSemaphorePermit,
}

impl Streamed {
    fn fail(&mut self, e: io::Error) -> Poll<Option<io::Result<Bytes>>> {
        // The status line is long gone: the connection is aborted, and the log says why.
        self.done = true;
        let said = about_entry(&self.about, self.index, &e);
        tracing::warn!(target: "ngi::serve", "aborted mid-body: {said}");
        Poll::Ready(Some(Err(e)))
    }

    /// The next whole chunk of the range; `None` once the range is all decoded.
    fn poll_chunk(&mut self, cx: &mut Context<'_>) -> Poll<Option<io::Result<Bytes>>> {
        if self.left == 0 {
            return Poll::Ready(None);
        }
        let want = self.left.min(STREAM_CHUNK as u64) as usize;
        if self.chunk.capacity() == 0 {
            self.chunk = BytesMut::with_capacity(want);
        }
        while self.chunk.len() < want {
            let room = want - self.chunk.len();
            let mut limited = (&mut self.chunk).limit(room);
            match ready!(poll_read_buf(Pin::new(&mut self.reader), cx, &mut limited)) {
                Ok(0) => {
                    let e = io::Error::new(io::ErrorKind::UnexpectedEof, "the entry ended early");
                    return Poll::Ready(Some(Err(e)));
                }
                Ok(_) => {}
                Err(e) => return Poll::Ready(Some(Err(e))),
            }
        }
        self.left -= want as u64;
        Poll::Ready(Some(Ok(std::mem::take(&mut self.chunk).freeze())))
    }

    /// The decoder's word on the end, decoding at most `budget` more bytes (counted down
    /// across `Pending`s, which decode nothing): nothing more (or, past a range, nothing
    /// but the rest of the entry, thrown away), and no fault. `Ok(())` with `end_checked`
    /// still false when the budget ran out.
    fn poll_end(&mut self, cx: &mut Context<'_>, budget: &mut u64) -> Poll<io::Result<()>> {
        while *budget > 0 && !self.end_checked {
            let held = ready!(Pin::new(&mut self.reader).poll_fill_buf(cx))?.len();
            if held == 0 {
                self.end_checked = true;
                break;
            }
            if self.end_check != EndCheck::DecodeToTheEnd {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the entry decodes to more than its size",
                )));
            }
            Pin::new(&mut self.reader).consume(held);
            *budget = budget.saturating_sub(held as u64);
        }
        Poll::Ready(Ok(()))
    }
}

impl Stream for Streamed {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let head_out = std::mem::replace(&mut this.head_out, true);
        if let Some(chunk) = this.first.take() {
            return Poll::Ready(Some(Ok(chunk)));
        }
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if this.last.is_some() {
                if !this.end_checked {
                    if head_out {
                        let mut budget = END_CHECK_AT_A_TIME;
                        if let Err(e) = ready!(this.poll_end(cx, &mut budget)) {
                            return this.fail(e);
                        }
                    }
                    if !this.end_checked {
                        // The runtime's turn (and hyper's, to send the status line).
                        cx.waker().wake_by_ref();
                        return Poll::Pending;
                    }
                }
                if changed(&this.archive) {
                    let e = io::Error::other("the archive was rewritten while it was sent");
                    return this.fail(e);
                }
                // Checked to its end, and from the file as it was opened.
                if this.end_check != EndCheck::None {
                    let (verified, key) = &this.verified;
                    verified.insert(*key);
                }
                this.done = true;
                return Poll::Ready(this.last.take().map(Ok));
            }
            match ready!(this.poll_chunk(cx)) {
                None => this.done = true,
                Some(Err(e)) => return this.fail(e),
                Some(Ok(chunk)) if this.left == 0 => this.last = Some(chunk),
                Some(Ok(chunk)) => {
                    // Each chunk, so that a long transfer stops soon after a rewrite.
                    if changed(&this.archive) {
                        let e = io::Error::other("the archive was rewritten while it was sent");
                        return this.fail(e);
                    }
                    return Poll::Ready(Some(Ok(chunk)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A body that waits once before each of its two chunks.
    struct Slow(u8);

    impl Stream for Slow {
        type Item = io::Result<Bytes>;

        fn poll_next(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<Self::Item>> {
            let this = self.get_mut();
            this.0 += 1;
            match this.0 {
                1 | 3 => Poll::Pending,
                2 | 4 => Poll::Ready(Some(Ok(Bytes::from_static(b"chunk")))),
                _ => Poll::Ready(None),
            }
        }
    }

    /// From each `Pending` of the body to its next item, the connection is the server's
    /// to wait for, not the client's.
    #[test]
    fn a_body_is_at_work_from_a_pending_to_its_next_item() {
        use hyper::body::Body as _;
        let activity = super::super::idle::Activity::default();
        let mut body = Exchanged::wrap(Body::from_stream(Slow(0)), activity.exchanging());
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut at_work = Vec::new();
        loop {
            let polled = Pin::new(&mut body).poll_frame(&mut cx);
            at_work.push(activity.producing_now());
            if let Poll::Ready(None) = polled {
                break;
            }
        }
        assert_eq!(at_work, [true, false, true, false, false]);
        drop(body);
        assert!(!activity.producing_now());
    }

    #[test]
    fn verified_keeps_the_latest_entries() {
        let verified = Verified::default();
        let path = std::path::Path::new("x.rsli");
        let (a, b) = (
            Verified::key(path, "\"1-2-a\""),
            Verified::key(path, "\"1-2-b\""),
        );
        assert_ne!(a, b);
        assert_ne!(
            a,
            Verified::key(std::path::Path::new("y.rsli"), "\"1-2-a\"")
        );
        assert!(!verified.contains(a));
        verified.insert(a);
        verified.insert(a);
        assert!(verified.contains(a) && !verified.contains(b));
        for k in 0..Verified::MAX as u64 {
            verified.insert(k.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1 << 63);
        }
        assert!(!verified.contains(a), "the oldest is forgotten first");
        assert_eq!(verified.lock().1.len(), Verified::MAX);
    }
}
