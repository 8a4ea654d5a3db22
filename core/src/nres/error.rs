//! Why an NRes archive, or one of its entries, cannot be read or written.

use core::fmt;

use super::{ENTRY_LEN, HEADER_LEN, MAGIC, NAME_FIELD_LEN, VERSION};
use crate::count::{bytes, entries};
use crate::limits::LimitError;

/// Why an NRes archive or one of its entries breaks a read rule of SPEC 1.2–1.3.
///
/// Every variant carries the values that broke the rule; [`entry`](NresError::entry) and
/// [`offset`](NresError::offset) say where, and the `Display` text says what, where and
/// which rule, on one line.
///
/// ```
/// use ngi_core::nres::{Archive, NresError};
///
/// let err = Archive::open(b"NRes").unwrap_err();
/// assert_eq!(err, NresError::TooShort { len: 4 });
/// assert_eq!(err.to_string(), "file of 4 bytes is shorter than the 16-byte NRes header");
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NresError {
    /// The data is shorter than the 16-byte header.
    TooShort {
        /// Length of the data.
        len: u64,
    },
    /// The first four bytes are not `NRes`.
    BadMagic {
        /// The four bytes found at offset 0.
        found: [u8; 4],
    },
    /// The version field is not `0x100`.
    BadVersion {
        /// The version found at offset 4.
        found: u32,
    },
    /// The entry count, a signed field, is negative.
    NegativeEntryCount {
        /// The count found at offset 8.
        count: i32,
    },
    /// The header's `total_size` is not the real length of the data.
    SizeMismatch {
        /// The `total_size` found at offset 12.
        declared: u32,
        /// The real length of the data.
        actual: u64,
    },
    /// `total_size - 64 * entry_count` (which may be negative) is below 16: the directory
    /// would overlap the header or start before the file.
    DirectoryOutOfBounds {
        /// The header's entry count.
        entry_count: u32,
        /// The header's total size.
        total_size: u32,
    },
    /// An entry's payload starts inside the header.
    DataBeforeHeader {
        /// Index of the entry.
        entry: u32,
        /// Its `data_offset`.
        data_offset: u32,
    },
    /// An entry's payload runs past the start of the directory.
    DataPastDirectory {
        /// Index of the entry.
        entry: u32,
        /// Its `data_offset`.
        data_offset: u32,
        /// Its `size`.
        size: u32,
        /// Where the directory starts.
        directory_offset: u64,
    },
    /// An entry's 36-byte name field holds no NUL.
    NameUnterminated {
        /// Index of the entry.
        entry: u32,
        /// Absolute file offset of the name field.
        offset: u64,
    },
    /// An entry index at or past the number of entries.
    NoSuchEntry {
        /// The index asked for.
        index: u64,
    },
    /// Raw mode was asked for a file whose length does not fit the 32-bit size field.
    RawTooLarge {
        /// Length of the data.
        len: u64,
    },
    /// `Editor::open` was given an archive opened in raw mode,
    /// which has no directory to edit.
    RawMode,
    /// `Editor::from_directory` was given a directory of
    /// another length than the header's `64 * entry_count` bytes.
    DirectoryLength {
        /// The length the header's entry count needs.
        expected: u64,
        /// The length given.
        got: u64,
    },
    /// A [`Limits`](crate::limits::Limits) check failed: the header's entry count is above
    /// [`max_entries`](crate::limits::Limits::max_entries) (at open, `offset` 8), or an
    /// entry's `size` is above [`max_entry_size`](crate::limits::Limits::max_entry_size)
    /// ([`Archive::check_limits`](super::Archive::check_limits), `offset` its
    /// `data_offset`). The [`LimitError`]'s text is part of this
    /// error's (it is not the error's [`source`](core::error::Error::source) as well).
    Limit {
        /// Which limit, the value and the limit.
        error: LimitError,
        /// The header field or the payload the value belongs to.
        offset: u64,
    },
    /// Raw mode's file, one entry, is more than
    /// [`max_entries`](crate::limits::Limits::max_entries) allows (a limit of 0). The
    /// [`LimitError`]'s text is part of this error's.
    RawOverLimit {
        /// The count (1) and the limit.
        error: LimitError,
    },
}

impl NresError {
    /// The index of the directory entry that broke a rule, for the per-entry errors.
    ///
    /// [`NresError::NoSuchEntry`] names no existing entry and gives `None`.
    pub fn entry(&self) -> Option<u32> {
        match *self {
            NresError::DataBeforeHeader { entry, .. }
            | NresError::DataPastDirectory { entry, .. }
            | NresError::NameUnterminated { entry, .. } => Some(entry),
            NresError::Limit { error, .. } => error.entry(),
            _ => None,
        }
    }

    /// The absolute file offset the error points at: the header field that holds the bad
    /// value, the name field, the payload start an entry declares, or (for the length
    /// errors) the end of the data. `None` for [`NresError::NoSuchEntry`].
    pub fn offset(&self) -> Option<u64> {
        match *self {
            NresError::TooShort { len } | NresError::RawTooLarge { len } => Some(len),
            NresError::BadMagic { .. } => Some(0),
            NresError::BadVersion { .. } => Some(4),
            NresError::NegativeEntryCount { .. } | NresError::DirectoryOutOfBounds { .. } => {
                Some(8)
            }
            NresError::SizeMismatch { .. } => Some(12),
            NresError::DataBeforeHeader { data_offset, .. }
            | NresError::DataPastDirectory { data_offset, .. } => Some(u64::from(data_offset)),
            NresError::NameUnterminated { offset, .. } | NresError::Limit { offset, .. } => {
                Some(offset)
            }
            NresError::NoSuchEntry { .. }
            | NresError::RawMode
            | NresError::RawOverLimit { .. }
            | NresError::DirectoryLength { .. } => None,
        }
    }
}

/// Writes bytes as a quoted ASCII string with escapes, for magic numbers in messages.
struct Escaped<'b>(&'b [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("\"")?;
        for &byte in self.0 {
            write!(f, "{}", core::ascii::escape_default(byte))?;
        }
        f.write_str("\"")
    }
}

impl fmt::Display for NresError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NresError::TooShort { len } => write!(
                f,
                "file of {} is shorter than the {HEADER_LEN}-byte NRes header",
                bytes(len)
            ),
            NresError::BadMagic { found } => write!(
                f,
                "not an NRes archive: magic at offset 0 is {}, expected {}",
                Escaped(&found),
                Escaped(&MAGIC)
            ),
            NresError::BadVersion { found } => write!(
                f,
                "unsupported NRes version {found:#x} at offset 4 (only {VERSION:#x} exists)"
            ),
            NresError::NegativeEntryCount { count } => {
                write!(f, "negative NRes entry count {count} at offset 8")
            }
            NresError::SizeMismatch { declared, actual } => write!(
                f,
                "header declares total size {declared} at offset 12, but the file is {}",
                bytes(actual)
            ),
            NresError::DirectoryOutOfBounds {
                entry_count,
                total_size,
            } => write!(
                f,
                "directory of {} does not fit: total size {total_size} - {ENTRY_LEN} * \
                 {entry_count} = {} is before the end of the {HEADER_LEN}-byte header",
                entries(u64::from(entry_count)),
                i64::from(total_size) - i64::from(entry_count) * ENTRY_LEN as i64
            ),
            NresError::DataBeforeHeader { entry, data_offset } => write!(
                f,
                "entry {entry}: data offset {data_offset} lies inside the {HEADER_LEN}-byte header"
            ),
            NresError::DataPastDirectory {
                entry,
                data_offset,
                size,
                directory_offset,
            } => write!(
                f,
                "entry {entry}: payload of {} at offset {data_offset} ends at {}, past the \
                 directory at offset {directory_offset}",
                bytes(u64::from(size)),
                u64::from(data_offset) + u64::from(size)
            ),
            NresError::NameUnterminated { entry, offset } => write!(
                f,
                "entry {entry}: name field at offset {offset} has no NUL in its {NAME_FIELD_LEN} bytes"
            ),
            NresError::NoSuchEntry { index } => write!(f, "no entry with index {index}"),
            NresError::RawTooLarge { len } => write!(
                f,
                "raw mode: file of {} does not fit the 32-bit size field",
                bytes(len)
            ),
            NresError::RawMode => f.write_str(
                "the archive was opened in raw mode (a file without a directory): nothing to edit",
            ),
            NresError::DirectoryLength { expected, got } => write!(
                f,
                "a directory of {} was given, but the header's entry count needs {expected}",
                bytes(got)
            ),
            NresError::Limit { error, offset } => match error {
                LimitError::TooManyEntries { count, limit } => write!(
                    f,
                    "NRes entry count {count} at offset {offset} exceeds the limit of {}",
                    entries(u64::from(limit))
                ),
                LimitError::EntryTooLarge { entry, size, limit } => write!(
                    f,
                    "entry {entry}: payload of {} at offset {offset} exceeds the entry size \
                     limit of {}",
                    bytes(size),
                    bytes(limit)
                ),
                _ => write!(f, "{error} (at offset {offset})"),
            },
            NresError::RawOverLimit { error } => match error {
                LimitError::TooManyEntries { limit, .. } => write!(
                    f,
                    "raw mode: the file, read as one entry, exceeds the limit of {}",
                    entries(u64::from(limit))
                ),
                _ => write!(f, "raw mode: {error}"),
            },
        }
    }
}

/// No `source`: the [`LimitError`] an `NresError` may hold is written out in its own
/// text, and a report that walks the chain (`anyhow`'s `{:#}`) said it twice.
impl core::error::Error for NresError {}

#[cfg(feature = "std")]
impl From<NresError> for std::io::Error {
    /// `InvalidInput` for the caller's mistakes, not the file's (an index past the last
    /// entry, what an editor is given), else `InvalidData`.
    fn from(e: NresError) -> Self {
        let kind = match e {
            NresError::NoSuchEntry { .. }
            | NresError::RawMode
            | NresError::DirectoryLength { .. } => std::io::ErrorKind::InvalidInput,
            _ => std::io::ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, e)
    }
}

/// Why the canonical writer refused an entry (SPEC 1.3 write invariants).
///
/// A refused entry leaves the writer as it was.
#[cfg(feature = "alloc")]
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteError {
    /// The name is empty.
    NameEmpty {
        /// Index the entry would have had.
        entry: u32,
    },
    /// The name is longer than 35 bytes.
    NameTooLong {
        /// Index the entry would have had.
        entry: u32,
        /// Length of the name.
        len: usize,
    },
    /// The name contains a NUL byte.
    NameHasNul {
        /// Index the entry would have had.
        entry: u32,
    },
    /// With this payload the archive would exceed the 32-bit `total_size`.
    TooLarge {
        /// Index the entry would have had.
        entry: u32,
    },
    /// Even an empty payload would not fit: the directory alone would exceed the 32-bit
    /// `total_size`.
    TooManyEntries,
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
    /// A canonical rebuild needs the entry's payload, but its range lies outside the data
    /// region of the archive being edited (SPEC 1.3 read invariants).
    PayloadOutside {
        /// The entry.
        entry: u32,
        /// Its `data_offset`.
        data_offset: u32,
        /// Its `size`.
        size: u32,
    },
    /// The entry's payload lies outside the data region, so it cannot be read (SPEC 1.3
    /// read invariants), and after the edit its range would lie inside the new data
    /// region: it would read other entries' bytes as its own.
    OutsideNowInside {
        /// The entry, as numbered after the edit.
        entry: u32,
        /// Its `data_offset`.
        data_offset: u32,
        /// Its `size`.
        size: u32,
    },
}

#[cfg(feature = "alloc")]
impl WriteError {
    /// The index of the entry the error is about, as the writer or the edited archive
    /// numbers it (not always its index before the edit); `None` for the errors about the
    /// whole archive, and for [`WriteError::NoSuchEntry`], which names no entry there is.
    ///
    /// ```
    /// use ngi_core::nres::{NewEntry, WriteError, Writer};
    ///
    /// let mut writer = Writer::new();
    /// let e = writer.add(NewEntry { name: b"", ..NewEntry::default() }, b"").unwrap_err();
    /// assert_eq!(e, WriteError::NameEmpty { entry: 0 });
    /// assert_eq!(e.entry(), Some(0));
    /// ```
    pub fn entry(&self) -> Option<u32> {
        match *self {
            WriteError::NameEmpty { entry }
            | WriteError::NameTooLong { entry, .. }
            | WriteError::NameHasNul { entry }
            | WriteError::TooLarge { entry }
            | WriteError::PayloadOutside { entry, .. }
            | WriteError::OutsideNowInside { entry, .. } => Some(entry),
            WriteError::TooManyEntries
            | WriteError::NoSuchEntry { .. }
            | WriteError::OrderLength { .. }
            | WriteError::OrderRepeats { .. } => None,
        }
    }
}

#[cfg(feature = "alloc")]
impl From<crate::edit::order::OrderError> for WriteError {
    fn from(e: crate::edit::order::OrderError) -> Self {
        use crate::edit::order::OrderError;
        match e {
            OrderError::Length { len, count } => WriteError::OrderLength {
                len: len as u64,
                count: count as u64,
            },
            OrderError::NoSuchEntry { index, count } => WriteError::NoSuchEntry {
                index: index as u64,
                count: count as u64,
            },
            OrderError::Repeated { index } => WriteError::OrderRepeats {
                index: index as u64,
            },
        }
    }
}

#[cfg(feature = "alloc")]
impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use super::MAX_NAME_LEN;
        match *self {
            WriteError::NameEmpty { entry } => write!(f, "entry {entry}: the name is empty"),
            WriteError::NameTooLong { entry, len } => write!(
                f,
                "entry {entry}: name of {len} bytes is longer than {MAX_NAME_LEN}"
            ),
            WriteError::NameHasNul { entry } => {
                write!(f, "entry {entry}: the name contains a NUL byte")
            }
            WriteError::TooLarge { entry } => write!(
                f,
                "entry {entry}: the archive would exceed {} bytes",
                u32::MAX
            ),
            WriteError::TooManyEntries => {
                write!(
                    f,
                    "too many entries: the directory would exceed {} bytes",
                    u32::MAX
                )
            }
            WriteError::NoSuchEntry { index, count } => {
                write!(f, "no entry {index} (the archive has {count})")
            }
            WriteError::OrderLength { len, count } => write!(
                f,
                "the new order lists {len} indices, but the archive has {}",
                entries(count)
            ),
            WriteError::OrderRepeats { index } => {
                write!(f, "the new order lists entry {index} twice")
            }
            WriteError::PayloadOutside {
                entry,
                data_offset,
                size,
            } => write!(
                f,
                "entry {entry}: its payload of {} at offset {data_offset} is not inside the \
                 data region",
                bytes(u64::from(size))
            ),
            WriteError::OutsideNowInside {
                entry,
                data_offset,
                size,
            } => write!(
                f,
                "entry {entry}: its payload of {} at offset {data_offset} lies outside the \
                 data region, so it cannot be read, but after this edit it would lie inside \
                 and the entry would read other bytes as its own",
                bytes(u64::from(size))
            ),
        }
    }
}

#[cfg(feature = "alloc")]
impl core::error::Error for WriteError {}

#[cfg(feature = "std")]
impl From<WriteError> for std::io::Error {
    fn from(e: WriteError) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, e)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn messages_say_what_and_where() {
        let e = NresError::BadMagic {
            found: *b"PK\x03\x04",
        };
        assert_eq!(
            e.to_string(),
            "not an NRes archive: magic at offset 0 is \"PK\\x03\\x04\", expected \"NRes\""
        );
        let e = NresError::DirectoryOutOfBounds {
            entry_count: 2,
            total_size: 100,
        };
        assert_eq!(
            e.to_string(),
            "directory of 2 entries does not fit: total size 100 - 64 * 2 = -28 is before \
             the end of the 16-byte header"
        );
        let e = NresError::DataPastDirectory {
            entry: 3,
            data_offset: u32::MAX,
            size: 2,
            directory_offset: 40,
        };
        assert_eq!(
            e.to_string(),
            "entry 3: payload of 2 bytes at offset 4294967295 ends at 4294967297, past the \
             directory at offset 40"
        );
        assert_eq!(e.entry(), Some(3));
        assert_eq!(e.offset(), Some(u64::from(u32::MAX)));
        let e = NresError::NameUnterminated {
            entry: 1,
            offset: 104,
        };
        assert_eq!(
            e.to_string(),
            "entry 1: name field at offset 104 has no NUL in its 36 bytes"
        );
        assert_eq!((e.entry(), e.offset()), (Some(1), Some(104)));
        let e = NresError::NoSuchEntry { index: 7 };
        assert_eq!((e.entry(), e.offset()), (None, None));
        assert_eq!(NresError::BadVersion { found: 1 }.offset(), Some(4));
        let e = NresError::Limit {
            error: LimitError::EntryTooLarge {
                entry: 2,
                size: 9,
                limit: 8,
            },
            offset: 24,
        };
        assert_eq!(
            e.to_string(),
            "entry 2: payload of 9 bytes at offset 24 exceeds the entry size limit of 8 bytes"
        );
        assert_eq!((e.entry(), e.offset()), (Some(2), Some(24)));
        use core::error::Error as _;
        assert!(e.source().is_none(), "said once, in the text");
        let e = NresError::Limit {
            error: LimitError::TooManyEntries { count: 3, limit: 2 },
            offset: 8,
        };
        assert_eq!(
            e.to_string(),
            "NRes entry count 3 at offset 8 exceeds the limit of 2 entries"
        );
        assert_eq!((e.entry(), e.offset()), (None, Some(8)));
        assert_eq!(
            NresError::SizeMismatch {
                declared: 1,
                actual: 2
            }
            .offset(),
            Some(12)
        );
    }

    /// `entry()` names the entry exactly when the message starts with it (the CLI puts
    /// the entry's name after that prefix).
    #[cfg(feature = "std")]
    #[test]
    fn write_error_entry_matches_its_message() {
        use std::string::ToString;
        let all = [
            WriteError::NameEmpty { entry: 1 },
            WriteError::NameTooLong { entry: 2, len: 36 },
            WriteError::NameHasNul { entry: 3 },
            WriteError::TooLarge { entry: 4 },
            WriteError::TooManyEntries,
            WriteError::NoSuchEntry { index: 5, count: 1 },
            WriteError::PayloadOutside {
                entry: 6,
                data_offset: 0,
                size: 1,
            },
            WriteError::OutsideNowInside {
                entry: 7,
                data_offset: 0,
                size: 1,
            },
        ];
        let named: std::vec::Vec<_> = all.iter().filter_map(WriteError::entry).collect();
        assert_eq!(named, [1, 2, 3, 4, 6, 7]);
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
    fn raw_mode_over_the_entry_limit_says_raw_mode() {
        use crate::archive::{Catalog, Entry, Error, Slots};
        use crate::limits::Limits;
        use std::string::ToString;
        let limits = Limits::DEFAULT.with_max_entries(0);
        let options = crate::OpenOptions::DEFAULT
            .with_raw(true)
            .with_limits(limits);
        let mut storage = [Entry::EMPTY; 1];
        let e = Catalog::open_in(b"NRes...", Slots::new(&mut storage), options).unwrap_err();
        let limit = LimitError::TooManyEntries { count: 1, limit: 0 };
        assert_eq!(e, Error::Nres(NresError::RawOverLimit { error: limit }));
        assert_eq!(
            (e.limit(), e.entry(), e.offset()),
            (Some(limit), None, None)
        );
        assert_eq!(
            e.to_string(),
            "raw mode: the file, read as one entry, exceeds the limit of 0 entries"
        );
        // The native view says the same.
        let native = crate::nres::Archive::open_with(b"NRes...", options).unwrap_err();
        assert_eq!(native, NresError::RawOverLimit { error: limit });
        let options = options.with_limits(limits.with_max_entries(1));
        assert!(Catalog::open_in(b"NRes...", Slots::new(&mut storage), options).is_ok());
    }

    #[cfg(feature = "std")]
    #[test]
    fn converts_to_io_error() {
        let io: std::io::Error = NresError::TooShort { len: 0 }.into();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
        let io: std::io::Error = WriteError::NameEmpty { entry: 0 }.into();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidInput);
    }
}
