//! One 64-byte directory entry (SPEC 1.3), parsed or owned.

use super::name::c_str;
use super::{ENTRY_LEN, NAME_FIELD_LEN};

/// Offsets of the fields inside a 64-byte record.
pub(super) const TYPE_ID_AT: usize = 0;
pub(super) const ATTR1_AT: usize = 4;
pub(super) const ATTR2_AT: usize = 8;
pub(super) const SIZE_AT: usize = 12;
pub(super) const ATTR3_AT: usize = 16;
pub(super) const NAME_AT: usize = 20;
pub(super) const DATA_OFFSET_AT: usize = 56;
pub(super) const SORT_INDEX_AT: usize = 60;

/// The absolute file offset of the name field of entry `index` in a directory at
/// `directory_offset`. Saturates, since callers may pass any directory offset.
pub(super) fn name_field_offset(directory_offset: u64, index: u32) -> u64 {
    directory_offset
        .saturating_add(u64::from(index) * ENTRY_LEN as u64)
        .saturating_add(NAME_AT as u64)
}

/// The name field raw mode gives its one entry: `RAW`, NUL-padded.
static RAW_NAME_FIELD: [u8; NAME_FIELD_LEN] = {
    let mut field = [0; NAME_FIELD_LEN];
    field[0] = b'R';
    field[1] = b'A';
    field[2] = b'W';
    field
};

fn le_u32<const AT: usize>(record: &[u8; ENTRY_LEN]) -> u32 {
    // A fixed place in a fixed-size array: the lookup cannot miss, the default is dead.
    record
        .get(AT..)
        .and_then(<[u8]>::first_chunk)
        .map_or(0, |&bytes| u32::from_le_bytes(bytes))
}

fn name_field(record: &[u8; ENTRY_LEN]) -> &[u8; NAME_FIELD_LEN] {
    record
        .get(NAME_AT..)
        .and_then(<[u8]>::first_chunk)
        .unwrap_or(&[0; NAME_FIELD_LEN])
}

/// The record of entry `index` in a directory, if there is one.
pub(super) fn record_at(directory: &[u8], index: usize) -> Option<&[u8; ENTRY_LEN]> {
    let start = index.checked_mul(ENTRY_LEN)?;
    directory.get(start..)?.first_chunk()
}

/// One directory entry, parsed, borrowing its name field from the record.
///
/// In raw mode the name field is a static `RAW` field. The fields are exactly what the
/// record holds: nothing is validated here (see [`Entry::check`]).
///
/// ```
/// use ngi_core::nres::Entry;
///
/// let mut record = [0u8; 64];
/// record[12..16].copy_from_slice(&5u32.to_le_bytes()); // size
/// record[20..29].copy_from_slice(b"hello.txt"); // name field
/// record[56..60].copy_from_slice(&16u32.to_le_bytes()); // data_offset
/// let entry = Entry::parse(0, &record);
/// assert_eq!((entry.name(), entry.size, entry.data_offset), (&b"hello.txt"[..], 5, 16));
/// assert_eq!(entry.to_bytes(), record);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry<'a> {
    /// Position of the entry in the directory.
    pub index: u32,
    /// Resource kind, often a FourCC-like tag.
    pub type_id: u32,
    /// Opaque attribute (format, date or category).
    pub attr1: u32,
    /// Opaque attribute (subtype or timestamp).
    pub attr2: u32,
    /// Payload length in bytes.
    pub size: u32,
    /// Opaque attribute.
    pub attr3: u32,
    /// The whole 36-byte name field, including whatever follows the name's NUL (a lossless
    /// rewrite keeps those bytes).
    pub name_field: &'a [u8; NAME_FIELD_LEN],
    /// Absolute file offset of the payload.
    pub data_offset: u32,
    /// Slot `index` of the lookup permutation: the index of the `index`-th entry in name
    /// order (SPEC 1.5), not a rank of this entry.
    pub sort_index: u32,
}

impl<'a> Entry<'a> {
    /// Parses a 64-byte directory record as entry number `index`.
    pub fn parse(index: u32, record: &'a [u8; ENTRY_LEN]) -> Entry<'a> {
        Entry {
            index,
            type_id: le_u32::<TYPE_ID_AT>(record),
            attr1: le_u32::<ATTR1_AT>(record),
            attr2: le_u32::<ATTR2_AT>(record),
            size: le_u32::<SIZE_AT>(record),
            attr3: le_u32::<ATTR3_AT>(record),
            name_field: name_field(record),
            data_offset: le_u32::<DATA_OFFSET_AT>(record),
            sort_index: le_u32::<SORT_INDEX_AT>(record),
        }
    }

    /// The one entry of raw mode (SPEC 1.7): `RAW`, the whole file of `size` bytes from
    /// offset 0, every other field 0.
    pub(crate) fn raw(size: u32) -> Entry<'static> {
        Entry {
            index: 0,
            type_id: 0,
            attr1: 0,
            attr2: 0,
            size,
            attr3: 0,
            name_field: &RAW_NAME_FIELD,
            data_offset: 0,
            sort_index: 0,
        }
    }

    /// The name: the bytes of the name field before the first NUL, or all 36 when there is
    /// none (an entry that breaks SPEC 1.3, reported by [`Entry::check`]).
    pub fn name(&self) -> &'a [u8] {
        c_str(self.name_field)
    }

    /// The 64 bytes of this entry as they are written to disk (`index` is not stored).
    pub fn to_bytes(&self) -> [u8; ENTRY_LEN] {
        let head = [self.type_id, self.attr1, self.attr2, self.size, self.attr3];
        let tail = [self.data_offset, self.sort_index];
        let bytes = head
            .into_iter()
            .flat_map(u32::to_le_bytes)
            .chain(self.name_field.iter().copied())
            .chain(tail.into_iter().flat_map(u32::to_le_bytes));
        let mut out = [0; ENTRY_LEN];
        for (dst, src) in out.iter_mut().zip(bytes) {
            *dst = src;
        }
        out
    }
}

/// An owned 64-byte directory record, as [`DirectoryDecoder`](super::DirectoryDecoder)
/// yields it: it outlives the input piece it was assembled from.
///
/// ```
/// use ngi_core::nres::Record;
///
/// let mut bytes = [0u8; 64];
/// bytes[20..23].copy_from_slice(b"abc");
/// let record = Record { index: 4, bytes };
/// assert_eq!((record.entry().index, record.entry().name()), (4, &b"abc"[..]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Position of the entry in the directory.
    pub index: u32,
    /// The record as stored.
    pub bytes: [u8; ENTRY_LEN],
}

impl Record {
    /// The record parsed, borrowing from it.
    pub fn entry(&self) -> Entry<'_> {
        Entry::parse(self.index, &self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> [u8; 64] {
        let mut r = [0; 64];
        for (i, b) in r.iter_mut().enumerate() {
            *b = i as u8 + 1;
        }
        r
    }

    #[test]
    fn fields_sit_where_spec_1_3_puts_them() {
        let r = sample();
        let e = Entry::parse(9, &r);
        assert_eq!(e.index, 9);
        assert_eq!(e.type_id, 0x0403_0201);
        assert_eq!(e.attr1, 0x0807_0605);
        assert_eq!(e.attr2, 0x0C0B_0A09);
        assert_eq!(e.size, 0x100F_0E0D);
        assert_eq!(e.attr3, 0x1413_1211);
        assert_eq!(&e.name_field[..], &r[20..56]);
        assert_eq!(e.data_offset, 0x3C3B_3A39);
        assert_eq!(e.sort_index, 0x403F_3E3D);
        assert_eq!(e.to_bytes(), r);
    }

    #[test]
    fn name_stops_at_first_nul_and_keeps_the_rest_of_the_field() {
        let mut r = [0; 64];
        r[20..30].copy_from_slice(b"ab\0cd\0\0\0\x01z");
        let e = Entry::parse(0, &r);
        assert_eq!(e.name(), b"ab");
        assert_eq!(e.to_bytes(), r, "bytes after the NUL survive a rewrite");
        r[20..56].fill(b'x');
        assert_eq!(Entry::parse(0, &r).name(), &[b'x'; 36][..]);
        r[20] = 0;
        assert_eq!(Entry::parse(0, &r).name(), b"");
    }

    #[test]
    fn raw_entry() {
        let e = Entry::raw(7);
        assert_eq!(e.name(), b"RAW");
        assert_eq!(
            (e.data_offset, e.size, e.sort_index, e.type_id),
            (0, 7, 0, 0)
        );
    }

    #[test]
    fn record_access() {
        let mut dir = [0u8; 130];
        dir[64 + 20] = b'q';
        assert_eq!(
            record_at(&dir, 1).map(|r| Entry::parse(1, r).name()),
            Some(&b"q"[..])
        );
        assert_eq!(record_at(&dir, 2), None);
        assert_eq!(record_at(&dir, usize::MAX), None);
        assert_eq!(name_field_offset(100, 2), 100 + 128 + 20);
        assert_eq!(name_field_offset(u64::MAX, u32::MAX), u64::MAX);
    }
}
