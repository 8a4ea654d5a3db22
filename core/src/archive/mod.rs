//! One description of an archive for every front-end: the format detected from the magic,
//! each entry described the same way for NRes and RsLi, lookups by the format's engine
//! rules, and a sans-I/O opener that reads only the header and directory.
//!
//! * [`Catalog`] is an opened archive of either format: header facts, the lookup table's
//!   state, and an [`Entry`] per directory entry (index, name, decoded size, packed range
//!   with the media overlay applied when asked, [`Method`](crate::Method), key, and the
//!   format's own record). It holds no file bytes.
//! * [`Opener`] builds one without doing any I/O: it asks for byte ranges and is fed
//!   them. Drivers are a few lines: over a slice ([`Catalog::open_in`], and
//!   `Catalog::open` with `alloc`), an `embedded_io::Read + Seek` source or a
//!   `std::fs::File` ([`io`](crate::io)).
//! * [`EntryStore`] is where the entries go: a `Vec` (feature `alloc`), a caller's slice
//!   ([`Slots`]) or a `heapless::Vec` (feature `heapless`), so a host without an allocator
//!   opens an archive as a server does.
//!
//! Every front-end of ngi (the `ngi` command, ngi-tokio, the WASM module) looks at
//! archives through this module only; the format modules below it know nothing of I/O.
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use ngi_core::archive::{Catalog, Format};
//! use ngi_core::rsli::Builder;
//! use ngi_core::{Method, OpenOptions};
//!
//! let mut builder = Builder::new();
//! builder.add(b"README", Method::Stored, b"hello")?;
//! builder.add(b"SECRET", Method::Xor, b"world")?;
//! let bytes = builder.build()?;
//!
//! let catalog = Catalog::open(&bytes, OpenOptions::DEFAULT)?;
//! assert_eq!((catalog.format(), catalog.len()), (Format::Rsli, 2));
//! let secret = catalog.find(b"secret").expect("rsFind upper-cases the query");
//! let entry = catalog.entry(secret).unwrap();
//! assert_eq!((entry.method, entry.size), (Some(Method::Xor), 5));
//! assert_eq!(catalog.packed(secret, &bytes)?.len(), 5); // still XOR-encrypted
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod catalog;
mod entry;
mod error;
mod opener;
mod store;

pub use catalog::{Catalog, Header, Lookup};
pub use entry::{Entry, Native};
pub use error::Error;
pub use opener::{Opener, detect};
pub use store::{EntryStore, Slots};

/// The two archive formats of `Ngi32.dll`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// NRes (SPEC 1), raw mode included.
    Nres,
    /// RsLi (SPEC 2).
    Rsli,
}

impl Format {
    /// The format's name as the `ngi` command prints it.
    pub const fn name(self) -> &'static str {
        match self {
            Format::Nres => "NRes",
            Format::Rsli => "RsLi",
        }
    }
}
