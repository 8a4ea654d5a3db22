//! The lossless NRes editor (SPEC 1.8, 1.9): edits an existing archive the way the
//! engine's `niCreateResFile` does, and saves it as a [`Plan`] that copies every payload
//! nobody touched from the old file.

use alloc::vec::Vec;
use core::cmp::Ordering;
use core::fmt;

use super::entry::{
    ATTR1_AT, ATTR2_AT, ATTR3_AT, DATA_OFFSET_AT, NAME_AT, SIZE_AT, SORT_INDEX_AT, TYPE_ID_AT,
    record_at,
};
use super::name::c_str;
use super::writer::{ALIGN, canonical_order, fits, name_field};
use super::{
    Archive, ENTRY_LEN, Entry, HEADER_LEN, Header, NAME_FIELD_LEN, NewEntry, NresError, WriteError,
    compare_names,
};
use crate::archive::{Catalog, EntryStore, Header as CatalogHeader, Native};
use crate::edit::layout::{Event, Slot, lay_out};
use crate::edit::{Held, NewBytes, Piece, Plan};

/// The engine's twelve directory orders (SPEC 1.9). Each is a stable sort: entries with
/// equal keys keep their current order. Numbers and names as [`SortMode::from_number`]
/// and [`SortMode::from_name`] take them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SortMode {
    /// 0: no sorting; the order stays as it is.
    None,
    /// 1: by `attr1`.
    Attr1,
    /// 2: by `attr2`.
    Attr2,
    /// 3: by (`attr1`, `attr2`).
    Attr1Attr2,
    /// 4: by `type_id`.
    Type,
    /// 5: by (`type_id`, `attr1`).
    TypeAttr1,
    /// 6: by (`type_id`, `attr1`), the same order as 5 (the engine has both).
    TypeAttr1Again,
    /// 7: by (`type_id`, `attr1`, `attr2`).
    TypeAttr1Attr2,
    /// 8: by name, compared as lookups compare (SPEC 1.4).
    Name,
    /// 9: by (`type_id`, name).
    TypeName,
    /// 10: by (`attr1`, name).
    Attr1Name,
    /// 11: by (`attr2`, name).
    Attr2Name,
}

impl SortMode {
    /// Every mode, in the engine's numbering.
    pub const ALL: [SortMode; 12] = [
        SortMode::None,
        SortMode::Attr1,
        SortMode::Attr2,
        SortMode::Attr1Attr2,
        SortMode::Type,
        SortMode::TypeAttr1,
        SortMode::TypeAttr1Again,
        SortMode::TypeAttr1Attr2,
        SortMode::Name,
        SortMode::TypeName,
        SortMode::Attr1Name,
        SortMode::Attr2Name,
    ];

    /// The mode the engine numbers `n` (0 to 11).
    pub fn from_number(n: u32) -> Option<SortMode> {
        usize::try_from(n)
            .ok()
            .and_then(|n| SortMode::ALL.get(n))
            .copied()
    }

    /// The engine's number of the mode.
    pub fn number(self) -> u32 {
        (0u32..)
            .zip(SortMode::ALL)
            .find_map(|(n, mode)| (mode == self).then_some(n))
            .unwrap_or(0)
    }

    /// The mode's name: `none`, `attr1`, `attr2`, `attr1-attr2`, `type`, `type-attr1`,
    /// `type-attr1-again`, `type-attr1-attr2`, `name`, `type-name`, `attr1-name`,
    /// `attr2-name`.
    pub fn name(self) -> &'static str {
        match self {
            SortMode::None => "none",
            SortMode::Attr1 => "attr1",
            SortMode::Attr2 => "attr2",
            SortMode::Attr1Attr2 => "attr1-attr2",
            SortMode::Type => "type",
            SortMode::TypeAttr1 => "type-attr1",
            SortMode::TypeAttr1Again => "type-attr1-again",
            SortMode::TypeAttr1Attr2 => "type-attr1-attr2",
            SortMode::Name => "name",
            SortMode::TypeName => "type-name",
            SortMode::Attr1Name => "attr1-name",
            SortMode::Attr2Name => "attr2-name",
        }
    }

    /// The mode [`name`](SortMode::name) gives, in any case, or its number written out.
    pub fn from_name(text: &str) -> Option<SortMode> {
        if let Ok(n) = text.parse::<u32>() {
            return SortMode::from_number(n);
        }
        SortMode::ALL
            .into_iter()
            .find(|mode| mode.name().eq_ignore_ascii_case(text))
    }

    /// The mode's order of two entries, as the engine compares them.
    pub fn compare(self, a: &Entry<'_>, b: &Entry<'_>) -> Ordering {
        let name = || compare_names(a.name(), b.name());
        match self {
            SortMode::None => Ordering::Equal,
            SortMode::Attr1 => a.attr1.cmp(&b.attr1),
            SortMode::Attr2 => a.attr2.cmp(&b.attr2),
            SortMode::Attr1Attr2 => (a.attr1, a.attr2).cmp(&(b.attr1, b.attr2)),
            SortMode::Type => a.type_id.cmp(&b.type_id),
            SortMode::TypeAttr1 | SortMode::TypeAttr1Again => {
                (a.type_id, a.attr1).cmp(&(b.type_id, b.attr1))
            }
            SortMode::TypeAttr1Attr2 => {
                (a.type_id, a.attr1, a.attr2).cmp(&(b.type_id, b.attr1, b.attr2))
            }
            SortMode::Name => name(),
            SortMode::TypeName => a.type_id.cmp(&b.type_id).then_with(name),
            SortMode::Attr1Name => a.attr1.cmp(&b.attr1).then_with(name),
            SortMode::Attr2Name => a.attr2.cmp(&b.attr2).then_with(name),
        }
    }
}

impl fmt::Display for SortMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.number(), self.name())
    }
}

/// The fields of an entry the editor sets as they are: the resource kind and the three
/// opaque attributes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Fields {
    /// Resource kind.
    pub type_id: u32,
    /// Opaque attribute.
    pub attr1: u32,
    /// Opaque attribute.
    pub attr2: u32,
    /// Opaque attribute.
    pub attr3: u32,
}

#[derive(Debug, Clone)]
enum Payload {
    /// The source's bytes `start..start + len`, inside its data region.
    Original { start: u64, len: u64 },
    /// The record's range is not inside the data region: the record stays as it is.
    Outside,
    /// New bytes; `was` is the original range they replace, if there was one.
    New {
        bytes: NewBytes,
        was: Option<(u64, u64)>,
    },
    /// The source's bytes `start..start + len`, laid out again as if new (a canonical
    /// rebuild).
    Moved { start: u64, len: u64 },
}

#[derive(Debug, Clone)]
struct Item {
    /// The record as it will be written, but for `size`, `data_offset` and `sort_index`,
    /// which the save works out.
    record: [u8; ENTRY_LEN],
    payload: Payload,
    /// Its index in the archive opened; `None` for an added entry.
    source: Option<u32>,
}

/// Edits an NRes archive without losing anything nobody changed.
///
/// Opening reads the header and the directory only ([`Editor::open`] from an [`Archive`]
/// view, [`Editor::from_directory`] from the two byte ranges, for a file read in pieces);
/// the payloads stay in the source. [`plan`](Editor::plan) then describes the new file:
///
/// * A payload that was not touched is copied with the bytes that follow it up to the
///   next payload (padding, gaps, whatever lies there), so saving an untouched archive
///   reproduces it byte for byte, non-canonical layouts included; so does every record
///   field nobody set, the bytes after a name's NUL and the stored `sort_index` values.
/// * [`add`](Editor::add) appends a payload after the old data, then zero padding that
///   rounds its size up to a multiple of 8, as `niCreateResFile` does: every old payload
///   keeps its offset. (After data that ends on a multiple of 8, as the engine's always
///   does, the next payload starts on one too.)
/// * [`replace`](Editor::replace) puts the new payload where the old one was, padded the
///   same way; a size change shifts every later payload and its `data_offset`
///   (SPEC 1.8). [`remove`](Editor::remove) cuts the payload out the same way. Bytes
///   another entry's payload still covers are never cut or overwritten (the replacement
///   is appended instead).
/// * Once names, entries or the order change (add, remove, rename, sort), the save
///   rebuilds `sort_index` as the engine does on close (SPEC 1.5);
///   [`rebuild_sort_index`](Editor::rebuild_sort_index) asks for it regardless.
/// * `total_size` and the entry count are always recomputed.
/// * A record whose range lies outside the data region (which no reader accepts) is kept
///   as it is; a plan whose new data region would take that range in, so that the record
///   read other bytes as its own, is refused ([`WriteError::OutsideNowInside`]).
///
/// ```
/// use ngi_core::nres::{Archive, Editor, NewEntry, SortMode, Writer};
///
/// let mut writer = Writer::new();
/// writer.add(NewEntry { name: b"b.txt", type_id: 2, ..NewEntry::default() }, b"bee")?;
/// writer.add(NewEntry { name: b"a.txt", type_id: 1, ..NewEntry::default() }, b"ay")?;
/// let old = writer.finish();
///
/// let mut editor = Editor::open(&Archive::open(&old)?)?;
/// assert_eq!(editor.plan()?.to_vec(&old)?, old, "untouched: the same bytes");
///
/// let c = editor.add(NewEntry { name: b"c.txt", ..NewEntry::default() }, b"sea".to_vec())?;
/// editor.replace(0, &b"a longer bee"[..])?; // a slice is copied, a Vec taken
/// editor.sort(SortMode::Type);
/// let new = editor.plan()?.to_vec(&old)?;
///
/// let archive = Archive::open(&new)?;
/// assert_eq!(archive.problems().count(), 0);
/// let names: Vec<&[u8]> = archive.entries().map(|e| e.name()).collect();
/// assert_eq!(names, [&b"c.txt"[..], b"a.txt", b"b.txt"]); // by type: 0, 1, 2
/// assert_eq!(archive.payload(archive.find(b"B.TXT").unwrap())?, b"a longer bee");
/// assert_eq!(c, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Editor {
    items: Vec<Item>,
    /// Where every original payload inside the data region starts, removed ones too: the
    /// layout cuts the old data at these offsets.
    starts: Vec<u64>,
    /// The source's directory offset: its data region is `16..data_end`.
    data_end: u64,
    /// Whether the save computes `sort_index` rather than keeping the stored values.
    reindex: bool,
    /// The header and directory of the file the editor was made from, which the plan's
    /// source must hold ([`Plan::source_holds`]); `None` for an archive of nothing.
    read_from: Option<ReadFrom>,
}

/// The bytes that tell the source archive from another file: its header and its
/// directory, where it lay.
#[derive(Debug, Clone)]
struct ReadFrom {
    header: [u8; HEADER_LEN],
    directory_offset: u64,
    directory: Vec<u8>,
}

impl Default for Editor {
    fn default() -> Self {
        Editor::new()
    }
}

impl Editor {
    /// An empty archive, as `niCreateResFile` starts one over a file that is no NRes.
    pub fn new() -> Editor {
        Editor {
            items: Vec::new(),
            starts: Vec::new(),
            data_end: HEADER_LEN as u64,
            reindex: false,
            read_from: None,
        }
    }

    /// Edits `archive`.
    ///
    /// # Errors
    ///
    /// * [`NresError::RawMode`] when `archive` was opened in raw mode, which has no
    ///   directory to edit. An archive that opened otherwise passes the checks of
    ///   [`from_directory`](Editor::from_directory).
    pub fn open(archive: &Archive<'_>) -> Result<Editor, NresError> {
        let header = archive.header().ok_or(NresError::RawMode)?;
        let start = usize::try_from(archive.directory_offset()).unwrap_or(usize::MAX);
        let directory = archive.data().get(start..).unwrap_or_default();
        Editor::from_directory(&header, directory)
    }

    /// Edits the archive `catalog` describes, from what the catalog holds (its header and
    /// directory; no payload is read), so that an archive opened from a file of any size
    /// is edited without reading it whole. The plan is then written from that file, and
    /// refuses another ([`Plan::source_holds`]: the header and directory read here).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use ngi_core::archive::Catalog;
    /// use ngi_core::nres::{Editor, NewEntry, Writer};
    /// use ngi_core::OpenOptions;
    ///
    /// let mut writer = Writer::new();
    /// writer.add(NewEntry { name: b"old.txt", ..NewEntry::default() }, b"old bytes")?;
    /// let file = writer.finish(); // stands for a file on disk
    /// let catalog = Catalog::open(&file, OpenOptions::DEFAULT)?;
    ///
    /// let mut editor = Editor::from_catalog(&catalog)?;
    /// editor.add(NewEntry { name: b"new.txt", ..NewEntry::default() }, b"new bytes".to_vec())?;
    /// // With `std`, `edit::write_plan` writes it from the file into a new one.
    /// let edited = editor.plan()?.to_vec(&file)?;
    /// assert_eq!(Catalog::open(&edited, OpenOptions::DEFAULT)?.len(), 2);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// * [`Error::Nres`](crate::archive::Error::Nres) with [`NresError::RawMode`] for a
    ///   catalog opened in raw mode, which has no directory to edit.
    /// * [`Error::Nres`](crate::archive::Error::Nres) with [`NresError::BadMagic`] for
    ///   the catalog of an RsLi library.
    ///
    /// None else: a catalog that opened passes the checks of
    /// [`from_directory`](Editor::from_directory).
    pub fn from_catalog<S: EntryStore>(
        catalog: &Catalog<S>,
    ) -> Result<Editor, crate::archive::Error> {
        let header = match *catalog.header() {
            CatalogHeader::Nres(header) => header,
            CatalogHeader::Raw => return Err(NresError::RawMode.into()),
            CatalogHeader::Rsli(header) => {
                let found = header.raw.first_chunk().copied().unwrap_or_default();
                return Err(NresError::BadMagic { found }.into());
            }
        };
        // As many bytes as the catalog's records, which are in memory already.
        let mut directory = Vec::with_capacity(catalog.len().saturating_mul(ENTRY_LEN));
        for entry in catalog.entries() {
            if let Native::Nres(record) = &entry.native {
                directory.extend_from_slice(&record.bytes);
            }
        }
        Ok(Editor::from_owned_directory(&header, directory)?)
    }

    /// Edits the archive whose header is `header` and whose directory is `directory`
    /// (the last `64 * entry_count` bytes of the file), without the payloads: the source
    /// must hold them when the plan is written, and hold this header and directory, which
    /// the plan checks ([`Plan::source_holds`]).
    ///
    /// # Errors
    ///
    /// * [`NresError::DirectoryOutOfBounds`] when the header's directory offset is below
    ///   16 ([`Header::directory_offset`]).
    /// * [`NresError::DirectoryLength`] when `directory` is not exactly the header's
    ///   `64 * entry_count` bytes.
    pub fn from_directory(header: &Header, directory: &[u8]) -> Result<Editor, NresError> {
        Editor::from_owned_directory(header, directory.to_vec())
    }

    /// [`from_directory`](Editor::from_directory), keeping `directory` for the plan's
    /// check of its source rather than a copy of it.
    fn from_owned_directory(header: &Header, directory: Vec<u8>) -> Result<Editor, NresError> {
        let data_end = header.directory_offset()?;
        let count = usize::try_from(header.entry_count).unwrap_or(usize::MAX);
        let needed = (count as u64).saturating_mul(ENTRY_LEN as u64);
        if directory.len() as u64 != needed {
            return Err(NresError::DirectoryLength {
                expected: needed,
                got: directory.len() as u64,
            });
        }
        let mut items = Vec::with_capacity(count);
        let mut starts = Vec::with_capacity(count);
        for index in 0..count {
            let Some(record) = record_at(&directory, index) else {
                break;
            };
            let entry = Entry::parse(index as u32, record);
            let (start, len) = (u64::from(entry.data_offset), u64::from(entry.size));
            let inside = start >= HEADER_LEN as u64 && start + len <= data_end;
            // An empty payload cuts no block: it would split a payload from its padding.
            if inside && len > 0 {
                starts.push(start);
            }
            items.push(Item {
                record: *record,
                payload: if inside {
                    Payload::Original { start, len }
                } else {
                    Payload::Outside
                },
                source: u32::try_from(index).ok(),
            });
        }
        Ok(Editor {
            items,
            starts,
            data_end,
            reindex: false,
            read_from: Some(ReadFrom {
                header: header.to_bytes(),
                directory_offset: data_end,
                directory,
            }),
        })
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Entry `index` as it stands: its name and fields as edited, `size` the size it will
    /// have. `data_offset` and `sort_index` are the source's until the save lays the
    /// archive out (0 for an added entry).
    pub fn entry(&self, index: usize) -> Option<Entry<'_>> {
        let item = self.items.get(index)?;
        let mut entry = Entry::parse(u32::try_from(index).ok()?, &item.record);
        if let Payload::New { bytes, .. } = &item.payload {
            entry.size = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
        }
        Some(entry)
    }

    /// Every entry, as [`entry`](Editor::entry) gives them.
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> + '_ {
        (0..self.items.len()).filter_map(|i| self.entry(i))
    }

    /// The range of the source entry `index`'s payload comes from, if it comes from the
    /// source: its original payload (kept or moved), or one given by
    /// [`add_from_source`](Editor::add_from_source) or
    /// [`replace_from_source`](Editor::replace_from_source).
    pub fn source_range(&self, index: usize) -> Option<core::ops::Range<u64>> {
        match self.items.get(index)?.payload {
            Payload::Original { start, len } | Payload::Moved { start, len } => {
                Some(start..start + len)
            }
            Payload::New {
                bytes: NewBytes::Source { offset, len },
                ..
            } => Some(offset..offset.saturating_add(len)),
            Payload::Outside | Payload::New { .. } => None,
        }
    }

    /// The index entry `index` had in the archive opened, `None` for one added since (or
    /// past the last entry). Errors number entries as the edit has them: this says which
    /// entry of the archive as it was (as `ngi list` showed it) one of them is.
    pub fn source_index(&self, index: usize) -> Option<usize> {
        self.items
            .get(index)?
            .source
            .and_then(|i| usize::try_from(i).ok())
    }

    /// The first entry, in directory order, whose name equals `name` under the engine's
    /// comparison (SPEC 1.4). Where several entries have such names (real archives hold
    /// some), the engine's binary search may reach another of them:
    /// [`Archive::find`](super::Archive::find) gives the entry the engine takes, and
    /// until an entry is removed or moved the editor numbers entries as the
    /// archive does.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.items
            .iter()
            .position(|item| compare_names(name_of(&item.record), name).is_eq())
    }

    /// Whether `name` is one [`rename`](Editor::rename) would give entry `index`, or
    /// [`add`](Editor::add) a new entry (`index` [`len`](Editor::len)): the name's own
    /// rules, checked before [`find`](Editor::find), which compares up to a NUL as the
    /// engine does and so matches `b"a\0b"` to an entry named `a`. Nothing changes.
    ///
    /// ```
    /// use ngi_core::nres::{Editor, WriteError};
    ///
    /// let editor = Editor::new();
    /// assert_eq!(editor.check_name(0, b"sky.tex"), Ok(()));
    /// assert_eq!(editor.check_name(0, b"a\0b"), Err(WriteError::NameHasNul { entry: 0 }));
    /// ```
    ///
    /// # Errors
    ///
    /// [`WriteError::NameEmpty`], [`WriteError::NameTooLong`] (over 35 bytes) or
    /// [`WriteError::NameHasNul`], naming entry `index`;
    /// [`WriteError::TooManyEntries`] for an `index` no record can have (past
    /// `u32::MAX`).
    pub fn check_name(&self, index: usize, name: &[u8]) -> Result<(), WriteError> {
        name_field(name, index).map(drop)
    }

    /// Appends an entry with `payload`; returns its index. The payload goes after every
    /// other one, so no old payload moves. The editor holds the payload until the save:
    /// a `Vec` is taken as it is, a slice copied (as [`rsli::Editor::add`] takes one).
    ///
    /// [`rsli::Editor::add`]: crate::rsli::Editor::add
    ///
    /// A name another entry has already is taken as it is (real archives hold such
    /// names), and the engine then finds only one of them: check with
    /// [`find`](Editor::find) first to refuse it.
    ///
    /// # Errors
    ///
    /// A refused entry is not added.
    ///
    /// * [`WriteError::NameEmpty`], [`WriteError::NameTooLong`] (over 35 bytes) or
    ///   [`WriteError::NameHasNul`] for the name.
    /// * [`WriteError::TooLarge`] when this payload alone, with the header and the
    ///   directory, would take the archive past 4 GiB (the 32-bit `total_size`); payloads
    ///   that only together do are refused by [`plan`](Editor::plan), before anything is
    ///   written.
    /// * [`WriteError::TooManyEntries`] when the directory alone would.
    pub fn add(
        &mut self,
        entry: NewEntry<'_>,
        payload: impl Into<Vec<u8>>,
    ) -> Result<usize, WriteError> {
        self.add_bytes(entry, NewBytes::Held(payload.into()))
    }

    /// [`add`](Editor::add), with a payload the editor does not hold: `len` bytes of the
    /// save's source from `offset`, which the plan copies ([`Piece::Copy`]) as it copies
    /// the old payloads. The source is whatever the plan is written from, and may hold
    /// more than the archive being edited: `ngi pack` joins the folder's files after the
    /// archive's bytes in one source, so no payload is held in memory whatever its size.
    /// The range is not checked here (the source is not known yet):
    /// `edit::write_plan` and [`Plan::to_vec`] fail if the source
    /// ends before it.
    ///
    /// ```
    /// use ngi_core::nres::{Archive, Editor, NewEntry, Writer};
    ///
    /// let mut writer = Writer::new();
    /// writer.add(NewEntry { name: b"old", ..NewEntry::default() }, b"old bytes")?;
    /// let old = writer.finish();
    /// // The source: the archive, and after it the bytes of a new payload.
    /// let source = [&old[..], b"new bytes"].concat();
    ///
    /// let mut editor = Editor::open(&Archive::open(&old)?)?;
    /// editor.add_from_source(NewEntry { name: b"new", ..NewEntry::default() }, old.len() as u64, 9)?;
    /// let new = editor.plan()?.to_vec(&source)?;
    /// let archive = Archive::open(&new)?;
    /// assert_eq!(archive.payload(1)?, b"new bytes");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`add`](Editor::add)'s, for a payload of `len` bytes.
    pub fn add_from_source(
        &mut self,
        entry: NewEntry<'_>,
        offset: u64,
        len: u64,
    ) -> Result<usize, WriteError> {
        self.add_bytes(entry, NewBytes::Source { offset, len })
    }

    fn add_bytes(&mut self, entry: NewEntry<'_>, bytes: NewBytes) -> Result<usize, WriteError> {
        let index = self.items.len();
        let field = name_field(entry.name, index)?;
        fits(HEADER_LEN as u64, bytes.len(), index)?;
        let mut record = [0u8; ENTRY_LEN];
        put_name(&mut record, &field);
        let mut item = Item {
            record,
            payload: Payload::New { bytes, was: None },
            source: None,
        };
        item.set_fields(Fields {
            type_id: entry.type_id,
            attr1: entry.attr1,
            attr2: entry.attr2,
            attr3: entry.attr3,
        });
        self.items.push(item);
        self.reindex = true;
        Ok(index)
    }

    /// Replaces entry `index`'s payload (a `Vec` taken, a slice copied). Its name and
    /// fields stay.
    ///
    /// # Errors
    ///
    /// * [`WriteError::NoSuchEntry`] when there is no entry `index`, whatever the payload.
    /// * [`WriteError::TooLarge`] when the payload alone, with the header and the whole
    ///   directory, would take the archive past 4 GiB, whichever entry it replaces.
    pub fn replace(&mut self, index: usize, payload: impl Into<Vec<u8>>) -> Result<(), WriteError> {
        self.replace_bytes(index, NewBytes::Held(payload.into()))
    }

    /// [`replace`](Editor::replace), with `len` bytes of the save's source from `offset`
    /// as the new payload (see [`add_from_source`](Editor::add_from_source)).
    ///
    /// # Errors
    ///
    /// [`replace`](Editor::replace)'s, for a payload of `len` bytes.
    pub fn replace_from_source(
        &mut self,
        index: usize,
        offset: u64,
        len: u64,
    ) -> Result<(), WriteError> {
        self.replace_bytes(index, NewBytes::Source { offset, len })
    }

    fn replace_bytes(&mut self, index: usize, bytes: NewBytes) -> Result<(), WriteError> {
        // An index past the end is that, whatever the payload: checked first.
        self.item_mut(index)?;
        // Against the whole directory, whichever entry it is: checked as entry `index`,
        // a payload that fit beside the directory of entries 0..=index passed for entry 0
        // and not for the last.
        let last = self.items.len().saturating_sub(1);
        fits(HEADER_LEN as u64, bytes.len(), last).map_err(|e| match e {
            WriteError::TooLarge { .. } => WriteError::TooLarge {
                entry: u32::try_from(index).unwrap_or(u32::MAX),
            },
            other => other,
        })?;
        let item = self.item_mut(index)?;
        let was = match item.payload {
            Payload::Original { start, len } => Some((start, len)),
            Payload::New { was, .. } => was,
            Payload::Outside | Payload::Moved { .. } => None,
        };
        item.payload = Payload::New { bytes, was };
        Ok(())
    }

    /// Removes entry `index`; later entries move down one index. Its payload is cut out
    /// unless another entry's payload shares its bytes.
    ///
    /// # Errors
    ///
    /// * [`WriteError::NoSuchEntry`] when there is no entry `index`.
    pub fn remove(&mut self, index: usize) -> Result<(), WriteError> {
        self.item_mut(index)?;
        self.items.remove(index);
        self.reindex = true;
        Ok(())
    }

    /// Keeps the entries whose index `keep` accepts and removes the others, as
    /// [`remove`](Editor::remove) of each would, in one pass: `remove` moves every later
    /// entry, so removing many entries one at a time takes time quadratic in the count.
    /// `keep` is asked once per entry, in index order, with the index before any removal.
    ///
    /// ```
    /// use ngi_core::nres::{Editor, NewEntry};
    ///
    /// let mut editor = Editor::new();
    /// for name in [&b"a"[..], b"b", b"c", b"d"] {
    ///     editor.add(NewEntry { name, ..NewEntry::default() }, name)?;
    /// }
    /// editor.retain(|index| index % 2 == 1);
    /// assert_eq!(editor.len(), 2);
    /// assert_eq!(editor.find(b"b"), Some(0));
    /// assert_eq!(editor.find(b"d"), Some(1));
    /// # Ok::<(), ngi_core::nres::WriteError>(())
    /// ```
    pub fn retain(&mut self, keep: impl FnMut(usize) -> bool) {
        self.reindex |= crate::edit::order::retain(&mut self.items, keep);
    }

    /// Renames entry `index`: the name field is zeroed and the name copied in (so bytes
    /// that followed the old name's NUL are gone), as the engine writes names.
    ///
    /// A name another entry has already is taken as it is (real archives hold such
    /// names), and the engine then finds only one of them: check with
    /// [`find`](Editor::find) first to refuse it.
    ///
    /// # Errors
    ///
    /// * [`WriteError::NoSuchEntry`] when there is no entry `index`.
    /// * [`WriteError::NameEmpty`], [`WriteError::NameTooLong`] (over 35 bytes) or
    ///   [`WriteError::NameHasNul`] for the name; the entry keeps its old one.
    pub fn rename(&mut self, index: usize, name: &[u8]) -> Result<(), WriteError> {
        self.item_mut(index)?;
        let field = name_field(name, index)?;
        put_name(&mut self.item_mut(index)?.record, &field);
        self.reindex = true;
        Ok(())
    }

    /// Entry `index`'s `type_id` and attributes.
    pub fn fields(&self, index: usize) -> Option<Fields> {
        self.entry(index).map(|e| Fields {
            type_id: e.type_id,
            attr1: e.attr1,
            attr2: e.attr2,
            attr3: e.attr3,
        })
    }

    /// Sets entry `index`'s `type_id` and attributes, stored as given.
    ///
    /// # Errors
    ///
    /// * [`WriteError::NoSuchEntry`] when there is no entry `index`.
    pub fn set_fields(&mut self, index: usize, fields: Fields) -> Result<(), WriteError> {
        self.item_mut(index)?.set_fields(fields);
        Ok(())
    }

    /// Reorders the directory by `mode` (SPEC 1.9), stably; the save rebuilds
    /// `sort_index` for the new indices. [`SortMode::None`], the engine's "none (reset)",
    /// keeps the order and rebuilds `sort_index` alone, as the engine's save after it
    /// does (SPEC 1.8).
    pub fn sort(&mut self, mode: SortMode) {
        if mode != SortMode::None {
            self.items
                .sort_by(|a, b| mode.compare(&a.entry(), &b.entry()));
        }
        self.reindex = true;
    }

    /// Moves entry `from` to index `to`, the entries between shifting by one; the save
    /// rebuilds `sort_index`. A move to the same index changes nothing (use
    /// [`rebuild_sort_index`](Editor::rebuild_sort_index) for that alone).
    ///
    /// # Errors
    ///
    /// * [`WriteError::NoSuchEntry`] when `from` or `to` is past the last entry (`from`
    ///   is checked first).
    pub fn move_entry(&mut self, from: usize, to: usize) -> Result<(), WriteError> {
        self.item_mut(from)?;
        self.item_mut(to)?;
        if from != to {
            let item = self.items.remove(from);
            self.items.insert(to, item);
            self.reindex = true;
        }
        Ok(())
    }

    /// Puts the entries in a new order in one step: entry `k` afterwards is the one at
    /// index `order[k]` before. Where [`move_entry`](Editor::move_entry) shifts every
    /// entry between its two places, this takes one pass over the entries whatever moves,
    /// so placing many entries costs no more than placing one. If an entry moves, the
    /// save rebuilds `sort_index`; an order that moves nothing changes nothing.
    ///
    /// # Errors
    ///
    /// Refuses an order that does not list every index once, and changes nothing:
    ///
    /// * [`WriteError::OrderLength`] when it lists more or fewer indices than there are
    ///   entries;
    /// * [`WriteError::NoSuchEntry`] for the first index past the last entry;
    /// * [`WriteError::OrderRepeats`] for the first index listed a second time.
    ///
    /// ```
    /// use ngi_core::nres::{Archive, Editor, NewEntry, WriteError, Writer};
    ///
    /// let mut writer = Writer::new();
    /// for name in [&b"a"[..], b"b", b"c"] {
    ///     writer.add(NewEntry { name, ..NewEntry::default() }, name)?;
    /// }
    /// let old = writer.finish();
    ///
    /// let mut editor = Editor::open(&Archive::open(&old)?)?;
    /// assert_eq!(editor.reorder(&[0, 0, 1]), Err(WriteError::OrderRepeats { index: 0 }));
    /// editor.reorder(&[2, 0, 1])?;
    /// let new = editor.plan()?.to_vec(&old)?;
    ///
    /// let archive = Archive::open(&new)?;
    /// let names: Vec<&[u8]> = archive.entries().map(|e| e.name()).collect();
    /// assert_eq!(names, [&b"c"[..], b"a", b"b"]);
    /// assert_eq!(archive.payload(0)?, b"c");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reorder(&mut self, order: &[usize]) -> Result<(), WriteError> {
        if crate::edit::order::apply(&mut self.items, order)? {
            self.reindex = true;
        }
        Ok(())
    }

    /// Makes the save compute every `sort_index` (SPEC 1.5) even if nothing asked for it.
    pub fn rebuild_sort_index(&mut self) {
        self.reindex = true;
    }

    /// Turns the archive into what the canonical writer would write from the same
    /// entries: payloads in entry order from offset 16, each on a multiple of 8 with zero
    /// padding, no gaps, name fields zeroed after the NUL, `sort_index` rebuilt.
    ///
    /// # Errors
    ///
    /// Refuses, and changes nothing:
    ///
    /// * [`WriteError::PayloadOutside`] for the first entry whose range lies outside the
    ///   data region;
    /// * [`WriteError::NameEmpty`] or [`WriteError::NameTooLong`] for the first entry whose
    ///   name the canonical writer would refuse: an empty one, or a name field with no NUL
    ///   (36 bytes).
    pub fn canonicalize(&mut self) -> Result<(), WriteError> {
        if let Some((index, item)) = (0u32..)
            .zip(&self.items)
            .find(|(_, item)| matches!(item.payload, Payload::Outside))
        {
            let entry = Entry::parse(index, &item.record);
            return Err(WriteError::PayloadOutside {
                entry: index,
                data_offset: entry.data_offset,
                size: entry.size,
            });
        }
        let fields = self
            .items
            .iter()
            .enumerate()
            .map(|(index, item)| name_field(name_of(&item.record), index))
            .collect::<Result<Vec<_>, _>>()?;
        for (item, field) in self.items.iter_mut().zip(&fields) {
            match item.payload {
                Payload::Original { start, len } => item.payload = Payload::Moved { start, len },
                Payload::New { ref mut was, .. } => *was = None,
                Payload::Outside | Payload::Moved { .. } => {}
            }
            put_name(&mut item.record, field);
        }
        self.starts.clear();
        self.data_end = HEADER_LEN as u64;
        self.reindex = true;
        Ok(())
    }

    /// The new file, as pieces to write: header, payloads, directory.
    ///
    /// # Errors
    ///
    /// * [`WriteError::OutsideNowInside`] when a record kept as it is, because its range
    ///   lay outside the old data region, would lie inside the new one.
    /// * [`WriteError::TooLarge`] when the new file would pass 4 GiB (the 32-bit
    ///   `total_size`), naming the first entry in the file whose payload ends past what
    ///   is left for the directory (the last entry when the directory alone goes past).
    pub fn plan(&self) -> Result<Plan<'_>, WriteError> {
        let slots: Vec<Slot> = self.items.iter().map(Item::slot).collect();
        let layout = lay_out(
            HEADER_LEN as u64..self.data_end,
            HEADER_LEN as u64,
            &self.starts,
            &slots,
            ALIGN,
        );
        let count = self.items.len();
        self.check_outside(layout.end)?;
        let directory_len = (count as u64).saturating_mul(ENTRY_LEN as u64);
        let total = layout.end.saturating_add(directory_len);
        if total > u64::from(u32::MAX) {
            // The payload that crosses, not the last entry: of a 3 GiB, a 2 GiB and a
            // 1-byte entry, the 1-byte one was named.
            let room = u64::from(u32::MAX).saturating_sub(directory_len);
            let crossing = (0..count)
                .filter_map(|i| {
                    let start = layout.offsets.get(i).copied().flatten()?;
                    let end = start.saturating_add(slots.get(i)?.len());
                    (end > room).then_some((start, i))
                })
                .min();
            let entry = crossing.map(|(_, i)| i).or(count.checked_sub(1));
            return Err(match entry {
                Some(entry) => WriteError::TooLarge {
                    entry: u32::try_from(entry).unwrap_or(u32::MAX),
                },
                None => WriteError::TooManyEntries,
            });
        }
        let order = self.reindex.then(|| {
            canonical_order(count, |i| {
                self.items
                    .get(i)
                    .map_or(&[][..], |item| name_of(&item.record))
            })
        });

        let mut pieces = Vec::with_capacity(layout.events.len() + 2);
        pieces.push(Piece::Owned(
            Header {
                entry_count: u32::try_from(count).unwrap_or(u32::MAX),
                total_size: total as u32,
            }
            .to_bytes()
            .to_vec(),
        ));
        for event in &layout.events {
            pieces.push(match *event {
                Event::Copy { offset, len } => Piece::Copy { offset, len },
                Event::Zeros(len) => Piece::Zeros(len),
                Event::New(i) => match self.items.get(i).map(|item| &item.payload) {
                    Some(Payload::New { bytes, .. }) => bytes.piece(),
                    Some(&Payload::Moved { start, len }) => Piece::Copy { offset: start, len },
                    _ => Piece::Zeros(0),
                },
            });
        }
        let mut directory = Vec::with_capacity(usize::try_from(directory_len).unwrap_or(0));
        for (i, item) in self.items.iter().enumerate() {
            let mut record = item.record;
            if let Some(offset) = layout.offsets.get(i).copied().flatten() {
                put_u32(&mut record, DATA_OFFSET_AT, offset as u32);
                put_u32(&mut record, SIZE_AT, item.size());
            }
            if let Some(order) = &order {
                put_u32(
                    &mut record,
                    SORT_INDEX_AT,
                    order.get(i).copied().unwrap_or(0),
                );
            }
            directory.extend_from_slice(&record);
        }
        pieces.push(Piece::Owned(directory));
        let mut plan = Plan::new(pieces);
        if let Some(read) = &self.read_from {
            plan.source_holds.extend([
                Held {
                    offset: 0,
                    bytes: &read.header,
                },
                Held {
                    offset: read.directory_offset,
                    bytes: &read.directory,
                },
            ]);
        }
        Ok(plan)
    }

    /// Refuses a plan whose new data region, ending at `data_end`, would take in a
    /// record left where it is because it lay outside the old one: a record no reader
    /// accepted would read other payloads' bytes, and `verify` would pass it.
    fn check_outside(&self, data_end: u64) -> Result<(), WriteError> {
        for (i, item) in self.items.iter().enumerate() {
            let entry = item.entry();
            let (start, len) = (u64::from(entry.data_offset), u64::from(entry.size));
            if matches!(item.payload, Payload::Outside)
                && start >= HEADER_LEN as u64
                && start + len <= data_end
            {
                return Err(WriteError::OutsideNowInside {
                    entry: u32::try_from(i).unwrap_or(u32::MAX),
                    data_offset: entry.data_offset,
                    size: entry.size,
                });
            }
        }
        Ok(())
    }

    fn item_mut(&mut self, index: usize) -> Result<&mut Item, WriteError> {
        let count = self.items.len() as u64;
        self.items.get_mut(index).ok_or(WriteError::NoSuchEntry {
            index: index as u64,
            count,
        })
    }
}

impl Item {
    fn entry(&self) -> Entry<'_> {
        Entry::parse(0, &self.record)
    }

    fn slot(&self) -> Slot {
        match &self.payload {
            &Payload::Original { start, len } => Slot::Kept { start, len },
            Payload::Outside => Slot::Fixed,
            Payload::New { bytes, was } => Slot::New {
                len: bytes.len(),
                was: *was,
            },
            &Payload::Moved { len, .. } => Slot::New { len, was: None },
        }
    }

    /// The `size` the record will hold.
    fn size(&self) -> u32 {
        match &self.payload {
            &Payload::Original { len, .. } | &Payload::Moved { len, .. } => len as u32,
            Payload::New { bytes, .. } => bytes.len() as u32,
            Payload::Outside => self.entry().size,
        }
    }

    fn set_fields(&mut self, fields: Fields) {
        put_u32(&mut self.record, TYPE_ID_AT, fields.type_id);
        put_u32(&mut self.record, ATTR1_AT, fields.attr1);
        put_u32(&mut self.record, ATTR2_AT, fields.attr2);
        put_u32(&mut self.record, ATTR3_AT, fields.attr3);
    }
}

fn name_of(record: &[u8; ENTRY_LEN]) -> &[u8] {
    c_str(
        record
            .get(NAME_AT..NAME_AT + NAME_FIELD_LEN)
            .unwrap_or_default(),
    )
}

fn put_name(record: &mut [u8; ENTRY_LEN], field: &[u8; NAME_FIELD_LEN]) {
    if let Some(dst) = record.get_mut(NAME_AT..NAME_AT + NAME_FIELD_LEN) {
        dst.copy_from_slice(field);
    }
}

fn put_u32(record: &mut [u8; ENTRY_LEN], at: usize, value: u32) {
    if let Some(dst) = record.get_mut(at..at + 4) {
        dst.copy_from_slice(&value.to_le_bytes());
    }
}
