//! Why opening a catalog from a source failed.

use core::fmt;

use crate::archive;

/// Why a driver could not open a catalog from a source: the archive is bad, the source
/// failed (its error `E`), or the source ended before the length it reported.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpenError<E> {
    /// The archive breaks a rule (or the store is too small); the opener's error.
    Archive(archive::Error),
    /// The source failed.
    Source(E),
    /// The source had no bytes at `offset`, inside the length it reported (a file cut
    /// while it was being read).
    Eof {
        /// Where the read that found nothing started.
        offset: u64,
    },
}

impl<E> From<archive::Error> for OpenError<E> {
    fn from(e: archive::Error) -> Self {
        OpenError::Archive(e)
    }
}

impl<E> OpenError<E> {
    /// The archive's error, when that is what failed.
    pub fn archive(&self) -> Option<&archive::Error> {
        match self {
            OpenError::Archive(e) => Some(e),
            _ => None,
        }
    }
}

impl<E: fmt::Display> fmt::Display for OpenError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::Archive(e) => e.fmt(f),
            OpenError::Source(e) => e.fmt(f),
            OpenError::Eof { offset } => write!(
                f,
                "the source has no bytes at offset {offset}, inside the length it reported"
            ),
        }
    }
}

impl<E: core::error::Error + 'static> core::error::Error for OpenError<E> {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            OpenError::Archive(e) => core::error::Error::source(e),
            OpenError::Source(e) => e.source(),
            OpenError::Eof { .. } => None,
        }
    }
}

#[cfg(feature = "std")]
impl From<OpenError<std::io::Error>> for std::io::Error {
    /// The archive's error as [`archive::Error`] converts, the source's as it is, a short
    /// source `UnexpectedEof`.
    fn from(e: OpenError<std::io::Error>) -> Self {
        match e {
            OpenError::Archive(e) => e.into(),
            OpenError::Source(e) => e,
            eof @ OpenError::Eof { .. } => std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                std::string::ToString::to_string(&eof),
            ),
        }
    }
}

#[cfg(feature = "embedded-io")]
impl<E: embedded_io::Error + 'static> embedded_io::Error for OpenError<E> {
    fn kind(&self) -> embedded_io::ErrorKind {
        match self {
            OpenError::Source(e) => e.kind(),
            OpenError::Archive(_) => embedded_io::ErrorKind::InvalidData,
            OpenError::Eof { .. } => embedded_io::ErrorKind::Other,
        }
    }
}
