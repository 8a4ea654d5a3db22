//! The engine's archive cache (SPEC 1.7) for servers and library users: one shared
//! [`Archive`] per path, opened once however many tasks ask at the same moment, closed
//! after an idle time when nobody holds it (unless pinned), reopened when the file on disk
//! changes, and bounded in how many it keeps open.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};

use std::time::{Duration, SystemTime};

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::{Archive, OpenOptions, Opener};

/// The engine's idle time before an unused archive is unloaded.
pub const DEFAULT_IDLE: Duration = Duration::from_secs(10);
/// Archives a cache keeps open at most by default.
pub const DEFAULT_MAX_OPEN: usize = 256;

/// What tells a file on disk from the one that was opened: its size, its modification
/// time and (on Unix) its device, inode and status-change time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Identity {
    len: u64,
    modified: Option<SystemTime>,
    inode: (u64, u64),
    changed: Option<(i64, i64)>,
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Identity {
        #[cfg(unix)]
        let inode = {
            use std::os::unix::fs::MetadataExt;
            (meta.dev(), meta.ino())
        };
        #[cfg(not(unix))]
        let inode = (0, 0);
        Identity {
            len: meta.len(),
            modified: meta.modified().ok(),
            inode,
            changed: status_changed(meta),
        }
    }
}

/// The file's status-change time (`st_ctime`) on Unix, `None` elsewhere: every write
/// moves it and no call can set it back, so it sees an in-place rewrite of the same size
/// whose modification time was put back (`rsync --inplace -t`). A `chmod` or a new hard
/// link moves it too, and costs one needless reopen.
fn status_changed(meta: &std::fs::Metadata) -> Option<(i64, i64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.ctime(), meta.ctime_nsec()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// One path's archive: opened once (shared by every request for this open), with what
/// the sweeps need.
#[derive(Debug)]
struct Slot {
    opening: Arc<Opening>,
    /// The identity of the file when the open started: a file that differs is reopened.
    identity: Identity,
    pinned: bool,
    last_used: Instant,
    /// When the cache became the only holder (`None` while someone else holds it).
    idle_since: Option<Instant>,
}

/// One open of a path's archive, shared by the requests that wait for it. It runs on the
/// blocking pool and leaves what it made here, so that it goes on and is kept when the
/// request that started it is dropped (a client gone, a timeout), and needs no task of
/// the runtime to be run: run as a spawned task, a `get` under `Handle::block_on` or
/// under another executor's `block_on` inside a task waited for ever on a task no worker
/// took up.
#[derive(Debug, Default)]
struct Opening {
    archive: OnceLock<Archive>,
    attempts: Mutex<Attempts>,
    /// Told when an attempt ends.
    settled: Notify,
    /// The requests that hold it ([`Joined`]).
    requests: AtomicUsize,
}

/// A request's hold on an [`Opening`], counted there while it lasts (the request is
/// dropped, or ends, or [`leave`](Joined::leave)s). Made under the cache's lock, so that
/// a request that sees the count under it knows who else holds the open.
struct Joined {
    opening: Arc<Opening>,
    left: bool,
}

impl Joined {
    fn new(opening: Arc<Opening>) -> Joined {
        opening.requests.fetch_add(1, Ordering::SeqCst);
        Joined {
            opening,
            left: false,
        }
    }

    /// Takes the request's count back now, under the cache's lock: whether it was the
    /// last. Taken back on the drop instead, after the lock, two requests failing
    /// together could each see the other still counted, and neither removed the slot
    /// (5 failed runs in 82 of `a_failed_open_leaves_no_slot` on two cores). A request
    /// dropped while it waits still takes its count back on the drop: a failed open's
    /// slot that leaves behind is the sweep's (it is in nobody's use then).
    fn leave(&mut self) -> bool {
        !std::mem::replace(&mut self.left, true)
            && self.opening.requests.fetch_sub(1, Ordering::SeqCst) == 1
    }
}

impl Drop for Joined {
    fn drop(&mut self) {
        if !self.left {
            self.opening.requests.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

/// The opens of an [`Opening`] tried so far.
#[derive(Debug, Default)]
struct Attempts {
    running: bool,
    finished: u64,
    /// Why the last one failed, for each request that waited for it.
    failure: Option<io::Error>,
}

impl Slot {
    /// Whether anyone but the cache holds its archive (a value, a reader), or waits for
    /// or runs its open.
    fn in_use(&self) -> bool {
        match self.opening.archive.get() {
            Some(archive) => archive.holders() > 1,
            None => Arc::strong_count(&self.opening) > 1,
        }
    }
}

impl Opening {
    fn attempts(&self) -> MutexGuard<'_, Attempts> {
        // Each change under the lock is a few stores that leave it whole.
        self.attempts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Ends the running attempt with what it made.
    fn settle(&self, made: io::Result<Archive>) {
        let mut attempts = self.attempts();
        attempts.running = false;
        attempts.finished += 1;
        attempts.failure = match made {
            Ok(archive) => {
                let _ = self.archive.set(archive);
                None
            }
            Err(e) => Some(e),
        };
        drop(attempts);
        self.settled.notify_waiters();
    }
}

/// Settles an attempt that ends without a result: its closure panicked, or was dropped
/// unrun by a runtime shutting down. Without it the requests would wait for ever.
struct Unsettled(Option<Arc<Opening>>);

impl Drop for Unsettled {
    fn drop(&mut self) {
        if let Some(opening) = self.0.take() {
            opening.settle(Err(io::Error::other(
                "the open on tokio's blocking pool did not finish (it panicked, or the \
                 runtime shut down)",
            )));
        }
    }
}

/// A failed open's error, for one of the requests that waited for it: its kind, its
/// system error code and the core's error are kept (a server tells a missing file, a
/// full descriptor table and a broken archive apart by them), any other inner error as
/// its text.
fn copy_of(e: &io::Error) -> io::Error {
    if let Some(code) = e.raw_os_error() {
        return io::Error::from_raw_os_error(code);
    }
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<ngi_core::archive::Error>())
    {
        Some(&core) => io::Error::new(e.kind(), core),
        None => io::Error::new(e.kind(), e.to_string()),
    }
}

#[derive(Debug)]
struct State {
    slots: HashMap<PathBuf, Slot>,
}

#[derive(Debug)]
struct Inner {
    idle: Duration,
    max_open: usize,
    options: OpenOptions,
    opener: CustomOpener,
    state: Mutex<State>,
    sweeper: Mutex<Sweeper>,
}

/// The cache's [`Opener`], if any (a closure has no `Debug` of its own).
#[derive(Clone, Default)]
struct CustomOpener(Option<Opener>);

impl std::fmt::Debug for CustomOpener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "Some(opener)"
        } else {
            "None"
        })
    }
}

/// The sweeping task's life: a token the task holds, dropped with it when its runtime
/// shuts down (tokio drops every task then), and whether one was ever started.
#[derive(Debug, Default)]
struct Sweeper {
    alive: Weak<()>,
    started: bool,
    /// The runtime has no timers (built without `enable_time`; tokio panicked making the
    /// task's interval): `get` sweeps instead, at most every quarter of the idle time.
    no_timers: bool,
    /// When `get` last swept in its place.
    last_sweep: Option<Instant>,
}

fn lock_sweeper(inner: &Inner) -> MutexGuard<'_, Sweeper> {
    inner
        .sweeper
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A cache of open archives, shared by cloning (`Clone + Send + Sync`).
///
/// * [`get`](Cache::get) gives the archive at a path, opening it if needed; tasks that ask
///   for it at the same moment share one open (one read of the header and directory).
///   The open runs on the blocking pool: a task dropped while it waits (a client gone, a
///   timeout) does not stop it, and what it opens is there for the next. An open that
///   fails fails for each task that waited for it: the one that started it gets the error
///   as made, each other a copy (the kind, the system error code, the core's error, or
///   else the text); the next `get` tries again.
/// * An archive that nobody but the cache holds (no other `Archive` value, and no reader
///   of its entries) is closed once it has been idle for the idle time ([`DEFAULT_IDLE`],
///   10 s as in the engine, or [`with_idle`](Cache::with_idle)), checked by a task on the
///   runtime every quarter of it; a [`pin`](Cache::pin)ned one stays. A check dates the
///   idleness from when it first sees it, so the close comes between the idle time and
///   about one and a half times it after the last holder let go.
/// * Every `get` compares the file's size, modification time, inode and (on Unix)
///   status-change time with the open one's: a file replaced or rewritten on disk is
///   opened again for new requests (a pin on its path stays). Readers of the old archive
///   go on reading the file they opened: the old bytes if it was replaced (renamed over,
///   the way to update a served file), but whatever is there now if it was rewritten in
///   place (see [`Archive::file_changed`]).
/// * Beyond [`with_max_open`](Cache::with_max_open) archives, the least recently used ones
///   that are neither pinned nor in use (held by an `Archive` value or a reader outside
///   the cache) are closed. Archives in use stay, so the cache may hold more than the
///   bound while more are in use: dropping one would close no file, and the next request
///   for it would open the file a second time.
/// * Its archives read on the blocking pool of the runtime they were opened on, and its
///   sweeping task runs on the runtime it was first used on. When that runtime shuts
///   down, the next `get` (on another runtime) drops every archive the cache holds and
///   opens them again there, so that a cache kept in a `static` serves one
///   `#[tokio::test]` runtime after another. A cache used from several runtimes at once
///   keeps the archives each opened: one opened on a runtime that shut down while the
///   sweeper's lives fails its reads (those not served from memory), so tests that run
///   at once (`cargo test`'s default), each on a runtime of its own, need a cache each.
/// * The sweeping task needs the runtime's timers (`enable_time`, or `enable_all`). On a
///   runtime built without them, tokio's panic as the task is made is printed by the panic hook
///   (once per cache and runtime), and the cache sweeps when an archive is asked for
///   instead, at most every quarter of the idle time (or when [`sweep`](Cache::sweep) is
///   called); nothing else changes, a later runtime included. The task stays there, idle,
///   until that runtime shuts down (its end is how the cache tells), even if the cache is
///   dropped first. Tokio's panic is caught to tell: under `panic = "abort"` it ends the
///   process instead, so a program built so must give the cache's runtime its timers.
///
/// ```no_run
/// # async fn serve() -> std::io::Result<()> {
/// use ngi_tokio::Cache;
///
/// let cache = Cache::new();
/// let archive = cache.get("data/textures.res").await?; // opened
/// let again = cache.get("data/textures.res").await?; // the same archive
/// # drop((archive, again));
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Cache {
    inner: Arc<Inner>,
}

impl Default for Cache {
    fn default() -> Self {
        Cache::new()
    }
}

impl Cache {
    /// A cache with the engine's policy: 10 s idle time, at most [`DEFAULT_MAX_OPEN`]
    /// archives, archives opened with [`OpenOptions::DEFAULT`].
    pub fn new() -> Cache {
        Cache::build(
            DEFAULT_IDLE,
            DEFAULT_MAX_OPEN,
            OpenOptions::DEFAULT,
            CustomOpener::default(),
        )
    }

    fn build(idle: Duration, max_open: usize, options: OpenOptions, opener: CustomOpener) -> Cache {
        Cache {
            inner: Arc::new(Inner {
                idle,
                max_open: max_open.max(1),
                options,
                opener,
                state: Mutex::new(State {
                    slots: HashMap::new(),
                }),
                sweeper: Mutex::new(Sweeper::default()),
            }),
        }
    }

    /// The same cache settings with another idle time. Like the other `with_` methods it
    /// is for setting a cache up: it makes a new, empty cache (what the old one held,
    /// pinned archives included, is not carried over, and clones made earlier go on
    /// sharing the old one).
    pub fn with_idle(self, idle: Duration) -> Cache {
        Cache::build(
            idle,
            self.inner.max_open,
            self.inner.options,
            self.inner.opener.clone(),
        )
    }

    /// The same cache settings with another bound on open archives (at least 1), in a
    /// new, empty cache (see [`with_idle`](Cache::with_idle)).
    pub fn with_max_open(self, max_open: usize) -> Cache {
        Cache::build(
            self.inner.idle,
            max_open,
            self.inner.options,
            self.inner.opener.clone(),
        )
    }

    /// The same cache settings with other options for opening (limits, media trailer), in
    /// a new, empty cache (see [`with_idle`](Cache::with_idle)).
    pub fn with_options(self, options: OpenOptions) -> Cache {
        Cache::build(
            self.inner.idle,
            self.inner.max_open,
            options,
            self.inner.opener.clone(),
        )
    }

    /// The same cache settings with every file the cache opens opened by `opener`, in a
    /// new, empty cache (see [`with_idle`](Cache::with_idle)). `opener` is given the path
    /// asked for and returns the handle to read; its error is the open's, and
    /// [`get`](Cache::get)'s as made for the request that started the open (others that
    /// waited for it get copies: see the type's docs). The handle must be of a regular
    /// file (anything else is refused after the open, by its metadata), and the open must
    /// not wait on a FIFO the path may name: on Unix, open with `O_NONBLOCK`, as the
    /// cache's own open ([`open_file`](crate::open_file)) does.
    ///
    /// The cache still looks at `path` itself, on every [`get`](Cache::get), to tell
    /// whether the file changed (see the type's docs): give it paths that name, as they
    /// are, the file the opener opens (absolute ones, say, checked by the opener against
    /// a folder), not paths that only the opener resolves.
    ///
    /// For a server that checks a path and then has the cache open it: opening by the
    /// same path again can reach another file (a folder swapped for a link in between),
    /// where an opener can resolve the path in a way that cannot leave a folder (Linux's
    /// `openat2` with `RESOLVE_BENEATH` from the folder's handle), or check what it opened
    /// before the cache reads its header.
    ///
    /// ```no_run
    /// use std::io;
    /// use ngi_tokio::Cache;
    ///
    /// // Only files of at most 1 GiB, checked on the handle that is then read.
    /// let cache = Cache::new().with_opener(|path| {
    ///     let file = ngi_tokio::open_file(path)?;
    ///     match file.metadata()?.len() {
    ///         0..=0x4000_0000 => Ok(file),
    ///         _ => Err(io::Error::new(io::ErrorKind::InvalidInput, "over 1 GiB")),
    ///     }
    /// });
    /// # drop(cache);
    /// ```
    pub fn with_opener(
        self,
        opener: impl Fn(&Path) -> io::Result<std::fs::File> + Send + Sync + 'static,
    ) -> Cache {
        Cache::build(
            self.inner.idle,
            self.inner.max_open,
            self.inner.options,
            CustomOpener(Some(Arc::new(opener))),
        )
    }

    /// The archive at `path`, opened if it is not open or its file changed.
    ///
    /// # Errors
    ///
    /// * `Other` outside a tokio runtime (as [`Archive::open`]).
    /// * The error of reading `path`'s metadata (symbolic links followed), of the kind
    ///   the OS gives (`NotFound`, `PermissionDenied`, ...).
    /// * [`Archive::open_with`]'s (or the opener's), under the cache's options, when
    ///   this call started the open; a copy of it when this call waited for an open
    ///   another started (see the type's docs). A failed open is not kept: the next call
    ///   tries again.
    pub async fn get(&self, path: impl AsRef<Path>) -> io::Result<Archive> {
        self.fetch(path.as_ref(), false).await
    }

    /// [`get`](Cache::get), and keep the archive open however long it is idle.
    ///
    /// # Errors
    ///
    /// [`get`](Cache::get)'s.
    pub async fn pin(&self, path: impl AsRef<Path>) -> io::Result<Archive> {
        self.fetch(path.as_ref(), true).await
    }

    /// Lets the archive at `path` be closed when idle again; whether it was pinned.
    pub fn unpin(&self, path: impl AsRef<Path>) -> bool {
        let mut state = self.lock();
        state
            .slots
            .get_mut(path.as_ref())
            .is_some_and(|slot| std::mem::replace(&mut slot.pinned, false))
    }

    /// How many archives the cache holds (open or opening).
    pub fn len(&self) -> usize {
        self.lock().slots.len()
    }

    /// Whether the cache holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the cache holds the archive at `path`.
    pub fn contains(&self, path: impl AsRef<Path>) -> bool {
        self.lock().slots.contains_key(path.as_ref())
    }

    /// Closes the archives found idle for the idle time (the background task does this
    /// every quarter of it); returns how many. An archive is idle from the first sweep
    /// that finds no holder of it: one let go of long before the first sweep is closed by
    /// a sweep at least the idle time after that one.
    pub fn sweep(&self) -> usize {
        sweep(&self.inner, Instant::now())
    }

    async fn fetch(&self, path: &Path, pin: bool) -> io::Result<Archive> {
        // As `Archive::open`: outside a runtime an error, not tokio's panic.
        tokio::runtime::Handle::try_current().map_err(io::Error::other)?;
        self.start_sweeper();
        let identity = Identity::of(&tokio::fs::metadata(path).await?);
        let mut joined = {
            let mut state = self.lock();
            let now = Instant::now();
            let reuse = state
                .slots
                .get(path)
                .is_some_and(|s| s.identity == identity);
            if !reuse {
                // Not cached, or the file changed: a new open for new requests; holders
                // of the old archive keep it. A pin is the path's, so it carries over.
                let pinned = state.slots.get(path).is_some_and(|s| s.pinned);
                state.slots.insert(
                    path.to_path_buf(),
                    Slot {
                        opening: Arc::default(),
                        identity,
                        pinned,
                        last_used: now,
                        idle_since: None,
                    },
                );
            }
            let opening = match state.slots.get_mut(path) {
                Some(slot) => {
                    slot.pinned |= pin;
                    slot.last_used = now;
                    slot.idle_since = None;
                    Arc::clone(&slot.opening)
                }
                None => Arc::default(),
            };
            evict(&mut state, self.inner.max_open, path);
            Joined::new(opening)
        };
        let opening = &joined.opening;
        if let Some(archive) = opening.archive.get() {
            return Ok(archive.clone());
        }
        match self.opened(opening, path).await {
            Ok(archive) => Ok(archive),
            Err(e) => {
                // A failed open is not cached: the next request tries again. Unless
                // another request holds the open too (one that came after the failure
                // may be trying again already): removed under it, its archive would not
                // be kept, nor its pin, and the next request would open the file beside
                // it. Nobody can join but through the lock held here. (Counted, not told
                // by the `Arc`'s count, which the attempt's task holds a little longer:
                // a lone failed request often left its slot.)
                let mut state = self.lock();
                let last = joined.leave();
                if last
                    && state.slots.get(path).is_some_and(|s| {
                        Arc::ptr_eq(&s.opening, &joined.opening)
                            && s.opening.archive.get().is_none()
                    })
                {
                    state.slots.remove(path);
                }
                Err(e)
            }
        }
    }

    /// What `opening` makes, its open started unless one runs. A request that waited for
    /// an open that failed gets its error, and does not try again: each tried in turn
    /// before, those given up too (20 requests timed out after 10 ms held a live one 1.9 s
    /// behind their opens of 100 ms). The request that started the open gets the error as
    /// made (an opener's own error type is for its caller to downcast), the others copies.
    async fn opened(&self, opening: &Arc<Opening>, path: &Path) -> io::Result<Archive> {
        let mut waits_for = None;
        let mut started = false;
        loop {
            let settled = opening.settled.notified();
            let mut settled = std::pin::pin!(settled);
            // Listening before looking: an attempt that ends in between still wakes it.
            settled.as_mut().enable();
            let start = {
                let mut attempts = opening.attempts();
                if let Some(archive) = opening.archive.get() {
                    return Ok(archive.clone());
                }
                match waits_for {
                    Some(attempt) if attempts.finished > attempt => {
                        // The failure is this attempt's, and this request started it.
                        let own = started && attempts.finished == attempt + 1;
                        let failure = match attempts.failure.take() {
                            Some(e) if own => {
                                attempts.failure = Some(copy_of(&e));
                                e
                            }
                            Some(e) => {
                                let copy = copy_of(&e);
                                attempts.failure = Some(e);
                                copy
                            }
                            None => io::Error::other("the open ended with no archive"),
                        };
                        return Err(failure);
                    }
                    Some(_) => false,
                    None => {
                        waits_for = Some(attempts.finished);
                        started = !std::mem::replace(&mut attempts.running, true);
                        started
                    }
                }
            };
            // Outside the lock: an attempt the runtime drops unrun settles at once, here.
            if start {
                self.start_open(opening, path);
            }
            settled.await;
        }
    }

    /// Starts an attempt of `opening` on the blocking pool, where it runs to its end
    /// whoever waits.
    fn start_open(&self, opening: &Arc<Opening>, path: &Path) {
        let runtime = match tokio::runtime::Handle::try_current() {
            Ok(runtime) => runtime,
            Err(e) => return opening.settle(Err(io::Error::other(e))),
        };
        let (options, opener) = (self.inner.options, self.inner.opener.0.clone());
        let (path, reads_on) = (path.to_path_buf(), runtime.clone());
        let mut unsettled = Unsettled(Some(Arc::clone(opening)));
        runtime.spawn_blocking(move || {
            let made = Archive::open_blocking(&path, options, opener, reads_on);
            if let Some(opening) = unsettled.0.take() {
                opening.settle(made);
            }
        });
    }

    /// Starts the sweeping task on the current runtime, unless one runs. One that ran and
    /// is gone went with its runtime, and so did the blocking pool the archives opened
    /// there read on: they are dropped, to be opened again on this runtime (a cache kept
    /// in a `static` across `#[tokio::test]` runtimes handed out archives whose every
    /// read failed, and was never swept again).
    fn start_sweeper(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let mut sweeper = lock_sweeper(&self.inner);
        let every = (self.inner.idle / 4).max(Duration::from_millis(10));
        if sweeper.alive.upgrade().is_some() {
            // Without timers the task only waits for its runtime to end: the sweeping is
            // done here.
            if sweeper.no_timers {
                let now = Instant::now();
                if sweeper.last_sweep.is_none_or(|last| now - last >= every) {
                    sweeper.last_sweep = Some(now);
                    drop(sweeper);
                    sweep(&self.inner, now);
                }
            }
            return;
        }
        if sweeper.started {
            self.lock().slots.clear();
        }
        let alive = Arc::new(());
        sweeper.alive = Arc::downgrade(&alive);
        sweeper.started = true;
        sweeper.last_sweep = None;
        let weak: Weak<Inner> = Arc::downgrade(&self.inner);
        // tokio panics here on a runtime without timers (the panic hook prints it). Told
        // here, not in the task: a `get` that returned before a busy runtime ran the task
        // did not sweep.
        let made = std::panic::catch_unwind(|| tokio::time::interval(every));
        sweeper.no_timers = made.is_err();
        runtime.spawn(async move {
            let _alive = alive;
            let Ok(mut tick) = made else {
                // Kept, with the token, until the runtime shuts down and drops it: that end
                // is what tells a later `get` (on another runtime) this one is gone.
                drop(weak);
                std::future::pending::<()>().await;
                return;
            };
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                // The cache is gone: so is the task.
                let Some(inner) = weak.upgrade() else {
                    return;
                };
                sweep(&inner, Instant::now());
            }
        });
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.inner)
    }
}

fn lock(inner: &Inner) -> MutexGuard<'_, State> {
    // A panic while holding the lock leaves the map consistent: each change is one insert
    // or remove.
    inner
        .state
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Closes what has been idle (held by the cache alone) for the idle time.
fn sweep(inner: &Inner, now: Instant) -> usize {
    let mut state = lock(inner);
    let before = state.slots.len();
    state.slots.retain(|_, slot| {
        let Some(archive) = slot.opening.archive.get() else {
            // Still opening while a `get` or the open holds it; one whose every `get`
            // was dropped and whose open failed would otherwise stay for good.
            return Arc::strong_count(&slot.opening) > 1;
        };
        if slot.pinned || archive.holders() > 1 {
            slot.idle_since = None;
            return true;
        }
        match slot.idle_since {
            None => {
                slot.idle_since = Some(now);
                true
            }
            Some(since) => now.duration_since(since) < inner.idle,
        }
    });
    before - state.slots.len()
}

/// Drops the least recently used archives beyond `max_open` that are neither pinned nor
/// `keep` nor in use. One in use stays until it is not: dropping it would close no file
/// (its holders keep it), and the next request for it would open the file again beside
/// it, so that 3 archives read by long downloads under a bound of 2 held 20 files open
/// after 20 requests.
fn evict(state: &mut State, max_open: usize, keep: &Path) {
    while state.slots.len() > max_open {
        let oldest = state
            .slots
            .iter()
            .filter(|(p, s)| !s.pinned && p.as_path() != keep && !s.in_use())
            .min_by_key(|(_, s)| s.last_used)
            .map(|(p, _)| p.clone());
        match oldest {
            Some(p) => {
                state.slots.remove(&p);
            }
            None => return,
        }
    }
}
