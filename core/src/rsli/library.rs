//! An opened RsLi library: header checked, table decrypted, `sort_index` settled, trailer
//! read (SPEC 2.1-2.5, 2.8).

use super::permutation::{Table, permute};
use super::{
    Entry, HEADER_LEN, Header, RsliError, TRAILER_LEN, TRAILER_MAGIC, TableDecoder, entry_id, le,
};
use crate::limits::Limits;
pub use crate::options::OpenOptions;

/// How [`Library::find`] can use the table's `sort_index` values, decided at open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupTable {
    /// No `0xABBA` flag: the permutation was computed as the engine does.
    Computed,
    /// `0xABBA`, and the stored values are the permutation the engine would compute.
    Presorted,
    /// `0xABBA` and every value is in range, but they are not what the engine would
    /// compute: the binary search runs as the engine's does, then the linear fallback.
    PresortedDiffers,
    /// `0xABBA`, and entry `entry` (the first such) holds a `sort_index` of at least the
    /// entry count: the binary search runs as the engine's does until it probes such a
    /// slot (where the engine reads outside its table), and the linear scan decides then.
    PresortedOutOfRange {
        /// The first entry whose value is out of range.
        entry: u32,
        /// Its value.
        sort_index: u16,
    },
}

/// An RsLi library opened over the bytes of the whole file.
///
/// The entries live in `S`: a caller's slice ([`open_in`](Library::open_in), no
/// allocation) or a `Vec` (`open`, feature `alloc`). Payloads stay in
/// the file's bytes and are borrowed from there.
///
/// ```
/// use ngi_core::rsli::{Entry, Library, OpenOptions, RsliError};
///
/// let mut file = [0u8; 32 + 32];
/// file[..4].copy_from_slice(b"NL\x00\x01");
/// file[4] = 1;
/// file[32..36].copy_from_slice(b"NONE"); // empty stored entry at offset 0
///
/// let mut storage = [Entry::default(); 1];
/// let library = Library::open_in(&file, &mut storage, OpenOptions::default())?;
/// assert_eq!(library.len(), 1);
/// assert_eq!(library.find(b"none"), Some(0));
/// assert_eq!(library.packed(0)?, b"");
/// assert_eq!(library.trailer(), None);
///
/// let mut too_small: [Entry; 0] = [];
/// assert_eq!(
///     Library::open_in(&file, &mut too_small, OpenOptions::default()).unwrap_err(),
///     RsliError::StorageTooSmall { needed: 1, got: 0 }
/// );
/// # Ok::<(), RsliError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Library<'a, S = &'a [Entry]> {
    data: &'a [u8],
    header: Header,
    entries: S,
    overlay: Option<u32>,
    trailer: Option<u32>,
    lookup: LookupTable,
}

impl<'a, 's> Library<'a, &'s [Entry]> {
    /// Opens the library in `data` as `options` say, decrypting its table into
    /// `storage[..count]`: no allocation. Entries of `storage` past the count are left
    /// alone.
    ///
    /// # Errors
    ///
    /// The first check that fails, in this order (the table is decrypted only after
    /// them):
    ///
    /// * [`Header::parse`]'s errors for the header;
    /// * [`RsliError::Truncated`] when the file is shorter than the header and the table
    ///   it announces;
    /// * [`RsliError::Limit`] (`offset` 4) when the entry count is above
    ///   [`Limits::max_entries`](crate::limits::Limits::max_entries);
    /// * [`RsliError::StorageTooSmall`] when `storage` holds fewer entries than the count.
    pub fn open_in(
        data: &'a [u8],
        storage: &'s mut [Entry],
        options: OpenOptions,
    ) -> Result<Self, RsliError> {
        let header = checked_header(data, &options)?;
        let count = usize::from(header.entry_count);
        let got = storage.len();
        let entries = storage
            .get_mut(..count)
            .ok_or(RsliError::StorageTooSmall { needed: count, got })?;
        let lookup = load_table(data, &header, entries);
        Ok(Library::assemble(data, header, entries, lookup, options))
    }
}

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
impl<'a> Library<'a, alloc::vec::Vec<Entry>> {
    /// Opens the library in `data` with [`OpenOptions::DEFAULT`], decrypting its table into
    /// a new `Vec`: [`open_with`](Library::open_with).
    ///
    /// # Errors
    ///
    /// [`open_with`](Library::open_with)'s, with the default limits.
    pub fn open(data: &'a [u8]) -> Result<Self, RsliError> {
        Library::open_with(data, OpenOptions::DEFAULT)
    }

    /// Opens the library in `data` as `options` say, decrypting its table into a new
    /// `Vec`.
    ///
    /// The `Vec` is allocated only once the file is known to hold the whole table and the
    /// count passes the limit, so its size is bounded by the file's, by the limit and by
    /// 32 767 entries.
    ///
    /// ```
    /// use ngi_core::limits::{LimitError, Limits};
    /// use ngi_core::rsli::{Library, RsliError};
    /// use ngi_core::OpenOptions;
    ///
    /// let mut file = [0u8; 32 + 3 * 32];
    /// file[..4].copy_from_slice(b"NL\x00\x01");
    /// file[4] = 3;
    /// let options = OpenOptions::DEFAULT.with_limits(Limits::DEFAULT.with_max_entries(2));
    /// assert_eq!(
    ///     Library::open_with(&file, options).unwrap_err(),
    ///     RsliError::Limit {
    ///         error: LimitError::TooManyEntries { count: 3, limit: 2 },
    ///         offset: 4,
    ///     }
    /// );
    /// assert_eq!(Library::open(&file)?.len(), 3);
    /// # Ok::<(), RsliError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`open_in`](Library::open_in)'s, in the same order, but for
    /// [`RsliError::StorageTooSmall`]: the `Vec` always holds the table.
    pub fn open_with(data: &'a [u8], options: OpenOptions) -> Result<Self, RsliError> {
        let header = checked_header(data, &options)?;
        let mut entries = alloc::vec![Entry::default(); usize::from(header.entry_count)];
        let lookup = load_table(data, &header, &mut entries);
        Ok(Library::assemble(data, header, entries, lookup, options))
    }
}

impl<'a, S> Library<'a, S> {
    fn assemble(
        data: &'a [u8],
        header: Header,
        entries: S,
        lookup: LookupTable,
        options: OpenOptions,
    ) -> Self {
        let trailer = parse_trailer(data);
        Library {
            data,
            header,
            entries,
            overlay: trailer.filter(|_| options.media_trailer),
            trailer,
            lookup,
        }
    }
}

impl<'a, S: AsRef<[Entry]>> Library<'a, S> {
    /// The bytes of the whole file.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The file's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether the library has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// Every entry, in table order, with `sort_index` settled (SPEC 2.5).
    pub fn entries(&self) -> &[Entry] {
        self.entries.as_ref()
    }

    /// Entry `index`, if there is one.
    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries().get(index)
    }

    /// The media overlay in effect: the trailer's value when
    /// [`OpenOptions::media_trailer`] is on and the file ends with a trailer.
    pub fn overlay(&self) -> Option<u32> {
        self.overlay
    }

    /// The value of the `AO` trailer the file ends with, whether or not it is honoured.
    pub fn trailer(&self) -> Option<u32> {
        self.trailer
    }

    /// How lookups use the table (decided at open).
    pub fn lookup_table(&self) -> LookupTable {
        self.lookup
    }

    /// Entry `index` with its index as errors report it.
    pub(super) fn get(&self, index: usize) -> Result<(u32, &Entry), RsliError> {
        self.entry(index)
            .map(|e| (entry_id(index), e))
            .ok_or(RsliError::NoSuchEntry {
                index: index as u64,
            })
    }
}

/// The header, checked together with the file's length against the table it announces,
/// then its entry count against the limits.
fn checked_header(data: &[u8], options: &OpenOptions) -> Result<Header, RsliError> {
    let header = Header::parse(data)?;
    let (len, needed) = (data.len() as u64, header.table_end());
    if len < needed {
        return Err(RsliError::Truncated { len, needed });
    }
    check_count(header.entry_count, &options.limits)?;
    Ok(header)
}

/// The entry count against [`Limits::max_entries`]; the error points at the count's field.
pub(crate) fn check_count(count: u16, limits: &Limits) -> Result<(), RsliError> {
    limits
        .check_count(u64::from(count))
        .map_err(|error| RsliError::Limit { error, offset: 4 })
}

/// Decrypts the table into `entries` (exactly `entry_count` long, the file checked to
/// hold it) and settles `sort_index`.
fn load_table(data: &[u8], header: &Header, entries: &mut [Entry]) -> LookupTable {
    let mut input = data.get(HEADER_LEN..).unwrap_or_default();
    let mut decoder = TableDecoder::new(header);
    for slot in entries.iter_mut() {
        if let Some(entry) = decoder.next_entry(&mut input) {
            *slot = entry;
        }
    }
    settle_sort_index(header, entries)
}

/// Settles each entry's `sort_index` as the engine does when it opens a library (SPEC
/// 2.5), for a table decoded on its own (e.g. by [`TableDecoder`]): with the `0xABBA`
/// flag the stored values stay (`sort_index = file_sort_index`), otherwise the engine's
/// permutation replaces them. `entries` is the whole table.
///
/// A presorted table is also compared with what the engine would compute, which the
/// returned [`LookupTable`] reports.
/// Allocation-free, O(n log n). [`Library`] calls this at open.
pub fn settle_sort_index(header: &Header, entries: &mut [Entry]) -> LookupTable {
    settle(header, entries)
}

/// [`settle_sort_index`] over any [`Table`].
pub(crate) fn settle<T: Table + ?Sized>(header: &Header, entries: &mut T) -> LookupTable {
    if !header.is_presorted() {
        permute(entries);
        return LookupTable::Computed;
    }
    let count = entries.count();
    let out_of_range = (0..count).find_map(|i| {
        let stored = entries.at(i)?.file_sort_index;
        (usize::from(stored) >= count).then_some((i, stored))
    });
    if let Some((index, sort_index)) = out_of_range {
        return LookupTable::PresortedOutOfRange {
            entry: entry_id(index),
            sort_index,
        };
    }
    // The permutation is computed into the entries themselves (no buffer to spare), then
    // the stored values are put back.
    permute(entries);
    let mut same = true;
    for i in 0..count {
        if let Some(e) = entries.at_mut(i) {
            same &= e.sort_index == e.file_sort_index;
            e.sort_index = e.file_sort_index;
        }
    }
    if same {
        LookupTable::Presorted
    } else {
        LookupTable::PresortedDiffers
    }
}

/// The overlay of the `AO` media trailer (SPEC 2.8) in the last 6 bytes of `tail`: the
/// whole file, or any end part of it. Like the engine, this looks at the last 6 bytes
/// whatever else they may belong to.
///
/// ```
/// use ngi_core::rsli::parse_trailer;
///
/// assert_eq!(parse_trailer(b"...AO\x10\0\0\0"), Some(16));
/// assert_eq!(parse_trailer(b"AO\x10\0\0\0..."), None);
/// assert_eq!(parse_trailer(b"AO"), None);
/// ```
pub fn parse_trailer(tail: &[u8]) -> Option<u32> {
    let start = tail.len().checked_sub(TRAILER_LEN)?;
    let trailer = tail.get(start..)?;
    (le::array::<2>(trailer, 0) == TRAILER_MAGIC).then(|| le::u32_at(trailer, 2))
}
