//! One entry of a catalog, described the same way for both formats.

use core::ops::Range;

use crate::codec::Method;
use crate::nres;
use crate::rsli;

/// One entry of a [`Catalog`](super::Catalog): what every front-end needs to find it,
/// read it and decode it, the same for NRes and RsLi, with the format's own record beside.
///
/// | field | NRes | RsLi |
/// |---|---|---|
/// | [`size`](Entry::size) | `size` | `unpacked_size` |
/// | [`offset`](Entry::offset) | `data_offset` | `data_offset` + the media overlay when honoured |
/// | [`packed_len`](Entry::packed_len) | `size` | the bytes the engine reads: `unpacked_size` for stored and XOR entries, else `packed_size` |
/// | [`method`](Entry::method) | [`Method::Stored`] | from `flags` (`None`: no method) |
/// | [`key`](Entry::key) | 0 | the settled `sort_index` (SPEC 2.5) |
///
/// The fields are what the directory says, unchecked: whether the packed range lies in the
/// file is [`Catalog::packed_range`](super::Catalog::packed_range)'s to say.
///
/// ```
/// use ngi_core::archive::{Catalog, Entry, Native, Slots};
/// use ngi_core::{Method, OpenOptions};
///
/// let mut storage = [Entry::EMPTY; 1];
/// let options = OpenOptions::DEFAULT.with_raw(true);
/// let catalog = Catalog::open_in(b"any bytes", Slots::new(&mut storage), options)?;
/// let entry = catalog.entry(0).unwrap();
/// assert_eq!((entry.name(), entry.size, entry.offset), (&b"RAW"[..], 9, 0));
/// assert_eq!(entry.method, Some(Method::Stored));
/// assert!(matches!(entry.native, Native::Nres(_)));
/// # Ok::<(), ngi_core::archive::Error>(())
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// Position in the directory (NRes) or table (RsLi).
    pub index: u32,
    /// Bytes the entry decodes to.
    pub size: u64,
    /// Absolute file offset of the packed bytes.
    pub offset: u64,
    /// Bytes of packed data the engine reads from [`offset`](Entry::offset). Not always
    /// RsLi's own `packed_size` field (that is in [`native`](Entry::native)): stored and XOR
    /// entries are read for `unpacked_size` bytes whatever it says (SPEC 2.7).
    pub packed_len: u64,
    /// The packing method, `None` for RsLi flags that name none.
    pub method: Option<Method>,
    /// The XOR key of the packed bytes (used by the XOR methods only).
    pub key: u16,
    /// The format's own record, every field as stored.
    pub native: Native,
}

/// The record an [`Entry`] was read from, as its format stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Native {
    /// An NRes directory record: `type_id`, `attr1..3`, the whole name field (bytes after
    /// the NUL included), `sort_index`. Parse it with [`nres::Record::entry`].
    Nres(nres::Record),
    /// A decrypted RsLi table entry, `sort_index` settled as the engine does
    /// ([`rsli::Entry::file_sort_index`] keeps the stored value).
    Rsli(rsli::Entry),
}

impl Entry {
    /// A placeholder to fill caller storage with (`[Entry::EMPTY; 64]`): an NRes record of
    /// zeros.
    pub const EMPTY: Entry = Entry {
        index: 0,
        size: 0,
        offset: 0,
        packed_len: 0,
        method: Some(Method::Stored),
        key: 0,
        native: Native::Nres(nres::Record {
            index: 0,
            bytes: [0; nres::ENTRY_LEN],
        }),
    };

    /// The entry of an NRes record: stored, unkeyed, its payload where it says.
    pub(crate) fn from_nres(record: nres::Record) -> Entry {
        let e = record.entry();
        Entry {
            index: record.index,
            size: e.size.into(),
            offset: e.data_offset.into(),
            packed_len: e.size.into(),
            method: Some(Method::Stored),
            key: 0,
            native: Native::Nres(record),
        }
    }

    /// The entry of an RsLi table entry under the media `overlay` in effect; its key is
    /// the entry's `sort_index`, so this is built once that is settled.
    pub(crate) fn from_rsli(index: u32, entry: rsli::Entry, overlay: Option<u32>) -> Entry {
        Entry {
            index,
            size: entry.unpacked_size.into(),
            offset: u64::from(entry.data_offset) + u64::from(overlay.unwrap_or(0)),
            packed_len: entry.stream_len().into(),
            method: entry.method().ok(),
            key: entry.data_key(),
            native: Native::Rsli(entry),
        }
    }

    /// The name: NRes's name field up to its first NUL (all 36 bytes when there is none),
    /// RsLi's up to its first NUL, at most 12 bytes.
    pub fn name(&self) -> &[u8] {
        match &self.native {
            Native::Nres(record) => record.entry().name(),
            Native::Rsli(entry) => entry.name(),
        }
    }

    /// The slot value of the lookup permutation: NRes `sort_index`, RsLi's settled one.
    pub fn sort_index(&self) -> u32 {
        match &self.native {
            Native::Nres(record) => record.entry().sort_index,
            Native::Rsli(entry) => entry.sort_index.into(),
        }
    }

    /// The packed range the directory declares, `offset .. offset + packed_len`
    /// (unchecked; see [`Catalog::packed_range`](super::Catalog::packed_range)).
    pub fn declared_range(&self) -> Range<u64> {
        self.offset..self.offset.saturating_add(self.packed_len)
    }

    /// The NRes directory record, parsed; `None` for an RsLi entry.
    pub fn as_nres(&self) -> Option<nres::Entry<'_>> {
        match &self.native {
            Native::Nres(record) => Some(record.entry()),
            Native::Rsli(_) => None,
        }
    }

    /// The RsLi table entry; `None` for an NRes entry.
    pub fn as_rsli(&self) -> Option<&rsli::Entry> {
        match &self.native {
            Native::Rsli(entry) => Some(entry),
            Native::Nres(_) => None,
        }
    }
}

impl Default for Entry {
    /// [`Entry::EMPTY`].
    fn default() -> Self {
        Entry::EMPTY
    }
}

/// The RsLi entries of a catalog are a table the engine's sort works on in place; NRes
/// entries (there are none in an RsLi catalog) are not part of it.
impl rsli::permutation::Table for [Entry] {
    fn count(&self) -> usize {
        self.len()
    }
    fn at(&self, i: usize) -> Option<&rsli::Entry> {
        self.get(i).and_then(Entry::as_rsli)
    }
    fn at_mut(&mut self, i: usize) -> Option<&mut rsli::Entry> {
        match self.get_mut(i).map(|e| &mut e.native) {
            Some(Native::Rsli(entry)) => Some(entry),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The size the README states; a change must update it.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn entry_size_is_as_documented() {
        assert_eq!(core::mem::size_of::<Entry>(), 104);
    }
}
