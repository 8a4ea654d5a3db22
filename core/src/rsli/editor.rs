//! The lossless RsLi editor: edits a library in place of the [`Builder`](super::Builder)'s
//! rebuild from scratch, and re-keys the XOR payloads whose `sort_index` moves.

use alloc::vec::Vec;
use core::ops::Range;

use super::builder::checked_name;
use super::find::engine_query;
use super::{
    BuildError, ENTRY_LEN, Entry, HEADER_LEN, Header, Library, MAX_ENTRIES, RsliError, TRAILER_LEN,
    TRAILER_MAGIC, compute_permutation, entry_id, parse_trailer, settle_sort_index,
};
use crate::archive::{Catalog, EntryStore, Header as CatalogHeader, Native};
use crate::codec::xor::XorStream;
use crate::codec::{self, Method, PackOptions};
use crate::edit::layout::{Event, Slot, lay_out};
use crate::edit::{Held, NewBytes, Piece, Plan, Rekey};

/// The method bits of `flags` (SPEC 2.6).
const METHOD_MASK: u16 = 0x1E0;

#[derive(Debug, Clone)]
enum Payload {
    /// The source's packed bytes `start..start + len` (real offsets), encrypted with `key`
    /// when the method uses XOR.
    Original { start: u64, len: u64, key: u16 },
    /// The entry's range is not inside the payload region: the entry stays as it is.
    Outside,
    /// A packed stream before any XOR (the key is known only at the save, which
    /// encrypts it as it re-keys a kept payload, from key 0: no XOR); `was` is the
    /// original range it replaces, if there was one.
    New {
        bytes: NewBytes,
        was: Option<(u64, u64)>,
    },
    /// The source's packed bytes, laid out again as if new (a canonical rebuild).
    Moved { start: u64, len: u64, key: u16 },
}

#[derive(Debug, Clone)]
struct Item {
    /// The entry as it will be written, but for its offset and, when the permutation is
    /// rebuilt, its `sort_index`.
    entry: Entry,
    payload: Payload,
    /// Its index in the library opened; `None` for an added entry.
    source: Option<u32>,
}

/// Edits an RsLi library without losing anything nobody changed.
///
/// Opening ([`Editor::open`], or [`Editor::from_table`] from the header, the encrypted
/// table and the file's last bytes) decrypts the table only; the packed payloads stay in
/// the source. [`plan`](Editor::plan) describes the new file:
///
/// * The header is kept as it was (seed, the presorted flag, reserved bytes) but for the
///   entry count and what [`set_seed`](Editor::set_seed) and
///   [`set_presorted`](Editor::set_presorted) change; the table is encrypted again with
///   the header's seed; an `AO` media trailer
///   at the end of the file stays at the end. Each entry keeps its 32 bytes (reserved
///   bytes, flags, the stored `sort_index`) but for the sizes and offset the layout
///   gives it.
/// * Packed payloads nobody touched are copied as they are, with the bytes that follow
///   them up to the next payload; an untouched library is reproduced byte for byte.
/// * The table grows by 32 bytes per entry added, so payloads move by that much; offsets
///   follow. A payload replaced takes the place of the old one; a payload added goes at
///   the end of the payload region, before any trailer.
/// * Once names or entries change (add, remove, rename), every `sort_index` is the
///   engine's permutation again (SPEC 2.5), stored as it is used. An entry whose XOR key
///   changes with it (methods 0x20, 0x60, 0xA0) is re-keyed: its packed bytes are
///   XORed with the old and the new keystream on the way out ([`Rekey`]), nothing is
///   decoded or packed again. Where such a payload shares bytes with another entry's (a
///   table may point two entries at the same bytes, each reading them with its key), it
///   is re-keyed in a copy of its own at the end of the payload region, and the shared
///   bytes stay as the other entry reads them.
/// * An entry whose bytes lie outside the payload region (in the header or the table, or
///   past the payloads) is kept as it is: its bytes are no payload's, so they do not move
///   with it. A plan that may change what it reads (rewrite those table bytes, move the
///   end of the file, change its XOR key) is refused ([`BuildError::OutsideChanged`]), and
///   so is one that may move the bytes of an entry cut short by the end of the file.
///
/// ```
/// use ngi_core::{Method, rsli::{Builder, Editor, Library}};
///
/// let mut builder = Builder::new();
/// builder.seed(0x5EED);
/// builder.add(b"B.TXT", Method::XorLzss, b"secret, secret, secret")?;
/// let old = builder.build()?;
///
/// let mut editor = Editor::open(&Library::open(&old)?)?;
/// assert_eq!(editor.plan()?.to_vec(&old)?, old, "untouched: the same bytes");
///
/// // "A.TXT" sorts first, so B.TXT's sort_index (and XOR key) goes from 0 to 1.
/// editor.add(b"A.TXT", Method::Lzhuf, b"new")?;
/// let new = editor.plan()?.to_vec(&old)?;
///
/// let library = Library::open(&new)?;
/// let b = library.find(b"b.txt").unwrap();
/// assert_eq!(library.entry(b).unwrap().sort_index, 1);
/// let mut out = vec![0; 22];
/// library.unpack_into(b, &mut out)?;
/// assert_eq!(out, b"secret, secret, secret");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Editor {
    header: [u8; HEADER_LEN],
    items: Vec<Item>,
    /// Where every original payload inside the region starts, removed ones too.
    starts: Vec<u64>,
    /// The source's payload region (real offsets): after the table, before the trailer.
    region: Range<u64>,
    /// The source's header and encrypted table, as the file holds them: what an entry
    /// whose offset points into them reads there.
    source_head: Vec<u8>,
    /// Whether the plan's source must hold `source_head` (and the trailer kept apart):
    /// not for a library of nothing ([`Plan::source_holds`]).
    read_from_source: bool,
    /// The source's length.
    source_len: u64,
    /// What the stored `data_offset`s are relative to: the media overlay when the
    /// library is read with it, else 0.
    overlay: u32,
    /// The source's last bytes when they are an `AO` trailer no payload reaches into.
    trailer: Option<[u8; TRAILER_LEN]>,
    reindex: bool,
    pack: PackOptions,
}

impl Default for Editor {
    fn default() -> Self {
        Editor::new()
    }
}

impl Editor {
    /// An empty library, with the header [`Builder::new`](super::Builder::new) writes
    /// (seed 0, presorted, no media trailer). Its plan copies nothing, so any source (an
    /// empty one) writes it.
    ///
    /// ```
    /// use ngi_core::{Method, rsli::{Editor, Library}};
    ///
    /// let mut editor = Editor::new();
    /// editor.add(b"README.TXT", Method::Lzss, b"hello, hello, hello")?;
    /// let bytes = editor.plan()?.to_vec(&[])?;
    /// let library = Library::open(&bytes)?;
    /// assert_eq!(library.find(b"readme.txt"), Some(0));
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn new() -> Editor {
        let header = super::Builder::new().header(0);
        let end = HEADER_LEN as u64;
        Editor {
            header,
            items: Vec::new(),
            starts: Vec::new(),
            region: end..end,
            source_head: header.to_vec(),
            read_from_source: false,
            source_len: end,
            overlay: 0,
            trailer: None,
            reindex: false,
            pack: PackOptions::default(),
        }
    }

    /// Edits `library`, with the offsets as it reads them (with or without the media
    /// overlay, as it was opened).
    ///
    /// # Errors
    ///
    /// None for a library that opened: the errors are
    /// [`from_table`](Editor::from_table)'s, whose checks [`Library`] has already made.
    pub fn open(library: &Library<'_, impl AsRef<[Entry]>>) -> Result<Editor, RsliError> {
        let header = library.header();
        let data = library.data();
        let table_end = usize::try_from(header.table_end()).unwrap_or(usize::MAX);
        let table = data.get(HEADER_LEN..table_end).unwrap_or_default();
        let tail_start = data.len().saturating_sub(TRAILER_LEN);
        let tail = data.get(tail_start..).unwrap_or_default();
        Editor::from_table(header, table, data.len() as u64, tail, library.overlay())
    }

    /// Edits the library `catalog` describes, from what the catalog holds (its header,
    /// table and trailer; no payload is read), with the offsets as it reads them (with or
    /// without the media overlay, as it was opened), so that a library opened from a
    /// file of any size is edited without reading it whole. The plan is then written
    /// from that file, and refuses another ([`Plan::source_holds`]: the header and table
    /// read here, and a trailer kept apart).
    ///
    /// ```
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// use ngi_core::archive::Catalog;
    /// use ngi_core::rsli::{Builder, Editor};
    /// use ngi_core::{Method, OpenOptions};
    ///
    /// let mut builder = Builder::new();
    /// builder.add(b"OLD.TXT", Method::Lzss, b"old bytes, old bytes")?;
    /// let file = builder.build()?; // stands for a file on disk
    /// let catalog = Catalog::open(&file, OpenOptions::DEFAULT)?;
    ///
    /// let mut editor = Editor::from_catalog(&catalog)?;
    /// editor.rename(0, b"RENAMED.TXT")?;
    /// // With `std`, `edit::write_plan` writes it from the file into a new one.
    /// let edited = editor.plan()?.to_vec(&file)?;
    /// let catalog = Catalog::open(&edited, OpenOptions::DEFAULT)?;
    /// assert_eq!(catalog.find(b"renamed.txt"), Some(0));
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// * [`Error::Rsli`](crate::archive::Error::Rsli) with [`RsliError::BadMagic`] for
    ///   the catalog of an NRes archive.
    /// * [`Error::Nres`](crate::archive::Error::Nres) with
    ///   [`NresError::RawMode`](crate::nres::NresError::RawMode) for a catalog opened in
    ///   raw mode, which has no directory to edit.
    ///
    /// None else: a catalog that opened passes the checks of
    /// [`from_entries`](Editor::from_entries).
    pub fn from_catalog<S: EntryStore>(
        catalog: &Catalog<S>,
    ) -> Result<Editor, crate::archive::Error> {
        let header = match *catalog.header() {
            CatalogHeader::Rsli(header) => header,
            CatalogHeader::Nres(_) => {
                return Err(RsliError::BadMagic { found: *b"NR" }.into());
            }
            CatalogHeader::Raw => return Err(crate::nres::NresError::RawMode.into()),
        };
        let entries = catalog
            .entries()
            .iter()
            .filter_map(|entry| match entry.native {
                Native::Rsli(entry) => Some(entry),
                Native::Nres(_) => None,
            })
            .collect();
        // The catalog keeps the trailer's value, honoured or not: its 6 bytes again.
        let mut tail = [0u8; TRAILER_LEN];
        if let Some(value) = catalog.trailer() {
            tail[..2].copy_from_slice(&TRAILER_MAGIC);
            tail[2..].copy_from_slice(&value.to_le_bytes());
        }
        let file_len = catalog.file_len();
        Ok(Editor::from_entries(
            &header,
            entries,
            file_len,
            &tail,
            catalog.overlay(),
        )?)
    }

    /// Edits the library whose header is `header`, whose encrypted table is `table`
    /// (`32 * entry_count` bytes from offset 32), whose file is `file_len` bytes long and
    /// ends with `tail`: its last 6 bytes, where an `AO` media trailer would be (a longer
    /// `tail` is read by its last 6 bytes; a shorter one, such as an empty one, says the
    /// file has no trailer). `overlay` is the media overlay the offsets are read with
    /// (`Some` only when the trailer is honoured, as [`Library::overlay`] gives it). The
    /// source must hold the payloads when the plan is written, and hold this header and
    /// table (and `tail`, when the editor keeps it as a trailer), which the plan checks
    /// ([`Plan::source_holds`]).
    ///
    /// The header's [`raw`](Header::raw) bytes are what the editor reads its count, flag
    /// and key from and what it writes back; a `Header` built by hand whose fields say
    /// otherwise is read as its bytes say.
    ///
    /// # Errors
    ///
    /// * [`Header::parse`]'s errors for the header's `raw` bytes.
    /// * [`RsliError::TableLength`] when `table` is not `32 * entry_count` bytes.
    /// * [`RsliError::Truncated`] when `file_len` is shorter than the header and the table.
    /// * [`RsliError::OverlayNotTrailer`] when `overlay` is `Some` but not the value of the
    ///   trailer `tail` ends with.
    pub fn from_table(
        header: &Header,
        table: &[u8],
        file_len: u64,
        tail: &[u8],
        overlay: Option<u32>,
    ) -> Result<Editor, RsliError> {
        let header = &Header::parse(&header.raw)?;
        let needed = header.table_end();
        if (table.len() as u64) != needed - HEADER_LEN as u64 {
            return Err(RsliError::TableLength {
                expected: needed - HEADER_LEN as u64,
                got: table.len() as u64,
            });
        }
        if file_len < needed {
            return Err(RsliError::Truncated {
                len: file_len,
                needed,
            });
        }
        let mut plain = table.to_vec();
        XorStream::new(header.key()).apply(&mut plain);
        let entries: Vec<Entry> = plain
            .chunks_exact(ENTRY_LEN)
            .filter_map(|chunk| chunk.first_chunk().map(Entry::from_bytes))
            .collect();
        Editor::from_entries(header, entries, file_len, tail, overlay)
    }

    /// [`from_table`](Editor::from_table) with the table already decrypted: `entries`
    /// as [`Entry::from_bytes`] reads them, one per entry the header counts (its
    /// [`raw`](Header::raw) bytes are what counts, as there). The plan checks that its
    /// source holds the header and the table these entries encrypt to; a caller whose
    /// source is put together otherwise (`ngi pack`'s, from an unpacked folder) empties
    /// [`Plan::source_holds`].
    ///
    /// # Errors
    ///
    /// * [`Header::parse`]'s errors for the header's `raw` bytes.
    /// * [`RsliError::EntryCount`] when `entries` does not hold one entry per entry the
    ///   header counts.
    /// * [`RsliError::Truncated`] when `file_len` is shorter than the header and the table.
    /// * [`RsliError::OverlayNotTrailer`] when `overlay` is `Some` but not the value of the
    ///   trailer `tail` ends with.
    pub fn from_entries(
        header: &Header,
        mut entries: Vec<Entry>,
        file_len: u64,
        tail: &[u8],
        overlay: Option<u32>,
    ) -> Result<Editor, RsliError> {
        let header = &Header::parse(&header.raw)?;
        let needed = header.table_end();
        if entries.len() != usize::from(header.entry_count) {
            return Err(RsliError::EntryCount {
                expected: header.entry_count,
                got: entries.len(),
            });
        }
        if file_len < needed {
            return Err(RsliError::Truncated {
                len: file_len,
                needed,
            });
        }
        if let Some(overlay) = overlay {
            let trailer = parse_trailer(tail);
            if trailer != Some(overlay) {
                return Err(RsliError::OverlayNotTrailer { overlay, trailer });
            }
        }
        let mut source_head = Vec::with_capacity(usize::try_from(needed).unwrap_or(0));
        source_head.extend_from_slice(&header.raw);
        for e in &entries {
            source_head.extend_from_slice(&e.to_bytes());
        }
        if let Some(table) = source_head.get_mut(HEADER_LEN..) {
            XorStream::new(header.key()).apply(table);
        }
        settle_sort_index(header, &mut entries);
        let overlay_value = overlay.unwrap_or(0);
        let real = |e: &Entry| {
            let start = u64::from(e.data_offset) + u64::from(overlay_value);
            (start, start + span_len(e))
        };

        // The trailer is kept apart, so that it stays last whatever is added before it,
        // when the offsets are read with it (it must stay last for them to mean the same),
        // or when no payload runs into its bytes (they are then no payload's). An empty
        // entry runs into none, wherever it points: one pointing at the end of the file
        // made a canonical rebuild drop the trailer.
        let runs_into = |e: &Entry, at: u64| span_len(e) > 0 && real(e).1 > at;
        let trailer = parse_trailer(tail)
            .and_then(|_| tail.last_chunk::<TRAILER_LEN>().copied())
            .filter(|_| {
                let trailer_start = file_len - TRAILER_LEN as u64;
                file_len >= needed + TRAILER_LEN as u64
                    && (overlay.is_some() || !entries.iter().any(|e| runs_into(e, trailer_start)))
            });
        let region_end = file_len - trailer.map_or(0, |t| t.len() as u64);
        let region = needed..region_end;

        let mut starts = Vec::with_capacity(entries.len());
        let items = entries
            .into_iter()
            .zip(0u32..)
            .map(|(entry, index)| {
                let (start, end) = real(&entry);
                // A payload whose span runs past the end of the region keeps the bytes
                // that exist, when what a read takes lies within them (a stored entry's
                // `packed_size` larger than its `unpacked_size`), or is the Deflate stream
                // that decodes without its declared last byte, past the end of the file
                // (SPEC 2.7, a retail entry). Any other read past the end is an entry no
                // reader takes: moved with the bytes it has, it would read those laid
                // after them, so it stays as it is (outside).
                let read_end = start + u64::from(entry.stream_len());
                let reads_inside = read_end <= region.end
                    || Some(read_end) == file_len.checked_add(1)
                        && region.end == file_len
                        && entry.method() == Ok(Method::Deflate);
                let inside = start >= region.start && start < region.end && reads_inside
                    || start == region.end && end == start;
                // An empty payload cuts no block: it would split the bytes around it.
                if inside && end > start {
                    starts.push(start);
                }
                Item {
                    payload: if inside {
                        Payload::Original {
                            start,
                            len: end.min(region.end) - start,
                            key: entry.sort_index,
                        }
                    } else {
                        Payload::Outside
                    },
                    entry,
                    source: Some(index),
                }
            })
            .collect();
        Ok(Editor {
            header: header.raw,
            items,
            starts,
            region,
            source_head,
            read_from_source: true,
            source_len: file_len,
            overlay: overlay_value,
            trailer,
            reindex: false,
            pack: PackOptions::default(),
        })
    }

    /// Declares that the source holds entry `index`'s packed bytes encrypted with `key`
    /// rather than with the key its record gives it (its effective `sort_index`): for a
    /// source put back together from elsewhere, as `ngi pack` does from a folder whose
    /// entries may have been renamed or removed since. The save re-keys from `key`. No
    /// effect on an entry whose payload was replaced or lies outside the payload region.
    ///
    /// # Errors
    ///
    /// * [`BuildError::NoSuchEntry`] when there is no entry `index`.
    pub fn set_source_key(&mut self, index: usize, key: u16) -> Result<(), BuildError> {
        self.item(index)?;
        if let Some(Item {
            payload: Payload::Original { key: k, .. } | Payload::Moved { key: k, .. },
            ..
        }) = self.items.get_mut(index)
        {
            *k = key;
        }
        Ok(())
    }

    /// Moves entry `from` to index `to`, the entries between shifting by one.
    ///
    /// # Errors
    ///
    /// * [`BuildError::NoSuchEntry`] when `from` or `to` is past the last entry (`from` is
    ///   checked first).
    pub fn move_entry(&mut self, from: usize, to: usize) -> Result<(), BuildError> {
        self.item(from)?;
        self.item(to)?;
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
    /// * [`BuildError::OrderLength`] when it lists more or fewer indices than there are
    ///   entries;
    /// * [`BuildError::NoSuchEntry`] for the first index past the last entry;
    /// * [`BuildError::OrderRepeats`] for the first index listed a second time.
    ///
    /// ```
    /// use ngi_core::{Method, rsli::{BuildError, Builder, Editor, Library}};
    ///
    /// let mut builder = Builder::new();
    /// for name in [&b"A"[..], b"B", b"C"] {
    ///     builder.add(name, Method::Stored, name)?;
    /// }
    /// let old = builder.build()?;
    ///
    /// let mut editor = Editor::open(&Library::open(&old)?)?;
    /// assert_eq!(
    ///     editor.reorder(&[0, 1]),
    ///     Err(BuildError::OrderLength { len: 2, count: 3 })
    /// );
    /// editor.reorder(&[2, 0, 1])?;
    /// let new = editor.plan()?.to_vec(&old)?;
    ///
    /// let library = Library::open(&new)?;
    /// let names: Vec<&[u8]> = library.entries().iter().map(|e| e.name()).collect();
    /// assert_eq!(names, [&b"C"[..], b"A", b"B"]);
    /// assert_eq!(library.unpack_to_vec(0, &Default::default())?, b"C");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn reorder(&mut self, order: &[usize]) -> Result<(), BuildError> {
        if crate::edit::order::apply(&mut self.items, order)? {
            self.reindex = true;
        }
        Ok(())
    }

    /// How entries added or replaced from now on are packed (the Deflate level).
    pub fn pack_options(&mut self, options: PackOptions) -> &mut Editor {
        self.pack = options;
        self
    }

    /// The header's XOR seed (its low 16 bits key the table's cipher).
    pub fn seed(&self) -> u32 {
        Header::parse(&self.header).map_or(0, |h| h.seed)
    }

    /// Sets the header's XOR seed. The save encrypts the table with it; no payload is
    /// keyed by the seed, so none changes. An entry whose bytes lie in the table reads
    /// other bytes then, and the save is refused ([`BuildError::OutsideChanged`]).
    ///
    /// ```
    /// use ngi_core::{Limits, Method, rsli::{Builder, Editor, Library}};
    ///
    /// let mut builder = Builder::new();
    /// builder.add(b"A.TXT", Method::XorLzss, b"secret, secret, secret")?;
    /// let old = builder.build()?;
    ///
    /// let mut editor = Editor::open(&Library::open(&old)?)?;
    /// editor.set_seed(0x1234_5678);
    /// let new = editor.plan()?.to_vec(&old)?;
    /// let library = Library::open(&new)?;
    /// assert_eq!(library.header().seed, 0x1234_5678);
    /// assert_eq!(library.unpack_to_vec(0, &Limits::DEFAULT)?, b"secret, secret, secret");
    /// assert_eq!(new[64..], old[64..], "the payload stays as it was");
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn set_seed(&mut self, seed: u32) -> &mut Editor {
        if let Some(field) = self.header.get_mut(20..24) {
            field.copy_from_slice(&seed.to_le_bytes());
        }
        self
    }

    /// Whether the header's presorted flag is `0xABBA` (the stored `sort_index` values
    /// are the lookup table).
    pub fn is_presorted(&self) -> bool {
        Header::parse(&self.header).is_ok_and(|h| h.is_presorted())
    }

    /// Sets the presorted flag (`0xABBA`) or clears it. A change makes the save write
    /// every `sort_index` as the engine's permutation, as
    /// [`rebuild_sort_index`](Editor::rebuild_sort_index) does: without the flag the
    /// engine computes it and keys XOR payloads by it, and with the flag newly set the
    /// stored values must be the ones the engine used until then. XOR payloads whose key
    /// that moves are re-keyed. Setting the flag the header already has changes nothing.
    ///
    /// ```
    /// use ngi_core::{Limits, Method, rsli::{Builder, Editor, Library}};
    ///
    /// let mut builder = Builder::new();
    /// builder.presorted(false);
    /// builder.add(b"B.TXT", Method::Xor, b"bee")?;
    /// builder.add(b"A.TXT", Method::Xor, b"ay")?;
    /// let old = builder.build()?;
    ///
    /// let mut editor = Editor::open(&Library::open(&old)?)?;
    /// editor.set_presorted(true);
    /// let new = editor.plan()?.to_vec(&old)?;
    /// let library = Library::open(&new)?;
    /// assert!(library.header().is_presorted());
    /// assert_eq!(library.unpack_to_vec(0, &Limits::DEFAULT)?, b"bee");
    /// assert_eq!(library.entry(0).unwrap().file_sort_index, 1, "A.TXT sorts first");
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn set_presorted(&mut self, on: bool) -> &mut Editor {
        if on != self.is_presorted() {
            let flag = if on { super::PRESORTED } else { 0 };
            if let Some(field) = self.header.get_mut(14..16) {
                field.copy_from_slice(&flag.to_le_bytes());
            }
            self.reindex = true;
        }
        self
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// The source's payload region, in real offsets: from the end of the table to the end
    /// of the file, or to the trailer when it is kept apart.
    pub fn payload_region(&self) -> Range<u64> {
        self.region.clone()
    }

    /// The source's `AO` trailer, when it is kept apart (no payload reaches into it).
    pub fn trailer(&self) -> Option<[u8; TRAILER_LEN]> {
        self.trailer
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Entry `index` as it stands: its name and fields as edited. `data_offset` and
    /// `sort_index` are the source's (0 for an added entry) until the save lays the
    /// library out: an add, a removal or a rename that moves names in the table's order
    /// gives entries other `sort_index` values, and with them other XOR keys, which
    /// [`plan`](Editor::plan) works out (its [`Plan::rekeys`] says which payloads it
    /// re-keys) and the saved table holds.
    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.items.get(index).map(|item| &item.entry)
    }

    /// The range of the source (real offsets) entry `index`'s packed bytes come from, if
    /// they come from the source: its original payload in the payload region (kept or
    /// moved), or bytes given by [`add_from_source`](Editor::add_from_source) or
    /// [`replace_from_source`](Editor::replace_from_source).
    pub fn source_range(&self, index: usize) -> Option<Range<u64>> {
        match self.items.get(index)?.payload {
            Payload::Original { start, len, .. } | Payload::Moved { start, len, .. } => {
                Some(start..start + len)
            }
            Payload::New {
                bytes: NewBytes::Source { offset, len },
                ..
            } => Some(offset..offset.saturating_add(len)),
            Payload::Outside | Payload::New { .. } => None,
        }
    }

    /// The index entry `index` had in the library opened, `None` for one added since (or
    /// past the last entry). Errors number entries as the edit has them: this says which
    /// entry of the library as it was (as `ngi list` showed it) one of them is.
    pub fn source_index(&self, index: usize) -> Option<usize> {
        self.items
            .get(index)?
            .source
            .and_then(|i| usize::try_from(i).ok())
    }

    /// The first entry, in table order, whose name matches `name` as `rsFind` compares
    /// them: the query upper-cased and cut to 15 bytes, compared byte for byte. Where
    /// several entries have that name, `rsFind`'s binary search may reach another of
    /// them: [`Library::find`] gives the entry the engine takes, and until an entry is
    /// removed or moved the editor numbers entries as the library does.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        let buffer = engine_query(name);
        let query = buffer.split(|&b| b == 0).next().unwrap_or_default();
        self.items
            .iter()
            .position(|item| item.entry.name() == query)
    }

    /// Whether `name` is one [`rename`](Editor::rename) would give entry `index`, or
    /// [`add`](Editor::add) a new entry (`index` [`len`](Editor::len)): the name's own
    /// rules, checked before [`find`](Editor::find), which upper-cases `name` as `rsFind`
    /// does and so matches `b"sky"` to an entry named `SKY`. Nothing changes.
    ///
    /// ```
    /// use ngi_core::rsli::{BuildError, Editor};
    ///
    /// let editor = Editor::new();
    /// assert_eq!(editor.check_name(0, b"SKY.TEX"), Ok(()));
    /// assert_eq!(
    ///     editor.check_name(0, b"sky.tex"),
    ///     Err(BuildError::NameNotUpperCase { entry: 0 })
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// [`BuildError::NameEmpty`], [`BuildError::NameTooLong`] (over 12 bytes),
    /// [`BuildError::NameHasNul`] or [`BuildError::NameNotUpperCase`], naming entry
    /// `index`.
    pub fn check_name(&self, index: usize, name: &[u8]) -> Result<(), BuildError> {
        checked_name(entry_id(index), name).map(drop)
    }

    /// Appends an entry holding `data`, packed with `method`; returns its index.
    ///
    /// A name another entry has already is taken as it is (real archives hold such
    /// names), and the engine then finds only one of them: check with
    /// [`find`](Editor::find) first to refuse it.
    ///
    /// # Errors
    ///
    /// A refused entry is not added.
    ///
    /// * [`BuildError::TooManyEntries`] when the library already holds [`MAX_ENTRIES`]
    ///   entries.
    /// * [`BuildError::NameEmpty`], [`BuildError::NameTooLong`] (over 12 bytes),
    ///   [`BuildError::NameHasNul`] or [`BuildError::NameNotUpperCase`] for the name.
    /// * [`BuildError::TooLarge`] when `data`, or its packed stream, is longer than a `u32`
    ///   can say.
    /// * [`BuildError::MethodNotImplemented`] for [`Method::Deflate`] without the `deflate`
    ///   feature.
    /// * [`BuildError::OutOfMemory`] when the packed stream needs more memory than there
    ///   is (an error, not an abort).
    pub fn add(&mut self, name: &[u8], method: Method, data: &[u8]) -> Result<usize, BuildError> {
        self.add_with(name, method, |editor, index, entry| {
            editor.packed(index, method, data, None, entry)
        })
    }

    /// [`add`](Editor::add), with data the editor does not hold: `len` bytes of the save's
    /// source from `offset`, which the plan copies ([`Piece::Copy`]) as it copies the old
    /// payloads, XORed on the way when `method` is [`Method::Xor`]. Only the methods whose
    /// packed stream is the data itself can take bytes so: [`Method::Stored`] and
    /// [`Method::Xor`]. The source is whatever the plan is written from, and may hold
    /// more than the library being edited: `ngi add` joins a large file after the
    /// library's bytes in one source, so it is never held in memory. The range is not
    /// checked here (the source is not known yet): `edit::write_plan` and
    /// [`Plan::to_vec`] fail if the source ends before it.
    ///
    /// ```
    /// use ngi_core::{Method, rsli::{Builder, Editor, Library}};
    ///
    /// let mut builder = Builder::new();
    /// builder.add(b"OLD", Method::Lzss, b"old bytes")?;
    /// let old = builder.build()?;
    /// // The source: the library, and after it the bytes of a new entry.
    /// let source = [&old[..], b"new bytes"].concat();
    ///
    /// let mut editor = Editor::open(&Library::open(&old)?)?;
    /// editor.add_from_source(b"NEW", Method::Xor, old.len() as u64, 9)?;
    /// let new = editor.plan()?.to_vec(&source)?;
    /// let library = Library::open(&new)?;
    /// assert_eq!(library.unpack_to_vec(1, &Default::default())?, b"new bytes");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`add`](Editor::add)'s, for data of `len` bytes, and
    /// [`BuildError::MethodPacks`] for a method that packs its data (refused before
    /// anything is read).
    pub fn add_from_source(
        &mut self,
        name: &[u8],
        method: Method,
        offset: u64,
        len: u64,
    ) -> Result<usize, BuildError> {
        self.add_with(name, method, |_, index, entry| {
            copied(index, method, offset, len, None, entry)
        })
    }

    /// Appends an entry named `name`, its method `method`, and the payload `payload`
    /// makes for it (setting its sizes).
    fn add_with(
        &mut self,
        name: &[u8],
        method: Method,
        payload: impl FnOnce(&Editor, usize, &mut Entry) -> Result<Payload, BuildError>,
    ) -> Result<usize, BuildError> {
        let index = self.items.len();
        if index >= MAX_ENTRIES {
            return Err(BuildError::TooManyEntries);
        }
        let mut entry = Entry {
            name: checked_name(entry_id(index), name)?,
            flags: method.bits(),
            ..Entry::default()
        };
        let payload = payload(self, index, &mut entry)?;
        self.items.push(Item {
            entry,
            payload,
            source: None,
        });
        self.reindex = true;
        Ok(index)
    }

    /// Replaces entry `index`'s data, packed with its own method.
    ///
    /// # Errors
    ///
    /// As [`replace_with`](Editor::replace_with), and
    /// [`BuildError::UnsupportedMethod`] when the entry's flags name no method.
    pub fn replace(&mut self, index: usize, data: &[u8]) -> Result<(), BuildError> {
        let entry = self.item(index)?.entry;
        let method = entry.method().map_err(|_| BuildError::UnsupportedMethod {
            entry: entry_id(index),
            flags: entry.flags,
        })?;
        self.replace_with(index, method, data)
    }

    /// Replaces entry `index`'s data and its method (the other flag bits stay).
    ///
    /// # Errors
    ///
    /// A refused replacement changes nothing.
    ///
    /// * [`BuildError::NoSuchEntry`] when there is no entry `index`.
    /// * [`BuildError::TooLarge`] when `data`, or its packed stream, is longer than a `u32`
    ///   can say.
    /// * [`BuildError::MethodNotImplemented`] for [`Method::Deflate`] without the `deflate`
    ///   feature.
    /// * [`BuildError::OutOfMemory`] when the packed stream needs more memory than there
    ///   is (an error, not an abort).
    pub fn replace_with(
        &mut self,
        index: usize,
        method: Method,
        data: &[u8],
    ) -> Result<(), BuildError> {
        self.replace_by(index, method, |editor, entry, was| {
            editor.packed(index, method, data, was, entry)
        })
    }

    /// [`replace_with`](Editor::replace_with), with `len` bytes of the save's source from
    /// `offset` as the new data (see [`add_from_source`](Editor::add_from_source)), for
    /// [`Method::Stored`] or [`Method::Xor`].
    ///
    /// # Errors
    ///
    /// [`replace_with`](Editor::replace_with)'s, for data of `len` bytes, and
    /// [`BuildError::MethodPacks`] for a method that packs its data.
    pub fn replace_from_source(
        &mut self,
        index: usize,
        method: Method,
        offset: u64,
        len: u64,
    ) -> Result<(), BuildError> {
        self.replace_by(index, method, |_, entry, was| {
            copied(index, method, offset, len, was, entry)
        })
    }

    /// Gives entry `index` the method `method` and the payload `payload` makes for it
    /// (setting its sizes), told the original range it replaces; a refusal changes
    /// nothing.
    fn replace_by(
        &mut self,
        index: usize,
        method: Method,
        payload: impl FnOnce(&Editor, &mut Entry, Option<(u64, u64)>) -> Result<Payload, BuildError>,
    ) -> Result<(), BuildError> {
        let item = self.item(index)?;
        let was = match item.payload {
            Payload::Original { start, len, .. } => Some((start, len)),
            Payload::New { was, .. } => was,
            Payload::Outside | Payload::Moved { .. } => None,
        };
        let mut entry = item.entry;
        entry.flags = (entry.flags & !METHOD_MASK) | method.bits();
        let payload = payload(self, &mut entry, was)?;
        if let Some(item) = self.items.get_mut(index) {
            item.entry = entry;
            item.payload = payload;
        }
        Ok(())
    }

    /// Removes entry `index`; later entries move down one index.
    ///
    /// # Errors
    ///
    /// * [`BuildError::NoSuchEntry`] when there is no entry `index`.
    pub fn remove(&mut self, index: usize) -> Result<(), BuildError> {
        self.item(index)?;
        self.items.remove(index);
        self.reindex = true;
        Ok(())
    }

    /// Keeps the entries whose index `keep` accepts and removes the others, as
    /// [`remove`](Editor::remove) of each would, in one pass (removing many entries one at
    /// a time moves the later ones each time). `keep` is asked once per entry, in index
    /// order, with the index before any removal.
    ///
    /// ```
    /// use ngi_core::Method;
    /// use ngi_core::rsli::Editor;
    ///
    /// let mut editor = Editor::new();
    /// for name in [&b"A"[..], b"B", b"C"] {
    ///     editor.add(name, Method::Stored, name)?;
    /// }
    /// editor.retain(|index| index != 1);
    /// assert_eq!(editor.len(), 2);
    /// assert_eq!(editor.find(b"C"), Some(1));
    /// # Ok::<(), ngi_core::rsli::BuildError>(())
    /// ```
    pub fn retain(&mut self, keep: impl FnMut(usize) -> bool) {
        self.reindex |= crate::edit::order::retain(&mut self.items, keep);
    }

    /// Renames entry `index` (1 to 12 bytes, no NUL, no lower-case letter); the name
    /// field is zero-filled after it.
    ///
    /// A name another entry has already is taken as it is (real archives hold such
    /// names), and the engine then finds only one of them: check with
    /// [`find`](Editor::find) first to refuse it.
    ///
    /// # Errors
    ///
    /// * [`BuildError::NoSuchEntry`] when there is no entry `index`.
    /// * [`BuildError::NameEmpty`], [`BuildError::NameTooLong`],
    ///   [`BuildError::NameHasNul`] or [`BuildError::NameNotUpperCase`] for the name; the
    ///   entry keeps its old one.
    pub fn rename(&mut self, index: usize, name: &[u8]) -> Result<(), BuildError> {
        self.item(index)?;
        let field = checked_name(entry_id(index), name)?;
        if let Some(item) = self.items.get_mut(index) {
            item.entry.name = field;
        }
        self.reindex = true;
        Ok(())
    }

    /// Makes the save compute every `sort_index` (re-keying what that moves) even if
    /// nothing asked for it.
    pub fn rebuild_sort_index(&mut self) {
        self.reindex = true;
    }

    /// Turns the library into what the [`Builder`](super::Builder) lays out: packed
    /// payloads in entry order right after the table, no gaps, reserved bytes and name
    /// tails zeroed, `sort_index` the engine's permutation (payloads re-keyed to it). The
    /// header and the trailer stay.
    ///
    /// Each `packed_size` becomes the length of the bytes laid out, as the builder writes
    /// it: a stored or XOR entry's is its `unpacked_size` (the bytes a read takes; any
    /// past them, which no read takes, are left out), and a Deflate entry that declared
    /// one byte past the end of the file (SPEC 2.7) loses that byte, which its stream
    /// decodes without.
    ///
    /// # Errors
    ///
    /// * [`BuildError::PayloadOutside`] for the first entry whose range is not inside the
    ///   payload region, but for an empty one that reads (its offset within the file): it
    ///   has no bytes to lose, and takes its place among the others; nothing is changed.
    pub fn canonicalize(&mut self) -> Result<(), BuildError> {
        let (overlay, source_len) = (u64::from(self.overlay), self.source_len);
        let empty_and_read = |entry: &Entry| {
            span_len(entry) == 0 && u64::from(entry.data_offset) + overlay <= source_len
        };
        if let Some((index, item)) = self.items.iter().enumerate().find(|(_, item)| {
            matches!(item.payload, Payload::Outside) && !empty_and_read(&item.entry)
        }) {
            return Err(BuildError::PayloadOutside {
                entry: entry_id(index),
                offset: u64::from(item.entry.data_offset) + u64::from(self.overlay),
            });
        }
        for item in &mut self.items {
            match item.payload {
                Payload::Original { start, len, key } => {
                    // The bytes a read takes, sized as the builder sizes them: the span
                    // kept together (`span_len`) may hold another payload's bytes past
                    // them, which laid out again would be written twice.
                    let taken = builder_len(&item.entry, len);
                    item.entry.packed_size = u32::try_from(taken).unwrap_or(u32::MAX);
                    item.payload = Payload::Moved {
                        start,
                        len: taken,
                        key,
                    };
                }
                Payload::New { ref mut was, .. } => *was = None,
                Payload::Outside => {
                    item.payload = Payload::Moved {
                        start: self.region.start,
                        len: 0,
                        key: item.entry.sort_index,
                    };
                }
                Payload::Moved { .. } => {}
            }
            let name_len = item.entry.name().len();
            for byte in item.entry.name.iter_mut().skip(name_len) {
                *byte = 0;
            }
            item.entry.reserved = [0; 4];
        }
        self.starts.clear();
        self.region = self.region.start..self.region.start;
        self.reindex = true;
        Ok(())
    }

    /// The new file, as pieces to write and payloads to re-key.
    ///
    /// A library with no trailer ends with its last payload's bytes, which a reader that
    /// honours trailers takes for one when they end with `AO` and four more bytes (see
    /// [`Builder::build`](super::Builder::build)); a payload added last may make them so.
    ///
    /// # Errors
    ///
    /// * [`BuildError::TrailerInTable`] when anything is edited and the offsets are read
    ///   with a media overlay whose `AO` trailer overlaps the header or the table, so it
    ///   could not stay last.
    /// * [`BuildError::OverlayTooLarge`] when an entry's new offset is below the overlay,
    ///   so its `data_offset` would be negative.
    /// * [`BuildError::TooLarge`] when an entry's new `data_offset` does not fit a `u32`.
    /// * [`BuildError::OutsideChanged`] when an entry whose bytes lie outside the payload
    ///   region may read other bytes under the new layout.
    /// * [`BuildError::TooManyEntries`] above [`MAX_ENTRIES`] entries, which
    ///   [`add`](Editor::add) does not let happen.
    pub fn plan(&self) -> Result<Plan<'_>, BuildError> {
        let count = self.items.len();
        if count > MAX_ENTRIES {
            return Err(BuildError::TooManyEntries);
        }
        let mut entries: Vec<Entry> = self.items.iter().map(|item| item.entry).collect();
        if self.reindex {
            compute_permutation(&mut entries);
            for e in &mut entries {
                e.file_sort_index = e.sort_index;
            }
        }
        let copied = shared_rekeys(&self.items, &entries);
        // The count aside, a header of the editor's is the source's but for a new seed
        // or flag, which rewrites the table too.
        let header_set = self.source_head.get(..HEADER_LEN).is_some_and(|source| {
            source.get(..4) != self.header.get(..4) || source.get(6..) != self.header.get(6..)
        });
        let edited = self.reindex
            || header_set
            || copied.iter().any(|&c| c)
            || self
                .items
                .iter()
                .any(|item| matches!(item.payload, Payload::New { .. } | Payload::Moved { .. }));
        if edited && self.overlay != 0 && self.trailer.is_none() {
            return Err(BuildError::TrailerInTable {
                overlay: self.overlay,
            });
        }
        let table_end = HEADER_LEN as u64 + (count * ENTRY_LEN) as u64;
        let slots: Vec<Slot> = self
            .items
            .iter()
            .zip(&copied)
            .map(|(item, &copy)| match item.payload {
                Payload::Original { len, .. } if copy => Slot::New { len, was: None },
                _ => item.slot(),
            })
            .collect();
        let layout = lay_out(self.region.clone(), table_end, &self.starts, &slots, 1);

        let mut rekeys = Vec::new();
        let mut kept: Vec<(u64, u64, usize, bool)> = Vec::new();
        for (i, (item, entry)) in self.items.iter().zip(entries.iter_mut()).enumerate() {
            let Some(offset) = layout.offsets.get(i).copied().flatten() else {
                continue;
            };
            let stored =
                offset
                    .checked_sub(u64::from(self.overlay))
                    .ok_or(BuildError::OverlayTooLarge {
                        overlay: self.overlay,
                        entry: entry_id(i),
                        offset,
                    })?;
            entry.data_offset =
                u32::try_from(stored).map_err(|_| BuildError::TooLarge { entry: entry_id(i) })?;
            // Kept payloads keep their sizes as stored (the span may be longer than
            // `packed_size`: see `span_len`); new ones were sized when packed, and are
            // encrypted from key 0 (none) as kept ones are re-keyed, so they are
            // written without a copy.
            let (len, from, copied) = match item.payload {
                Payload::Original { len, key, .. } | Payload::Moved { len, key, .. } => {
                    (len, key, true)
                }
                Payload::New { ref bytes, .. } => (bytes.len(), 0, false),
                Payload::Outside => continue,
            };
            // Never past the bytes kept: a payload cut at the end of the region has no
            // more to re-key, and the bytes after it are another payload's.
            let rekey = re_keyed(entry, len, from);
            if rekey {
                rekeys.push(Rekey {
                    at: offset,
                    len: xor_len(entry).min(len),
                    from,
                    to: entry.sort_index,
                });
            }
            if copied {
                kept.push((offset, len, i, rekey));
            }
        }
        check_rekeys_alone(&mut kept)?;
        rekeys.sort_by_key(|r| r.at);

        let mut head = Vec::with_capacity(usize::try_from(table_end).unwrap_or(0));
        head.extend_from_slice(&self.header);
        if let Some(count_field) = head.get_mut(4..6) {
            count_field.copy_from_slice(&(count as u16).to_le_bytes());
        }
        for e in &entries {
            head.extend_from_slice(&e.to_bytes());
        }
        let key = Header::parse(&self.header).map_or(0, |h| h.key());
        if let Some(table) = head.get_mut(HEADER_LEN..) {
            XorStream::new(key).apply(table);
        }
        let mut pieces = Vec::with_capacity(layout.events.len() + 2);
        pieces.push(Piece::Owned(head));
        for event in &layout.events {
            pieces.push(match *event {
                Event::Copy { offset, len } => Piece::Copy { offset, len },
                Event::Zeros(len) => Piece::Zeros(len),
                Event::New(i) => self.new_piece(i),
            });
        }
        if let Some(trailer) = self.trailer {
            pieces.push(Piece::Owned(trailer.to_vec()));
        }
        let mut plan = Plan::new(pieces);
        plan.rekeys = rekeys;
        if self.read_from_source {
            plan.source_holds.push(Held {
                offset: 0,
                bytes: &self.source_head,
            });
            if let Some(trailer) = &self.trailer {
                plan.source_holds.push(Held {
                    offset: self.source_len.saturating_sub(TRAILER_LEN as u64),
                    bytes: trailer,
                });
            }
        }
        // Nothing edited and nothing re-keyed: the plan is the source itself.
        if edited || !plan.rekeys.is_empty() {
            self.check_outside(&entries, &plan)?;
        }
        Ok(plan)
    }

    /// Refuses a plan under which an entry left where it is, outside the payload region,
    /// may read other bytes than it did: the edit rewrites the header and table bytes it
    /// points into, moves the trailer or the end of the file it points past, or gives it
    /// another XOR key (its bytes are not re-keyed, being no payload's). A range that runs
    /// from the table into the payloads is refused once anything is edited, as the check
    /// does not follow the payloads, and so is one cut short by the end of the file, whose
    /// bytes there would move. Any other entry that could not be read before nor after
    /// loses nothing; an empty one reads alike wherever both files hold its offset.
    fn check_outside(&self, entries: &[Entry], plan: &Plan<'_>) -> Result<(), BuildError> {
        let head = match plan.pieces.first() {
            Some(Piece::Owned(head)) => head.as_slice(),
            _ => &[],
        };
        let new_len = plan.len();
        for (i, (item, entry)) in self.items.iter().zip(entries).enumerate() {
            if !matches!(item.payload, Payload::Outside) {
                continue;
            }
            // What a read takes, not the span a save keeps together (`span_len`), by the
            // reader's rule: within the file, but for the one byte past it a Deflate
            // entry may read (SPEC 2.7).
            let len = u64::from(entry.stream_len());
            let start = u64::from(entry.data_offset) + u64::from(self.overlay);
            let end = start + len;
            let slack = u64::from(len > 0 && entry.method() == Ok(Method::Deflate));
            let readable = |file_len: u64| end <= file_len.saturating_add(slack);
            let (before, after) = (readable(self.source_len), readable(new_len));
            // Cut short by the end of the file, an entry still has bytes of its own there,
            // which a resumed download would make whole: a plan that moves them from under
            // its offset, or gives it another key, loses them (an `add` moved them down
            // behind a larger table, unread before and after, without a word).
            let cut_short = len > 0 && start >= self.region.start && start < self.source_len;
            if !before && !after && !cut_short || len == 0 && before == after {
                continue;
            }
            let same_key = xor_len(entry) == 0 || entry.sort_index == item.entry.sort_index;
            let range = usize::try_from(start).unwrap_or(usize::MAX)
                ..usize::try_from(end).unwrap_or(usize::MAX);
            let same_bytes = match (self.source_head.get(range.clone()), head.get(range)) {
                (Some(old), Some(new)) => old == new,
                // Past the payloads, in the trailer or beyond the end: the same bytes only
                // when the file keeps its length (the trailer then stays where it was).
                // Bytes that run from the table into the payloads may have moved.
                _ => start >= self.region.end && new_len == self.source_len,
            };
            if before != after || !(same_key && same_bytes) {
                return Err(BuildError::OutsideChanged {
                    entry: entry_id(i),
                    offset: start,
                });
            }
        }
        Ok(())
    }

    fn new_piece(&self, i: usize) -> Piece<'_> {
        let Some(item) = self.items.get(i) else {
            return Piece::Zeros(0);
        };
        match &item.payload {
            // Encrypted by the plan's re-keying.
            Payload::New { bytes, .. } => bytes.piece(),
            // An original payload is only laid out as new when `shared_rekeys` copies it.
            &Payload::Moved { start, len, .. } | &Payload::Original { start, len, .. } => {
                Piece::Copy { offset: start, len }
            }
            Payload::Outside => Piece::Zeros(0),
        }
    }

    /// Packs `data` for entry `index` (XOR comes at the save) and sets its sizes.
    fn packed(
        &self,
        index: usize,
        method: Method,
        data: &[u8],
        was: Option<(u64, u64)>,
        entry: &mut Entry,
    ) -> Result<Payload, BuildError> {
        let id = entry_id(index);
        entry.unpacked_size =
            u32::try_from(data.len()).map_err(|_| BuildError::TooLarge { entry: id })?;
        let plain = codec::pack(method, 0, data, &self.pack).map_err(|e| e.of_entry(id))?;
        entry.packed_size =
            u32::try_from(plain.len()).map_err(|_| BuildError::TooLarge { entry: id })?;
        Ok(Payload::New {
            bytes: NewBytes::Held(plain),
            was,
        })
    }

    fn item(&self, index: usize) -> Result<&Item, BuildError> {
        self.items.get(index).ok_or(BuildError::NoSuchEntry {
            index: index as u64,
            count: self.items.len() as u64,
        })
    }
}

impl Item {
    fn slot(&self) -> Slot {
        match &self.payload {
            &Payload::Original { start, len, .. } => Slot::Kept { start, len },
            Payload::Outside => Slot::Fixed,
            Payload::New { bytes, was } => Slot::New {
                len: bytes.len(),
                was: *was,
            },
            &Payload::Moved { len, .. } => Slot::New { len, was: None },
        }
    }
}

/// The payload of entry `index` for `len` bytes of the save's source from `offset`,
/// copied as they are: only for the methods whose packed stream is the data (sets the
/// entry's sizes).
fn copied(
    index: usize,
    method: Method,
    offset: u64,
    len: u64,
    was: Option<(u64, u64)>,
    entry: &mut Entry,
) -> Result<Payload, BuildError> {
    let id = entry_id(index);
    if !method.copies_data() {
        return Err(BuildError::MethodPacks { entry: id, method });
    }
    let size = u32::try_from(len).map_err(|_| BuildError::TooLarge { entry: id })?;
    entry.unpacked_size = size;
    entry.packed_size = size;
    Ok(Payload::New {
        bytes: NewBytes::Source { offset, len },
        was,
    })
}

/// The bytes of the file an entry's payload takes, from its offset: `packed_size`, but
/// for stored and XOR entries at least `unpacked_size`, which is what the engine reads
/// for them whatever `packed_size` says (SPEC 2.7). A save keeps all of them together.
pub fn span_len(entry: &Entry) -> u64 {
    let packed = u64::from(entry.packed_size);
    match entry.method() {
        Ok(Method::Stored | Method::Xor) => packed.max(u64::from(entry.unpacked_size)),
        _ => packed,
    }
}

/// How many of the `len` bytes kept for a source's payload the builder would write for
/// `entry`: `unpacked_size` for the stored and XOR methods, whose `packed_size` no read
/// takes (it may be larger, or smaller), and the kept bytes otherwise, which leave out a
/// Deflate stream's declared last byte past the end of the file (SPEC 2.7).
fn builder_len(entry: &Entry, len: u64) -> u64 {
    match entry.method() {
        Ok(Method::Stored | Method::Xor) => u64::from(entry.unpacked_size).min(len),
        _ => len,
    }
}

/// How many bytes of the payload the entry's XOR covers: all of the packed stream for
/// 0x60 and 0xA0, the `unpacked_size` bytes the engine XORs for 0x20 (SPEC 2.7), none
/// otherwise.
pub fn xor_len(entry: &Entry) -> u64 {
    match entry.method() {
        Ok(Method::Xor) => u64::from(entry.unpacked_size),
        Ok(Method::XorLzss | Method::XorLzhuf) => u64::from(entry.packed_size),
        _ => 0,
    }
}

/// Whether a kept payload of `len` bytes, encrypted with `key`, must be re-keyed for
/// `entry` as written: its method XORs some of those bytes, with another key now.
fn re_keyed(entry: &Entry, len: u64, key: u16) -> bool {
    xor_len(entry).min(len) > 0 && key != entry.sort_index
}

/// Which kept payloads are written as copies of their own at the end of the payload
/// region, where they are re-keyed, instead of in place: those whose key changes while
/// they share bytes with another payload kept in place (one XOR over the shared bytes
/// cannot suit both, and the other entry's bytes must stay as they are). `entries` are
/// the entries as they will be written. Sharing is decided on the source's offsets, which
/// kept payloads keep relative to each other.
fn shared_rekeys(items: &[Item], entries: &[Entry]) -> Vec<bool> {
    // (start, end, index) of every payload kept in place.
    let mut kept: Vec<(u64, u64, usize)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| match item.payload {
            Payload::Original { start, len, .. } if len > 0 => {
                Some((start, start.saturating_add(len), i))
            }
            _ => None,
        })
        .collect();
    kept.sort_unstable();
    let mut copied = alloc::vec![false; items.len()];
    // The furthest end among the payloads that start before the one looked at.
    let mut reach = 0;
    for (k, &(start, end, i)) in kept.iter().enumerate() {
        let shares = start < reach || kept.get(k + 1).is_some_and(|&(next, ..)| next < end);
        reach = reach.max(end);
        let rekeyed = match (items.get(i).map(|item| &item.payload), entries.get(i)) {
            (Some(&Payload::Original { len, key, .. }), Some(entry)) => re_keyed(entry, len, key),
            _ => false,
        };
        if let Some(c) = copied.get_mut(i) {
            *c = shares && rekeyed;
        }
    }
    copied
}

/// Refuses a re-keyed payload that shares bytes with any other payload (a check of the
/// plan: [`shared_rekeys`] has given every such payload a copy of its own): `kept` holds
/// `(offset, len, entry, re-keyed)` of every payload copied from the source.
fn check_rekeys_alone(kept: &mut [(u64, u64, usize, bool)]) -> Result<(), BuildError> {
    kept.sort_by_key(|&(at, ..)| at);
    // The furthest end so far among all payloads and among re-keyed ones, with who.
    let mut all: Option<(u64, usize)> = None;
    let mut keyed: Option<(u64, usize)> = None;
    for &(at, len, entry, rekeyed) in kept.iter().filter(|k| k.1 > 0) {
        let clash = keyed
            .filter(|&(end, _)| at < end)
            .or(all.filter(|&(end, _)| rekeyed && at < end));
        if let Some((_, other)) = clash {
            return Err(BuildError::SharedKeyedPayload {
                entry: entry_id(if rekeyed { entry } else { other }),
                other: entry_id(if rekeyed { other } else { entry }),
            });
        }
        let end = at + len;
        if all.is_none_or(|(e, _)| end > e) {
            all = Some((end, entry));
        }
        if rekeyed && keyed.is_none_or(|(e, _)| end > e) {
            keyed = Some((end, entry));
        }
    }
    Ok(())
}
