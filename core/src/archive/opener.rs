//! The sans-I/O opener: it asks for byte ranges and is fed them, ending with a catalog.

use core::ops::Range;

use super::catalog::{Header, Lookup};
use super::{Catalog, Entry, EntryStore, Error, Format};
use crate::nres::{self, DirectoryDecoder, NresError, Record};
use crate::options::OpenOptions;
use crate::rsli::{self, TableDecoder};

/// Opens an archive of either format without doing any I/O: it says which byte range of
/// the file it needs next ([`need`](Opener::need)), is fed those bytes in pieces of any
/// size down to one ([`feed`](Opener::feed)), and ends with a [`Catalog`]
/// ([`finish`](Opener::finish)).
///
/// What it asks for, in order, and nothing else (never a payload byte):
///
/// | format | ranges |
/// |---|---|
/// | detection | the first 16 bytes (fewer in a shorter file) |
/// | NRes | the directory: `total_size - 64 * count ..` the end |
/// | RsLi | header bytes 16..32, the table `32 .. 32 + 32 * count`, the last 6 bytes (the `AO` trailer, reported even when not honoured; in a file of a few dozen bytes they overlap the table and are read again) |
/// | raw mode | nothing |
///
/// Every size is checked before the range it governs is asked for: the header against
/// the file length it was given (NRes `total_size`, RsLi's table), the entry count against
/// [`Limits::max_entries`](crate::limits::Limits::max_entries), the store against the
/// count. So the bytes it reads are the header, the directory or table, and the trailer:
/// O(entry count), whatever the file's size, and the store receives no more entries than
/// the file holds. Its own state is a few hundred bytes; it never allocates (the store
/// may).
///
/// A driver is a loop of a few lines. Over a slice ([`Catalog::open_in`] is exactly this):
///
/// ```
/// use ngi_core::archive::{Entry, Opener, Slots};
/// use ngi_core::OpenOptions;
///
/// let mut file = [0u8; 16];
/// file[..4].copy_from_slice(b"NRes");
/// file[4..8].copy_from_slice(&0x100u32.to_le_bytes());
/// file[12..16].copy_from_slice(&16u32.to_le_bytes());
///
/// let mut storage = [Entry::EMPTY; 8];
/// let mut opener = Opener::new(file.len() as u64, Slots::new(&mut storage), OpenOptions::DEFAULT);
/// while let Some(range) = opener.need()? {
///     // One byte at a time works as well as the whole range.
///     let at = range.start as usize;
///     opener.feed(&file[at..at + 1])?;
/// }
/// assert_eq!(opener.bytes_read(), 16);
/// let catalog = opener.finish()?;
/// assert!(catalog.is_empty());
/// # Ok::<(), ngi_core::archive::Error>(())
/// ```
#[derive(Debug)]
pub struct Opener<S> {
    file_len: u64,
    options: OpenOptions,
    store: S,
    read: u64,
    state: State,
}

/// Where the opener is.
#[derive(Debug, Clone)]
enum State {
    /// The first `want` bytes, `filled` of them in.
    Head {
        head: [u8; rsli::HEADER_LEN],
        filled: u8,
        want: u8,
    },
    /// The NRes directory, from `at` to the end of the file.
    Directory {
        header: nres::Header,
        decoder: DirectoryDecoder,
        at: u64,
    },
    /// The RsLi table, from `at` to its end.
    Table {
        header: rsli::Header,
        decoder: TableDecoder,
        at: u64,
    },
    /// The last 6 bytes of an RsLi file, `filled` of them in.
    Trailer {
        header: rsli::Header,
        tail: [u8; rsli::TRAILER_LEN],
        filled: u8,
    },
    Done {
        header: Header,
        lookup: Lookup,
        trailer: Option<u32>,
    },
    Failed(Error),
}

/// How many bytes format detection looks at first: the NRes header, and half the RsLi one.
const DETECT_LEN: u64 = nres::HEADER_LEN as u64;

impl<S: EntryStore> Opener<S> {
    /// An opener for a file of `file_len` bytes whose entries go into `store`. The opener
    /// owns the store until [`finish`](Opener::finish) hands it over in the catalog; pass
    /// `&mut store` to keep it whatever the outcome.
    ///
    /// In raw mode ([`OpenOptions::raw`]) it is done at once: one entry, `RAW`, the whole
    /// file (which must fit the 32-bit size field, [`NresError::RawTooLarge`]).
    pub fn new(file_len: u64, store: S, options: OpenOptions) -> Opener<S> {
        let want = file_len.min(DETECT_LEN) as u8;
        let mut opener = Opener {
            file_len,
            options,
            store,
            read: 0,
            state: State::Head {
                head: [0; rsli::HEADER_LEN],
                filled: 0,
                want,
            },
        };
        let next = if options.raw {
            opener.open_raw()
        } else {
            opener.advance()
        };
        opener.settle(next);
        opener
    }

    /// The byte range of the file it needs next, `None` once it is done. Feed any prefix
    /// of it (at least one byte) to [`feed`](Opener::feed).
    ///
    /// # Errors
    ///
    /// * The error the opener failed with (in [`new`](Opener::new) or
    ///   [`feed`](Opener::feed)), every time once it has failed.
    pub fn need(&self) -> Result<Option<Range<u64>>, Error> {
        let range = match &self.state {
            State::Head { filled, want, .. } => u64::from(*filled)..u64::from(*want),
            State::Directory { at, .. } => *at..self.file_len,
            State::Table { header, at, .. } => *at..header.table_end(),
            State::Trailer { filled, .. } => {
                let start = self.file_len.saturating_sub(rsli::TRAILER_LEN as u64);
                start + u64::from(*filled)..self.file_len
            }
            State::Done { .. } => return Ok(None),
            State::Failed(e) => return Err(*e),
        };
        Ok(Some(range))
    }

    /// Takes the bytes of the file that start where [`need`](Opener::need) says; bytes
    /// past the range it asked for are not looked at, and an empty piece changes nothing.
    ///
    /// # Errors
    ///
    /// Errors are sticky: once it failed, every call returns the same error (one from
    /// [`new`](Opener::new) in raw mode included).
    ///
    /// * [`Error::UnknownFormat`] when the first bytes are neither `NRes` nor `NL`.
    /// * [`Error::Nres`] or [`Error::Rsli`] when the header breaks a rule of its format, in
    ///   the order [`nres::Archive::open_with`] and [`rsli::Library::open_in`] check them:
    ///   a bad field, a length that disagrees with the file's, an entry count above
    ///   [`Limits::max_entries`](crate::limits::Limits::max_entries).
    /// * [`Error::StorageTooSmall`] when the store cannot hold the entry count, or takes
    ///   fewer entries than it was readied for.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let next = match &mut self.state {
            State::Failed(e) => return Err(*e),
            State::Done { .. } => return Ok(()),
            _ if bytes.is_empty() => return Ok(()),
            State::Head { head, filled, want } => {
                let room = head
                    .get_mut(usize::from(*filled)..usize::from(*want))
                    .unwrap_or_default();
                let n = room.len().min(bytes.len());
                room.iter_mut().zip(bytes).for_each(|(d, &s)| *d = s);
                *filled += n as u8;
                self.read += n as u64;
                self.advance()
            }
            State::Directory { decoder, at, .. } => {
                let mut input = bytes;
                let mut pushed = Ok(());
                while let Some(record) = decoder.next_record(&mut input) {
                    if pushed.is_ok() {
                        pushed = self.store.push(Entry::from_nres(record));
                    }
                }
                let n = (bytes.len() - input.len()) as u64;
                *at += n;
                self.read += n;
                match pushed {
                    Ok(()) => self.advance(),
                    Err(_) => Err(self.too_small()),
                }
            }
            State::Table { decoder, at, .. } => {
                let mut input = bytes;
                let mut pushed = Ok(());
                let mut index = self.store.entries().len();
                while let Some(entry) = decoder.next_entry(&mut input) {
                    if pushed.is_ok() {
                        let id = u32::try_from(index).unwrap_or(u32::MAX);
                        pushed = self.store.push(Entry::from_rsli(id, entry, None));
                    }
                    index += 1;
                }
                let n = (bytes.len() - input.len()) as u64;
                *at += n;
                self.read += n;
                match pushed {
                    Ok(()) => self.advance(),
                    Err(_) => Err(self.too_small()),
                }
            }
            State::Trailer { tail, filled, .. } => {
                let room = tail.get_mut(usize::from(*filled)..).unwrap_or_default();
                let n = room.len().min(bytes.len());
                room.iter_mut().zip(bytes).for_each(|(d, &s)| *d = s);
                *filled += n as u8;
                self.read += n as u64;
                self.advance()
            }
        };
        self.settle(next);
        match &self.state {
            State::Failed(e) => Err(*e),
            _ => Ok(()),
        }
    }

    /// The bytes of the file it has taken so far.
    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// The length of the file it was given.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// The catalog, once [`need`](Opener::need) says `None`.
    ///
    /// # Errors
    ///
    /// * The error it failed with.
    /// * [`Error::Incomplete`], with the range it needs, when it still needs bytes.
    pub fn finish(self) -> Result<Catalog<S>, Error> {
        let needed = self.need();
        match self.state {
            State::Done {
                header,
                lookup,
                trailer,
            } => {
                let overlay = trailer.filter(|_| self.options.media_trailer);
                Ok(Catalog {
                    file_len: self.file_len,
                    header,
                    lookup,
                    trailer,
                    overlay,
                    entries: self.store,
                })
            }
            State::Failed(e) => Err(e),
            _ => {
                let range = needed?.unwrap_or_default();
                Err(Error::Incomplete {
                    offset: range.start,
                    len: range.end - range.start,
                })
            }
        }
    }

    /// Puts the next state in place, or the failure.
    fn settle(&mut self, next: Result<Option<State>, Error>) {
        match next {
            Ok(Some(state)) => self.state = state,
            Ok(None) => {}
            Err(e) => self.state = State::Failed(e),
        }
    }

    /// The state that follows once the current one has its bytes; `None` to stay.
    fn advance(&mut self) -> Result<Option<State>, Error> {
        match &self.state {
            State::Head { head, filled, want } if filled == want => {
                let (head, filled) = (*head, usize::from(*filled));
                self.detected(head.get(..filled).unwrap_or_default())
            }
            State::Directory { decoder, .. } if decoder.is_done() => self.nres_done().map(Some),
            State::Table {
                header, decoder, ..
            } if decoder.is_done() => Ok(Some(self.trailer_state(*header))),
            State::Trailer {
                header,
                tail,
                filled,
            } if usize::from(*filled) == tail.len() => {
                let (header, trailer) = (*header, rsli::parse_trailer(tail));
                Ok(Some(self.rsli_done(header, trailer)))
            }
            _ => Ok(None),
        }
    }

    /// The first bytes are in: which format, then the checks of its header.
    fn detected(&mut self, head: &[u8]) -> Result<Option<State>, Error> {
        if head.starts_with(&nres::MAGIC) {
            return self.nres_header(head).map(Some);
        }
        if head.starts_with(&rsli::MAGIC) {
            let whole = self.file_len.min(rsli::HEADER_LEN as u64) as u8;
            if head.len() < usize::from(whole) {
                // The second half of the RsLi header.
                let mut buffer = [0; rsli::HEADER_LEN];
                buffer.iter_mut().zip(head).for_each(|(d, &s)| *d = s);
                return Ok(Some(State::Head {
                    head: buffer,
                    filled: head.len() as u8,
                    want: whole,
                }));
            }
            return self.rsli_header(head).map(Some);
        }
        let mut found = [0; 4];
        found.iter_mut().zip(head).for_each(|(d, &s)| *d = s);
        Err(Error::UnknownFormat {
            found,
            len: head.len().min(4) as u8,
        })
    }

    /// SPEC 1.2 in the order [`nres::Archive::open_with`] checks it, then the store.
    fn nres_header(&mut self, head: &[u8]) -> Result<State, Error> {
        let header = nres::Header::parse(head)?;
        if u64::from(header.total_size) != self.file_len {
            return Err(Error::Nres(NresError::SizeMismatch {
                declared: header.total_size,
                actual: self.file_len,
            }));
        }
        let decoder = DirectoryDecoder::new(&header)?;
        nres::archive::check_count(header.entry_count, &self.options.limits)?;
        self.begin(u64::from(header.entry_count))?;
        let state = State::Directory {
            header,
            at: decoder.directory_offset(),
            decoder,
        };
        if header.entry_count == 0 {
            self.state = state;
            return self.nres_done();
        }
        Ok(state)
    }

    /// The NRes directory is in: classify its lookup table.
    fn nres_done(&self) -> Result<State, Error> {
        let State::Directory { header, .. } = self.state else {
            return Err(Error::Incomplete { offset: 0, len: 0 });
        };
        let entries = self.store.entries();
        let table = nres::table::classify_by(
            entries.len(),
            |slot| entries.get(slot).map_or(u32::MAX, Entry::sort_index),
            |index| entries.get(index).map(Entry::name),
        );
        Ok(State::Done {
            header: Header::Nres(header),
            lookup: Lookup::Nres(table),
            trailer: None,
        })
    }

    /// SPEC 2.2 in the order [`rsli::Library::open_in`] checks it, then the store.
    fn rsli_header(&mut self, head: &[u8]) -> Result<State, Error> {
        let header = rsli::Header::parse(head)?;
        let needed = header.table_end();
        if self.file_len < needed {
            return Err(Error::Rsli(rsli::RsliError::Truncated {
                len: self.file_len,
                needed,
            }));
        }
        rsli::library::check_count(header.entry_count, &self.options.limits)?;
        self.begin(u64::from(header.entry_count))?;
        if header.entry_count == 0 {
            return Ok(self.trailer_state(header));
        }
        Ok(State::Table {
            header,
            decoder: TableDecoder::new(&header),
            at: rsli::HEADER_LEN as u64,
        })
    }

    fn trailer_state(&self, header: rsli::Header) -> State {
        State::Trailer {
            header,
            tail: [0; rsli::TRAILER_LEN],
            filled: 0,
        }
    }

    /// The RsLi table and trailer are in: settle `sort_index` as the engine does, then
    /// describe each entry with its key and effective offset.
    fn rsli_done(&mut self, header: rsli::Header, trailer: Option<u32>) -> State {
        let entries = self.store.entries_mut();
        let table = rsli::library::settle(&header, entries);
        let overlay = trailer.filter(|_| self.options.media_trailer);
        for entry in entries.iter_mut() {
            if let Some(&native) = entry.as_rsli() {
                *entry = Entry::from_rsli(entry.index, native, overlay);
            }
        }
        State::Done {
            header: Header::Rsli(header),
            lookup: Lookup::Rsli(table),
            trailer,
        }
    }

    /// Raw mode: the whole file as one entry.
    fn open_raw(&mut self) -> Result<Option<State>, Error> {
        let size = u32::try_from(self.file_len)
            .map_err(|_| NresError::RawTooLarge { len: self.file_len })?;
        (self.options.limits.check_count(1)).map_err(|error| NresError::RawOverLimit { error })?;
        self.begin(1)?;
        let record = Record {
            index: 0,
            bytes: nres::Entry::raw(size).to_bytes(),
        };
        self.store
            .push(Entry::from_nres(record))
            .map_err(|_| self.too_small())?;
        Ok(Some(State::Done {
            header: Header::Raw,
            lookup: Lookup::Nres(nres::LookupTable::Canonical),
            trailer: None,
        }))
    }

    /// Readies the store for `count` entries.
    fn begin(&mut self, count: u64) -> Result<(), Error> {
        let capacity = match usize::try_from(count) {
            Ok(n) => self.store.begin(n).err(),
            Err(_) => Some(0),
        };
        match capacity {
            Some(capacity) => Err(Error::StorageTooSmall {
                needed: count,
                capacity,
            }),
            None => Ok(()),
        }
    }

    /// A store that took fewer entries than it promised at `begin`.
    fn too_small(&self) -> Error {
        Error::StorageTooSmall {
            needed: self.store.entries().len() as u64 + 1,
            capacity: self.store.entries().len(),
        }
    }
}

/// Which format the first bytes of a file announce: `NRes` or `NL` (an `NL` file with a
/// wrong reserved or version byte is still RsLi, so that its parser names the byte).
///
/// ```
/// use ngi_core::archive::{detect, Format};
///
/// assert_eq!(detect(b"NRes\x00\x01"), Some(Format::Nres));
/// assert_eq!(detect(b"NL\x00\x01"), Some(Format::Rsli));
/// assert_eq!(detect(b"PK"), None);
/// ```
pub fn detect(head: &[u8]) -> Option<Format> {
    if head.starts_with(&nres::MAGIC) {
        Some(Format::Nres)
    } else if head.starts_with(&rsli::MAGIC) {
        Some(Format::Rsli)
    } else {
        None
    }
}
