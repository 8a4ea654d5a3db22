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
            // A failed read of the file is given as a `ReadError` each time, as the docs
            // say: wrapped as any other source error, it could not be downcast to one.
            Sticky::Source(e) => match e.get_ref().and_then(|i| i.downcast_ref::<ReadError>()) {
                Some(read) => ReadError {
                    entry: read.entry,
                    offset: read.offset,
                    error: copy_of(&read.error),
                }
                .into_io(),
                None => io::Error::new(e.kind(), Shared(Arc::clone(e))),
            },
        }
    }
}

/// `e` again: its OS code, or else its kind and text.
fn copy_of(e: &io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => io::Error::new(e.kind(), e.to_string()),
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

/// A read of an entry's packed bytes from the archive's file that failed: the inner
/// error ([`io::Error::get_ref`]) of the `io::Error` an [`EntryReader`](crate::EntryReader)
/// or [`EntryStream`](crate::EntryStream) gives then, which has the kind of the read's own
/// error. Its text names the entry, the file offset and the read's error; `source()` is
/// `None` (a report that walks the chain says the cause once), and the read's error, its
/// OS code included, is [`error`](ReadError::error).
///
/// ```
/// # fn log(e: &std::io::Error) {
/// if let Some(read) = e.get_ref().and_then(|i| i.downcast_ref::<ngi_tokio::ReadError>()) {
///     eprintln!("entry {} at {}: OS error {:?}", read.entry(), read.offset(), read.error().raw_os_error());
/// }
/// # }
/// ```
#[derive(Debug)]
pub struct ReadError {
    pub(crate) entry: u32,
    pub(crate) offset: u64,
    pub(crate) error: io::Error,
}

impl ReadError {
    /// The entry's index in the archive.
    pub fn entry(&self) -> u32 {
        self.entry
    }

    /// The file offset the failed read started at.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The read's own error.
    pub fn error(&self) -> &io::Error {
        &self.error
    }

    /// As an `io::Error` of the original's kind.
    pub(crate) fn into_io(self) -> io::Error {
        io::Error::new(self.error.kind(), self)
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "entry {}: reading the file at offset {}: {}",
            self.entry, self.offset, self.error
        )
    }
}

impl std::error::Error for ReadError {}

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

#[cfg(test)]
mod tests {
    use super::*;

    /// The read's error is said once by a report that walks the chain (it was said twice:
    /// in the text, and again as the source), and kept for callers with its OS code.
    #[test]
    fn a_failed_read_says_its_cause_once() {
        let error = ReadError {
            entry: 3,
            offset: 4096,
            error: io::Error::from_raw_os_error(5),
        }
        .into_io();
        let cause = io::Error::from_raw_os_error(5).to_string();
        let mut report = error.to_string();
        let mut next = std::error::Error::source(&error);
        while let Some(e) = next {
            report += &format!(": {e}");
            next = e.source();
        }
        assert_eq!(report.matches(&cause).count(), 1, "{report}");
        assert!(report.starts_with("entry 3: reading the file at offset 4096: "));
        let names_its_read = |e: &io::Error| {
            let read = e.get_ref().unwrap().downcast_ref::<ReadError>().unwrap();
            let got = (read.entry(), read.offset(), read.error().raw_os_error());
            assert_eq!(got, (3, 4096, Some(5)));
            assert_eq!(e.kind(), read.error().kind());
        };
        names_its_read(&error);
        // Given again by a reader that failed: a `ReadError` still, the same text, no
        // source (it was wrapped, and could not be downcast).
        let text = error.to_string();
        let again = Sticky::Source(Arc::new(error)).to_io();
        assert!(std::error::Error::source(&again).is_none());
        assert_eq!(again.to_string(), text);
        names_its_read(&again);
    }
}
