//! Why a catalog could not be opened, or one of its entries read.

use core::fmt;

use crate::count::{bytes, decoded_bytes, entries};
use crate::io::StreamError;
use crate::limits::LimitError;
use crate::nres::NresError;
use crate::rsli::RsliError;

/// Why an archive could not be opened as a catalog, or an entry of it read.
///
/// The format errors are passed through as they are: their messages, [`entry`] and
/// [`offset`] are the format's own (this type's `Display` is theirs). Messages are
/// complete on their own, the typed cause included (a [`LimitError`], a codec's error),
/// for tools that print one line; so no error has a `source`, which a report that walks
/// the chain would say again. Callers that match on the cause find it in the variant.
///
/// [`entry`]: Error::entry
/// [`offset`]: Error::offset
///
/// ```
/// use ngi_core::archive::{Catalog, Error, Slots};
/// use ngi_core::OpenOptions;
///
/// let store = Slots::new(&mut []);
/// let err = Catalog::open_in(b"PK\x03\x04...", store, OpenOptions::DEFAULT).unwrap_err();
/// assert_eq!(err, Error::UnknownFormat { found: *b"PK\x03\x04", len: 4 });
/// assert_eq!(err.to_string(), "not an NRes or RsLi archive: it starts with 50 4B 03 04");
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// An NRes rule is broken (SPEC 1).
    Nres(NresError),
    /// An RsLi rule is broken (SPEC 2).
    Rsli(RsliError),
    /// The file starts neither with `NRes` nor with `NL`.
    UnknownFormat {
        /// Its first bytes (zeros past `len`).
        found: [u8; 4],
        /// How many of them the file has (fewer than 4 only for a shorter file).
        len: u8,
    },
    /// The [`EntryStore`](super::EntryStore) holds fewer entries than the archive has.
    StorageTooSmall {
        /// The archive's entry count.
        needed: u64,
        /// What the store can hold.
        capacity: usize,
    },
    /// There is no entry with this index.
    NoSuchEntry {
        /// The index asked for.
        index: u64,
    },
    /// Bytes given as the catalog's file ([`Catalog::packed`](super::Catalog::packed)) are
    /// not as long as the file it was opened from.
    FileLength {
        /// The length of the file the catalog describes.
        expected: u64,
        /// The length of the bytes given.
        got: u64,
    },
    /// The buffer given to [`Catalog::unpack_into`](super::Catalog::unpack_into) is not
    /// exactly the entry's decoded size long.
    OutputSize {
        /// The entry.
        entry: u32,
        /// Its decoded size.
        expected: u64,
        /// The buffer's length.
        got: u64,
    },
    /// The entry's packed stream is truncated or corrupt
    /// ([`Catalog::unpack_into`](super::Catalog::unpack_into)): the entry, the file offset
    /// of the fault and the codec's error, as the readers report it.
    Decode(StreamError),
    /// [`Opener::finish`](super::Opener::finish) was called while the opener still
    /// needed these bytes.
    Incomplete {
        /// Where the range it needs starts.
        offset: u64,
        /// How long it is.
        len: u64,
    },
}

impl Error {
    /// The entry the error is about, when it is about one.
    pub fn entry(&self) -> Option<u32> {
        match self {
            Error::Nres(e) => e.entry(),
            Error::Rsli(e) => e.entry(),
            Error::OutputSize { entry, .. } => Some(*entry),
            Error::Decode(e) => e.entry(),
            _ => None,
        }
    }

    /// The file offset the error points at, when there is one.
    pub fn offset(&self) -> Option<u64> {
        match self {
            Error::Nres(e) => e.offset(),
            Error::Rsli(e) => e.offset(),
            Error::UnknownFormat { .. } => Some(0),
            Error::Incomplete { offset, .. } => Some(*offset),
            Error::Decode(e) => Some(e.offset()),
            _ => None,
        }
    }

    /// The limit check that failed, when a [`Limits`](crate::limits::Limits) bound is what
    /// refused it.
    pub fn limit(&self) -> Option<LimitError> {
        match *self {
            Error::Nres(NresError::Limit { error, .. } | NresError::RawOverLimit { error })
            | Error::Rsli(RsliError::Limit { error, .. }) => Some(error),
            _ => None,
        }
    }
}

impl From<NresError> for Error {
    /// The format's error, but for an index past the last entry, which is the caller's
    /// mistake and the same in either format: [`Error::NoSuchEntry`].
    fn from(e: NresError) -> Self {
        match e {
            NresError::NoSuchEntry { index } => Error::NoSuchEntry { index },
            e => Error::Nres(e),
        }
    }
}

impl From<RsliError> for Error {
    /// The format's error, but for the caller's mistakes that are the same in either
    /// format: [`Error::NoSuchEntry`] and [`Error::StorageTooSmall`].
    fn from(e: RsliError) -> Self {
        match e {
            RsliError::NoSuchEntry { index } => Error::NoSuchEntry { index },
            RsliError::StorageTooSmall { needed, got } => Error::StorageTooSmall {
                needed: needed as u64,
                capacity: got,
            },
            e => Error::Rsli(e),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Nres(e) => e.fmt(f),
            Error::Rsli(e) => e.fmt(f),
            Error::UnknownFormat { found, len } => {
                f.write_str("not an NRes or RsLi archive: ")?;
                let shown = found.get(..usize::from(*len)).unwrap_or_default();
                if shown.is_empty() {
                    return f.write_str("the file is empty");
                }
                f.write_str("it starts with")?;
                shown.iter().try_for_each(|b| write!(f, " {b:02X}"))
            }
            Error::StorageTooSmall { needed, capacity } => write!(
                f,
                "entry storage holds {}, but the archive has {needed}",
                entries(*capacity as u64)
            ),
            Error::NoSuchEntry { index } => write!(f, "the archive has no entry {index}"),
            Error::FileLength { expected, got } => write!(
                f,
                "{} given as the archive's file, which is {} long",
                bytes(*got),
                bytes(*expected)
            ),
            Error::OutputSize {
                entry,
                expected,
                got,
            } => write!(
                f,
                "entry {entry}: a buffer of {} given for its {}",
                bytes(*got),
                decoded_bytes(*expected)
            ),
            Error::Decode(e) => e.fmt(f),
            Error::Incomplete { offset, len } => write!(
                f,
                "opening stopped with {} at offset {offset} still to be read",
                bytes(*len)
            ),
        }
    }
}

/// No `source`: see the type's docs.
impl core::error::Error for Error {}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    /// The kind the format's error converts to (`UnexpectedEof` for a truncated RsLi
    /// table or stream); `InvalidInput` for the caller's mistakes, not the file's (an
    /// index past the last entry, storage too small, bytes of another length than the
    /// file); `UnexpectedEof` for an opening finished early; else `InvalidData`.
    fn from(e: Error) -> Self {
        use std::io::ErrorKind;
        let kind = match e {
            Error::Nres(inner) => std::io::Error::from(inner).kind(),
            Error::Rsli(inner) => std::io::Error::from(inner).kind(),
            Error::NoSuchEntry { .. }
            | Error::StorageTooSmall { .. }
            | Error::FileLength { .. }
            | Error::OutputSize { .. } => ErrorKind::InvalidInput,
            Error::Decode(e) if e.is_truncated() => ErrorKind::UnexpectedEof,
            Error::Decode(_) => ErrorKind::InvalidData,
            Error::Incomplete { .. } => ErrorKind::UnexpectedEof,
            Error::UnknownFormat { .. } => ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, e)
    }
}
