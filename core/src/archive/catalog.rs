//! The format-agnostic view of an opened archive: header facts, lookup, entries.

use core::ops::Range;

use super::{Entry, EntryStore, Error, Format, Native, Opener};
use crate::codec::{Method, Unpacker};
use crate::io::StreamError;
use crate::limits::Limits;
use crate::nres;
use crate::options::OpenOptions;
use crate::rsli;

/// An opened archive of either format: what its header says, how lookups search, and
/// every entry described the same way ([`Entry`]), kept in a store `S` ([`EntryStore`]).
///
/// A catalog holds no file bytes: it is what the sans-I/O [`Opener`] builds from the
/// header and directory alone, so it can describe an archive of any size that sits on a
/// disk, in flash or behind a network. Its entries say where each packed range lies;
/// reading one is the caller's (or [`io`](crate::io)'s) business. Over bytes already in
/// memory, `Catalog::open` (feature `alloc`) and [`Catalog::open_in`] run the same opener and
/// [`packed`](Catalog::packed) borrows an entry's bytes without copying them.
///
/// Lookups follow each format's engine rules: [`find`](Catalog::find) is NRes's
/// `_strcmpi` binary search with its linear fallback, or RsLi's `rsFind`.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use ngi_core::archive::{Catalog, Format};
/// use ngi_core::nres::{NewEntry, Writer};
/// use ngi_core::OpenOptions;
///
/// let mut writer = Writer::new();
/// writer.add(NewEntry { name: b"Map.txt", ..NewEntry::default() }, b"tiles")?;
/// let bytes = writer.finish();
///
/// let catalog = Catalog::open(&bytes, OpenOptions::DEFAULT)?;
/// assert_eq!(catalog.format(), Format::Nres);
/// let index = catalog.find(b"MAP.TXT").expect("NRes lookups ignore case");
/// assert_eq!(catalog.packed(index, &bytes)?, b"tiles");
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Catalog<S> {
    pub(super) file_len: u64,
    pub(super) header: Header,
    pub(super) lookup: Lookup,
    pub(super) trailer: Option<u32>,
    pub(super) overlay: Option<u32>,
    pub(super) entries: S,
}

/// The header of a catalog's archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Header {
    /// An NRes header (SPEC 1.2).
    Nres(nres::Header),
    /// NRes raw mode (SPEC 1.7): no header, the whole file is one entry.
    Raw,
    /// An RsLi header (SPEC 2.2), all 32 bytes kept.
    Rsli(rsli::Header),
}

/// How a catalog's lookups search, as classified at opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    /// NRes (SPEC 1.5-1.6); raw mode is always `Canonical`.
    Nres(nres::LookupTable),
    /// RsLi (SPEC 2.5).
    Rsli(rsli::LookupTable),
}

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
impl Catalog<alloc::vec::Vec<Entry>> {
    /// Opens the archive held in `bytes` (the whole file), its entries in a new `Vec`:
    /// the [`Opener`] fed from the slice.
    ///
    /// # Errors
    ///
    /// [`open_in`](Catalog::open_in)'s, but for [`Error::StorageTooSmall`]: a `Vec` holds
    /// any count.
    pub fn open(bytes: &[u8], options: OpenOptions) -> Result<Self, Error> {
        Catalog::open_in(bytes, alloc::vec::Vec::new(), options)
    }
}

impl<S: EntryStore> Catalog<S> {
    /// Opens the archive held in `bytes` (the whole file), its entries in `store`: the
    /// [`Opener`] fed from the slice, so a slice gives exactly the catalog any other
    /// source of the same bytes gives. No allocation beyond what `store` does.
    ///
    /// # Errors
    ///
    /// The opener's error ([`Opener::feed`]):
    ///
    /// * [`Error::UnknownFormat`] when `bytes` starts neither with `NRes` nor with `NL`
    ///   (not in raw mode);
    /// * [`Error::Nres`] or [`Error::Rsli`] when the header breaks a rule of its format,
    ///   disagrees with the length of `bytes`, or counts more entries than the limits in
    ///   `options` allow; in raw mode, [`RawTooLarge`](nres::NresError::RawTooLarge) or
    ///   [`RawOverLimit`](nres::NresError::RawOverLimit);
    /// * [`Error::StorageTooSmall`] when `store` cannot hold every entry.
    pub fn open_in(bytes: &[u8], store: S, options: OpenOptions) -> Result<Self, Error> {
        let mut opener = Opener::new(bytes.len() as u64, store, options);
        while let Some(range) = opener.need()? {
            let start = usize::try_from(range.start).ok();
            let end = usize::try_from(range.end).ok();
            // The opener asks only for ranges inside the length it was given; were it ever
            // not so, this stops rather than feeding nothing forever.
            let piece = start.zip(end).and_then(|(s, e)| bytes.get(s..e));
            let piece = piece.filter(|p| !p.is_empty()).ok_or(Error::Incomplete {
                offset: range.start,
                len: range.end - range.start,
            })?;
            opener.feed(piece)?;
        }
        opener.finish()
    }

    /// The format (raw mode is [`Format::Nres`]).
    pub fn format(&self) -> Format {
        match self.header {
            Header::Nres(_) | Header::Raw => Format::Nres,
            Header::Rsli(_) => Format::Rsli,
        }
    }

    /// Whether the archive was opened in NRes raw mode.
    pub fn is_raw(&self) -> bool {
        matches!(self.header, Header::Raw)
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// How lookups search.
    pub fn lookup_table(&self) -> Lookup {
        self.lookup
    }

    /// Whether lookups run the engine's binary search alone, with no linear scan: NRes
    /// tables that are `Canonical` or `Sorted`, RsLi tables that are computed or presorted
    /// as the engine would compute them. The search then reaches every entry, with two
    /// exceptions: a name several entries share gives one of them, and a `Sorted` NRes
    /// table that is no permutation leaves an entry in no slot, which the search misses as
    /// the engine's does (`ngi verify` names both).
    pub fn is_searchable(&self) -> bool {
        match self.lookup {
            Lookup::Nres(table) => table.is_searchable(),
            Lookup::Rsli(table) => matches!(
                table,
                rsli::LookupTable::Computed | rsli::LookupTable::Presorted
            ),
        }
    }

    /// The length of the file the catalog describes.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Where the directory starts (NRes; the file's length in raw mode) or the payloads
    /// may start (RsLi: the end of the table).
    pub fn directory_offset(&self) -> u64 {
        match self.header {
            Header::Nres(h) => h.directory_offset().unwrap_or(self.file_len),
            Header::Raw => self.file_len,
            Header::Rsli(h) => h.table_end(),
        }
    }

    /// The value of the RsLi `AO` trailer the file ends with, honoured or not.
    pub fn trailer(&self) -> Option<u32> {
        self.trailer
    }

    /// The media overlay in effect (the trailer's value when it is honoured).
    pub fn overlay(&self) -> Option<u32> {
        self.overlay
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.entries().is_empty()
    }

    /// Every entry, in directory order.
    pub fn entries(&self) -> &[Entry] {
        self.entries.entries()
    }

    /// Entry `index`, if there is one.
    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.entries().get(index)
    }

    /// The store, to take the entries away.
    pub fn into_store(self) -> S {
        self.entries
    }

    /// Entry `index`.
    ///
    /// # Errors
    ///
    /// * [`Error::NoSuchEntry`] when there is no entry `index`.
    pub fn get(&self, index: usize) -> Result<&Entry, Error> {
        self.entry(index).ok_or(Error::NoSuchEntry {
            index: index as u64,
        })
    }

    /// Finds an entry by name by the format's engine rules: NRes `_strcmpi` (the query
    /// ends at its first NUL) with the binary search over `sort_index` or the linear scan
    /// ([`nres::Archive::find`]), RsLi `rsFind` ([`rsli::Library::find`]).
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        let entries = self.entries();
        match self.lookup {
            Lookup::Nres(table) => nres::table::find_by(
                entries.len(),
                table,
                |slot| entries.get(slot).map_or(u32::MAX, Entry::sort_index),
                |index| entries.get(index).map(Entry::name),
                nres::name::c_str(name),
            ),
            Lookup::Rsli(_) => rsli::find::find_by(entries, name),
        }
    }

    /// Checks every read rule of entry `index` by itself: NRes SPEC 1.3 (its data range
    /// and its name's NUL; the raw entry always passes), RsLi SPEC 2.6-2.7 (a method, and
    /// packed bytes inside the file).
    ///
    /// # Errors
    ///
    /// * [`Error::NoSuchEntry`] when there is no entry `index`.
    /// * The first rule the entry breaks, in the order [`problems`](Catalog::problems)
    ///   reports them: [`Error::Nres`] as [`nres::Entry::check`] finds it, or
    ///   [`Error::Rsli`] with [`UnsupportedMethod`](rsli::RsliError::UnsupportedMethod)
    ///   before [`DataOutOfBounds`](rsli::RsliError::DataOutOfBounds).
    pub fn check_entry(&self, index: usize) -> Result<(), Error> {
        match self.problems_of(index)?.into_iter().flatten().next() {
            Some(problem) => Err(problem),
            None => Ok(()),
        }
    }

    /// Where entry `index`'s packed bytes lie in the file, once they pass the rules that
    /// guard them: NRes `16 <= data_offset` and `data_offset + size <= directory_offset`
    /// (a name without its NUL does not block the bytes), RsLi a method and a range inside
    /// the file, a Deflate range one byte past the end cut at the end (SPEC 2.7).
    ///
    /// # Errors
    ///
    /// * [`Error::NoSuchEntry`] when there is no entry `index`.
    /// * [`Error::Nres`] with [`DataBeforeHeader`](nres::NresError::DataBeforeHeader) or
    ///   [`DataPastDirectory`](nres::NresError::DataPastDirectory) when an NRes entry's
    ///   range breaks that rule (never in raw mode).
    /// * [`Error::Rsli`] with [`UnsupportedMethod`](rsli::RsliError::UnsupportedMethod) or
    ///   [`DataOutOfBounds`](rsli::RsliError::DataOutOfBounds), as [`rsli::packed_range`]
    ///   reports them.
    pub fn packed_range(&self, index: usize) -> Result<Range<u64>, Error> {
        let entry = self.get(index)?;
        match (&entry.native, self.header) {
            (Native::Nres(_), Header::Raw) => Ok(entry.declared_range()),
            (Native::Nres(record), _) => {
                record
                    .entry()
                    .check_data_range(self.directory_offset())
                    .map_err(Error::Nres)?;
                Ok(entry.declared_range())
            }
            (Native::Rsli(e), _) => {
                rsli::packed_range(index, e, self.file_len, self.overlay).map_err(Error::Rsli)
            }
        }
    }

    /// Checks entry `index`'s decoded size against [`Limits::max_entry_size`]: run it
    /// before sizing anything from it.
    ///
    /// # Errors
    ///
    /// * [`Error::NoSuchEntry`] when there is no entry `index`.
    /// * [`Error::Nres`] or [`Error::Rsli`] with the format's `Limit` error when the size
    ///   is above `limits.max_entry_size`. It names the entry, its size and the limit, and
    ///   its [`limit`](Error::limit) is the [`LimitError`](crate::limits::LimitError).
    pub fn check_limits(&self, index: usize, limits: &Limits) -> Result<(), Error> {
        let entry = self.get(index)?;
        match &entry.native {
            Native::Nres(record) => record.entry().check_limits(limits).map_err(Error::Nres),
            Native::Rsli(e) => rsli::check_limits(index, e, limits).map_err(Error::Rsli),
        }
    }

    /// A ready decoder for entry `index` (its method, keyed, producing exactly its
    /// decoded size), once its packed range passes [`packed_range`](Catalog::packed_range).
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s.
    pub fn unpacker(&self, index: usize) -> Result<Unpacker, Error> {
        self.decoding(index).map(|(_, _, unpacker)| unpacker)
    }

    /// Entry `index`'s checked packed range, the entry, and its decoder: what every reader
    /// of an entry starts from, worked out once.
    pub(crate) fn decoding(&self, index: usize) -> Result<(Range<u64>, &Entry, Unpacker), Error> {
        let (range, entry, method) = self.decoding_method(index)?;
        Ok((range, entry, Unpacker::new(method, entry.size, entry.key)))
    }

    /// [`decoding`](Catalog::decoding) without the decoder: the method to build one of
    /// the caller's choice for.
    pub(crate) fn decoding_method(
        &self,
        index: usize,
    ) -> Result<(Range<u64>, &Entry, Method), Error> {
        let range = self.packed_range(index)?;
        let entry = self.get(index)?;
        // `packed_range` refuses RsLi flags naming no method, and NRes has only one.
        let method = entry
            .method
            .ok_or(Error::Rsli(rsli::RsliError::UnsupportedMethod {
                entry: entry.index,
                flags: entry.as_rsli().map_or(0, |e| e.flags),
            }))?;
        Ok((range, entry, method))
    }

    /// Entry `index`'s packed bytes within `file`, the bytes of the whole file this
    /// catalog was opened from: zero-copy.
    ///
    /// # Errors
    ///
    /// * [`packed_range`](Catalog::packed_range)'s, checked first.
    /// * [`Error::FileLength`] when `file` is not as long as the file the catalog was
    ///   opened from.
    pub fn packed<'a>(&self, index: usize, file: &'a [u8]) -> Result<&'a [u8], Error> {
        let range = self.packed_range(index)?;
        let wrong = Error::FileLength {
            expected: self.file_len,
            got: file.len() as u64,
        };
        if file.len() as u64 != self.file_len {
            return Err(wrong);
        }
        // The range lies in the file (packed_range said so), so it indexes `file`.
        let start = usize::try_from(range.start).ok();
        let end = usize::try_from(range.end).ok();
        start
            .zip(end)
            .and_then(|(s, e)| file.get(s..e))
            .ok_or(wrong)
    }

    /// Decodes entry `index` into `out`, which must be exactly its decoded size long, from
    /// `file`, the bytes of the whole file this catalog was opened from: the one-shot
    /// decode into a buffer of the caller's, with no allocator, a fault named by its
    /// entry and its file offset. Size `out` from the entry only after
    /// [`check_limits`](Catalog::check_limits) passed: the size is the file's word.
    ///
    /// ```
    /// use ngi_core::OpenOptions;
    /// use ngi_core::archive::{Catalog, Slots};
    /// use ngi_core::limits::Limits;
    ///
    /// let file = std::fs::read("../samples/sample.rsli")?;
    /// let mut slots = [ngi_core::archive::Entry::default(); 16];
    /// let catalog = Catalog::open_in(&file, Slots::new(&mut slots), OpenOptions::DEFAULT)?;
    /// let index = catalog.find(b"README.TXT").expect("listed");
    /// catalog.check_limits(index, &Limits::DEFAULT)?;
    /// let mut out = [0u8; 4096];
    /// let out = &mut out[..catalog.get(index)?.size as usize];
    /// catalog.unpack_into(index, &file, out)?;
    /// assert!(out.starts_with(b"ngi sample RsLi library"));
    /// let short = catalog.unpack_into(index, &file, &mut [0u8; 1]);
    /// assert!(matches!(short, Err(ngi_core::archive::Error::OutputSize { expected: 49, .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// * [`packed`](Catalog::packed)'s errors, checked first.
    /// * [`Error::OutputSize`] when `out` is not exactly the entry's decoded size long.
    /// * [`Error::Decode`] when the stream is truncated or corrupt.
    pub fn unpack_into(&self, index: usize, file: &[u8], out: &mut [u8]) -> Result<(), Error> {
        let packed = self.packed(index, file)?;
        let (range, entry, method) = self.decoding_method(index)?;
        if out.len() as u64 != entry.size {
            return Err(Error::OutputSize {
                entry: entry.index,
                expected: entry.size,
                got: out.len() as u64,
            });
        }
        crate::codec::unpack_into(method, entry.key, packed, out)
            .map(|_| ())
            .map_err(|error| {
                Error::Decode(StreamError::Decode {
                    entry: Some(entry.index),
                    offset: range
                        .start
                        .saturating_add(error.offset_in_stream(packed.len() as u64)),
                    error,
                })
            })
    }

    /// Every per-entry rule violation, in entry order: what [`nres::Archive::problems`]
    /// or [`rsli::Library::problems`] report for the same file (none in raw mode).
    pub fn problems(&self) -> impl Iterator<Item = Error> + '_ {
        (0..self.len())
            .flat_map(|index| self.problems_of(index).unwrap_or_default())
            .flatten()
    }

    /// The problems of entry `index`, at most three, in the order they are reported.
    fn problems_of(&self, index: usize) -> Result<[Option<Error>; 3], Error> {
        let entry = self.get(index)?;
        let mut found = [None; 3];
        match (&entry.native, self.header) {
            (Native::Nres(_), Header::Raw) => {}
            (Native::Nres(record), _) => {
                let violations = record.entry().violations(self.directory_offset());
                for (slot, problem) in found.iter_mut().zip(violations) {
                    *slot = Some(Error::Nres(problem));
                }
            }
            (Native::Rsli(e), _) => {
                let problems = rsli::packed::entry_problems(self.file_len, self.overlay, index, e);
                for (slot, problem) in found.iter_mut().zip(problems) {
                    *slot = problem.map(Error::Rsli);
                }
            }
        }
        Ok(found)
    }
}
