//! An archive's validators (`ETag`, `Last-Modified`) and the conditional requests they
//! answer (RFC 9110 13): the preconditions, in their order, for entries, listings and
//! the folder's index.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use ngi_tokio::Archive;

use super::error_response;

/// An archive's validators: a strong `ETag` from the identity of the file that was
/// opened (device, inode, size, modification time, and the status-change time that no
/// tool sets back) and what it names in it, and the file's modification time.
#[derive(Debug, Clone)]
pub struct Validators {
    pub etag: String,
    /// The file's modification time, as `If-Unmodified-Since` is checked against it.
    pub modified: Option<SystemTime>,
    /// What is sent as `Last-Modified`: the modification time, unless it is in the
    /// current second or later (see `usable_date`).
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
            modified,
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
        } else if let (Some(since), Some(modified)) =
            (date(request, header::IF_UNMODIFIED_SINCE), self.modified)
        {
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
    /// (strong comparison, or the exact date). One that is not text, or given on more
    /// than one line, names none: the whole entry is the safe answer.
    pub fn range_applies(&self, request: &HeaderMap) -> bool {
        let condition = match one_line(request, header::IF_RANGE) {
            Ok(None) => return true,
            Ok(Some(condition)) => condition,
            Err(NotOneLine) => return false,
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

/// A field that is not a list given on more than one line, or whose value is not text.
#[derive(Debug, PartialEq, Eq)]
pub struct NotOneLine;

/// The value of the field `name`, which takes one value (`Host`, `Range`, `If-Range`):
/// `None` without it. Lines of a list field are parts of one list; lines of one of these
/// joined so make no value of it, and using the first alone (as `get` does) answered a
/// request that says two things as if it said one.
pub fn one_line(request: &HeaderMap, name: header::HeaderName) -> Result<Option<&str>, NotOneLine> {
    let mut lines = request.get_all(name).iter();
    match (lines.next(), lines.next()) {
        (None, _) => Ok(None),
        (Some(value), None) => value.to_str().map(Some).map_err(|_| NotOneLine),
        (Some(_), Some(_)) => Err(NotOneLine),
    }
}

impl Validators {
    /// The answer to a request whose preconditions stopped it ([`precondition`]'s
    /// status), with these validators: a 304, or a 412 naming `what` and stored by no
    /// cache (a shared cache would answer plain requests with it for `max_age`). Neither
    /// has a body, nor a `Content-Length` (a `HEAD`'s 304 said 0, where it must be the
    /// 200's length or none).
    ///
    /// [`precondition`]: Validators::precondition
    pub fn answer(&self, status: StatusCode, what: &str, max_age: u64) -> Response {
        let mut response = if status == StatusCode::PRECONDITION_FAILED {
            error_response(
                status,
                format!("{what}: changed since the version If-Match or If-Unmodified-Since names"),
            )
        } else {
            let mut response = Response::new(unsized_empty());
            *response.status_mut() = status;
            response
        };
        self.apply(response.headers_mut(), max_age);
        if status == StatusCode::PRECONDITION_FAILED {
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        }
        response
    }
}

/// An empty body whose size is not told: axum gives a `HEAD` response the body's size as
/// its `Content-Length`, and 0 is wrong for a `HEAD` of a listing or a 304.
pub fn unsized_empty() -> Body {
    Body::from_stream(Nothing)
}

/// A stream that ends at once.
struct Nothing;

impl futures_core::Stream for Nothing {
    type Item = std::io::Result<bytes::Bytes>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        std::task::Poll::Ready(None)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_date_is_sent_once_its_second_has_passed() {
        let at = |secs: u64, millis: u64| {
            UNIX_EPOCH + Duration::from_secs(secs) + Duration::from_millis(millis)
        };
        let now = at(1_000_000, 300);
        assert!(usable_date(at(999_999, 999), now), "the second before");
        assert!(!usable_date(at(1_000_000, 0), now), "this second");
        assert!(!usable_date(at(1_000_000, 900), now), "later this second");
        assert!(!usable_date(at(2_000_000, 0), now), "the future");
        assert!(
            !usable_date(UNIX_EPOCH - Duration::from_secs(1), now),
            "before 1970"
        );
        let year_10000 = at(253_402_300_800, 0);
        assert!(!usable_date(
            year_10000,
            year_10000 + Duration::from_secs(9)
        ));
    }
}
