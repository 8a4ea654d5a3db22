//! `ngi-core`: the `#![no_std]` core of **ngi**, the reader and writer of the resource
//! archives of *Parkan: Iron Strategy* — **NRes** and **RsLi**, the two formats of the
//! engine library `Ngi32.dll`.
//!
//! Everything here works over buffers the caller owns and never allocates unless the
//! `alloc` feature is on (the writers need it). Nothing any input can do may panic: every
//! size and offset read from a file is checked before it is used.
//!
//! * [`archive`] — one description of an archive for every front-end: the format-agnostic
//!   [`archive::Catalog`], built by the sans-I/O [`archive::Opener`] from the header and the
//!   directory alone, into caller storage or a `Vec`.
//! * [`io`] — reading from a source: [`io::DecodeReader`] over any `BufRead` of packed
//!   bytes (`std::io` with `std`, `embedded_io` with `embedded-io`), entry readers over a
//!   catalog and a file, and the drivers that open a catalog from a source.
//! * [`nres`] — the NRes archive: a validated zero-copy [`nres::Archive`] over `&[u8]`,
//!   engine-exact lookup, raw mode, an incremental directory decoder, a canonical writer.
//! * [`rsli`] — the RsLi library: header, the XOR-encrypted table decrypted into caller
//!   storage, the engine's lookup permutation, `rsFind`, the media trailer, packed ranges.
//! * [`codec`] — the resumable decoders behind the RsLi packing methods and the
//!   allocation-free [`codec::Unpacker`] dispatch over them.
//! * [`limits`] — [`Limits`] on entry size, a run's total and entry count, checked before
//!   anything acts on a size the file declares.
//! * `edit` (feature `alloc`) — saving what the editors (`nres::Editor`, `rsli::Editor`)
//!   describe: a `Plan` of pieces to write and ranges to copy.
//! * [`error`] — the error types, one per concern, each naming what failed and where.
//!
//! # Features
//!
//! | feature | default | what it adds | dependencies |
//! |---|:-:|---|---|
//! | `alloc` | via `std` | the writers ([`nres::Writer`][writer], [`rsli::Builder`][builder]) and `Vec`-backed conveniences | none |
//! | `std` | yes | the `std::io` readers and drivers (`ReadAt` over `File`), `std::io::Error` conversions; implies `alloc` | none |
//! | `deflate` | yes | Deflate (method 0x100) packing in [`rsli::Builder`][builder]; implies `alloc` | `miniz_oxide` (no `std`) |
//! | `embedded-io` | no | `embedded_io::Read`/`BufRead` for the readers, the `Read + Seek` driver (no allocation) | `embedded-io` (no `std`) |
//! | `heapless` | no | catalog storage in a `heapless::Vec` (no allocation) | `heapless` |
//!
//! Every reader and decoder, Deflate's inflater included, is ngi's own and is there with no
//! feature at all: `default-features = false` builds with no dependency and links neither
//! `std` nor `alloc`. Only compressing to Deflate comes from a crate, and only with
//! `deflate`; without it the builder returns
//! [`BuildError::MethodNotImplemented`][not-implemented] for
//! [`Method::Deflate`]. A `no_std` host with an allocator that wants to pack Deflate
//! asks for `default-features = false, features = ["deflate"]`.
//!
//! # Example
//! ```
//! use ngi_core::nres::Archive;
//!
//! // An NRes archive with no entries: the 16-byte header alone.
//! let mut bytes = [0u8; 16];
//! bytes[..4].copy_from_slice(b"NRes");
//! bytes[4..8].copy_from_slice(&0x100u32.to_le_bytes());
//! bytes[12..16].copy_from_slice(&16u32.to_le_bytes());
//! let archive = Archive::open(&bytes).unwrap();
//! assert_eq!(archive.len(), 0);
//! assert_eq!(archive.find(b"anything"), None);
//! ```
#![cfg_attr(feature = "alloc", doc = "[writer]: nres::Writer")]
#![cfg_attr(feature = "alloc", doc = "[builder]: rsli::Builder")]
#![cfg_attr(
    feature = "alloc",
    doc = "[not-implemented]: rsli::BuildError::MethodNotImplemented"
)]
// Without `alloc` those items do not exist: the links point at the table above.
#![cfg_attr(
    not(feature = "alloc"),
    doc = "[writer]: #features\n[builder]: #features\n[not-implemented]: #features"
)]
#![no_std]
#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Every public fallible function says when it fails (clippy, so CI keeps it so).
#![warn(clippy::missing_errors_doc)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "alloc")]
#[allow(unused_extern_crates)]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod archive;
pub mod codec;
mod count;
#[cfg(feature = "alloc")]
pub mod edit;
pub mod error;
pub mod io;
pub mod limits;
mod lookup;
pub mod nres;
mod options;
pub mod rsli;

pub use codec::{Decoder, InPlace, Method, Progress, Status, Unpacker};
pub use limits::{Budget, LimitError, Limits};
pub use options::OpenOptions;
