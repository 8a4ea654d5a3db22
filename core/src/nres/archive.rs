//! The validated zero-copy view over an NRes file, and the engine's lookup.

use core::ops::Range;

use super::entry::{Entry, record_at};
use super::name::{c_str, compare_names};
use super::table::{LookupTable, classify, find_by};
use super::{ENTRY_LEN, Entries, Header, NresError, Problems};
use crate::limits::Limits;
use crate::options::OpenOptions;

/// An NRes archive: a view over the bytes of the whole file, validated once at opening.
///
/// Opening checks the header (SPEC 1.2) and classifies the lookup table; entries are
/// parsed from the directory bytes when asked for. The per-entry rules of SPEC 1.3 are
/// checked per entry, so a file with one broken entry still opens and its other entries
/// stay readable: [`payload`](Archive::payload) refuses only the broken one, and
/// [`problems`](Archive::problems) lists every violation.
///
/// Cloning copies a few words; nothing is allocated.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use ngi_core::nres::{Archive, NewEntry, Writer};
///
/// let mut writer = Writer::new();
/// writer.add(NewEntry { name: b"Map.txt", ..NewEntry::default() }, b"tiles")?;
/// writer.add(NewEntry { name: b"units.dat", type_id: 7, ..NewEntry::default() }, &[1, 2, 3])?;
/// let bytes = writer.finish();
///
/// let archive = Archive::open(&bytes)?;
/// assert_eq!(archive.len(), 2);
/// let units = archive.find(b"UNITS.DAT").expect("case does not matter");
/// assert_eq!(archive.entry(units).map(|e| e.type_id), Some(7));
/// assert_eq!(archive.payload(units)?, &[1, 2, 3]);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Archive<'a> {
    data: &'a [u8],
    layout: Layout<'a>,
    table: LookupTable,
}

#[derive(Debug, Clone, Copy)]
enum Layout<'a> {
    Nres {
        header: Header,
        directory_offset: u64,
        /// Exactly `entry_count * 64` bytes, since `total_size` is the real length.
        directory: &'a [u8],
    },
    /// Raw mode: the whole data is one entry of this size.
    Raw { size: u32 },
}

impl<'a> Archive<'a> {
    /// Opens an NRes archive over the bytes of the whole file.
    ///
    /// Validates the header (SPEC 1.2): the magic, the version, `entry_count >= 0`,
    /// `total_size == data.len()` and `directory_offset >= 16`, in that order. Then
    /// classifies the lookup table in one pass without allocating ([`LookupTable`]).
    ///
    /// Does **not** fail for an entry that breaks a per-entry rule of SPEC 1.3: those
    /// surface from [`payload`](Archive::payload), [`check_entry`](Archive::check_entry)
    /// and [`problems`](Archive::problems).
    ///
    /// This is [`open_with`](Archive::open_with) with [`OpenOptions::DEFAULT`]; pass other
    /// limits to `open_with` to take an archive of more than
    /// [`DEFAULT_MAX_ENTRIES`](crate::limits::DEFAULT_MAX_ENTRIES) entries.
    ///
    /// # Errors
    ///
    /// The first header rule broken, in the order above, then the limit:
    ///
    /// * [`NresError::TooShort`], [`NresError::BadMagic`], [`NresError::BadVersion`] or
    ///   [`NresError::NegativeEntryCount`], as [`Header::parse`] reports them;
    /// * [`NresError::SizeMismatch`] when `total_size` is not the length of `data`;
    /// * [`NresError::DirectoryOutOfBounds`] when the directory would start before offset
    ///   16;
    /// * [`NresError::Limit`] when the entry count is above
    ///   [`DEFAULT_MAX_ENTRIES`](crate::limits::DEFAULT_MAX_ENTRIES).
    pub fn open(data: &'a [u8]) -> Result<Archive<'a>, NresError> {
        Archive::open_with(data, OpenOptions::DEFAULT)
    }

    /// Opens an NRes archive over the bytes of the whole file as `options` say: in raw
    /// mode when [`OpenOptions::raw`] is set ([`open_raw`](Archive::open_raw)), otherwise
    /// as [`open`](Archive::open) does, with the entry limit of `options`.
    ///
    /// The count is checked once the header and the file's length agree with it and
    /// before anything is read from the directory, so a hostile count costs nothing.
    /// (Opening never allocates; the limit is for callers that act per entry.) Entry sizes
    /// are checked per entry: [`check_limits`](Archive::check_limits).
    ///
    /// ```
    /// use ngi_core::limits::{LimitError, Limits};
    /// use ngi_core::nres::{Archive, Header, NresError};
    /// use ngi_core::OpenOptions;
    ///
    /// let mut file = [0u8; 16 + 3 * 64];
    /// file[..16].copy_from_slice(&Header { entry_count: 3, total_size: 208 }.to_bytes());
    /// let options = OpenOptions::DEFAULT.with_limits(Limits::DEFAULT.with_max_entries(2));
    /// assert_eq!(
    ///     Archive::open_with(&file, options).unwrap_err(),
    ///     NresError::Limit {
    ///         error: LimitError::TooManyEntries { count: 3, limit: 2 },
    ///         offset: 8,
    ///     }
    /// );
    /// assert_eq!(Archive::open_with(&file, OpenOptions::DEFAULT)?.len(), 3);
    /// # Ok::<(), NresError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// * In raw mode, [`NresError::RawTooLarge`] as [`open_raw`](Archive::open_raw)
    ///   reports it, or [`NresError::RawOverLimit`] when
    ///   [`max_entries`](crate::limits::Limits::max_entries) is 0 (the one entry is over
    ///   it).
    /// * Otherwise [`open`](Archive::open)'s header errors, then [`NresError::Limit`]
    ///   (`offset` 8) when the entry count is above
    ///   [`Limits::max_entries`](crate::limits::Limits::max_entries).
    pub fn open_with(data: &'a [u8], options: OpenOptions) -> Result<Archive<'a>, NresError> {
        if options.raw {
            let archive = Archive::open_raw(data)?;
            (options.limits.check_count(1)).map_err(|error| NresError::RawOverLimit { error })?;
            return Ok(archive);
        }
        let (header, directory_offset) = checked_header(data)?;
        check_count(header.entry_count, &options.limits)?;
        // The offset is at most `total_size`, the length of `data`, so this only fails on
        // a platform whose `usize` cannot index the data anyway.
        let directory = usize::try_from(directory_offset)
            .ok()
            .and_then(|start| data.get(start..))
            .ok_or(NresError::DirectoryOutOfBounds {
                entry_count: header.entry_count,
                total_size: header.total_size,
            })?;
        Ok(Archive {
            data,
            layout: Layout::Nres {
                header,
                directory_offset,
                directory,
            },
            table: classify(directory),
        })
    }

    /// Opens `data` in raw mode (SPEC 1.7): no header check, one entry named `RAW` whose
    /// payload is all of `data` (`data_offset` 0, `size` the length; the type, attributes
    /// and `sort_index` are 0).
    ///
    /// ```
    /// use ngi_core::nres::Archive;
    ///
    /// let archive = Archive::open_raw(b"\x89PNG...")?;
    /// assert!(archive.is_raw());
    /// assert_eq!(archive.find(b"raw"), Some(0));
    /// assert_eq!(archive.payload(0)?, b"\x89PNG...");
    /// # Ok::<(), ngi_core::nres::NresError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// * [`NresError::RawTooLarge`], and nothing else, when the length of `data` does not
    ///   fit the 32-bit `size` field.
    pub fn open_raw(data: &'a [u8]) -> Result<Archive<'a>, NresError> {
        let size = u32::try_from(data.len()).map_err(|_| NresError::RawTooLarge {
            len: data.len() as u64,
        })?;
        Ok(Archive {
            data,
            layout: Layout::Raw { size },
            table: LookupTable::Canonical,
        })
    }

    /// The bytes of the whole file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Whether the archive was opened in raw mode.
    pub fn is_raw(&self) -> bool {
        matches!(self.layout, Layout::Raw { .. })
    }

    /// The header, or `None` in raw mode.
    pub fn header(&self) -> Option<Header> {
        match self.layout {
            Layout::Nres { header, .. } => Some(header),
            Layout::Raw { .. } => None,
        }
    }

    /// Where the directory starts: the end of the data region. In raw mode, the length of
    /// the data.
    pub fn directory_offset(&self) -> u64 {
        match self.layout {
            Layout::Nres {
                directory_offset, ..
            } => directory_offset,
            Layout::Raw { .. } => self.data.len() as u64,
        }
    }

    /// The number of entries (1 in raw mode).
    pub fn len(&self) -> usize {
        match self.layout {
            Layout::Nres { directory, .. } => directory.len() / ENTRY_LEN,
            Layout::Raw { .. } => 1,
        }
    }

    /// Whether the archive has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `index` as its record says, unchecked (see [`check_entry`](Archive::check_entry)),
    /// or `None` past the last entry.
    pub fn entry(&self, index: usize) -> Option<Entry<'a>> {
        match self.layout {
            Layout::Nres { directory, .. } => {
                let record = record_at(directory, index)?;
                Some(Entry::parse(u32::try_from(index).ok()?, record))
            }
            Layout::Raw { size } => (index == 0).then(|| Entry::raw(size)),
        }
    }

    /// Every entry, in directory order.
    pub fn entries(&self) -> Entries<'a> {
        Entries::new(self.clone())
    }

    /// Checks the read rules of SPEC 1.3 for entry `index` ([`Entry::check`]); the raw-mode
    /// entry always passes.
    ///
    /// # Errors
    ///
    /// * [`NresError::NoSuchEntry`] past the last entry.
    /// * The first read rule the entry breaks, in [`Entry::check`]'s order:
    ///   [`NresError::DataBeforeHeader`], [`NresError::DataPastDirectory`] or
    ///   [`NresError::NameUnterminated`].
    pub fn check_entry(&self, index: usize) -> Result<(), NresError> {
        let entry = self.entry(index).ok_or(NresError::NoSuchEntry {
            index: index as u64,
        })?;
        match self.layout {
            Layout::Nres {
                directory_offset, ..
            } => entry.check(directory_offset),
            Layout::Raw { .. } => Ok(()),
        }
    }

    /// Checks entry `index`'s `size` against [`Limits::max_entry_size`]
    /// ([`Entry::check_limits`]); the raw-mode entry (the whole file) is checked too.
    ///
    /// # Errors
    ///
    /// * [`NresError::NoSuchEntry`] past the last entry.
    /// * [`NresError::Limit`] when the entry's `size` is above `limits.max_entry_size`.
    pub fn check_limits(&self, index: usize, limits: &Limits) -> Result<(), NresError> {
        self.entry(index)
            .ok_or(NresError::NoSuchEntry {
                index: index as u64,
            })?
            .check_limits(limits)
    }

    /// The payload of entry `index`, once its data range passes the rules of SPEC 1.3
    /// ([`Entry::check_data_range`]). A name without its NUL does not block the bytes:
    /// [`check_entry`](Archive::check_entry) and [`problems`](Archive::problems) report it.
    ///
    /// # Errors
    ///
    /// * [`NresError::NoSuchEntry`] past the last entry.
    /// * [`NresError::DataBeforeHeader`] or [`NresError::DataPastDirectory`] when the
    ///   entry's data range breaks that rule (never in raw mode).
    pub fn payload(&self, index: usize) -> Result<&'a [u8], NresError> {
        let entry = self.entry(index).ok_or(NresError::NoSuchEntry {
            index: index as u64,
        })?;
        if let Layout::Nres {
            directory_offset, ..
        } = self.layout
        {
            entry.check_data_range(directory_offset)?;
        }
        // check_entry put the range inside the data; a failure here is only conceivable
        // on a platform whose `usize` cannot index the data anyway.
        payload_range(&entry)
            .and_then(|range| self.data.get(range))
            .ok_or(NresError::DataPastDirectory {
                entry: entry.index,
                data_offset: entry.data_offset,
                size: entry.size,
                directory_offset: self.directory_offset(),
            })
    }

    /// Finds an entry by name as the engine does (SPEC 1.4–1.6).
    ///
    /// The query is a C string: it ends at its first NUL (or at the end of the slice).
    /// Names compare as [`compare_names`] does (`_strcmpi`, folding to lower case). When
    /// [`lookup_table`](Archive::lookup_table) is `Canonical` or `Sorted`, this is the
    /// engine's binary search over the `sort_index` slots; when it is `Unsorted` or
    /// `OutOfRange`, the linear scan in entry order ([`find_linear`](Archive::find_linear)).
    ///
    /// **Duplicate names**: the binary search returns the first matching entry it probes,
    /// which is the one whose slot lies nearest the middle of the range still open when the
    /// run of equal names is reached — not necessarily the first of them in entry order.
    /// With three entries all named `dup`, it is entry 1. The linear scan returns the first
    /// in entry order.
    ///
    /// A `Sorted` table that is no permutation can leave an entry in no slot; the binary
    /// search then misses it, exactly as the engine does. An `Unsorted` one that is no
    /// permutation is where this lookup and the engine's part: the engine keeps its binary
    /// search, which may miss entries, and this lookup scans (see
    /// [`LookupTable::Unsorted`]).
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        find_by(
            self.len(),
            self.table,
            |slot| self.entry(slot).map_or(u32::MAX, |e| e.sort_index),
            |index| self.entry(index).map(|e| e.name()),
            c_str(name),
        )
    }

    /// The first entry, in entry order, whose name equals `name` under [`compare_names`]:
    /// the engine's fallback lookup, available whatever the table.
    pub fn find_linear(&self, name: &[u8]) -> Option<usize> {
        self.entries()
            .position(|entry| compare_names(name, entry.name()).is_eq())
    }

    /// How usable the `sort_index` table is, as classified at opening.
    pub fn lookup_table(&self) -> LookupTable {
        self.table
    }

    /// Every per-entry rule violation (SPEC 1.3), in entry order; none in raw mode.
    pub fn problems(&self) -> Problems<'a> {
        Problems::new(self.clone())
    }
}

/// The header of `data`, checked against the length of `data` (SPEC 1.2): the magic, the
/// version, `entry_count >= 0`, `total_size == data.len()` and `directory_offset >= 16`,
/// in that order. Returns it with the directory offset.
fn checked_header(data: &[u8]) -> Result<(Header, u64), NresError> {
    let header = Header::parse(data)?;
    let actual = data.len() as u64;
    if u64::from(header.total_size) != actual {
        return Err(NresError::SizeMismatch {
            declared: header.total_size,
            actual,
        });
    }
    Ok((header, header.directory_offset()?))
}

/// The entry count against [`Limits::max_entries`]; the error points at the count's field.
pub(crate) fn check_count(count: u32, limits: &Limits) -> Result<(), NresError> {
    limits
        .check_count(u64::from(count))
        .map_err(|error| NresError::Limit { error, offset: 8 })
}

fn payload_range(entry: &Entry<'_>) -> Option<Range<usize>> {
    let start = usize::try_from(entry.data_offset).ok()?;
    let len = usize::try_from(entry.size).ok()?;
    Some(start..start.checked_add(len)?)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::nres::testutil::{Rec, XorShift, archive, canonical_sort, header, named_archive};
    use std::vec::Vec;

    fn opened(bytes: &[u8]) -> Result<(), NresError> {
        Archive::open(bytes).map(|_| ())
    }

    #[test]
    fn too_short_bad_magic_bad_version_negative_count() {
        assert_eq!(opened(b""), Err(NresError::TooShort { len: 0 }));
        assert_eq!(
            opened(&header(0, 16)[..15]),
            Err(NresError::TooShort { len: 15 })
        );
        let mut h = header(0, 16);
        h[3] = b'S';
        assert_eq!(opened(&h), Err(NresError::BadMagic { found: *b"NReS" }));
        let mut h = header(0, 16);
        h[5] = 2;
        assert_eq!(opened(&h), Err(NresError::BadVersion { found: 0x200 }));
        assert_eq!(
            opened(&header(-1, 16)),
            Err(NresError::NegativeEntryCount { count: -1 })
        );
    }

    #[test]
    fn size_mismatch() {
        let mut bytes = named_archive(&[b"a"], &[0]);
        let real = bytes.len() as u64;
        bytes.push(0);
        assert_eq!(
            opened(&bytes),
            Err(NresError::SizeMismatch {
                declared: real as u32,
                actual: real + 1
            })
        );
        assert_eq!(
            opened(&bytes[..bytes.len() - 2]),
            Err(NresError::SizeMismatch {
                declared: real as u32,
                actual: real - 1
            })
        );
        assert_eq!(
            opened(&header(0, u32::MAX)),
            Err(NresError::SizeMismatch {
                declared: u32::MAX,
                actual: 16
            })
        );
    }

    #[test]
    fn directory_out_of_bounds() {
        // total_size matches the data, but the count does not fit in it.
        let mut bytes = Vec::from(header(1, 79));
        bytes.resize(79, 0);
        assert_eq!(
            opened(&bytes),
            Err(NresError::DirectoryOutOfBounds {
                entry_count: 1,
                total_size: 79
            })
        );
        for count in [i32::MAX, 1 << 26, 2] {
            let mut bytes = Vec::from(header(count, 100));
            bytes.resize(100, 0);
            assert_eq!(
                opened(&bytes),
                Err(NresError::DirectoryOutOfBounds {
                    entry_count: count as u32,
                    total_size: 100
                })
            );
        }
        let mut bytes = Vec::from(header(1, 80));
        bytes.resize(80, 0);
        let a = Archive::open(&bytes).unwrap();
        assert_eq!((a.len(), a.directory_offset()), (1, 16));
    }

    #[test]
    fn empty_archive() {
        let h = header(0, 16);
        let a = Archive::open(&h).unwrap();
        assert!(a.is_empty() && !a.is_raw());
        assert_eq!(
            a.header(),
            Some(Header {
                entry_count: 0,
                total_size: 16
            })
        );
        assert_eq!(a.directory_offset(), 16);
        assert_eq!(a.entries().len(), 0);
        assert_eq!(a.find(b""), None);
        assert_eq!(a.entry(0), None);
        assert_eq!(a.problems().next(), None);
    }

    #[test]
    fn payloads_and_entries() {
        let body = *b"hello\0\0\0world!\0\0";
        let bytes = archive(
            &body,
            &[
                Rec {
                    data_offset: 16,
                    size: 5,
                    type_id: 0x6D78_6554,
                    ..Rec::named(b"a.txt")
                },
                Rec {
                    data_offset: 24,
                    size: 6,
                    sort_index: 1,
                    ..Rec::named(b"b.txt")
                },
                Rec {
                    data_offset: 32,
                    size: 0,
                    sort_index: 2,
                    ..Rec::named(b"c.txt")
                },
            ],
        );
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.data(), &bytes[..]);
        assert_eq!(a.directory_offset(), 32);
        assert_eq!(a.lookup_table(), LookupTable::Canonical);
        assert_eq!(a.payload(0), Ok(&b"hello"[..]));
        assert_eq!(a.payload(1), Ok(&b"world!"[..]));
        assert_eq!(a.payload(2), Ok(&b""[..]));
        assert_eq!(a.entry(0).map(|e| e.type_id), Some(0x6D78_6554));
        let listed: Vec<Entry<'_>> = a.entries().collect();
        assert_eq!(listed.len(), 3);
        for (i, e) in listed.iter().enumerate() {
            assert_eq!(Some(*e), a.entry(i));
            assert_eq!(&e.to_bytes()[..], &bytes[32 + 64 * i..32 + 64 * (i + 1)]);
        }
    }

    #[test]
    fn duplicate_names_the_middle_probe_wins() {
        // Sorted slots: a(2) dup(1) dup(3) dup(4) x(0). The search probes slot 2 first,
        // which points at entry 3: the second "dup" in entry order, not the first.
        let names: &[&[u8]] = &[b"x", b"dup", b"a", b"DUP", b"Dup"];
        let sort = canonical_sort(names);
        assert_eq!(sort, [2, 1, 3, 4, 0]);
        let bytes = named_archive(names, &sort);
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.lookup_table(), LookupTable::Canonical);
        assert_eq!(a.find(b"dup"), Some(3));
        assert_eq!(a.find_linear(b"dup"), Some(1));

        let bytes = named_archive(&[b"dup", b"dup", b"dup"], &[0, 1, 2]);
        assert_eq!(Archive::open(&bytes).unwrap().find(b"DUP"), Some(1));
    }

    #[test]
    fn folding_between_z_and_a() {
        for between in *b"[\\]^_`" {
            let odd = [b'A', between];
            let names: &[&[u8]] = &[b"AB", &odd, b"ab.x", b"A"];
            let sort = canonical_sort(names);
            // Lower-case folding: "a" < "a?" < "ab" < "ab.x" for every `?` in [\]^_`.
            assert_eq!(sort, [3, 1, 0, 2], "{}", between as char);
            let bytes = named_archive(names, &sort);
            let a = Archive::open(&bytes).unwrap();
            assert_eq!(a.lookup_table(), LookupTable::Canonical);
            assert_eq!(a.find(&odd), Some(1));
            assert_eq!(a.find(&[b'a', between]), Some(1));
            for query in [&b"AB"[..], b"ab", b"Ab", b"aB"] {
                assert_eq!(a.find(query), Some(0));
            }
            assert_eq!(a.find(b"AB.X"), Some(2));
            assert_eq!(a.find(b"a"), Some(3));
            assert_eq!(a.find(b"A@"), None);
            // The order an upper-case-folding writer would produce is reported unsorted.
            let bytes = named_archive(names, &[3, 0, 2, 1]);
            let a = Archive::open(&bytes).unwrap();
            assert_eq!(a.lookup_table(), LookupTable::Unsorted { slot: 2 });
            assert_eq!(a.find(&odd), Some(1));
        }
    }

    #[test]
    fn any_case_and_nul_terminated_queries() {
        let names: &[&[u8]] = &[b"Textures.LIB", b"sound.wav", b"MAP01"];
        let bytes = named_archive(names, &canonical_sort(names));
        let a = Archive::open(&bytes).unwrap();
        for (query, want) in [
            (&b"textures.lib"[..], Some(0)),
            (b"TEXTURES.LIB", Some(0)),
            (b"TeXtUrEs.LiB", Some(0)),
            (b"SOUND.WAV", Some(1)),
            (b"map01", Some(2)),
            (b"map01\0", Some(2)),
            (b"MAP01\0trailing junk", Some(2)),
            (b"sound.wav\0\0\0", Some(1)),
            (b"map0", None),
            (b"map011", None),
            (b"\0map01", None),
            (b"", None),
        ] {
            assert_eq!(a.find(query), want, "{query:?}");
            assert_eq!(a.find_linear(c_str(query)), want, "{query:?}");
        }
    }

    #[test]
    fn out_of_range_sort_index_falls_back_to_linear() {
        let names: &[&[u8]] = &[b"d", b"c", b"b", b"a", b"b"];
        let mut sort = canonical_sort(names);
        sort[1] = 5;
        let bytes = named_archive(names, &sort);
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(
            a.lookup_table(),
            LookupTable::OutOfRange {
                entry: 1,
                sort_index: 5
            }
        );
        for (i, name) in names.iter().enumerate().take(4) {
            assert_eq!(a.find(name), Some(i));
        }
        assert_eq!(a.find(b"B"), Some(2), "linear: first in entry order");
        assert_eq!(a.find(b"e"), None);
    }

    #[test]
    fn unsorted_table_falls_back_to_linear() {
        let names: &[&[u8]] = &[b"a", b"b", b"c"];
        let bytes = named_archive(names, &[2, 1, 0]);
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.lookup_table(), LookupTable::Unsorted { slot: 0 });
        // The binary search alone would miss "a": slot 1 says b, then slot 0 says c.
        let searched = find_by(
            3,
            LookupTable::Canonical,
            |slot| a.entry(slot).map_or(u32::MAX, |e| e.sort_index),
            |index| a.entry(index).map(|e| e.name()),
            b"a",
        );
        assert_eq!(searched, None, "the case needs the fallback");
        for (i, name) in names.iter().enumerate() {
            assert_eq!(a.find(name), Some(i));
        }
    }

    #[test]
    fn sorted_ties_swapped_still_binary_searches() {
        let names: &[&[u8]] = &[b"dup", b"DUP", b"a"];
        let bytes = named_archive(names, &[2, 1, 0]);
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.lookup_table(), LookupTable::Sorted);
        // Probe slot 1 first, which now points at entry 1.
        assert_eq!(a.find(b"dup"), Some(1));
        assert_eq!(a.find(b"a"), Some(2));
        // No permutation: entry 1 ("b") is in no slot, and the engine's search misses it.
        let bytes = named_archive(&[b"a", b"b"], &[0, 0]);
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.lookup_table(), LookupTable::Sorted);
        assert_eq!(a.find(b"b"), None);
        assert_eq!(a.find_linear(b"b"), Some(1));
    }

    #[test]
    fn raw_mode() {
        let data = b"not an archive at all";
        let a = Archive::open_raw(data).unwrap();
        assert!(a.is_raw());
        assert_eq!(a.header(), None);
        assert_eq!((a.len(), a.directory_offset()), (1, data.len() as u64));
        assert_eq!(a.lookup_table(), LookupTable::Canonical);
        let e = a.entry(0).unwrap();
        assert_eq!(e.name(), b"RAW");
        assert_eq!(&e.name_field[3..], &[0; 33]);
        assert_eq!(
            (e.index, e.data_offset, e.size, e.sort_index),
            (0, 0, data.len() as u32, 0)
        );
        assert_eq!((e.type_id, e.attr1, e.attr2, e.attr3), (0, 0, 0, 0));
        assert_eq!(a.entry(1), None);
        assert_eq!(a.check_entry(0), Ok(()));
        assert_eq!(a.payload(0), Ok(&data[..]));
        assert_eq!(a.payload(1), Err(NresError::NoSuchEntry { index: 1 }));
        assert_eq!(a.problems().next(), None);
        for query in [&b"RAW"[..], b"raw", b"Raw\0x"] {
            assert_eq!(a.find(query), Some(0));
        }
        assert_eq!(a.find(b"RA"), None);
        assert_eq!(a.entries().map(|e| e.name()).collect::<Vec<_>>(), [b"RAW"]);

        // A valid NRes file opened raw is still one blob; so is an empty file.
        let bytes = named_archive(&[b"x"], &[0]);
        let a = Archive::open_raw(&bytes).unwrap();
        assert_eq!((a.len(), a.payload(0)), (1, Ok(&bytes[..])));
        let a = Archive::open_raw(&[]).unwrap();
        assert_eq!(a.payload(0), Ok(&b""[..]));
    }

    #[test]
    fn hostile_bytes_never_panic() {
        let names: &[&[u8]] = &[b"one", b"two", b"three", b"four"];
        let body = [0x55u8; 24];
        let mut recs: Vec<Rec<'_>> = names.iter().map(|n| Rec::named(n)).collect();
        for (r, s) in recs.iter_mut().zip(canonical_sort(names)) {
            r.sort_index = s;
        }
        let good = archive(&body, &recs);
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        for round in 0..20_000 {
            let mut bytes = good.clone();
            for _ in 0..=rng.below(6) {
                let at = rng.below(bytes.len() as u64) as usize;
                bytes[at] = match rng.below(4) {
                    0 => 0,
                    1 => 0xFF,
                    _ => rng.next() as u8,
                };
            }
            if round % 7 == 0 {
                bytes.truncate(rng.below(bytes.len() as u64 + 1) as usize);
            }
            for a in [Archive::open(&bytes), Archive::open_raw(&bytes)]
                .into_iter()
                .flatten()
            {
                let _ = a.lookup_table();
                for (i, e) in a.entries().enumerate() {
                    if let Ok(p) = a.payload(i) {
                        assert_eq!(p.len(), e.size as usize);
                    }
                    // Every entry lookup must be found by the linear scan at least.
                    assert!(a.find_linear(e.name()).is_some());
                    let _ = a.find(e.name_field);
                }
                assert!(a.problems().count() <= 3 * a.len());
            }
        }
    }
}
