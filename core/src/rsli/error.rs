//! Why an RsLi library could not be read ([`RsliError`]) or written ([`BuildError`]).

use super::{ENTRY_LEN, HEADER_LEN};
use crate::count::{bytes, entries};
use crate::error::DecodeError;
use crate::limits::LimitError;
use core::fmt;

#[cfg(feature = "alloc")]
use crate::codec::Method;

/// Why an RsLi library, or one of its entries, could not be read.
///
/// Every variant names what failed; [`entry`](RsliError::entry) and
/// [`offset`](RsliError::offset) give the entry index and file offset where there is one.
///
/// ```
/// use ngi_core::rsli::{Header, RsliError};
///
/// let err = Header::parse(b"NL\x00\x02").unwrap_err();
/// assert_eq!(err, RsliError::Truncated { len: 4, needed: 32 });
/// assert_eq!(err.offset(), Some(4));
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RsliError {
    /// The file is shorter than `needed` bytes: the 32-byte header, or the header and the
    /// `32 * count` bytes of the table (SPEC 2.1).
    Truncated {
        /// The file's length.
        len: u64,
        /// The length the header (and table) need.
        needed: u64,
    },
    /// The file does not start with `NL`.
    BadMagic {
        /// The first two bytes.
        found: [u8; 2],
    },
    /// Header byte 2 must be 0.
    BadReserved {
        /// The byte found.
        found: u8,
    },
    /// Header byte 3 (the version) must be 1.
    BadVersion {
        /// The byte found.
        found: u8,
    },
    /// The entry count (an `i16` the engine sign-extends) is negative.
    NegativeEntryCount {
        /// The count as the engine reads it.
        count: i16,
    },
    /// The entry storage given to [`Library::open_in`](super::Library::open_in) is shorter
    /// than the entry count.
    StorageTooSmall {
        /// Entries the library has.
        needed: usize,
        /// Entries the storage holds.
        got: usize,
    },
    /// There is no entry with this index.
    NoSuchEntry {
        /// The index asked for.
        index: u64,
    },
    /// `Editor::from_table` was given an encrypted table of
    /// another length than the header's `32 * entry_count` bytes.
    TableLength {
        /// The length the header's entry count needs.
        expected: u64,
        /// The length given.
        got: u64,
    },
    /// `Editor::from_entries` was given another number of
    /// entries than the header counts.
    EntryCount {
        /// The header's entry count.
        expected: u16,
        /// The entries given.
        got: usize,
    },
    /// `Editor::from_table` or `Editor::from_entries` was given a media overlay that is
    /// not the value of the `AO` trailer its `tail` ends with (or a `tail` with no
    /// trailer): the offsets would be read with one value and the trailer written with
    /// another.
    OverlayNotTrailer {
        /// The overlay given.
        overlay: u32,
        /// The trailer's value, `None` when `tail` ends with no trailer.
        trailer: Option<u32>,
    },
    /// The entry's packed bytes, `offset .. offset + size` with `offset` the effective
    /// offset (`data_offset` plus the media overlay), reach past the end of the file, and
    /// not by the one byte allowed for Deflate (SPEC 2.7).
    DataOutOfBounds {
        /// The entry's index.
        entry: u32,
        /// The effective offset of its packed bytes.
        offset: u64,
        /// The bytes the entry's method reads ([`Entry::stream_len`](super::Entry::stream_len)):
        /// `unpacked_size` for stored and XOR entries, else `packed_size`.
        size: u32,
        /// The file's length.
        file_len: u64,
    },
    /// The entry's `flags` select no packing method the format defines (SPEC 2.6).
    UnsupportedMethod {
        /// The entry's index.
        entry: u32,
        /// Its whole `flags` field.
        flags: u16,
    },
    /// The output buffer given to [`Library::unpack_into`](super::Library::unpack_into) is
    /// not exactly the entry's `unpacked_size` long.
    OutputSize {
        /// The entry's index.
        entry: u32,
        /// Its `unpacked_size`.
        expected: u32,
        /// The buffer's length.
        got: u64,
    },
    /// Decoding the entry's packed bytes failed.
    Decode {
        /// The entry's index.
        entry: u32,
        /// The file offset of the fault: where the stream ran out for a truncated stream,
        /// the byte holding the last bit read for a corrupt one.
        offset: u64,
        /// What the decoder reported (its text is part of this error's, and
        /// [`source`](core::error::Error::source) is `None`, so that a report that walks
        /// the chain says it once).
        error: DecodeError,
    },
    /// A [`Limits`](crate::limits::Limits) check failed: the header's entry count is above
    /// [`max_entries`](crate::limits::Limits::max_entries) (at open, `offset` 4), or an
    /// entry's `unpacked_size` is above
    /// [`max_entry_size`](crate::limits::Limits::max_entry_size)
    /// ([`Library::check_limits`](super::Library::check_limits), `offset` that field's).
    /// The [`LimitError`]'s text is part of this error's.
    Limit {
        /// Which limit, the value and the limit.
        error: LimitError,
        /// The (encrypted) field the value was read from.
        offset: u64,
    },
}

impl RsliError {
    /// The index of the entry the error is about: for [`NoSuchEntry`](Self::NoSuchEntry)
    /// the index asked for (when it fits a `u32`), `None` for whole-file errors.
    pub fn entry(&self) -> Option<u32> {
        match *self {
            RsliError::NoSuchEntry { index } => u32::try_from(index).ok(),
            RsliError::DataOutOfBounds { entry, .. }
            | RsliError::UnsupportedMethod { entry, .. }
            | RsliError::OutputSize { entry, .. }
            | RsliError::Decode { entry, .. } => Some(entry),
            RsliError::Limit { error, .. } => error.entry(),
            _ => None,
        }
    }

    /// The file offset the error is about: where a short file ends, the header byte that
    /// is wrong, where out-of-bounds data starts, where an entry's (encrypted) `flags`
    /// field ([`UnsupportedMethod`](Self::UnsupportedMethod)) lies, where decoding failed
    /// ([`Decode`](Self::Decode)), or the field a [`Limit`](Self::Limit) is about. `None`
    /// when no file offset applies.
    pub fn offset(&self) -> Option<u64> {
        match *self {
            RsliError::Truncated { len, .. } => Some(len),
            RsliError::BadMagic { .. } => Some(0),
            RsliError::BadReserved { .. } => Some(2),
            RsliError::BadVersion { .. } => Some(3),
            RsliError::NegativeEntryCount { .. } => Some(4),
            RsliError::DataOutOfBounds { offset, .. }
            | RsliError::Decode { offset, .. }
            | RsliError::Limit { offset, .. } => Some(offset),
            RsliError::UnsupportedMethod { entry, .. } => Some(flags_offset(entry)),
            _ => None,
        }
    }
}

/// Where entry `entry`'s `flags` field lies in the file.
fn flags_offset(entry: u32) -> u64 {
    HEADER_LEN as u64 + u64::from(entry) * ENTRY_LEN as u64 + 16
}

/// Where entry `entry`'s `unpacked_size` field lies in the file.
pub(super) fn unpacked_size_offset(entry: u32) -> u64 {
    HEADER_LEN as u64 + u64::from(entry) * ENTRY_LEN as u64 + 20
}

impl fmt::Display for RsliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RsliError::Truncated { len, needed } => write!(
                f,
                "RsLi file is truncated: {}, but its header and entry table need {needed}",
                bytes(len)
            ),
            RsliError::BadMagic { found: [a, b] } => write!(
                f,
                "not an RsLi library: bytes {a:02X} {b:02X} at offset 0, expected \"NL\""
            ),
            RsliError::BadReserved { found } => write!(
                f,
                "RsLi header byte at offset 2 is {found:#04x}, but the reserved byte must be 0"
            ),
            RsliError::BadVersion { found } => write!(
                f,
                "RsLi header byte at offset 3 is {found}, but the version must be 1"
            ),
            RsliError::NegativeEntryCount { count } => write!(
                f,
                "RsLi entry count at offset 4 is {count}, but it must not be negative"
            ),
            RsliError::StorageTooSmall { needed, got } => write!(
                f,
                "entry storage holds {}, but the library has {needed}",
                entries(got as u64)
            ),
            RsliError::NoSuchEntry { index } => write!(f, "the library has no entry {index}"),
            RsliError::TableLength { expected, got } => write!(
                f,
                "an entry table of {} was given, but the header's entry count needs {expected}",
                bytes(got)
            ),
            RsliError::EntryCount { expected, got } => write!(
                f,
                "{} given, but the header counts {expected}",
                entries(got as u64)
            ),
            RsliError::OverlayNotTrailer {
                overlay,
                trailer: Some(trailer),
            } => write!(
                f,
                "the media overlay given is {overlay}, but the file's \"AO\" trailer says \
                 {trailer}"
            ),
            RsliError::OverlayNotTrailer {
                overlay,
                trailer: None,
            } => write!(
                f,
                "a media overlay ({overlay}) was given, but the file ends with no \"AO\" \
                 trailer"
            ),
            RsliError::DataOutOfBounds {
                entry,
                offset,
                size: 0,
                file_len,
            } => write!(
                f,
                "entry {entry}: its data starts at offset {offset}, past the end of the \
                 {file_len}-byte file (though its method reads none of it: unpacked_size for \
                 stored and XOR entries, packed_size for the others, is 0)"
            ),
            RsliError::DataOutOfBounds {
                entry,
                offset,
                size,
                file_len,
            } => write!(
                f,
                "entry {entry}: the {} its method reads from offset {offset} (unpacked_size \
                 for stored and XOR entries, packed_size for the others) {} past the end of \
                 the {file_len}-byte file",
                bytes(u64::from(size)),
                if size == 1 { "ends" } else { "end" }
            ),
            RsliError::UnsupportedMethod { entry, flags } => write!(
                f,
                "entry {entry}: flags {flags:#06x} (at offset {}) select packing method \
                 {:#05x}, which the format does not define",
                flags_offset(entry),
                flags & crate::codec::METHOD_MASK
            ),
            RsliError::OutputSize {
                entry,
                expected,
                got,
            } => write!(
                f,
                "entry {entry}: output buffer is {}, but the entry unpacks to exactly \
                 {expected}",
                bytes(got)
            ),
            RsliError::Decode {
                entry,
                offset,
                error,
            } => write!(f, "entry {entry} at offset {offset}: {error}"),
            RsliError::Limit { error, offset } => match error {
                LimitError::TooManyEntries { count, limit } => write!(
                    f,
                    "RsLi entry count {count} at offset {offset} exceeds the limit of {}",
                    entries(u64::from(limit))
                ),
                LimitError::EntryTooLarge { entry, size, limit } => write!(
                    f,
                    "entry {entry}: unpacked size {size} (at offset {offset}) exceeds the entry \
                     size limit of {}",
                    bytes(limit)
                ),
                _ => write!(f, "{error} (at offset {offset})"),
            },
        }
    }
}

/// No `source`: the errors an `RsliError` holds (a [`DecodeError`], a [`LimitError`]) are
/// written out in its own text, and a report that walks the chain (`anyhow`'s `{:#}`)
/// said them twice.
impl core::error::Error for RsliError {}

#[cfg(feature = "std")]
impl From<RsliError> for std::io::Error {
    fn from(e: RsliError) -> Self {
        use std::io::ErrorKind;
        let kind = match e {
            RsliError::Truncated { .. }
            | RsliError::Decode {
                error: DecodeError::Truncated { .. },
                ..
            } => ErrorKind::UnexpectedEof,
            // The caller's index, storage or buffer, not the file's bytes.
            RsliError::NoSuchEntry { .. }
            | RsliError::StorageTooSmall { .. }
            | RsliError::OutputSize { .. }
            | RsliError::TableLength { .. }
            | RsliError::EntryCount { .. }
            | RsliError::OverlayNotTrailer { .. } => ErrorKind::InvalidInput,
            _ => ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, e)
    }
}

/// Why [`Builder`](super::Builder) refused an entry or a library.
///
/// ```
/// use ngi_core::{Method, rsli::{BuildError, Builder}};
///
/// let mut builder = Builder::new();
/// assert_eq!(
///     builder.add(b"readme.txt", Method::Stored, b""),
///     Err(BuildError::NameNotUpperCase { entry: 0 })
/// );
/// ```
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildError {
    /// The name is empty.
    NameEmpty {
        /// The index the entry would have had.
        entry: u32,
    },
    /// The name is longer than the 12 bytes of the name field.
    NameTooLong {
        /// The index the entry would have had.
        entry: u32,
        /// The name's length.
        len: usize,
    },
    /// The name holds a NUL byte, which would end it early.
    NameHasNul {
        /// The index the entry would have had.
        entry: u32,
    },
    /// The name holds an ASCII lower-case letter: `rsFind` upper-cases every query, so the
    /// entry could never be found.
    NameNotUpperCase {
        /// The index the entry would have had.
        entry: u32,
    },
    /// The library already holds [`MAX_ENTRIES`](super::MAX_ENTRIES) entries.
    TooManyEntries,
    /// The entry's data is longer than a `u32` can say, or it would start past the
    /// offsets a `u32` `data_offset` can reach.
    TooLarge {
        /// The entry's index.
        entry: u32,
    },
    /// The method is defined by the format but this build of the builder cannot pack
    /// it: [`Method::Deflate`] without the `deflate` feature.
    MethodNotImplemented {
        /// The index the entry would have had.
        entry: u32,
        /// The method asked for.
        method: Method,
    },
    /// The entry's packed stream could not be allocated: there is less memory than it
    /// needs ([`PackError::OutOfMemory`](crate::codec::PackError::OutOfMemory)).
    OutOfMemory {
        /// The index the entry would have had.
        entry: u32,
        /// The method asked for.
        method: Method,
    },
    /// [`Editor::add_from_source`](super::Editor::add_from_source) or
    /// [`Editor::replace_from_source`](super::Editor::replace_from_source) was given a
    /// method that packs its data (LZSS, LZHUF or Deflate, XORed or not): bytes copied as
    /// they are can only be stored, XORed or not. [`Editor::add`](super::Editor::add)
    /// packs them.
    MethodPacks {
        /// The entry, or the index it would have had.
        entry: u32,
        /// The method asked for.
        method: Method,
    },
    /// [`Editor::replace`](super::Editor::replace) was asked to pack an entry with its own
    /// method, but its `flags` name none the format defines (SPEC 2.6);
    /// [`Editor::replace_with`](super::Editor::replace_with) chooses one.
    UnsupportedMethod {
        /// The entry.
        entry: u32,
        /// Its whole `flags` field.
        flags: u16,
    },
    /// The media overlay is larger than an entry's real offset, so that entry's
    /// `data_offset` (real offset minus overlay) would be negative.
    OverlayTooLarge {
        /// The overlay asked for.
        overlay: u32,
        /// The entry.
        entry: u32,
        /// Its real offset in the file.
        offset: u64,
    },
    /// The editor has no entry with this index.
    NoSuchEntry {
        /// The index asked for.
        index: u64,
        /// How many entries there are.
        count: u64,
    },
    /// The order given to [`Editor::reorder`](super::Editor::reorder) does not list each
    /// entry once: it lists `len` indices for `count` entries.
    OrderLength {
        /// How many indices the order lists.
        len: u64,
        /// How many entries there are.
        count: u64,
    },
    /// The order given to [`Editor::reorder`](super::Editor::reorder) lists this index a
    /// second time.
    OrderRepeats {
        /// The index listed twice.
        index: u64,
    },
    /// Two kept payloads share bytes in the file and at least one of them must be
    /// re-keyed (its `sort_index` moved): one XOR over the shared bytes cannot suit both.
    /// Not returned by [`Editor::plan`](super::Editor::plan), which copies such a payload
    /// before re-keying it; kept as the plan's check of itself.
    SharedKeyedPayload {
        /// The entry to re-key.
        entry: u32,
        /// The entry whose bytes overlap it.
        other: u32,
    },
    /// A canonical rebuild needs the entry's packed bytes, but its range does not lie in
    /// the payload region of the library being edited.
    PayloadOutside {
        /// The entry.
        entry: u32,
        /// Where its packed bytes start in the file.
        offset: u64,
    },
    /// The entry's packed bytes lie outside the payload region (in the header or the
    /// table, or past the payloads) and the edit may change what it reads there: it
    /// rewrites or moves those bytes, or changes the entry's XOR key. Such bytes are no
    /// payload's, so the editor keeps the entry as it is rather than move them with it.
    /// (Bytes that run from the table into the payloads count as moved by any edit, and
    /// so do those of an entry cut short by the end of the file, which a resumed download
    /// would complete.) Every entry of a library built for an `AO` media trailer lies outside when it was
    /// opened without [`media_trailer`](crate::OpenOptions::media_trailer) (or the other
    /// way round): compare [`Library::trailer`](super::Library::trailer) with
    /// [`Library::overlay`](super::Library::overlay), and open it the other way.
    OutsideChanged {
        /// The entry, as numbered after the edit.
        entry: u32,
        /// Where its bytes start in the file (with the media overlay).
        offset: u64,
    },
    /// The offsets are read with the media overlay, but the `AO` trailer that gives it
    /// overlaps the header or the table, so an edited library could not keep it last.
    TrailerInTable {
        /// The overlay.
        overlay: u32,
    },
}

#[cfg(feature = "alloc")]
impl BuildError {
    /// The index of the entry the error is about, as the builder or the edited library
    /// numbers it (not always its index before the edit); `None` for the errors about the
    /// whole library, and for [`BuildError::NoSuchEntry`], which names no entry there is.
    ///
    /// ```
    /// use ngi_core::{Method, rsli::{BuildError, Builder}};
    ///
    /// let mut builder = Builder::new();
    /// let e = builder.add(b"readme.txt", Method::Stored, b"").unwrap_err();
    /// assert_eq!(e, BuildError::NameNotUpperCase { entry: 0 });
    /// assert_eq!(e.entry(), Some(0));
    /// ```
    pub fn entry(&self) -> Option<u32> {
        match *self {
            BuildError::NameEmpty { entry }
            | BuildError::NameTooLong { entry, .. }
            | BuildError::NameHasNul { entry }
            | BuildError::NameNotUpperCase { entry }
            | BuildError::TooLarge { entry }
            | BuildError::MethodNotImplemented { entry, .. }
            | BuildError::MethodPacks { entry, .. }
            | BuildError::OutOfMemory { entry, .. }
            | BuildError::UnsupportedMethod { entry, .. }
            | BuildError::SharedKeyedPayload { entry, .. }
            | BuildError::PayloadOutside { entry, .. }
            | BuildError::OverlayTooLarge { entry, .. }
            | BuildError::OutsideChanged { entry, .. } => Some(entry),
            BuildError::TooManyEntries
            | BuildError::NoSuchEntry { .. }
            | BuildError::OrderLength { .. }
            | BuildError::OrderRepeats { .. }
            | BuildError::TrailerInTable { .. } => None,
        }
    }
}

#[cfg(feature = "alloc")]
impl crate::codec::PackError {
    /// The error of entry `entry` (as the builder or editor numbers it) this packing
    /// failure is.
    pub(crate) fn of_entry(self, entry: u32) -> BuildError {
        use crate::codec::PackError;
        match self {
            PackError::MethodNotImplemented { method } => {
                BuildError::MethodNotImplemented { entry, method }
            }
            PackError::OutOfMemory { method } => BuildError::OutOfMemory { entry, method },
        }
    }
}

#[cfg(feature = "alloc")]
impl From<crate::edit::order::OrderError> for BuildError {
    fn from(e: crate::edit::order::OrderError) -> Self {
        use crate::edit::order::OrderError;
        match e {
            OrderError::Length { len, count } => BuildError::OrderLength {
                len: len as u64,
                count: count as u64,
            },
            OrderError::NoSuchEntry { index, count } => BuildError::NoSuchEntry {
                index: index as u64,
                count: count as u64,
            },
            OrderError::Repeated { index } => BuildError::OrderRepeats {
                index: index as u64,
            },
        }
    }
}

#[cfg(feature = "alloc")]
impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            BuildError::NameEmpty { entry } => write!(f, "entry {entry}: the name is empty"),
            BuildError::NameTooLong { entry, len } => write!(
                f,
                "entry {entry}: the name is {len} bytes, but RsLi names hold at most {}",
                super::NAME_LEN
            ),
            BuildError::NameHasNul { entry } => {
                write!(f, "entry {entry}: the name holds a NUL byte")
            }
            BuildError::NameNotUpperCase { entry } => write!(
                f,
                "entry {entry}: the name holds a lower-case letter, so rsFind (which \
                 upper-cases queries) could never find it"
            ),
            BuildError::TooManyEntries => write!(
                f,
                "an RsLi library holds at most {} entries",
                super::MAX_ENTRIES
            ),
            BuildError::TooLarge { entry } => write!(
                f,
                "entry {entry}: the data is too large for the 32-bit sizes and offsets of RsLi"
            ),
            BuildError::MethodNotImplemented {
                entry,
                method: Method::Deflate,
            } => write!(
                f,
                "entry {entry}: packing with method deflate (0x100) needs ngi-core's \
                 `deflate` feature"
            ),
            BuildError::MethodNotImplemented { entry, method } => write!(
                f,
                "entry {entry}: packing with method {method} ({:#05x}) is not supported yet",
                method.bits()
            ),
            BuildError::OutOfMemory { entry, method } => write!(
                f,
                "entry {entry}: packing it with method {method} ({:#05x}) needs more memory \
                 than there is",
                method.bits()
            ),
            BuildError::MethodPacks { entry, method } => write!(
                f,
                "entry {entry}: method {method} ({:#05x}) packs its data, so it cannot take \
                 bytes copied as they are (only stored and XOR entries can)",
                method.bits()
            ),
            BuildError::UnsupportedMethod { entry, flags } => write!(
                f,
                "entry {entry}: its flags {flags:#06x} select packing method {:#05x}, which \
                 the format does not define, so it has no method of its own to be packed with",
                flags & crate::codec::METHOD_MASK
            ),
            BuildError::OverlayTooLarge {
                overlay,
                entry,
                offset,
            } => write!(
                f,
                "entry {entry}: the media overlay {overlay} is larger than its offset in the \
                 file, {offset}"
            ),
            BuildError::NoSuchEntry { index, count } => {
                write!(f, "no entry {index} (the library has {count})")
            }
            BuildError::OrderLength { len, count } => write!(
                f,
                "the new order lists {len} indices, but the library has {}",
                entries(count)
            ),
            BuildError::OrderRepeats { index } => {
                write!(f, "the new order lists entry {index} twice")
            }
            BuildError::SharedKeyedPayload { entry, other } => write!(
                f,
                "entry {entry}: its packed bytes are shared with entry {other}, so they \
                 cannot be re-keyed for its new sort_index"
            ),
            BuildError::TrailerInTable { overlay } => write!(
                f,
                "the media trailer (overlay {overlay}) overlaps the table, so an edited \
                 library could not keep it at the end"
            ),
            BuildError::OutsideChanged { entry, offset } => write!(
                f,
                "entry {entry}: its packed bytes at offset {offset} lie outside the \
                 payloads (in the header or table, or reaching past their end or the \
                 file's), where this edit may change what it reads (when all entries lie \
                 outside, the library was likely built for its AO media trailer and opened \
                 without it honoured, or the other way round: open it the other way)"
            ),
            BuildError::PayloadOutside { entry, offset } => write!(
                f,
                "entry {entry}: its packed bytes at offset {offset} are not inside the \
                 library's payload region"
            ),
        }
    }
}

#[cfg(feature = "alloc")]
impl core::error::Error for BuildError {}

#[cfg(feature = "std")]
impl From<BuildError> for std::io::Error {
    fn from(e: BuildError) -> Self {
        let kind = match e {
            BuildError::MethodNotImplemented { .. } => std::io::ErrorKind::Unsupported,
            BuildError::OutOfMemory { .. } => std::io::ErrorKind::OutOfMemory,
            _ => std::io::ErrorKind::InvalidInput,
        };
        std::io::Error::new(kind, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_and_offset_locate_the_failure() {
        let oob = RsliError::DataOutOfBounds {
            entry: 3,
            offset: 1000,
            size: 5,
            file_len: 900,
        };
        assert_eq!((oob.entry(), oob.offset()), (Some(3), Some(1000)));
        let method = RsliError::UnsupportedMethod {
            entry: 2,
            flags: 0x1E0,
        };
        // Header, two entries before it, then 16 bytes into the entry.
        assert_eq!(
            (method.entry(), method.offset()),
            (Some(2), Some(32 + 64 + 16))
        );
        let large = RsliError::Limit {
            error: LimitError::EntryTooLarge {
                entry: 1,
                size: u32::MAX.into(),
                limit: 8,
            },
            offset: unpacked_size_offset(1),
        };
        assert_eq!(
            (large.entry(), large.offset()),
            (Some(1), Some(32 + 32 + 20))
        );
        let many = RsliError::Limit {
            error: LimitError::TooManyEntries { count: 3, limit: 2 },
            offset: 4,
        };
        assert_eq!((many.entry(), many.offset()), (None, Some(4)));
        let count = RsliError::NegativeEntryCount { count: -1 };
        assert_eq!((count.entry(), count.offset()), (None, Some(4)));
        let missing = RsliError::NoSuchEntry { index: 1 << 40 };
        assert_eq!((missing.entry(), missing.offset()), (None, None));
    }

    #[test]
    fn decode_errors_are_said_once() {
        use core::error::Error as _;
        let inner = DecodeError::Truncated {
            produced: 1,
            expected: 2,
        };
        let e = RsliError::Decode {
            entry: 7,
            offset: 100,
            error: inner,
        };
        // Written out once: in the text, not again as the source.
        #[cfg(feature = "std")]
        {
            use std::string::ToString;
            assert!(e.to_string().ends_with(&inner.to_string()), "{e}");
        }
        assert!(e.source().is_none());
        assert_eq!((e.entry(), e.offset()), (Some(7), Some(100)));
        assert!(RsliError::BadVersion { found: 2 }.source().is_none());
    }

    #[cfg(feature = "std")]
    #[test]
    fn out_of_bounds_and_truncation_say_what_ran_out() {
        use std::string::ToString;
        let oob = RsliError::DataOutOfBounds {
            entry: 3,
            offset: 1000,
            size: 5,
            file_len: 900,
        };
        // The size is what the method reads, unpacked_size for stored and XOR: it said
        // "packed data ... 5 bytes long", beside a packed_size of another value.
        assert_eq!(
            oob.to_string(),
            "entry 3: the 5 bytes its method reads from offset 1000 (unpacked_size for \
             stored and XOR entries, packed_size for the others) end past the end of the \
             900-byte file"
        );
        let one = RsliError::DataOutOfBounds {
            entry: 3,
            offset: 1000,
            size: 1,
            file_len: 900,
        };
        assert!(
            one.to_string()
                .starts_with("entry 3: the 1 byte its method reads from offset 1000 (")
                && one
                    .to_string()
                    .ends_with(") ends past the end of the 900-byte file"),
            "{one}"
        );
        // An empty entry reads nothing: only its offset is out.
        let none = RsliError::DataOutOfBounds {
            entry: 3,
            offset: 1000,
            size: 0,
            file_len: 900,
        };
        assert_eq!(
            none.to_string(),
            "entry 3: its data starts at offset 1000, past the end of the 900-byte file \
             (though its method reads none of it: unpacked_size for stored and XOR entries, \
             packed_size for the others, is 0)"
        );
        let all_out = DecodeError::Truncated {
            produced: 87,
            expected: 87,
        };
        assert_eq!(
            all_out.to_string(),
            "packed stream ends before the end of its last block, after all 87 decoded bytes"
        );
    }

    #[cfg(feature = "std")]
    #[test]
    fn build_errors_display_and_convert() {
        use std::io::ErrorKind;
        use std::string::ToString;
        let e = BuildError::NameTooLong { entry: 4, len: 13 };
        assert_eq!(
            e.to_string(),
            "entry 4: the name is 13 bytes, but RsLi names hold at most 12"
        );
        assert_eq!(std::io::Error::from(e).kind(), ErrorKind::InvalidInput);
        let e = BuildError::MethodNotImplemented {
            entry: 0,
            method: Method::Lzhuf,
        };
        assert_eq!(
            e.to_string(),
            "entry 0: packing with method lzhuf (0x080) is not supported yet"
        );
        assert_eq!(std::io::Error::from(e).kind(), ErrorKind::Unsupported);
        let e = BuildError::MethodNotImplemented {
            entry: 2,
            method: Method::Deflate,
        };
        assert_eq!(
            e.to_string(),
            "entry 2: packing with method deflate (0x100) needs ngi-core's `deflate` feature"
        );
    }

    /// `entry()` names the entry exactly when the message starts with it (the CLI puts
    /// the entry's name after that prefix).
    #[cfg(feature = "std")]
    #[test]
    fn build_error_entry_matches_its_message() {
        use std::string::ToString;
        let all = [
            BuildError::NameEmpty { entry: 1 },
            BuildError::NameTooLong { entry: 2, len: 13 },
            BuildError::NameHasNul { entry: 3 },
            BuildError::NameNotUpperCase { entry: 4 },
            BuildError::TooManyEntries,
            BuildError::TooLarge { entry: 5 },
            BuildError::MethodNotImplemented {
                entry: 6,
                method: Method::Deflate,
            },
            BuildError::OverlayTooLarge {
                overlay: 7,
                entry: 7,
                offset: 3,
            },
            BuildError::NoSuchEntry { index: 8, count: 1 },
            BuildError::SharedKeyedPayload { entry: 9, other: 1 },
            BuildError::PayloadOutside {
                entry: 10,
                offset: 4,
            },
            BuildError::OutsideChanged {
                entry: 11,
                offset: 12,
            },
            BuildError::TrailerInTable { overlay: 13 },
        ];
        let named: std::vec::Vec<_> = all.iter().filter_map(BuildError::entry).collect();
        assert_eq!(named, [1, 2, 3, 4, 5, 6, 7, 9, 10, 11]);
        for e in all {
            let prefix = e.entry().map(|n| std::format!("entry {n}: "));
            let message = e.to_string();
            assert_eq!(
                prefix.as_deref(),
                message
                    .starts_with("entry ")
                    .then(|| &message[..message.find(": ").unwrap() + 2]),
                "{e:?}"
            );
        }
    }

    #[cfg(feature = "std")]
    #[test]
    fn io_error_kinds() {
        use std::io::ErrorKind;
        let kind = |e: RsliError| std::io::Error::from(e).kind();
        assert_eq!(
            kind(RsliError::Truncated { len: 1, needed: 32 }),
            ErrorKind::UnexpectedEof
        );
        let truncated = DecodeError::Truncated {
            produced: 0,
            expected: 1,
        };
        assert_eq!(
            kind(RsliError::Decode {
                entry: 0,
                offset: 0,
                error: truncated
            }),
            ErrorKind::UnexpectedEof
        );
        assert_eq!(
            kind(RsliError::BadMagic { found: *b"NR" }),
            ErrorKind::InvalidData
        );
        let message =
            std::string::ToString::to_string(&std::io::Error::from(RsliError::UnsupportedMethod {
                entry: 1,
                flags: 0x0C0,
            }));
        assert_eq!(
            message,
            "entry 1: flags 0x00c0 (at offset 80) select packing method 0x0c0, which the \
             format does not define"
        );
    }
}
