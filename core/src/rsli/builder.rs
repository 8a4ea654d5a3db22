//! Writing RsLi libraries (feature `alloc`).

use super::{
    BuildError, ENTRY_LEN, Entry, HEADER_LEN, MAGIC, MAX_ENTRIES, NAME_LEN, PRESORTED,
    TRAILER_MAGIC, compute_permutation, entry_id,
};
use crate::codec::xor::XorStream;
use crate::codec::{self, Method, PackOptions};
use alloc::vec::Vec;

#[cfg(feature = "deflate")]
#[cfg_attr(docsrs, doc(cfg(feature = "deflate")))]
pub use crate::codec::{DEFAULT_DEFLATE_LEVEL, MAX_DEFLATE_LEVEL};

/// Builds an RsLi library.
///
/// The file is written as the engine reads it: the header (`NL`, 0, version 1, the
/// count, the seed, `0xABBA` when presorted), the table encrypted with the seed, then
/// the payloads right after the table in entry order with no alignment, then the
/// optional media trailer (`AO` + overlay). With a trailer, each `data_offset` is written
/// as the real offset minus the overlay, so that `data_offset + overlay` (what a reader
/// honouring the trailer computes) is the real position.
///
/// Each entry's stored `sort_index` is the engine's permutation
/// ([`compute_permutation`]), presorted or not, so both kinds of reader settle on the
/// same values; and the XOR method encrypts with that final value, the key readers use
/// (SPEC 2.5). `flags` hold the method bits only.
///
/// Methods: [`Method::Stored`] (the data as is), [`Method::Xor`] (`packed_size ==
/// unpacked_size`), [`Method::Lzss`] and [`Method::Lzhuf`] (packed by the LZSS.C- and
/// LZHUF.C-compatible encoders, [`lzss::encode`](crate::codec::lzss::encode),
/// [`lzhuf::encode`](crate::codec::lzhuf::encode)) and their XOR
/// variants [`Method::XorLzss`] and [`Method::XorLzhuf`] (the packed stream encrypted
/// with the entry's final `sort_index`), and [`Method::Deflate`]: a raw RFC 1951 stream
/// (no zlib or gzip wrapper, no XOR: the format has no XOR variant of 0x100) from
/// `miniz_oxide`'s compressor at the level [`deflate_level`][deflate_level] sets.
/// Compressing Deflate needs the `deflate` feature (on by default); without it
/// [`Method::Deflate`] is [`BuildError::MethodNotImplemented`]. Reading it back needs no
/// feature. Every `packed_size` is the exact length of the entry's stream: the one byte a
/// retail Deflate entry overruns the file by (SPEC 2.7) is tolerated by readers, never
/// written.
///
/// Each entry is packed by [`codec::pack`](crate::codec::pack()); the builder adds the names, the table,
/// the keys and the layout.
///
/// Names are 1 to 12 bytes, with no NUL and no ASCII lower-case letter (`rsFind`
/// upper-cases queries, so such an entry could never be found).
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use ngi_core::{Method, rsli::{Builder, Library, OpenOptions}};
///
/// let mut builder = Builder::new();
/// builder.seed(0x1234_5678).media_trailer(Some(16));
/// builder.add(b"README.TXT", Method::Stored, b"plain")?;
/// let secret = builder.add(b"SECRET.BIN", Method::Xor, b"hidden")?;
/// let bytes = builder.build()?;
///
/// let library = Library::open_with(&bytes, OpenOptions::DEFAULT.with_media_trailer(true))?;
/// assert_eq!(library.overlay(), Some(16));
/// assert_eq!(library.find(b"secret.bin"), Some(secret));
/// let mut out = [0u8; 6];
/// library.unpack_into(secret, &mut out)?;
/// assert_eq!(&out, b"hidden");
/// # Ok(())
/// # }
/// ```
///
/// Deflate (feature `deflate`):
///
/// ```
/// # #[cfg(feature = "deflate")]
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use ngi_core::{Method, rsli::{Builder, Library, OpenOptions}};
///
/// let text = b"to pack, to pack, to pack again".repeat(20);
/// let mut builder = Builder::new();
/// builder.deflate_level(6);
/// let packed = builder.add(b"TEXT.TXT", Method::Deflate, &text)?;
/// let bytes = builder.build()?;
///
/// let library = Library::open_with(&bytes, OpenOptions::default())?;
/// let entry = library.entry(packed).unwrap();
/// assert!(entry.packed_size < entry.unpacked_size);
/// let mut out = vec![0u8; text.len()];
/// library.unpack_into(packed, &mut out)?;
/// assert_eq!(out, text);
/// # Ok(())
/// # }
/// # #[cfg(not(feature = "deflate"))]
/// # fn main() {}
/// ```
#[cfg_attr(feature = "deflate", doc = "[deflate_level]: Builder::deflate_level")]
#[cfg_attr(not(feature = "deflate"), doc = "[deflate_level]: Builder")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
#[derive(Debug, Clone)]
pub struct Builder {
    seed: u32,
    presorted: bool,
    overlay: Option<u32>,
    /// How entries added from now on are packed (the Deflate level).
    pack: PackOptions,
    items: Vec<Item>,
}

#[derive(Debug, Clone)]
struct Item {
    name: [u8; NAME_LEN],
    method: Method,
    unpacked_size: u32,
    /// The packed stream before any XOR: the key is known only once every name is in.
    packed: Vec<u8>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// An empty library: seed 0, presorted (`0xABBA`), no media trailer, Deflate level
    /// `DEFAULT_DEFLATE_LEVEL` (9, with the `deflate` feature).
    pub fn new() -> Builder {
        Builder {
            seed: 0,
            presorted: true,
            overlay: None,
            pack: PackOptions::default(),
            items: Vec::new(),
        }
    }

    /// The compression level of the [`Method::Deflate`] entries added from now on, as
    /// `miniz_oxide::deflate::compress_to_vec` takes it: 0 writes stored blocks only, 1
    /// is the fastest, 6 zlib's default, 9 the default here ([`DEFAULT_DEFLATE_LEVEL`]),
    /// 10 the slowest search. Values above [`MAX_DEFLATE_LEVEL`] are taken as 10. Every
    /// level gives a stream any RFC 1951 inflater reads; entries already added keep the
    /// stream they were packed with.
    #[cfg(feature = "deflate")]
    #[cfg_attr(docsrs, doc(cfg(feature = "deflate")))]
    pub fn deflate_level(&mut self, level: u8) -> &mut Builder {
        self.pack = self.pack.with_deflate_level(level);
        self
    }

    /// The header's XOR seed; its low 16 bits key the table's cipher (0 leaves the table
    /// in plain text).
    pub fn seed(&mut self, seed: u32) -> &mut Builder {
        self.seed = seed;
        self
    }

    /// Whether to set the `0xABBA` flag (the stored `sort_index` values are the same
    /// either way).
    pub fn presorted(&mut self, on: bool) -> &mut Builder {
        self.presorted = on;
        self
    }

    /// Appends an `AO` media trailer with this overlay, or none. The entries' offsets are
    /// then written less the overlay, as the engine reads them with flag 2 (SPEC 2.8): the
    /// library is meant to be opened with the trailer honoured
    /// ([`OpenOptions::with_media_trailer`](crate::OpenOptions::with_media_trailer)).
    /// Opened without, its offsets point `overlay` bytes before the payloads, into the
    /// header and table for a small one, and reading gives those bytes, as the engine
    /// without the flag would; no error says so, the format having no rule against it
    /// (`ngi verify` notes entries whose bytes lie in the header or table).
    ///
    /// ```
    /// use ngi_core::rsli::{Builder, Library};
    /// use ngi_core::{Limits, Method, OpenOptions};
    ///
    /// let mut builder = Builder::new();
    /// builder.media_trailer(Some(16));
    /// builder.add(b"ONE", Method::Stored, b"plain text one")?;
    /// let bytes = builder.build()?;
    /// let with = OpenOptions::DEFAULT.with_media_trailer(true);
    /// let honoured = Library::open_with(&bytes, with)?;
    /// assert_eq!(honoured.unpack_to_vec(0, &Limits::DEFAULT)?, b"plain text one");
    /// let ignored = Library::open(&bytes)?;
    /// assert_ne!(ignored.unpack_to_vec(0, &Limits::DEFAULT)?, b"plain text one");
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    pub fn media_trailer(&mut self, overlay: Option<u32>) -> &mut Builder {
        self.overlay = overlay;
        self
    }

    /// Adds an entry and returns its index. `data` is the unpacked content, packed now
    /// with `method` (XOR, which needs the final `sort_index`, is applied by
    /// [`build`](Builder::build)).
    ///
    /// A name another entry has already is taken as it is (real libraries hold such
    /// names), and a lookup by it (`rsFind`) then gives only one of them: keep the names
    /// added to check where that is not wanted.
    ///
    /// # Errors
    ///
    /// A refused entry is not added.
    ///
    /// * [`BuildError::TooManyEntries`] when the library already holds
    ///   [`MAX_ENTRIES`](super::MAX_ENTRIES) entries.
    /// * [`BuildError::NameEmpty`], [`BuildError::NameTooLong`] (over 12 bytes),
    ///   [`BuildError::NameHasNul`] or [`BuildError::NameNotUpperCase`] for the name.
    /// * [`BuildError::TooLarge`] when `data`, or its packed stream, is longer than a `u32`
    ///   can say.
    /// * [`BuildError::MethodNotImplemented`] for [`Method::Deflate`] without the `deflate`
    ///   feature.
    /// * [`BuildError::OutOfMemory`] when the packed stream needs more memory than there
    ///   is (an error, not an abort).
    pub fn add(&mut self, name: &[u8], method: Method, data: &[u8]) -> Result<usize, BuildError> {
        let index = self.items.len();
        if index >= MAX_ENTRIES {
            return Err(BuildError::TooManyEntries);
        }
        let entry = entry_id(index);
        let name = checked_name(entry, name)?;
        let unpacked_size =
            u32::try_from(data.len()).map_err(|_| BuildError::TooLarge { entry })?;
        // Key 0 packs the stream before XOR: the key, the final `sort_index`, is known
        // only once every name is in, and `build` encrypts with it.
        let packed = codec::pack(method, 0, data, &self.pack).map_err(|e| e.of_entry(entry))?;
        if u32::try_from(packed.len()).is_err() {
            return Err(BuildError::TooLarge { entry });
        }
        self.items.push(Item {
            name,
            method,
            unpacked_size,
            packed,
        });
        Ok(index)
    }

    /// Writes the library.
    ///
    /// Without a trailer, the file ends with the last payload's bytes: where those end
    /// with `AO` and four more bytes (about one file in 65 536 of random payloads), a
    /// reader that honours trailers (the engine opening with flag 2,
    /// [`OpenOptions::with_media_trailer`](super::OpenOptions::with_media_trailer)) takes
    /// them for one, and reads every offset moved by its value, as it would any such
    /// file. [`parse_trailer`](super::parse_trailer) of the result tells; `ngi verify`
    /// notes it.
    ///
    /// # Errors
    ///
    /// * [`BuildError::OverlayTooLarge`] when the media overlay is larger than where the
    ///   first payload starts (the end of the table), so its `data_offset` would be
    ///   negative.
    /// * [`BuildError::TooLarge`] when an entry would start past the offsets a `u32`
    ///   `data_offset` can reach.
    pub fn build(&self) -> Result<Vec<u8>, BuildError> {
        let mut entries = self.layout()?;
        compute_permutation(&mut entries);
        for e in &mut entries {
            e.file_sort_index = e.sort_index;
        }

        let count = entries.len();
        let mut out = Vec::new();
        out.extend_from_slice(&self.header(count));
        for e in &entries {
            out.extend_from_slice(&e.to_bytes());
        }
        if let Some(table) = out.get_mut(HEADER_LEN..) {
            XorStream::new(self.seed as u16).apply(table);
        }
        for (item, e) in self.items.iter().zip(&entries) {
            let start = out.len();
            out.extend_from_slice(&item.packed);
            if item.method.uses_xor() {
                if let Some(payload) = out.get_mut(start..) {
                    XorStream::new(e.sort_index).apply(payload);
                }
            }
        }
        if let Some(overlay) = self.overlay {
            out.extend_from_slice(&TRAILER_MAGIC);
            out.extend_from_slice(&overlay.to_le_bytes());
        }
        Ok(out)
    }

    /// The entries with their sizes and offsets, before the permutation.
    fn layout(&self) -> Result<Vec<Entry>, BuildError> {
        let overlay = self.overlay.unwrap_or(0);
        // In u64 even where usize is narrow: 32 767 entries of up to 4 GiB each fit.
        let mut position = HEADER_LEN as u64 + ENTRY_LEN as u64 * self.items.len() as u64;
        let mut entries = Vec::with_capacity(self.items.len());
        for (index, item) in self.items.iter().enumerate() {
            let entry = entry_id(index);
            let size =
                u32::try_from(item.packed.len()).map_err(|_| BuildError::TooLarge { entry })?;
            let data_offset =
                position
                    .checked_sub(u64::from(overlay))
                    .ok_or(BuildError::OverlayTooLarge {
                        overlay,
                        entry,
                        offset: position,
                    })?;
            let data_offset =
                u32::try_from(data_offset).map_err(|_| BuildError::TooLarge { entry })?;
            entries.push(Entry {
                name: item.name,
                flags: item.method.bits(),
                unpacked_size: item.unpacked_size,
                data_offset,
                packed_size: size,
                ..Entry::default()
            });
            position += u64::from(size);
        }
        Ok(entries)
    }

    pub(super) fn header(&self, count: usize) -> [u8; HEADER_LEN] {
        let mut header = [0u8; HEADER_LEN];
        let [m0, m1] = MAGIC;
        let [c0, c1] = u16::try_from(count).unwrap_or(0).to_le_bytes();
        let [f0, f1] = if self.presorted { PRESORTED } else { 0 }.to_le_bytes();
        let [s0, s1, s2, s3] = self.seed.to_le_bytes();
        for (at, byte) in [
            (0, m0),
            (1, m1),
            (3, 1),
            (4, c0),
            (5, c1),
            (14, f0),
            (15, f1),
            (20, s0),
            (21, s1),
            (22, s2),
            (23, s3),
        ] {
            if let Some(b) = header.get_mut(at) {
                *b = byte;
            }
        }
        header
    }
}

/// The name field for `name`, if the engine could find an entry by it.
pub(super) fn checked_name(entry: u32, name: &[u8]) -> Result<[u8; NAME_LEN], BuildError> {
    if name.is_empty() {
        return Err(BuildError::NameEmpty { entry });
    }
    if name.len() > NAME_LEN {
        return Err(BuildError::NameTooLong {
            entry,
            len: name.len(),
        });
    }
    if name.contains(&0) {
        return Err(BuildError::NameHasNul { entry });
    }
    if name.iter().any(u8::is_ascii_lowercase) {
        return Err(BuildError::NameNotUpperCase { entry });
    }
    let mut field = [0u8; NAME_LEN];
    for (dst, &src) in field.iter_mut().zip(name) {
        *dst = src;
    }
    Ok(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rsli::TRAILER_LEN;

    #[test]
    fn name_rules() {
        let mut b = Builder::new();
        assert_eq!(
            b.add(b"", Method::Stored, b""),
            Err(BuildError::NameEmpty { entry: 0 })
        );
        assert_eq!(
            b.add(b"ABCDEFGHIJKLM", Method::Stored, b""),
            Err(BuildError::NameTooLong { entry: 0, len: 13 })
        );
        assert_eq!(
            b.add(b"AB\0C", Method::Stored, b""),
            Err(BuildError::NameHasNul { entry: 0 })
        );
        assert_eq!(
            b.add(b"ABc", Method::Stored, b""),
            Err(BuildError::NameNotUpperCase { entry: 0 })
        );
        // Twelve bytes, digits, punctuation and bytes above 0x7F are all findable.
        assert_eq!(b.add(b"ABCDEFGHIJKL", Method::Stored, b""), Ok(0));
        assert_eq!(b.add(b"_1.\xE9", Method::Xor, b""), Ok(1));
        assert_eq!(
            b.add(b"x", Method::Stored, b""),
            Err(BuildError::NameNotUpperCase { entry: 2 })
        );
    }

    #[test]
    #[cfg(not(feature = "deflate"))]
    fn deflate_needs_the_feature() {
        let mut b = Builder::new();
        assert_eq!(
            b.add(b"A", Method::Deflate, b"data"),
            Err(BuildError::MethodNotImplemented {
                entry: 0,
                method: Method::Deflate
            })
        );
        assert_eq!(b.build().map(|f| f.len()), Ok(32), "nothing was added");
    }

    #[test]
    #[cfg(feature = "deflate")]
    fn deflate_packs_the_exact_stream_with_no_xor_and_no_overrun() {
        use crate::rsli::{Library, OpenOptions};
        let text = b"Deflate, deflate, deflate: the stream is miniz_oxide's. ".repeat(40);
        let mut b = Builder::new();
        // Not presorted, non-zero seed: a permutation slot that would be a non-zero key.
        b.seed(0x1234_5678).presorted(false);
        b.add(b"Z", Method::Stored, b"first by name: Z sorts last")
            .unwrap();
        let at_9 = b.add(b"A9", Method::Deflate, &text).unwrap();
        b.deflate_level(1);
        let at_1 = b.add(b"A1", Method::Deflate, &text).unwrap();
        b.deflate_level(200);
        let at_10 = b.add(b"A0", Method::Deflate, &text).unwrap();
        let empty = b.add(b"E", Method::Deflate, b"").unwrap();
        let file = b.build().unwrap();
        let lib = Library::open_with(&file, OpenOptions::default()).unwrap();
        assert_eq!(lib.problems().count(), 0);
        let (mut end, mut keyed) = (0, 0);
        for (index, level, data) in [
            (at_9, DEFAULT_DEFLATE_LEVEL, &text[..]),
            (at_1, 1, &text[..]),
            (at_10, MAX_DEFLATE_LEVEL, &text[..]),
            (empty, DEFAULT_DEFLATE_LEVEL, &b""[..]),
        ] {
            let e = *lib.entry(index).unwrap();
            assert_eq!(e.flags, 0x100, "the method bits only");
            keyed += usize::from(e.sort_index != 0);
            let stream = miniz_oxide::deflate::compress_to_vec(data, level);
            assert_eq!(e.packed_size as usize, stream.len());
            assert_eq!(lib.packed(index).unwrap(), stream.as_slice(), "not XORed");
            let mut out = alloc::vec![0u8; data.len()];
            lib.unpack_into(index, &mut out).unwrap();
            assert_eq!(out, data);
            end = e.data_offset as usize + e.packed_size as usize;
        }
        assert_eq!(
            end,
            file.len(),
            "the last stream ends at the end of the file"
        );
        assert!(keyed >= 3, "keys an XOR would have used were there");
    }

    #[test]
    fn too_many_entries() {
        let mut b = Builder::new();
        for i in 0..MAX_ENTRIES {
            assert_eq!(b.add(b"N", Method::Stored, b""), Ok(i));
        }
        assert_eq!(
            b.add(b"N", Method::Stored, b""),
            Err(BuildError::TooManyEntries)
        );
        let file = b.build().unwrap();
        assert_eq!(file.len(), 32 + 32 * MAX_ENTRIES);
        assert_eq!(&file[4..6], &32767u16.to_le_bytes());
    }

    #[test]
    fn overlay_too_large() {
        let mut b = Builder::new();
        b.add(b"A", Method::Stored, b"x").unwrap();
        // The only payload starts at 64: an overlay of 64 is the largest that fits.
        b.media_trailer(Some(65));
        assert_eq!(
            b.build(),
            Err(BuildError::OverlayTooLarge {
                overlay: 65,
                entry: 0,
                offset: 64
            })
        );
        b.media_trailer(Some(64));
        let file = b.build().unwrap();
        assert_eq!(&file[file.len() - 6..], b"AO\x40\0\0\0");
        // No entries: no offset to underflow.
        let mut empty = Builder::new();
        empty.media_trailer(Some(u32::MAX));
        assert_eq!(empty.build().map(|f| f.len()), Ok(32 + TRAILER_LEN));
    }

    #[test]
    fn header_bytes() {
        let mut b = Builder::default();
        b.seed(0xCAFE_F00D).presorted(false);
        b.add(b"A", Method::Stored, b"").unwrap();
        let file = b.build().unwrap();
        let mut want = [0u8; 32];
        want[..6].copy_from_slice(b"NL\x00\x01\x01\x00");
        want[20..24].copy_from_slice(&0xCAFE_F00Du32.to_le_bytes());
        assert_eq!(file[..32], want);
        b.presorted(true);
        assert_eq!(b.build().unwrap()[14..16], 0xABBAu16.to_le_bytes());
    }
}
