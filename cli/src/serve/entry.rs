//! One entry as an HTTP response: validators and conditional requests, single byte
//! ranges, and the body, decoded whole before the status line when it is small (so a
//! corrupt entry is a 500, never a complete response with wrong bytes) or streamed when
//! it is large (a fault mid-way aborts the connection: the client sees a body shorter
//! than its `Content-Length`).

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::task::{Context, Poll, ready};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::{BufMut, Bytes, BytesMut};
use futures_core::Stream;
use ngi_core::Method;
use ngi_tokio::{Archive, EntryReader};
use tokio::io::AsyncBufRead;
use tokio::sync::OwnedSemaphorePermit;
use tokio_util::io::poll_read_buf;

use super::paths::Located;
use super::{Shared, error_response};
use crate::names;

/// The bytes a streamed body is sent in.
const STREAM_CHUNK: usize = 64 * 1024;

/// An archive's validators: a strong `ETag` from the identity of the file that was
/// opened (device, inode, size, modification time, and the status-change time that no
/// tool sets back) and what it names in it, and the file's modification time.
#[derive(Debug, Clone)]
pub struct Validators {
    pub etag: String,
    pub last_modified: Option<SystemTime>,
}

impl Validators {
    /// The validators of `what` (`"3"` for entry 3, `"list"` for the listing) in
    /// `archive`.
    pub fn of(archive: &Archive, what: &str) -> Validators {
        let (mut dev, mut ino, mut len, mut modified, mut changed) = (0, 0, 0, None, 0);
        if let Some(meta) = archive.file_metadata() {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                (dev, ino) = (meta.dev(), meta.ino());
                // An in-place rewrite whose modification time was set back moves it.
                changed = i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec());
            }
            len = meta.len();
            modified = meta.modified().ok();
        }
        let nanos = modified
            .and_then(|m| m.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        // The same file decodes to other bytes with the media trailer honoured.
        let options = if archive.options().media_trailer {
            "-ao"
        } else {
            ""
        };
        Validators {
            etag: format!("\"{dev:x}-{ino:x}-{len:x}-{nanos:x}-{changed:x}-{what}{options}\""),
            last_modified: modified.filter(|&t| usable_date(t, SystemTime::now())),
        }
    }

    /// Puts `ETag`, `Last-Modified` and `Cache-Control` on `headers`.
    pub fn apply(&self, headers: &mut HeaderMap, max_age: u64) {
        if let Ok(v) = HeaderValue::from_str(&self.etag) {
            headers.insert(header::ETAG, v);
        }
        if let Some(v) = self
            .last_modified
            .and_then(|t| HeaderValue::from_str(&httpdate::fmt_http_date(t)).ok())
        {
            headers.insert(header::LAST_MODIFIED, v);
        }
        if let Ok(v) = HeaderValue::from_str(&format!("public, max-age={max_age}")) {
            headers.insert(header::CACHE_CONTROL, v);
        }
    }

    /// What the request's preconditions answer, in the order of RFC 9110 13.2.2: 412 when
    /// `If-Match` names no tag of this version (or, without one, `If-Unmodified-Since` is
    /// older than it), then 304 when `If-None-Match` (or, without one,
    /// `If-Modified-Since`) says the client's copy is current; `None` to go on.
    pub fn precondition(&self, request: &HeaderMap) -> Option<StatusCode> {
        if let Some(matched) = self.tag_listed(request, header::IF_MATCH, true) {
            if !matched {
                return Some(StatusCode::PRECONDITION_FAILED);
            }
        } else if let (Some(since), Some(modified)) = (
            date(request, header::IF_UNMODIFIED_SINCE),
            self.last_modified,
        ) {
            if whole_seconds(modified) > whole_seconds(since) {
                return Some(StatusCode::PRECONDITION_FAILED);
            }
        }
        let current = match self.tag_listed(request, header::IF_NONE_MATCH, false) {
            Some(listed) => listed,
            None => match (date(request, header::IF_MODIFIED_SINCE), self.last_modified) {
                (Some(since), Some(modified)) => whole_seconds(modified) <= whole_seconds(since),
                _ => false,
            },
        };
        current.then_some(StatusCode::NOT_MODIFIED)
    }

    /// Whether the `name` field lists this version's tag or `*`, over every line of it
    /// (`None` without one): `strong` compares as `If-Match` does (a weak tag matches
    /// nothing), else weakly, as `If-None-Match` does (RFC 9110 13.1.1, 13.1.2).
    fn tag_listed(
        &self,
        request: &HeaderMap,
        name: header::HeaderName,
        strong: bool,
    ) -> Option<bool> {
        let mut lines = request.get_all(name).iter().peekable();
        lines.peek()?;
        let mine = self.etag.as_str();
        Some(lines.filter_map(|v| v.to_str().ok()).any(|list| {
            list.split(',').map(str::trim).any(|tag| {
                tag == "*"
                    || if strong {
                        tag == mine
                    } else {
                        tag.trim_start_matches("W/") == mine
                    }
            })
        }))
    }

    /// Whether an `If-Range` lets a `Range` apply: absent, or naming this very version
    /// (strong comparison, or the exact date).
    fn range_applies(&self, request: &HeaderMap) -> bool {
        let Some(condition) = request.get(header::IF_RANGE).and_then(|v| v.to_str().ok()) else {
            return true;
        };
        if condition.trim() == self.etag {
            return true;
        }
        match (
            httpdate::parse_http_date(condition).ok(),
            self.last_modified,
        ) {
            (Some(date), Some(modified)) => whole_seconds(modified) == whole_seconds(date),
            _ => false,
        }
    }
}

/// The answer to a request whose preconditions stopped it: a 304 with no body, or a 412
/// naming `what` (the validators are the caller's to add).
pub fn precondition_response(status: StatusCode, what: &str) -> Response {
    if status == StatusCode::PRECONDITION_FAILED {
        error_response(
            status,
            format!("{what}: changed since the version If-Match or If-Unmodified-Since names"),
        )
    } else {
        let mut response = Response::new(Body::empty());
        *response.status_mut() = status;
        response
    }
}

/// Whether the file time `t` may be sent as `Last-Modified` at `now`. HTTP dates run
/// from 1970 to 9999 (httpdate panics outside). A time in the second of `now` or later is
/// left out (RFC 9110 8.8.2.1 and 8.8.2.2): another version could come within the same
/// second and carry the same date, so an `If-Modified-Since` or `If-Range` holding it
/// answered 304, or spliced two versions in one resumed download; and a time in the
/// future is never sent. The ETag alone validates then.
fn usable_date(t: SystemTime, now: SystemTime) -> bool {
    const YEAR_10000: u64 = 253_402_300_800;
    t.duration_since(UNIX_EPOCH)
        .is_ok_and(|d| d.as_secs() < YEAR_10000)
        && whole_seconds(t) < whole_seconds(now)
}

/// The date in the request's `name` field; `None` without one or for one that is not an
/// HTTP date (which the preconditions ignore, RFC 9110 13.1.3, 13.1.4).
fn date(request: &HeaderMap, name: header::HeaderName) -> Option<SystemTime> {
    request
        .get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok())
}

fn whole_seconds(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// What a `Range` header asks of an entry of `size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wanted {
    /// No range (or one we answer with the whole entry: several ranges, another unit,
    /// bad syntax, an `If-Range` that does not match).
    Whole,
    /// Bytes `start..end`.
    Part(u64, u64),
    /// A range that starts past the end: 416.
    Unsatisfiable,
}

/// Parses a single `bytes=` range (RFC 9110 14.1.2) against `size`.
pub fn wanted(range: &str, size: u64) -> Wanted {
    let Some(spec) = range
        .trim()
        .get(..6)
        .filter(|unit| unit.eq_ignore_ascii_case("bytes="))
        .map(|_| range.trim()[6..].trim())
    else {
        return Wanted::Whole;
    };
    if spec.contains(',') {
        return Wanted::Whole;
    }
    let Some((first, last)) = spec.split_once('-') else {
        return Wanted::Whole;
    };
    // Digits past what a u64 holds are a position past any entry's end, not bad syntax.
    let number = |s: &str| -> Option<u64> {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().unwrap_or(u64::MAX))
    };
    match (first.trim(), last.trim()) {
        ("", suffix) => match number(suffix) {
            Some(0) => Wanted::Unsatisfiable,
            Some(_) if size == 0 => Wanted::Unsatisfiable,
            Some(n) => Wanted::Part(size - n.min(size), size),
            None => Wanted::Whole,
        },
        (start, "") => match number(start) {
            Some(s) if s >= size => Wanted::Unsatisfiable,
            Some(s) => Wanted::Part(s, size),
            None => Wanted::Whole,
        },
        (start, end) => match (number(start), number(end)) {
            (Some(s), Some(e)) if s > e => Wanted::Whole,
            (Some(s), Some(_)) if s >= size => Wanted::Unsatisfiable,
            (Some(s), Some(e)) => Wanted::Part(s, e.saturating_add(1).min(size)),
            _ => Wanted::Whole,
        },
    }
}

/// The response for entry `index` of `archive`.
pub async fn respond(
    shared: &Arc<Shared>,
    archive: &Archive,
    located: &Located,
    index: usize,
    request: &HeaderMap,
    head: bool,
) -> Response {
    let Some(entry) = archive.entry(index) else {
        return error_response(
            StatusCode::NOT_FOUND,
            format!(
                "{}: no entry with index {index} (the archive has {} entries)",
                located.shown,
                archive.len()
            ),
        );
    };
    let (name, size) = (entry.name().to_vec(), entry.size);
    // Stored and XOR bytes carry no check; a packed stream's end is where a fault in it
    // shows, so even a range that stops short of the entry's end decodes to there.
    let checked = !matches!(entry.method, Some(Method::Stored | Method::Xor));
    let about = format!(
        "{}: entry {index} \"{}\"",
        located.shown,
        names::display(&name)
    );
    let limit = shared.settings.limits.max_entry_size;
    if size > limit {
        return error_response(
            StatusCode::FORBIDDEN,
            format!("{about}: {size} bytes decoded, over the server's --max-entry-size of {limit}"),
        );
    }
    let validators = Validators::of(archive, &index.to_string());
    let mut response = Response::new(Body::empty());
    let headers = response.headers_mut();
    validators.apply(headers, shared.settings.max_age);
    if let Some(status) = validators.precondition(request) {
        let mut answer = precondition_response(status, &about);
        validators.apply(answer.headers_mut(), shared.settings.max_age);
        return answer;
    }
    headers.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    headers.insert(header::CONTENT_TYPE, content_type(&name));
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // An entry is whatever the archive's author put in it: an HTML or SVG one opened in a
    // browser must not run script as this server's own pages.
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("sandbox"),
    );
    let range = request
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok())
        // Range is defined for GET alone: HEAD says what a plain GET would (RFC 9110
        // 14.2).
        .filter(|_| !head && validators.range_applies(request))
        .map_or(Wanted::Whole, |r| wanted(r, size));
    let (start, end) = match range {
        Wanted::Whole => (0, size),
        Wanted::Part(start, end) => {
            *response.status_mut() = StatusCode::PARTIAL_CONTENT;
            let value = format!("bytes {start}-{}/{size}", end - 1);
            if let Ok(v) = HeaderValue::from_str(&value) {
                response.headers_mut().insert(header::CONTENT_RANGE, v);
            }
            (start, end)
        }
        Wanted::Unsatisfiable => {
            let mut refused = error_response(
                StatusCode::RANGE_NOT_SATISFIABLE,
                format!("{about}: the range is outside its {size} bytes"),
            );
            if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
                refused.headers_mut().insert(header::CONTENT_RANGE, v);
            }
            return refused;
        }
    };
    response
        .headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from(end - start));
    let buffered = size <= shared.settings.buffer_up_to;
    // A small entry is decoded for HEAD too, so that HEAD says what GET would: a corrupt
    // one is a 500 either way (a large one is only found out while streaming).
    if head && !buffered {
        return response;
    }
    let Ok(permit) = Arc::clone(&shared.streams).try_acquire_owned() else {
        let mut busy = error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "{about}: the server is sending {} entries already (--max-streams); try again",
                shared.settings.max_streams
            ),
        );
        busy.headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        return busy;
    };
    if !head {
        shared.counters.streams.fetch_add(1, Ordering::Relaxed);
    }
    let body = if buffered {
        match archive.read(index).await {
            Ok(_) if changed(archive) => return rewritten(&about),
            Ok(_) if head => Body::empty(),
            Ok(bytes) => Body::from_stream(Buffered {
                bytes: Some(Bytes::from(bytes).slice(start as usize..end as usize)),
                _permit: permit,
            }),
            Err(e) => {
                tracing::warn!(target: "ngi::serve", "{about}: {e}");
                return error_response(StatusCode::INTERNAL_SERVER_ERROR, format!("{about}: {e}"));
            }
        }
    } else {
        let end_check = if end == size {
            EndCheck::AtTheEnd
        } else if checked {
            EndCheck::DecodeToTheEnd
        } else {
            EndCheck::None
        };
        match streamed_body(archive, index, start..end, end_check, about, permit).await {
            Ok(body) => body,
            Err(refused) => return refused,
        }
    };
    *response.body_mut() = body;
    response
}

/// What a streamed body checks before its last chunk goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum EndCheck {
    /// Nothing: bytes stored as they are (or XORed) have no check, and a range that stops
    /// short of the end needs no decoding past it.
    None,
    /// The body runs to the entry's end: the decoder confirms the packed stream ends
    /// there.
    AtTheEnd,
    /// A range of a packed entry that stops short of its end: the rest is decoded and
    /// thrown away, and the end confirmed. A corrupt stream whose fault lies past the
    /// range was sent as a whole 206 of wrong bytes.
    DecodeToTheEnd,
}

/// The body of entry `index`'s bytes `range`, streamed, with its first chunk decoded
/// already: a fault in it is still a 500, where after the headers it could only abort the
/// connection (with `--buffer-up-to 0`, a reply with nothing in it at all).
async fn streamed_body(
    archive: &Archive,
    index: usize,
    range: std::ops::Range<u64>,
    end_check: EndCheck,
    about: String,
    permit: OwnedSemaphorePermit,
) -> Result<Body, Response> {
    let reader = archive
        .reader_from(index, range.start)
        .map_err(|e| error_response(StatusCode::INTERNAL_SERVER_ERROR, format!("{about}: {e}")))?;
    let mut streamed = Streamed {
        reader,
        archive: archive.clone(),
        left: range.end - range.start,
        end_check,
        chunk: BytesMut::new(),
        first: None,
        last: None,
        done: false,
        yielded: false,
        about,
        _permit: permit,
    };
    match std::future::poll_fn(|cx| Pin::new(&mut streamed).poll_next(cx)).await {
        Some(Err(_)) if changed(archive) => return Err(rewritten(&streamed.about)),
        Some(Err(e)) => {
            let message = format!("{}: {e}", streamed.about);
            tracing::warn!(target: "ngi::serve", "{message}");
            return Err(error_response(StatusCode::INTERNAL_SERVER_ERROR, message));
        }
        Some(Ok(chunk)) => streamed.first = Some(chunk),
        None => {}
    }
    Ok(Body::from_stream(streamed))
}

/// Whether the archive's file was written since it was opened (or cannot be told): the
/// bytes read may mix two versions, and must not go out under the old validators. Its
/// size or modification time tell (so a `touch` counts, and a rewrite within the
/// granularity of the filesystem's times goes unseen).
fn changed(archive: &Archive) -> bool {
    archive.file_changed().unwrap_or(true)
}

/// The answer when the file changed under a buffered read: the next request opens the
/// new file.
fn rewritten(about: &str) -> Response {
    tracing::warn!(target: "ngi::serve", "{about}: the archive was rewritten while it was read");
    let mut busy = error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        format!("{about}: the archive was rewritten while it was read; try again"),
    );
    busy.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    busy
}

/// `Content-Type` from the name's extension, `application/octet-stream` otherwise.
fn content_type(name: &[u8]) -> HeaderValue {
    let name = String::from_utf8_lossy(name);
    mime_guess::from_path(name.as_ref()).first_raw().map_or(
        HeaderValue::from_static("application/octet-stream"),
        HeaderValue::from_static,
    )
}

/// A body decoded whole (up to `--buffer-up-to`), as one chunk, holding one of the
/// server's stream permits until hyper drops it (sent, or the client gone): the bytes
/// are in memory until then, and `--max-streams` is what bounds how many such bodies are.
struct Buffered {
    bytes: Option<Bytes>,
    _permit: OwnedSemaphorePermit,
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
    /// Bytes still to send.
    left: u64,
    end_check: EndCheck,
    chunk: BytesMut,
    /// The first chunk, read before the status line, until the body is polled.
    first: Option<Bytes>,
    /// The last chunk, while the end is being checked.
    last: Option<Bytes>,
    done: bool,
    /// Whether a chunk was handed out (the pre-read one is handed out first of all): a
    /// fault after it aborts the body, one before it is the caller's 500.
    yielded: bool,
    about: String,
    _permit: OwnedSemaphorePermit,
}

impl Streamed {
    fn fail(&mut self, e: io::Error) -> Poll<Option<io::Result<Bytes>>> {
        // The status line is long gone: the connection is aborted, and the log says why.
        // (Before the first chunk, the caller answers 500 and logs it.)
        if self.yielded {
            tracing::warn!(target: "ngi::serve", "{}: aborted mid-body: {e}", self.about);
        }
        self.done = true;
        Poll::Ready(Some(Err(e)))
    }

    /// The decoder's word on the end: nothing more (or, past a range, nothing but the
    /// rest of the entry, thrown away), and no fault.
    fn poll_end(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        // A few of the reader's bounded polls at a time, then the runtime's turn.
        for _ in 0..16 {
            let held = ready!(Pin::new(&mut self.reader).poll_fill_buf(cx))?.len();
            if held == 0 {
                return Poll::Ready(Ok(()));
            }
            if self.end_check != EndCheck::DecodeToTheEnd {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "the entry decodes to more than its size",
                )));
            }
            Pin::new(&mut self.reader).consume(held);
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl Stream for Streamed {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if let Some(chunk) = this.first.take() {
            this.yielded = true;
            return Poll::Ready(Some(Ok(chunk)));
        }
        loop {
            if this.done {
                return Poll::Ready(None);
            }
            if this.last.is_some() {
                if this.end_check != EndCheck::None {
                    if let Err(e) = ready!(this.poll_end(cx)) {
                        return this.fail(e);
                    }
                }
                if changed(&this.archive) {
                    let e = io::Error::other("the archive was rewritten while it was sent");
                    return this.fail(e);
                }
                this.done = true;
                this.yielded = true;
                return Poll::Ready(this.last.take().map(Ok));
            }
            if this.left == 0 {
                this.done = true;
                continue;
            }
            let want = this.left.min(STREAM_CHUNK as u64) as usize;
            if this.chunk.capacity() == 0 {
                this.chunk = BytesMut::with_capacity(want);
            }
            let room = want - this.chunk.len();
            let mut limited = (&mut this.chunk).limit(room);
            match ready!(poll_read_buf(Pin::new(&mut this.reader), cx, &mut limited)) {
                Ok(0) => {
                    let e = io::Error::new(io::ErrorKind::UnexpectedEof, "the entry ended early");
                    return this.fail(e);
                }
                Ok(_) => {}
                Err(e) => return this.fail(e),
            }
            if this.chunk.len() == want {
                this.left -= want as u64;
                let chunk = std::mem::take(&mut this.chunk).freeze();
                if this.left == 0 {
                    this.last = Some(chunk);
                    continue;
                }
                // Each chunk, so that a long transfer stops soon after a rewrite.
                if changed(&this.archive) {
                    let e = io::Error::other("the archive was rewritten while it was sent");
                    return this.fail(e);
                }
                this.yielded = true;
                return Poll::Ready(Some(Ok(chunk)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        use Wanted::*;
        let cases: &[(&str, u64, Wanted)] = &[
            ("bytes=0-9", 100, Part(0, 10)),
            ("bytes=90-", 100, Part(90, 100)),
            ("bytes=-10", 100, Part(90, 100)),
            ("bytes=-1000", 100, Part(0, 100)),
            ("bytes=50-1000", 100, Part(50, 100)),
            ("BYTES=1-1", 100, Part(1, 2)),
            ("bytes=100-", 100, Unsatisfiable),
            ("bytes=100-200", 100, Unsatisfiable),
            ("bytes=-0", 100, Unsatisfiable),
            ("bytes=0-", 0, Unsatisfiable),
            ("bytes=-5", 0, Unsatisfiable),
            ("bytes=5-1", 100, Whole),
            ("bytes=0-1,5-6", 100, Whole),
            ("items=0-1", 100, Whole),
            ("bytes=a-b", 100, Whole),
            ("bytes=+1-2", 100, Whole),
            ("bytes", 100, Whole),
            // Past a u64: past the end (it was read as bad syntax, so the whole entry).
            ("bytes=99999999999999999999999-", 100, Unsatisfiable),
            (
                "bytes=99999999999999999999999-99999999999999999999999",
                100,
                Unsatisfiable,
            ),
            ("bytes=0-99999999999999999999999", 100, Part(0, 100)),
            ("bytes=-99999999999999999999999", 100, Part(0, 100)),
        ];
        for &(header, size, want) in cases {
            assert_eq!(wanted(header, size), want, "{header} of {size}");
        }
    }
}
