//! One entry as an HTTP response: validators and conditional requests, single byte
//! ranges, and the body ([`body`](super::body)).

use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use ngi_core::Method;
use ngi_tokio::Archive;

use super::body::{Buffered, EndCheck, StreamedEntry, Verified, changed, rewritten};
use super::paths::Located;
use super::validators::{Validators, one_line};
use super::{Shared, error_response};
use crate::names;

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
            // Satisfiable (RFC 9110 14.1.1: a suffix of a non-zero length), but no part
            // of nothing can be said in a Content-Range: the whole, empty entry.
            Some(_) if size == 0 => Wanted::Whole,
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

/// The 404 of an index past the archive's last entry, `index` as the request gave it
/// (digits past what a `usize` holds are such an index too).
pub fn no_entry_at(
    located: &Located,
    archive: &Archive,
    index: impl std::fmt::Display,
) -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        format!(
            "{}: no entry with index {index} (the archive has {})",
            located.shown,
            crate::count::entries(archive.len())
        ),
    )
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
        return no_entry_at(located, archive, index);
    };
    let (name, size) = (entry.name().to_vec(), entry.size);
    // Stored and XOR bytes carry no check; a packed stream's end is where a fault in it
    // shows, so even a range that stops short of the entry's end decodes to there.
    let checked = !matches!(entry.method, Some(Method::Stored | Method::Xor));
    let about = format!(
        "{}: entry {index} (\"{}\")",
        located.shown,
        names::display(&name)
    );
    let limit = shared.settings.limits.max_entry_size;
    if size > limit {
        return error_response(
            StatusCode::FORBIDDEN,
            format!(
                "{about}: {} decoded, over the server's --max-entry-size of {limit}",
                crate::count::bytes(size)
            ),
        );
    }
    let validators = Validators::of(archive, &index.to_string());
    let mut response = Response::new(Body::empty());
    let headers = response.headers_mut();
    validators.apply(headers, shared.settings.max_age);
    if let Some(status) = validators.precondition(request) {
        return validators.answer(status, &about, shared.settings.max_age);
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
    // Two `Range` lines join into no valid range: ignored, as an invalid one is.
    let range = one_line(request, header::RANGE)
        .ok()
        .flatten()
        // Range is defined for GET alone: HEAD says what a plain GET would (RFC 9110
        // 14.2).
        .filter(|_| !head && validators.range_applies(request))
        .map_or(Wanted::Whole, |r| wanted(r, size));
    let Some((start, end)) = answer_range(&mut response, range, size) else {
        return unsatisfiable(size, &about);
    };
    response
        .headers_mut()
        .insert(header::CONTENT_LENGTH, HeaderValue::from(end - start));
    // HEAD decodes what GET decodes before its status line (a small entry whole, a
    // large one's first chunk), so that it says what GET would: a fault there is a 500
    // to both (a later one is only found out while streaming).
    let buffered = size <= shared.settings.buffer_up_to;
    let Ok(permit) = Arc::clone(&shared.streams).try_acquire_owned() else {
        let max_streams = shared.settings.max_streams;
        return super::busy(&about, max_streams);
    };
    if !head {
        shared.counters.streams.fetch_add(1, Ordering::Relaxed);
    }
    let key = Verified::key(&located.file, &validators.etag);
    let body = if buffered {
        match archive.read(index).await {
            Ok(_) if changed(archive) => return rewritten(&about),
            Ok(bytes) => {
                shared.verified.insert(key);
                if head {
                    Body::empty()
                } else {
                    let bytes = Bytes::from(bytes).slice(start as usize..end as usize);
                    Body::from_stream(Buffered::new(bytes, permit))
                }
            }
            Err(e) => {
                let message = super::body::about_entry(&about, index, &e);
                tracing::warn!(target: "ngi::serve", "{message}");
                return error_response(StatusCode::INTERNAL_SERVER_ERROR, message);
            }
        }
    } else {
        let end_check = if end == size {
            EndCheck::AtTheEnd
        } else if checked && !shared.verified.contains(key) {
            EndCheck::DecodeToTheEnd
        } else {
            EndCheck::None
        };
        let streamed = StreamedEntry {
            archive,
            index,
            range: start..end,
            end_check,
            verified: (Arc::clone(&shared.verified), key),
            about,
        };
        match streamed.body(permit).await {
            Ok(_) if head => Body::empty(),
            Ok(body) => body,
            Err(refused) => return refused,
        }
    };
    *response.body_mut() = body;
    response
}

/// The bytes `range` asks for, of an entry of `size`, with the status and
/// `Content-Range` of a part put on `response`; `None` for a range it cannot satisfy.
fn answer_range(response: &mut Response, range: Wanted, size: u64) -> Option<(u64, u64)> {
    match range {
        Wanted::Whole => Some((0, size)),
        Wanted::Part(start, end) => {
            *response.status_mut() = StatusCode::PARTIAL_CONTENT;
            let value = format!("bytes {start}-{}/{size}", end - 1);
            if let Ok(v) = HeaderValue::from_str(&value) {
                response.headers_mut().insert(header::CONTENT_RANGE, v);
            }
            Some((start, end))
        }
        Wanted::Unsatisfiable => None,
    }
}

/// The 416 of a range outside an entry of `size`.
fn unsatisfiable(size: u64, about: &str) -> Response {
    let mut refused = error_response(
        StatusCode::RANGE_NOT_SATISFIABLE,
        format!(
            "{about}: the range is outside its {}",
            crate::count::bytes(size)
        ),
    );
    if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
        refused.headers_mut().insert(header::CONTENT_RANGE, v);
    }
    refused
}

/// `Content-Type` from the name's extension, `application/octet-stream` otherwise.
fn content_type(name: &[u8]) -> HeaderValue {
    let name = String::from_utf8_lossy(name);
    mime_guess::from_path(name.as_ref()).first_raw().map_or(
        HeaderValue::from_static("application/octet-stream"),
        HeaderValue::from_static,
    )
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
            ("bytes=-5", 0, Whole),
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
