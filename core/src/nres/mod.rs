//! NRes, the engine's read-write archive (SPEC 1): a 16-byte header, the payloads, and a
//! directory of 64-byte entries at the end of the file.
//!
//! * [`Archive`] is a validated zero-copy view over `&[u8]`. Opening checks the header
//!   (SPEC 1.2) and classifies the lookup table ([`LookupTable`]); the per-entry rules of
//!   SPEC 1.3 are checked per entry ([`Archive::check_entry`], [`Archive::payload`],
//!   [`Archive::problems`]), so one broken entry does not hide the others.
//! * [`Archive::find`] is the engine's lookup (SPEC 1.4–1.6): MSVC `_strcmpi` comparison
//!   ([`compare_names`]) and the binary search over `sort_index`, with the linear fallback
//!   when the table is unusable.
//! * [`Archive::open_raw`] is the engine's raw mode (SPEC 1.7): any file as one entry.
//! * [`DirectoryDecoder`] decodes the directory from bytes fed in pieces of any size, for
//!   callers that stream the file instead of holding it.
//! * `Writer` (feature `alloc`) is the canonical writer (SPEC 1.3, 1.5, 1.8), `Editor`
//!   the lossless editor with the engine's twelve sort modes (SPEC 1.8, 1.9).
//!
//! Nothing here allocates except the writer and the editor, and no input can make any of
//! it panic.
//!
//! # Example
//! ```
//! use ngi_core::nres::{Archive, Entry, Header};
//!
//! // One entry, "hello.txt", whose 5-byte payload sits right after the header and is
//! // padded to 8 bytes; the directory follows.
//! let mut file = [0u8; 16 + 8 + 64];
//! file[..16].copy_from_slice(&Header { entry_count: 1, total_size: 88 }.to_bytes());
//! file[16..21].copy_from_slice(b"hello");
//! let mut name = [0u8; 36];
//! name[..9].copy_from_slice(b"hello.txt");
//! let entry = Entry {
//!     index: 0,
//!     type_id: 0,
//!     attr1: 0,
//!     attr2: 0,
//!     size: 5,
//!     attr3: 0,
//!     name_field: &name,
//!     data_offset: 16,
//!     sort_index: 0,
//! };
//! file[24..].copy_from_slice(&entry.to_bytes());
//!
//! let archive = Archive::open(&file)?;
//! let index = archive.find(b"HELLO.TXT").expect("lookup ignores case");
//! assert_eq!(archive.payload(index)?, b"hello");
//! assert!(archive.problems().next().is_none());
//! # Ok::<(), ngi_core::nres::NresError>(())
//! ```

pub(crate) mod archive;
mod check;
mod directory;
#[cfg(feature = "alloc")]
mod editor;
mod entries;
mod entry;
mod error;
mod header;
pub(crate) mod name;
pub(crate) mod table;
#[cfg(test)]
mod testutil;
#[cfg(feature = "alloc")]
mod writer;

pub use crate::options::OpenOptions;
pub use archive::Archive;
pub use check::Problems;
pub use directory::DirectoryDecoder;
#[cfg(feature = "alloc")]
pub use editor::{Editor, Fields, SortMode};
pub use entries::Entries;
pub use entry::{Entry, Record};
pub use error::NresError;
#[cfg(feature = "alloc")]
pub use error::WriteError;
pub use header::Header;
pub use name::compare_names;
pub use table::LookupTable;
#[cfg(feature = "alloc")]
pub use writer::{NewEntry, Writer};

/// The first four bytes of every NRes file.
pub const MAGIC: [u8; 4] = *b"NRes";
/// The only header version the engine accepts.
pub const VERSION: u32 = 0x100;
/// Length of the header at the start of the file.
pub const HEADER_LEN: usize = 16;
/// Length of one directory entry.
pub const ENTRY_LEN: usize = 64;
/// Length of the name field inside a directory entry.
pub const NAME_FIELD_LEN: usize = 36;
/// Longest name the name field holds with its terminating NUL.
pub const MAX_NAME_LEN: usize = NAME_FIELD_LEN - 1;
