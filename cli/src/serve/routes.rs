//! The router: one handler for every path (the URL scheme is resolved against the folder,
//! not matched by patterns), wrapped in the request timeout and the request log.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use ngi_tokio::Archive;

use super::entry;
use super::host;
use super::html::{self, Sort};
use super::listing::{Form, Listing};
use super::paths::{self, Located, Refusal, Target};
use super::validators::{Validators, unsized_empty};
use super::{Shared, error_response};

pub fn router(shared: Arc<Shared>) -> Router {
    Router::new().fallback(handle).with_state(shared)
}

/// Every request: routed within the request timeout, then logged.
async fn handle(State(shared): State<Arc<Shared>>, request: Request) -> Response {
    let started = Instant::now();
    // The parts only: a body is not `Sync`, and nothing here reads one.
    let (request, _) = request.into_parts();
    let mut abandoned = Abandoned {
        method: request.method.clone(),
        uri: logged_uri(&request.uri),
        started,
        answered: false,
    };
    // What is running when a request is slow, or its client goes: at `RUST_LOG=debug`.
    tracing::debug!(
        target: "ngi::serve",
        method = %abandoned.method,
        uri = %abandoned.uri,
        "request started"
    );
    let limit = shared.settings.request_timeout;
    let response = match tokio::time::timeout(limit, route(&shared, &request)).await {
        Ok(response) => response,
        Err(_) => {
            let mut late = error_response(
                StatusCode::SERVICE_UNAVAILABLE,
                format!(
                    "{}: no response within the request timeout of {limit:?}",
                    abandoned.uri
                ),
            );
            late.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            late
        }
    };
    abandoned.answered = true;
    tracing::info!(
        target: "ngi::serve",
        method = %abandoned.method,
        uri = %abandoned.uri,
        status = response.status().as_u16(),
        micros = started.elapsed().as_micros() as u64,
        "request"
    );
    response
}

/// Logs a request dropped before its response was made: hyper drops the request's future
/// when the client hangs up, and such a request would otherwise leave no line at all.
struct Abandoned {
    method: axum::http::Method,
    /// As logged ([`logged_uri`]).
    uri: String,
    started: Instant,
    answered: bool,
}

/// A request's target as the log (and a timeout's message) shows it: the first
/// [`LOGGED_URI`] characters and the length of the rest, so that a client sending 60 KB
/// targets cannot write 60 KB log lines.
fn logged_uri(uri: &axum::http::Uri) -> String {
    let text = uri.to_string();
    match text.char_indices().nth(LOGGED_URI) {
        Some((cut, _)) => format!("{}... ({} bytes)", &text[..cut], text.len()),
        None => text,
    }
}

const LOGGED_URI: usize = 1024;

impl Drop for Abandoned {
    fn drop(&mut self) {
        if !self.answered {
            tracing::info!(
                target: "ngi::serve",
                method = %self.method,
                uri = %self.uri,
                micros = self.started.elapsed().as_micros() as u64,
                "request abandoned: the client went away before the response"
            );
        }
    }
}

/// The value of `key` in the query, percent-decoded; a bad encoding, or `key` given more
/// than once (`?index=1&index=2` asks for two things, and answering one of them would
/// hide that), is a malformed request.
fn query(request: &Parts, key: &str) -> Option<Result<String, Refusal>> {
    let mut values = request
        .uri
        .query()?
        .split('&')
        .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
        .filter(|(k, _)| *k == key)
        .map(|(_, value)| value);
    let value = values.next()?;
    if values.next().is_some() {
        return Some(Err(Refusal::Malformed(format!(
            "{key}= is given more than once; give it once"
        ))));
    }
    Some(paths::decode(value).map(|v| String::from_utf8_lossy(&v).into_owned()))
}

fn refusal(refusal: Refusal) -> Response {
    match refusal {
        Refusal::NotFound(m) => error_response(StatusCode::NOT_FOUND, m),
        Refusal::Malformed(m) => error_response(StatusCode::BAD_REQUEST, m),
    }
}

fn wants_html(headers: &HeaderMap) -> bool {
    let lines: Vec<&str> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    accepts_html(&lines.join(","))
}

/// Whether an `Accept` value asks for HTML over JSON: `text/html` (or `text/*`) named
/// with a weight above 0 (RFC 9110 12.5.1: `q=0` means "not acceptable") and at least
/// JSON's. Each type takes the weight of the most specific range that matches it, so
/// a browser's `text/html,...,*/*;q=0.8` gets a page, and `*/*` alone (curl) or
/// `application/json, text/html;q=0.5` JSON.
fn accepts_html(accept: &str) -> bool {
    let html = weight(accept, "text", "html");
    let json = weight(accept, "application", "json");
    html.named && html.q > 0.0 && html.q >= json.q
}

/// The weight an `Accept` value gives `kind/subtype`, and whether a range naming its
/// kind (not `*/*`) gave it.
struct Weight {
    q: f32,
    named: bool,
}

fn weight(accept: &str, kind: &str, subtype: &str) -> Weight {
    let mut best: Option<(u8, f32)> = None;
    for range in accept.split(',') {
        let mut parts = range.split(';').map(str::trim);
        let Some((k, s)) = parts.next().and_then(|t| t.split_once('/')) else {
            continue;
        };
        let (k, s) = (k.trim(), s.trim());
        let specificity = match (k, s) {
            ("*", "*") => 0,
            (k, "*") if k.eq_ignore_ascii_case(kind) => 1,
            (k, s) if k.eq_ignore_ascii_case(kind) && s.eq_ignore_ascii_case(subtype) => 2,
            _ => continue,
        };
        // A weight that is no number from 0 to 1 makes its range one that says nothing.
        let q = match parts
            .filter_map(|p| p.split_once('='))
            .find(|(k, _)| k.trim().eq_ignore_ascii_case("q"))
        {
            None => 1.0,
            Some((_, q)) => match q.trim().parse::<f32>() {
                Ok(q) if (0.0..=1.0).contains(&q) => q,
                _ => continue,
            },
        };
        if best.is_none_or(|(s, _)| specificity > s) {
            best = Some((specificity, q));
        }
    }
    best.map_or(
        Weight {
            q: 0.0,
            named: false,
        },
        |(s, q)| Weight { q, named: s > 0 },
    )
}

async fn route(shared: &Arc<Shared>, request: &Parts) -> Response {
    // RFC 9112 3.2: a 400 for any request, whatever its method.
    if let Some(refused) = host::refusal(request) {
        return error_response(StatusCode::BAD_REQUEST, refused.into());
    }
    let head = match request.method {
        Method::GET => false,
        Method::HEAD => true,
        _ => {
            let mut response = error_response(
                StatusCode::METHOD_NOT_ALLOWED,
                format!("{}: only GET and HEAD", request.method),
            );
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return response;
        }
    };
    let folder = shared.folder.clone();
    let raw = request.uri.path().to_owned();
    let target =
        match tokio::task::spawn_blocking(move || paths::resolve(folder.root(), &raw)).await {
            Ok(Ok(target)) => target,
            Ok(Err(r)) => return refusal(r),
            Err(e) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
        };
    match target {
        Target::Index => index(shared, request).await,
        Target::Status => status(shared),
        Target::Archive(located) => {
            let archive = match open(shared, &located).await {
                Some(Ok(a)) => a,
                Some(Err(r)) => return r,
                None => return gone(&located),
            };
            match query(request, "index") {
                None => listing(shared, request, &located, &archive, head).await,
                Some(Err(r)) => refusal(r),
                Some(Ok(text)) => match whole_number(&text) {
                    Some(Some(i)) => {
                        entry::respond(shared, &archive, &located, i, &request.headers, head).await
                    }
                    // Said as asked: "index 18446744073709551615" named no number given.
                    Some(None) => entry::no_entry_at(&located, &archive, text),
                    None => error_response(
                        StatusCode::BAD_REQUEST,
                        format!("index={text:?}: an index is a whole number"),
                    ),
                },
            }
        }
        Target::Entry(located, name) => {
            let archive = match open(shared, &located).await {
                Some(Ok(a)) => a,
                Some(Err(r)) => return r,
                None => return gone(&located),
            };
            // The engine's lookup stops at a NUL, which no name holds: "a.txt%00x" would be
            // another address of a.txt, one for every suffix.
            match archive.find(&name).filter(|_| !name.contains(&0)) {
                Some(i) => {
                    entry::respond(shared, &archive, &located, i, &request.headers, head).await
                }
                None => error_response(
                    StatusCode::NOT_FOUND,
                    format!(
                        "{}: no entry named \"{}\"",
                        located.shown,
                        crate::names::display(&name)
                    ),
                ),
            }
        }
    }
}

/// Digits only, as an index is written (`parse` would also take "+1"); `Some(None)` for
/// digits past what a usize holds, an index past any archive's last (a 404, not a
/// malformed request).
fn whole_number(text: &str) -> Option<Option<usize>> {
    (!text.is_empty() && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok())
}

fn gone(located: &Located) -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        format!("no archive at /{}", located.shown),
    )
}

/// The archive from the cache: `None` when the file went away (or is outside the folder,
/// or not readable), a 500 naming it when it does not open otherwise.
async fn open(shared: &Arc<Shared>, located: &Located) -> Option<Result<Archive, Response>> {
    shared.counters.lookups.fetch_add(1, Ordering::Relaxed);
    match shared.cache.get(&located.file).await {
        Ok(archive) => Some(Ok(archive)),
        // Missing, refused by the cache's opener (outside the folder), not readable,
        // not a regular file, or any other fault of the path: one answer for all, so that
        // a path swapped to lead outside tells nothing of what lies there. The log says
        // why, where it is more than a file gone: the operator's answer to "why a 404?"
        // for an archive the server may not read.
        Err(e) if is_path_fault(&e) => {
            if e.kind() != std::io::ErrorKind::NotFound {
                tracing::warn!(target: "ngi::serve", "/{}: answered as missing: {e}", located.shown);
            }
            None
        }
        Err(e) if is_not_an_archive(&e) => Some(Err(error_response(
            StatusCode::NOT_FOUND,
            format!("/{} is not an NRes or RsLi archive", located.shown),
        ))),
        // A broken archive, a read that failed, no descriptors left: a fault, which
        // `RUST_LOG=warn` is to show.
        Err(e) => {
            let message = format!("{}: {e}", located.shown);
            tracing::warn!(target: "ngi::serve", "{message}");
            Some(Err(error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                message,
            )))
        }
    }
}

/// A fault of the path (its stat or its open, outside the folder included) rather than of the
/// file's bytes or the server (running out of descriptors): answered as a missing file.
fn is_path_fault(e: &std::io::Error) -> bool {
    let out_of_descriptors = matches!(e.raw_os_error(), Some(23 | 24)); // ENFILE, EMFILE
    !out_of_descriptors && core_error(e).is_none() && e.kind() != std::io::ErrorKind::UnexpectedEof
}

/// The open found no archive magic.
fn is_not_an_archive(e: &std::io::Error) -> bool {
    matches!(
        core_error(e),
        Some(ngi_core::archive::Error::UnknownFormat { .. })
    )
}

/// The core's error inside an open's `io::Error`: a fault of the file's bytes.
fn core_error(e: &std::io::Error) -> Option<&ngi_core::archive::Error> {
    e.get_ref()
        .and_then(|inner| inner.downcast_ref::<ngi_core::archive::Error>())
}

/// `/`: the archives under the folder. Its validators are a hash of what it lists (the
/// walk is the work, so a 304 saves only the sending), and no `Last-Modified`: no one
/// file's time dates a walk of the folder.
async fn index(shared: &Arc<Shared>, request: &Parts) -> Response {
    let html = wants_html(&request.headers);
    let folder = shared.folder.clone();
    let conditions = request.headers.clone();
    let max_age = shared.settings.max_age;
    let done = bulk(&shared.walks, move || {
        let listed = match paths::archives(&folder) {
            Ok((listed, false)) => listed,
            Ok((listed, true)) => {
                // Not an error: the index is what the bounds allow, and the archives left
                // out are served all the same. The operator is told why they are missing.
                tracing::warn!(
                    target: "ngi::serve",
                    "the index may leave archives out: it searches folders down to {} deep \
                     and lists at most {} archives",
                    paths::MAX_DEPTH,
                    paths::MAX_LISTED
                );
                listed
            }
            Err(e) => {
                let message = format!("listing the folder: {e}");
                tracing::warn!(target: "ngi::serve", "{message}");
                return error_response(StatusCode::INTERNAL_SERVER_ERROR, message);
            }
        };
        let (body, kind) = if html {
            (html::index_page(&listed).into_bytes(), "html")
        } else {
            match serde_json::to_vec(&listed) {
                Ok(json) => (json, "list"),
                Err(e) => return error_response(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
            }
        };
        let validators = Validators {
            etag: format!("\"index-{:016x}-{kind}\"", content_hash(&body)),
            modified: None,
            last_modified: None,
        };
        if let Some(status) = validators.precondition(&conditions) {
            return validators.answer(status, "the folder's index", max_age);
        }
        let mut response = if html {
            typed_response(body, "text/html; charset=utf-8")
        } else {
            typed_response(body, "application/json")
        };
        validators.apply(response.headers_mut(), max_age);
        response
    })
    .await;
    let mut response = done.unwrap_or_else(|refused| refused);
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response
}

/// A hash of a body, for its tag: the same bytes give the same tag in every run and
/// replica built alike (SipHash with fixed keys).
fn content_hash(body: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(body);
    hasher.finish()
}

/// `work` on the blocking pool, under one of the `permits` for bulk work (waited for). The
/// permit goes with the work: a request dropped while it runs (the client gone, the
/// request timeout) cannot cancel a blocking task, so the permit must not be freed before
/// it ends.
async fn bulk<T: Send + 'static>(
    permits: &Arc<tokio::sync::Semaphore>,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Response> {
    let Ok(permit) = Arc::clone(permits).acquire_owned().await else {
        return Err(error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            "shutting down".into(),
        ));
    };
    let work = move || {
        let done = work();
        drop(permit);
        done
    };
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| error_response(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))
}

/// `/PATH/`: the archive's entries, with the archive's validators, rendered as the client
/// reads them ([`Listing`]).
async fn listing(
    shared: &Arc<Shared>,
    request: &Parts,
    located: &Located,
    archive: &Archive,
    head: bool,
) -> Response {
    let html = wants_html(&request.headers);
    let sort = if html {
        let text = |key| query(request, key).transpose();
        let parsed = text("sort").and_then(|sort| text("order").map(|order| (sort, order)));
        match parsed {
            Ok((sort, order)) => match Sort::parse(sort.as_deref(), order.as_deref()) {
                Ok(sort) => Some(sort),
                Err(m) => return error_response(StatusCode::BAD_REQUEST, m),
            },
            Err(r) => return refusal(r),
        }
    } else {
        None
    };
    // The JSON and the page are different representations: different tags.
    let validators = Validators::of(archive, if html { "html" } else { "list" });
    let max_age = shared.settings.max_age;
    let mut response = if let Some(status) = validators.precondition(&request.headers) {
        validators.answer(status, &located.shown, max_age)
    } else {
        let content_type = if html {
            "text/html; charset=utf-8"
        } else {
            "application/json"
        };
        let mut response = typed_response(Vec::new(), content_type);
        // Rendered as it is read: a HEAD has no length to tell.
        *response.body_mut() = if head {
            unsized_empty()
        } else {
            match listing_body(shared, located, archive, sort).await {
                Ok(body) => body,
                Err(refused) => return refused,
            }
        };
        validators.apply(response.headers_mut(), max_age);
        response
    };
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("accept"));
    response
}

/// A listing's body, holding one of the stream permits until it is sent. A sorted
/// page's order is worked out first, on the blocking pool, before the permit is taken:
/// listings waiting for a sort must not hold the streams entries need.
async fn listing_body(
    shared: &Arc<Shared>,
    located: &Located,
    archive: &Archive,
    sort: Option<Sort>,
) -> Result<Body, Response> {
    let form = match sort {
        None => Form::Json,
        Some(sort) => {
            let sorted = archive.clone();
            let order = bulk(&shared.sorts, move || html::table_order(&sorted, sort)).await?;
            Form::Html {
                located: located.clone(),
                sort,
                order,
            }
        }
    };
    let Ok(permit) = Arc::clone(&shared.streams).try_acquire_owned() else {
        let max_streams = shared.settings.max_streams;
        return Err(super::busy(&located.shown, max_streams));
    };
    shared.counters.streams.fetch_add(1, Ordering::Relaxed);
    Ok(Body::from_stream(Listing::new(
        archive.clone(),
        form,
        permit,
    )))
}

/// `/.ngi/status`: the counters, never cached.
fn status(shared: &Arc<Shared>) -> Response {
    let body = serde_json::json!({
        "open_streams": shared.open_streams(),
        "max_streams": shared.settings.max_streams,
        "streams_started": shared.counters.streams.load(Ordering::Relaxed),
        "archive_lookups": shared.counters.lookups.load(Ordering::Relaxed),
        "open_archives": shared.cache.len(),
    });
    let mut response = json_response(serde_json::to_vec(&body));
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

fn json_response(body: serde_json::Result<Vec<u8>>) -> Response {
    match body {
        Ok(bytes) => typed_response(bytes, "application/json"),
        Err(e) => error_response(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()),
    }
}

fn typed_response(body: Vec<u8>, content_type: &'static str) -> Response {
    let mut response = Response::new(Body::from(body));
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_wanted_where_accept_weighs_it_above_zero() {
        for (accept, html) in [
            ("text/html", true),
            ("text/html,application/xhtml+xml,*/*;q=0.8", true),
            (
                "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,\
                 image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
                true,
            ),
            ("TEXT/HTML ; q=0.5, application/json;q=0.4", true),
            ("text/*, application/json", true),
            ("text/html, application/json", true),
            // JSON weighed above HTML, or HTML only through a wildcard.
            ("application/json, TEXT/HTML ; q=0.5", false),
            ("text/html;q=0.5, */*", false),
            ("text/html;q=0.5, application/*", false),
            ("*/*;q=0.1", false),
            ("text/*;q=0, */*", false),
            ("text/html, text/*;q=0", true),
            // Weights that are not from 0 to 1: the range is passed over.
            ("text/html;q=1.5", false),
            ("text/html;q=abc", false),
            ("text/html;q=abc, text/*;q=0.5", true),
            ("text/html;q=0, application/json", false),
            ("text/html; q=0.0", false),
            ("text/html;level=1;q=0", false),
            ("application/json", false),
            ("*/*", false),
            ("text/htmlx", false),
        ] {
            assert_eq!(accepts_html(accept), html, "{accept}");
        }
        // Accept on several lines is one list (RFC 9110 5.3).
        for (lines, html) in [
            (["application/json", "text/html;q=0.5"], false),
            (["text/html", "*/*;q=0.1"], true),
        ] {
            let mut headers = HeaderMap::new();
            for line in lines {
                headers.append(header::ACCEPT, HeaderValue::from_static(line));
            }
            assert_eq!(wants_html(&headers), html, "{lines:?}");
        }
    }

    #[test]
    fn long_targets_are_cut_in_the_log() {
        let short: axum::http::Uri = "/a.res/b.txt?x=1".parse().unwrap();
        assert_eq!(logged_uri(&short), "/a.res/b.txt?x=1");
        let long: axum::http::Uri = format!("/{}", "a".repeat(5000)).parse().unwrap();
        let logged = logged_uri(&long);
        assert!(logged.ends_with("... (5001 bytes)"), "{logged}");
        assert_eq!(logged.len(), LOGGED_URI + "... (5001 bytes)".len());
    }

    #[test]
    fn an_index_is_digits_however_many() {
        assert_eq!(whole_number("7"), Some(Some(7)));
        assert_eq!(whole_number("99999999999999999999999"), Some(None));
        for text in ["", "-1", "+1", "1.0", " 1", "0x1"] {
            assert_eq!(whole_number(text), None, "{text:?}");
        }
    }
}
