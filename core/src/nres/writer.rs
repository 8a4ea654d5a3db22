//! The canonical NRes writer (SPEC 1.3 write invariants, 1.5, 1.8).

use alloc::vec::Vec;

use super::name::c_str;
use super::{
    ENTRY_LEN, Entry, HEADER_LEN, Header, MAX_NAME_LEN, NAME_FIELD_LEN, WriteError, compare_names,
};

/// Payloads start on multiples of this, counted from the start of the file (SPEC 1.1).
pub(crate) const ALIGN: u64 = 8;

/// What the canonical writer needs to know of one new entry; the size, offset and
/// `sort_index` it works out itself.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NewEntry<'n> {
    /// The name: 1 to 35 bytes, no NUL.
    pub name: &'n [u8],
    /// Resource kind.
    pub type_id: u32,
    /// Opaque attribute, stored as given.
    pub attr1: u32,
    /// Opaque attribute, stored as given.
    pub attr2: u32,
    /// Opaque attribute, stored as given.
    pub attr3: u32,
}

/// An entry added, with everything but its `sort_index`.
#[derive(Debug, Clone)]
struct Added {
    name_field: [u8; NAME_FIELD_LEN],
    type_id: u32,
    attr1: u32,
    attr2: u32,
    attr3: u32,
    size: u32,
    data_offset: u32,
}

/// Builds an NRes archive the way the engine writes one, byte for byte.
///
/// Each payload goes at the end of the data region, which starts at 16 and is kept a
/// multiple of 8 with zero padding. [`finish`](Writer::finish) writes the header, then the
/// directory at the end, with each name field zeroed and then filled, and `sort_index` the
/// stable sort of the entries by folded name, ties in entry order (SPEC 1.5). `total_size`
/// is the length written.
///
/// The writer takes as many entries as the format holds, but readers open archives
/// under [`Limits::DEFAULT`](crate::Limits::DEFAULT), which refuses more than
/// [`DEFAULT_MAX_ENTRIES`](crate::limits::DEFAULT_MAX_ENTRIES) (1 Mi) entries: open a
/// larger one with options whose limits allow it
/// ([`Archive::open_with`](super::Archive::open_with)).
///
/// ```
/// use ngi_core::nres::{Archive, LookupTable, NewEntry, Writer};
///
/// let mut writer = Writer::new();
/// assert_eq!(writer.add(NewEntry { name: b"b.msh", ..NewEntry::default() }, b"mesh")?, 0);
/// assert_eq!(writer.add(NewEntry { name: b"A.TEX", type_id: 1, ..NewEntry::default() }, b"tex")?, 1);
/// let bytes = writer.finish();
/// assert_eq!(bytes.len(), 16 + 8 + 8 + 2 * 64);
///
/// let archive = Archive::open(&bytes)?;
/// assert_eq!(archive.lookup_table(), LookupTable::Canonical);
/// assert_eq!(archive.entry(0).map(|e| e.sort_index), Some(1)); // "a.tex" sorts first
/// assert_eq!(archive.payload(archive.find(b"a.tex").unwrap())?, b"tex");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Writer {
    /// The header's place (zeros until `finish`), then the payloads with their padding.
    data: Vec<u8>,
    entries: Vec<Added>,
}

impl Writer {
    /// An empty archive.
    pub fn new() -> Writer {
        Writer::default()
    }

    /// Appends an entry with its payload; returns the new entry's index.
    ///
    /// A name another entry has already, as the engine compares names (ASCII case
    /// ignored), is taken as it is (real archives hold such names), and a lookup by it
    /// then gives only one of them, the one the lookup table's search meets first: keep
    /// the names of the entries added to check (with
    /// [`compare_names`](crate::nres::compare_names)) where that is not wanted.
    ///
    /// # Errors
    ///
    /// A refused entry changes nothing.
    ///
    /// * [`WriteError::NameEmpty`], [`WriteError::NameTooLong`] (over 35 bytes) or
    ///   [`WriteError::NameHasNul`] for the name.
    /// * [`WriteError::TooLarge`] when the payload, with its padding and the directory,
    ///   would take the archive past the 32-bit `total_size`.
    /// * [`WriteError::TooManyEntries`] when the directory alone would.
    pub fn add(&mut self, entry: NewEntry<'_>, payload: &[u8]) -> Result<usize, WriteError> {
        let index = self.entries.len();
        let name_field = name_field(entry.name, index)?;
        let data_offset = self.data_end();
        let padded_end = fits(data_offset, payload.len() as u64, index)?;
        // `fits` bounded both by `u32::MAX`; only a 16-bit `usize` could refuse the end.
        let size = u32::try_from(payload.len()).map_err(|_| too_large(index))?;
        let data_offset = u32::try_from(data_offset).map_err(|_| too_large(index))?;
        let padded_end = usize::try_from(padded_end).map_err(|_| too_large(index))?;

        if self.data.is_empty() {
            self.data.resize(HEADER_LEN, 0);
        }
        self.data.extend_from_slice(payload);
        self.data.resize(padded_end, 0);
        self.entries.push(Added {
            name_field,
            type_id: entry.type_id,
            attr1: entry.attr1,
            attr2: entry.attr2,
            attr3: entry.attr3,
            size,
            data_offset,
        });
        Ok(index)
    }

    /// The number of entries added.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry has been added.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The finished archive: header, payloads, directory.
    pub fn finish(self) -> Vec<u8> {
        let Writer { mut data, entries } = self;
        if data.is_empty() {
            data.resize(HEADER_LEN, 0);
        }
        let directory_len = (entries.len() as u64).saturating_mul(ENTRY_LEN as u64);
        // `add` kept the count and the total within 32 bits: the fallbacks are dead.
        let header = Header {
            entry_count: u32::try_from(entries.len()).unwrap_or(u32::MAX),
            total_size: u32::try_from((data.len() as u64).saturating_add(directory_len))
                .unwrap_or(u32::MAX),
        };
        if let Some(head) = data.first_chunk_mut::<HEADER_LEN>() {
            *head = header.to_bytes();
        }
        data.reserve_exact(usize::try_from(directory_len).unwrap_or(0));
        let order = sort_order(&entries);
        for ((index, added), sort_index) in (0u32..).zip(&entries).zip(order) {
            let entry = Entry {
                index,
                type_id: added.type_id,
                attr1: added.attr1,
                attr2: added.attr2,
                size: added.size,
                attr3: added.attr3,
                name_field: &added.name_field,
                data_offset: added.data_offset,
                sort_index,
            };
            data.extend_from_slice(&entry.to_bytes());
        }
        data
    }

    /// Where the next payload goes.
    fn data_end(&self) -> u64 {
        self.data.len().max(HEADER_LEN) as u64
    }
}

fn too_large(index: usize) -> WriteError {
    WriteError::TooLarge {
        entry: u32::try_from(index).unwrap_or(u32::MAX),
    }
}

/// The zeroed name field with the name copied in (SPEC 1.3: `memset` 0, `strncpy` 35).
pub(crate) fn name_field(name: &[u8], index: usize) -> Result<[u8; NAME_FIELD_LEN], WriteError> {
    let entry = u32::try_from(index).map_err(|_| WriteError::TooManyEntries)?;
    if name.is_empty() {
        return Err(WriteError::NameEmpty { entry });
    }
    if name.len() > MAX_NAME_LEN {
        return Err(WriteError::NameTooLong {
            entry,
            len: name.len(),
        });
    }
    if name.contains(&0) {
        return Err(WriteError::NameHasNul { entry });
    }
    let mut field = [0; NAME_FIELD_LEN];
    for (dst, &src) in field.iter_mut().zip(name) {
        *dst = src;
    }
    Ok(field)
}

/// Checks that a payload of `len` bytes at `data_offset`, as entry `index`, keeps the
/// archive within the 32-bit `total_size`; returns the padded end of the payload.
pub(crate) fn fits(data_offset: u64, len: u64, index: usize) -> Result<u64, WriteError> {
    let limit = u64::from(u32::MAX);
    let directory_len = (index as u64)
        .saturating_add(1)
        .saturating_mul(ENTRY_LEN as u64);
    if directory_len.saturating_add(HEADER_LEN as u64) > limit {
        return Err(WriteError::TooManyEntries);
    }
    data_offset
        .checked_add(len)
        .and_then(|end| end.checked_next_multiple_of(ALIGN))
        .filter(|&padded_end| padded_end.saturating_add(directory_len) <= limit)
        .ok_or_else(|| too_large(index))
}

/// SPEC 1.5: slot `i` holds the index of the `i`-th entry in name order; `sort_by` is
/// stable, so equal names keep entry order, as the engine's bubble sort does.
fn sort_order(entries: &[Added]) -> Vec<u32> {
    canonical_order(entries.len(), |i| {
        entries
            .get(i)
            .map_or(&[][..], |added| c_str(&added.name_field))
    })
}

/// The canonical lookup permutation of `count` entries whose names `name` gives (SPEC
/// 1.5): entry indices stably sorted by folded name.
pub(crate) fn canonical_order<'n>(count: usize, name: impl Fn(usize) -> &'n [u8]) -> Vec<u32> {
    let mut order: Vec<u32> = (0u32..).take(count).collect();
    let name = |index: u32| usize::try_from(index).map_or(&[][..], &name);
    order.sort_by(|&a, &b| compare_names(name(a), name(b)));
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nres::testutil::canonical_sort;
    use crate::nres::{Archive, LookupTable};

    fn named(name: &[u8]) -> NewEntry<'_> {
        NewEntry {
            name,
            ..NewEntry::default()
        }
    }

    fn u32_at(bytes: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    }

    /// An archive ends by `u32::MAX`: the longest payload whose padded end leaves room
    /// for the directory fits, a byte more (8 more once padded) does not. (The total is a
    /// multiple of 8, so it never is `u32::MAX` itself.)
    #[test]
    fn a_payload_fits_up_to_the_last_byte_total_size_can_say() {
        let limit = u64::from(u32::MAX);
        // Entry 1: a directory of two records after the payload's padded end.
        let end = (limit - 2 * ENTRY_LEN as u64) / ALIGN * ALIGN;
        let len = end - 1000;
        assert_eq!(fits(1000, len, 1), Ok(end));
        assert_eq!(
            fits(1000, len + 1, 1),
            Err(WriteError::TooLarge { entry: 1 })
        );
        assert_eq!(
            fits(1000, u64::MAX, 1),
            Err(WriteError::TooLarge { entry: 1 })
        );
    }

    #[test]
    fn empty_archive_is_the_bare_header() {
        let bytes = Writer::new().finish();
        assert_eq!(
            bytes,
            b"NRes\x00\x01\x00\x00\x00\x00\x00\x00\x10\x00\x00\x00"
        );
        assert!(Archive::open(&bytes).unwrap().is_empty());
    }

    #[test]
    fn byte_layout_of_a_small_archive() {
        let mut w = Writer::new();
        let adds: [(NewEntry<'_>, &[u8]); 5] = [
            (
                NewEntry {
                    name: b"b",
                    type_id: 0x4D41_5430,
                    attr1: 1,
                    attr2: 2,
                    attr3: 3,
                },
                b"\x01\x02\x03",
            ),
            (named(b"A_"), b"12345678"),
            (named(b"ab"), b""),
            (named(b"B"), b"\x09"),
            (named(b"AB"), b"xyz"),
        ];
        for (i, (entry, payload)) in adds.iter().enumerate() {
            assert_eq!(w.add(*entry, payload), Ok(i));
        }
        assert_eq!(w.len(), 5);
        let bytes = w.finish();

        // Payloads at 16 (3 + 5 padding), 24 (8), 32 (0), 32 (1 + 7), 40 (3 + 5); directory at 48.
        let offsets = [16u32, 24, 32, 32, 40];
        let total = 48 + 5 * 64;
        assert_eq!(bytes.len(), total);
        assert_eq!(&bytes[..4], b"NRes");
        assert_eq!(u32_at(&bytes, 4), 0x100);
        assert_eq!(u32_at(&bytes, 8), 5);
        assert_eq!(u32_at(&bytes, 12), total as u32);
        assert_eq!(&bytes[16..19], b"\x01\x02\x03");
        assert_eq!(&bytes[19..24], &[0; 5]);
        assert_eq!(&bytes[24..32], b"12345678");
        assert_eq!(bytes[32], 9);
        assert_eq!(&bytes[33..40], &[0; 7]);
        assert_eq!(&bytes[40..43], b"xyz");
        assert_eq!(&bytes[43..48], &[0; 5]);

        // Folded: b, a_, ab, b, ab -> a_(1) ab(2) ab(4) b(0) b(3).
        let sort = [1u32, 2, 4, 0, 3];
        let names: [&[u8]; 5] = [b"b", b"A_", b"ab", b"B", b"AB"];
        assert_eq!(canonical_sort(&names), sort);
        for i in 0..5 {
            let r = &bytes[48 + 64 * i..48 + 64 * (i + 1)];
            let (entry, payload) = adds[i];
            assert_eq!(u32_at(r, 0), entry.type_id);
            assert_eq!(
                (u32_at(r, 4), u32_at(r, 8), u32_at(r, 16)),
                (entry.attr1, entry.attr2, entry.attr3)
            );
            assert_eq!(u32_at(r, 12), payload.len() as u32);
            assert_eq!(&r[20..20 + names[i].len()], names[i]);
            assert!(
                r[20 + names[i].len()..56].iter().all(|&b| b == 0),
                "zeroed field"
            );
            assert_eq!(u32_at(r, 56), offsets[i]);
            assert_eq!(u32_at(r, 60), sort[i]);
        }

        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.lookup_table(), LookupTable::Canonical);
        assert_eq!(a.problems().next(), None);
        for (i, (entry, payload)) in adds.iter().enumerate() {
            assert_eq!(a.payload(i), Ok(*payload));
            let found = a.find(entry.name).unwrap();
            assert!(compare_names(a.entry(found).unwrap().name(), entry.name).is_eq());
        }
        // "ab" and "AB" are one name under folding, in slots 1 and 2; the search probes
        // slot 2 first. "b" and "B" fill slots 3 and 4; it reaches slot 3 first.
        assert_eq!(a.find(b"ab"), Some(4));
        assert_eq!(a.find(b"AB"), Some(4));
        assert_eq!(a.find(b"b"), Some(0));
        assert_eq!(a.find(b"a_"), Some(1));
        assert_eq!(a.find(b"A_"), Some(1));
    }

    #[test]
    fn reopens_and_finds_every_name() {
        let mut w = Writer::new();
        let mut names = Vec::new();
        for i in 0..200u32 {
            let mut name = alloc::format!("Entry_{:03}.{}", (i * 37) % 200, i % 3).into_bytes();
            if i % 2 == 0 {
                name.make_ascii_uppercase();
            }
            let payload = alloc::vec![i as u8; (i % 13) as usize];
            w.add(named(&name), &payload).unwrap();
            names.push(name);
        }
        let bytes = w.finish();
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.lookup_table(), LookupTable::Canonical);
        for (i, name) in names.iter().enumerate() {
            assert_eq!(
                a.find(name),
                Some(i),
                "{}",
                alloc::string::String::from_utf8_lossy(name)
            );
            assert_eq!(a.payload(i).map(<[u8]>::len), Ok(i % 13));
            assert_eq!(a.entry(i).unwrap().data_offset % 8, 0);
        }
    }

    #[test]
    fn name_errors() {
        let mut w = Writer::new();
        w.add(named(b"first"), b"abc").unwrap();
        let before = w.clone().finish();
        assert_eq!(
            w.add(named(b""), b"x"),
            Err(WriteError::NameEmpty { entry: 1 })
        );
        assert_eq!(
            w.add(named(&[b'n'; 36]), b"x"),
            Err(WriteError::NameTooLong { entry: 1, len: 36 })
        );
        assert_eq!(
            w.add(named(b"a\0b"), b"x"),
            Err(WriteError::NameHasNul { entry: 1 })
        );
        assert_eq!(
            w.add(named(b"ab\0"), b"x"),
            Err(WriteError::NameHasNul { entry: 1 })
        );
        assert_eq!(w.len(), 1);
        assert_eq!(w.clone().finish(), before, "refused entries change nothing");
        assert_eq!(w.add(named(&[b'n'; 35]), b"x"), Ok(1));
        let bytes = w.finish();
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.find(&[b'N'; 35]), Some(1));
        assert_eq!(a.entry(1).map(|e| e.name_field[35]), Some(0));
    }

    #[test]
    fn size_limits() {
        let max = u64::from(u32::MAX);
        assert_eq!(fits(16, 5, 0), Ok(24));
        assert_eq!(fits(24, 0, 1), Ok(24));
        // The largest archive with one entry: 16 + payload + padding + 64 <= u32::MAX.
        let room = (max - 64) / 8 * 8;
        assert_eq!(fits(16, room - 16, 0), Ok(room));
        assert_eq!(
            fits(16, room - 15, 0),
            Err(WriteError::TooLarge { entry: 0 })
        );
        assert_eq!(
            fits(16, u64::from(u32::MAX), 3),
            Err(WriteError::TooLarge { entry: 3 })
        );
        assert_eq!(
            fits(u64::MAX - 3, 1, 0),
            Err(WriteError::TooLarge { entry: 0 })
        );
        assert_eq!(
            fits(16, u64::MAX, 0),
            Err(WriteError::TooLarge { entry: 0 })
        );
        assert_eq!(fits(16, 0, usize::MAX), Err(WriteError::TooManyEntries));
        let most = ((max - 16) / 64) as usize;
        assert_eq!(fits(16, 0, most - 1), Ok(16));
        assert_eq!(fits(16, 0, most), Err(WriteError::TooManyEntries));
    }

    #[test]
    fn display() {
        use alloc::string::ToString;
        assert_eq!(
            WriteError::NameTooLong { entry: 4, len: 40 }.to_string(),
            "entry 4: name of 40 bytes is longer than 35"
        );
    }
}
