//! RsLi, the engine's read-only resource library (SPEC 2).
//!
//! ```text
//! offset 0            header, 32 bytes                        Header
//! offset 32           entry table, count * 32 bytes,          TableDecoder -> Entry
//!                     XOR-encrypted as one stream
//! offset 32+32*count  payloads (no alignment)                 Library::packed / unpack_into
//! (end - 6)           optional media trailer "AO" + u32       Library::overlay / trailer
//! ```
//!
//! The table is encrypted, so unlike NRes it cannot be read in place: [`Library::open_in`]
//! decrypts it into storage the caller provides (no allocation), `Library::open` into a
//! `Vec` (feature `alloc`). Opening settles each entry's `sort_index` as the engine does
//! (SPEC 2.5): kept as stored when the header says `0xABBA`, otherwise replaced by the
//! permutation the engine computes ([`compute_permutation`]). That final value is both the
//! lookup slot used by [`Library::find`] and the XOR key of the entry's payload.
//!
//! Hosts that receive the file as a stream, or read it through seeks, need not hold it in
//! memory: [`TableDecoder`] decrypts the table from pieces of any size,
//! [`settle_sort_index`], [`find_in`], [`parse_trailer`], [`packed_range`] and
//! [`check_limits`] do what the [`Library`] methods of the same purpose do. `Builder` (feature `alloc`) writes
//! libraries, packing with every method (Deflate with the `deflate` feature); `Editor`
//! edits one losslessly, re-keying the XOR payloads whose `sort_index` moves.
//!
//! # Example
//! ```
//! use ngi_core::rsli::{Entry, Library, OpenOptions, ENTRY_LEN, HEADER_LEN};
//!
//! // One stored entry. Seed 0 gives a keystream of zeros, so the table is plain text.
//! let mut file = [0u8; HEADER_LEN + ENTRY_LEN + 5];
//! file[..4].copy_from_slice(b"NL\x00\x01");
//! file[4] = 1; // entry count
//! let mut entry = Entry::default();
//! entry.name[..5].copy_from_slice(b"HELLO");
//! entry.unpacked_size = 5;
//! entry.packed_size = 5;
//! entry.data_offset = (HEADER_LEN + ENTRY_LEN) as u32;
//! file[HEADER_LEN..HEADER_LEN + ENTRY_LEN].copy_from_slice(&entry.to_bytes());
//! file[HEADER_LEN + ENTRY_LEN..].copy_from_slice(b"world");
//!
//! let mut storage = [Entry::default(); 8];
//! let library = Library::open_in(&file, &mut storage, OpenOptions::default())?;
//! let index = library.find(b"hello").expect("rsFind upper-cases the query");
//! let mut out = [0u8; 5];
//! library.unpack_into(index, &mut out)?;
//! assert_eq!(&out, b"world");
//! # Ok::<(), ngi_core::rsli::RsliError>(())
//! ```

#[cfg(feature = "alloc")]
mod builder;
#[cfg(feature = "alloc")]
mod editor;
mod entry;
pub(crate) mod error;
pub(crate) mod find;
mod header;
mod le;
pub(crate) mod library;
pub(crate) mod packed;
pub(crate) mod permutation;
mod table;
#[cfg(all(test, feature = "alloc"))]
mod tests;

#[cfg(feature = "alloc")]
pub use builder::Builder;
#[cfg(feature = "deflate")]
pub use builder::{DEFAULT_DEFLATE_LEVEL, MAX_DEFLATE_LEVEL};
#[cfg(feature = "alloc")]
pub use editor::{Editor, span_len, xor_len};
pub use entry::Entry;
#[cfg(feature = "alloc")]
pub use error::BuildError;
pub use error::RsliError;
pub use find::find_in;
pub use header::Header;
pub use library::{Library, LookupTable, OpenOptions, parse_trailer, settle_sort_index};
pub use packed::{Problems, check_limits, packed_range};
pub use permutation::compute_permutation;
pub use table::TableDecoder;

/// The first two bytes of every RsLi file.
pub const MAGIC: [u8; 2] = *b"NL";
/// Length of the file header.
pub const HEADER_LEN: usize = 32;
/// Length of one entry of the table.
pub const ENTRY_LEN: usize = 32;
/// Length of the name field of an entry; a name of this length has no NUL.
pub const NAME_LEN: usize = 12;
/// The header's presorted flag: the table's `sort_index` values are used as stored.
pub const PRESORTED: u16 = 0xABBA;
/// Length of the optional media trailer at the end of the file.
pub const TRAILER_LEN: usize = 6;
/// The first two bytes of the media trailer.
pub const TRAILER_MAGIC: [u8; 2] = *b"AO";
/// The largest entry count a header can hold (its count is a non-negative `i16`).
pub const MAX_ENTRIES: usize = 32767;

/// The `u32` an entry index is reported as in errors. Libraries hold at most
/// [`MAX_ENTRIES`] entries, so the saturation never shows for a library's own indices.
fn entry_id(index: usize) -> u32 {
    u32::try_from(index).unwrap_or(u32::MAX)
}
