//! Errors that stick: after a reader fails, every later read gives the same error.

use std::fmt;
use std::io;
use std::sync::Arc;

use ngi_core::io::StreamError;

/// The first error a reader met, kept to be given again.
#[derive(Debug, Clone)]
pub(crate) enum Sticky {
    /// The packed stream is truncated or corrupt (or the codec stalled).
    Stream(StreamError),
    /// The source failed; `io::Error` is not `Clone`, so it is shared.
    Source(Arc<io::Error>),
}

impl Sticky {
    /// The error as `std::io` gives it: a stream error converts as the core's does
    /// (`UnexpectedEof` for truncation, `InvalidData` otherwise, the [`StreamError`] as
    /// `get_ref`); a source error keeps its kind, message and source.
    pub(crate) fn to_io(&self) -> io::Error {
        match self {
            Sticky::Stream(e) => (*e).into(),
            Sticky::Source(e) => io::Error::new(e.kind(), Shared(Arc::clone(e))),
        }
    }
}

/// A source's error, given again.
#[derive(Debug)]
struct Shared(Arc<io::Error>);

impl fmt::Display for Shared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Shared {
    // Its Display is the original's, so the original's source comes next, not itself.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// A positional read of an entry's packed range that failed, naming the entry and where.
#[derive(Debug)]
pub(crate) struct ReadFailed {
    pub(crate) entry: u32,
    pub(crate) offset: u64,
    pub(crate) error: io::Error,
}

impl ReadFailed {
    /// As an `io::Error` of the original's kind.
    pub(crate) fn into_io(self) -> io::Error {
        io::Error::new(self.error.kind(), self)
    }
}

impl fmt::Display for ReadFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "entry {}: reading the file at offset {}: {}",
            self.entry, self.offset, self.error
        )
    }
}

impl std::error::Error for ReadFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// A task (`what`: "a read on tokio's blocking pool", say) that did not finish: the
/// runtime it ran on shut down (an archive's reads run on the one it was opened on), or
/// the task panicked (a custom opener's, say).
pub(crate) fn join_error(what: &str, e: tokio::task::JoinError) -> io::Error {
    let why = if e.is_cancelled() {
        "was cancelled (has the runtime the archive was opened on shut down?)"
    } else {
        "did not finish"
    };
    io::Error::other(format!("{what} {why}: {e}"))
}
