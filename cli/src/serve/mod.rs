//! `ngi serve DIR`: an HTTP server of the archives under a folder.
//!
//! * `GET /`: the archives under DIR (JSON array of `{"path", "href"}`; HTML for
//!   browsers).
//! * `GET /PATH/`: the archive's entries, the objects of `ngi list --json` (HTML for
//!   browsers, `?sort=`/`?order=`); `GET /PATH/?index=N`: entry N.
//! * `GET /PATH/NAME`: the decoded entry, NAME percent-decoded to bytes and looked up by
//!   the format's engine rules; validators, 304, `HEAD` and single ranges.
//! * `GET /.ngi/status`: the server's counters (open streams, archive lookups).
//!
//! Archives are opened through [`ngi_tokio::Cache`] (the engine's policy: closed 10 s
//! after their last use, reopened when the file changes). Every failure is a JSON body
//! `{"error": "..."}` that names the archive and entry.
//!
//! The accept loop is hyper's HTTP/1 connection builder under the axum router (what
//! `axum::serve` does, plus what it cannot be told): a header-read timeout, an idle timer
//! on each socket ([`idle`]), a bound on connections, and graceful shutdown on SIGINT and
//! SIGTERM.

mod beneath;
mod body;
mod entry;
mod host;
mod html;
mod idle;
mod listing;
mod paths;
mod routes;
mod signals;
mod validators;

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use ngi_tokio::{Cache, OpenOptions};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::args::Serve;
use crate::report::{Failure, ShowPath};

/// Index walks at once, and listing sorts at once (each kind its own permits).
const BULK_AT_ONCE: usize = 2;

/// What every request shares.
#[derive(Debug)]
pub struct Shared {
    /// The served folder (its canonical path, and its handle for opening files under
    /// it), shared with the cache's opener.
    folder: Arc<beneath::Beneath>,
    cache: Cache,
    settings: Serve,
    /// One permit per entry or listing body being decoded or sent.
    streams: Arc<Semaphore>,
    /// Permits for the work a request may do in bulk: walking the folder for `/`
    /// (`walks`), and sorting a listing's page (up to `--max-entries` rows, `sorts`).
    /// Requests wait for one, so that many at once queue rather than fill the blocking
    /// pool the entry reads use; each kind apart, so that a flood of `/` (a walk of a
    /// large folder each) does not hold the pages of archives back.
    walks: Arc<Semaphore>,
    sorts: Arc<Semaphore>,
    /// The entries decoded to their end without a fault, whose ranges need no end check.
    verified: Arc<body::Verified>,
    counters: Counters,
}

/// What `/.ngi/status` reports beyond the open streams.
#[derive(Debug, Default)]
struct Counters {
    /// Archives handed to the cache (every request that reached a file).
    lookups: AtomicU64,
    /// Bodies started (entries and listings), each holding one of the streams.
    streams: AtomicU64,
}

impl Shared {
    fn open_streams(&self) -> usize {
        self.settings.max_streams - self.streams.available_permits()
    }
}

/// A JSON error response: `{"error": message}`.
pub fn error_response(status: StatusCode, message: String) -> Response {
    let body = serde_json::json!({ "error": message }).to_string();
    let mut response = Response::new(body.into());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // An error may be gone by the next request (a file caught while `cp` rewrites it
    // reads as empty or cut short, a 404 or a 500): no cache is to keep it.
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The 503 for a request beyond `--max-streams`: `about` names what was asked for. The
/// streams are shared by entries and listings, so the message names neither.
pub fn busy(about: &str, max_streams: usize) -> Response {
    let mut busy = error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        busy_message(about, max_streams),
    );
    busy.headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    busy
}

fn busy_message(about: &str, max_streams: usize) -> String {
    let bodies = crate::count::of(max_streams as u64, "response body", "response bodies");
    format!("{about}: the server is sending {bodies} already (--max-streams); try again")
}

/// tokio's multi-threaded runtime with at most `threads` threads in all. Its defaults (a
/// worker per core, up to 512 on the blocking pool, where every request resolves its path
/// and files are read) start threads as requests come, and under a limit on the address
/// space (`ulimit -v 262144`) 600 concurrent requests made one allocation fail and the
/// server abort (so under one on the data segment, `ulimit -d`, which counts the threads'
/// stacks and heaps). Half the room goes to the workers (one per core at most), the rest
/// to the blocking pool, whose tasks then queue. Without a limit, tokio's defaults.
fn runtime_builder(threads: usize) -> tokio::runtime::Builder {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if threads != usize::MAX {
        let (workers, blocking) = runtime_threads(threads, crate::args::cores());
        builder
            .worker_threads(workers)
            .max_blocking_threads(blocking);
    }
    builder
}

/// Workers and blocking threads for `threads` in all (each at least one) on `cores`.
fn runtime_threads(threads: usize, cores: usize) -> (usize, usize) {
    let workers = cores.min(threads / 2).max(1);
    (workers, threads.saturating_sub(workers).clamp(1, 512))
}

/// Runs the server until SIGINT or SIGTERM.
pub fn run(settings: &Serve) -> Result<(), Failure> {
    // Missing, unreadable or a file: each said as such.
    let root = settings
        .dir
        .canonicalize()
        .map_err(|e| Failure::about(settings.dir.shown(), e))?;
    if !root.is_dir() {
        return Err(Failure::Bad(format!(
            "{}: not a folder",
            settings.dir.shown()
        )));
    }
    init_logs();
    let runtime = runtime_builder(crate::address_space::threads_that_fit())
        .enable_all()
        .build()
        .map_err(|e| Failure::Bad(format!("cannot start the runtime: {e}")))?;
    let mut options = OpenOptions::DEFAULT;
    options.limits = settings.limits;
    options.media_trailer = settings.media_trailer;
    let mut settings = settings.clone();
    let (max_open, connections) = fit_open_files(settings.max_connections);
    settings.max_connections = connections;
    // The cache opens what the walk found from the folder's handle, so that a swap
    // since the walk cannot send the open outside (see `beneath`).
    let folder = beneath::Beneath::new(root.clone())
        .map(Arc::new)
        .map_err(|e| Failure::Bad(format!("{}: {e}", root.shown())))?;
    let opener = {
        let folder = folder.clone();
        move |path: &std::path::Path| folder.open(path)
    };
    let shared = Arc::new(Shared {
        folder,
        cache: Cache::new()
            .with_idle(settings.cache_idle)
            .with_max_open(max_open)
            .with_options(options)
            .with_opener(opener),
        streams: Arc::new(Semaphore::new(settings.max_streams)),
        walks: Arc::new(Semaphore::new(BULK_AT_ONCE)),
        sorts: Arc::new(Semaphore::new(BULK_AT_ONCE)),
        verified: Arc::default(),
        settings,
        counters: Counters::default(),
    });
    let served = runtime.block_on(serve(shared));
    // A read still on the blocking pool (a disk that hangs) must not hold the exit.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    served
}

/// Request logs on stderr, filtered by `RUST_LOG` (default: `info`).
fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

async fn serve(shared: Arc<Shared>) -> Result<(), Failure> {
    let settings = &shared.settings;
    let mut signals = signals::StopSignals::listen();
    let listener = TcpListener::bind(settings.listen)
        .await
        .map_err(|e| Failure::Bad(format!("cannot listen on {}: {e}", settings.listen)))?;
    let local = listener
        .local_addr()
        .map_err(|e| Failure::Bad(format!("cannot listen on {}: {e}", settings.listen)))?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "listening on http://{local}")
            .and_then(|()| out.flush())
            .map_err(crate::report::output_failed)?;
    }
    tracing::info!(target: "ngi::serve", "serving {} on http://{local}", shared.folder.root().shown());
    let app = routes::router(Arc::clone(&shared));
    let graceful = GracefulShutdown::new();
    let connections = Arc::new(Semaphore::new(settings.max_connections));
    // Set at the stop: connections with no request in them end (see `idle`).
    let stopping = Arc::new(std::sync::atomic::AtomicBool::new(false));
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&connections).acquire_owned() => permit,
            () = signals.next() => break,
        };
        let Ok(permit) = permit else { break };
        let (socket, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(e) => {
                    // Out of descriptors and the like: wait a little rather than spin.
                    tracing::warn!(target: "ngi::serve", "accept failed: {e}");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = signals.next() => break,
        };
        let _ = socket.set_nodelay(true);
        let activity = idle::Activity::default();
        let io = TokioIo::new(idle::IdleTimeout::new(
            socket,
            settings.idle_timeout,
            activity.clone(),
            Arc::clone(&stopping),
        ));
        let app = TowerToHyperService::new(app.clone());
        let service = hyper::service::service_fn(move |request| {
            let (preparation, exchange) = (activity.preparing(), activity.exchanging());
            let response = hyper::service::Service::call(&app, request);
            async move {
                let response = response.await;
                drop(preparation);
                response.map(|r| r.map(|body| body::Exchanged::wrap(body, exchange)))
            }
        });
        let connection = hyper::server::conn::http1::Builder::new()
            // hyper queues body chunks for a socket that cannot take them up to its
            // buffer limit (about 400 KiB by default): a client that stopped reading held
            // some 520 KiB of the server's memory instead of a stream's ~156. One chunk
            // queued is enough to keep a socket fed; this also bounds a request's headers.
            .max_buf_size(body::STREAM_CHUNK)
            .timer(TokioTimer::new())
            .header_read_timeout(settings.request_timeout)
            .keep_alive(true)
            // No `half_close`: with it, hyper stops reading once a request's head is in,
            // and a client gone before its answer (a FIN, as a half-close is too) was no
            // longer seen: its walk or decode ran on and its connection stayed held. A
            // client that shuts its side down after its request (`nc -q 0`) is taken as
            // gone, as nginx takes it.
            .serve_connection(io, service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                // The idle timer's closing is the server's doing, and may cut a body
                // short: worth a line where a client's going away is not.
                match idle_timeout(&e) {
                    Some(why) => {
                        tracing::info!(target: "ngi::serve", "connection from {peer} closed: {why}")
                    }
                    None => tracing::debug!(target: "ngi::serve", "connection from {peer}: {e}"),
                }
            }
            drop(permit);
        });
    }
    drop(listener);
    stopping.store(true, std::sync::atomic::Ordering::Relaxed);
    tracing::info!(target: "ngi::serve", "shutting down: finishing the responses in flight");
    tokio::select! {
        () = graceful.shutdown() => {
            tracing::info!(target: "ngi::serve", "stopped");
        }
        () = tokio::time::sleep(settings.shutdown_timeout) => {
            tracing::warn!(
                target: "ngi::serve",
                "stopped after {:?} with responses still in flight",
                settings.shutdown_timeout
            );
        }
        // As a user at a terminal expects of a second Ctrl-C.
        () = signals.next() => {
            tracing::warn!(
                target: "ngi::serve",
                "stopped at a second signal with responses still in flight"
            );
        }
    }
    Ok(())
}

/// Open files the server needs beyond one socket per connection and the archives the
/// cache keeps open: the listener, the runtime's, the files the blocking pool reads.
#[cfg(target_os = "linux")]
const RESERVED_FILES: u64 = 64;

/// The archives the cache may keep open and the connections to take, for `wanted`
/// connections: fewer of both where the open-file limit (raised first to its hard
/// maximum, as a process may) would run out before them. Past it, accepting fails and a
/// request on a connection already accepted cannot open its archive (a 500, "Too many
/// open files"), where connections beyond the bound wait in the listen queue. The
/// default 1024 connections do not fit the soft limit of 1024 many systems give a
/// process. The cache gets a quarter of the files at most, the connections what is left.
fn fit_open_files(wanted: usize) -> (usize, usize) {
    let max_open = ngi_tokio::DEFAULT_MAX_OPEN;
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};
        let limit = getrlimit(Resource::Nofile);
        if limit.current < limit.maximum {
            let raised = Rlimit {
                current: limit.maximum,
                maximum: limit.maximum,
            };
            let _ = setrlimit(Resource::Nofile, raised);
        }
        if let Some(files) = getrlimit(Resource::Nofile).current {
            let open = (max_open as u64).min(files / 4).max(1);
            let left = files.saturating_sub(open + RESERVED_FILES).max(1);
            let fit = usize::try_from(left).unwrap_or(usize::MAX).min(wanted);
            if fit < wanted {
                tracing::warn!(
                    target: "ngi::serve",
                    "--max-connections {wanted} lowered to {fit}, and at most {open} archives \
                     kept open: the open-file limit is {files}"
                );
            }
            return (open as usize, fit);
        }
    }
    (max_open, wanted)
}

/// The idle timer's error, when that is what ended a connection (a system's
/// `ETIMEDOUT` is a `TimedOut` too, but not this).
fn idle_timeout(e: &hyper::Error) -> Option<&idle::IdleTimedOut> {
    let mut source = std::error::Error::source(e);
    while let Some(error) = source {
        let io = error.downcast_ref::<std::io::Error>();
        if let Some(timed_out) = io.and_then(|io| io.get_ref()?.downcast_ref()) {
            return Some(timed_out);
        }
        source = error.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{busy_message, runtime_threads};

    /// One stream is "1 response body", not "1 response bodies".
    #[test]
    fn a_busy_answer_counts_its_streams() {
        assert_eq!(
            busy_message("a.rsli", 1),
            "a.rsli: the server is sending 1 response body already (--max-streams); try again"
        );
        assert_eq!(
            busy_message("a.rsli", 3),
            "a.rsli: the server is sending 3 response bodies already (--max-streams); try again"
        );
    }

    /// Half the threads to the workers, one per core at most, the rest to the blocking
    /// pool; at least one of each, and never past tokio's own 512.
    #[test]
    fn the_threads_are_shared_between_workers_and_the_blocking_pool() {
        assert_eq!(runtime_threads(8, 2), (2, 6));
        assert_eq!(runtime_threads(8, 64), (4, 4));
        assert_eq!(runtime_threads(2, 2), (1, 1));
        assert_eq!(runtime_threads(1, 2), (1, 1));
        assert_eq!(runtime_threads(10_000, 4), (4, 512));
    }
}
