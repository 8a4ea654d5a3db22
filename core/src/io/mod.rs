//! Reading from a source instead of a whole slice: the decoding reader, entry readers over
//! a catalog and a source, and the drivers that open a catalog from a source.
//!
//! | what | no allocation (`embedded-io`) | `std` |
//! |---|---|---|
//! | decode a packed stream from a `BufRead` | [`DecodeReader`]: `embedded_io::Read + BufRead` | [`DecodeReader`]: `std::io::Read + BufRead` |
//! | open a catalog from a source | `embedded::open_seekable` (`Read + Seek`) | `open_at` (a `ReadAt`: `File`, slices, `Arc<File>`) |
//! | read one entry of it | `Catalog::seek_reader` | `Catalog::reader` (an `EntryReader`) |
//!
//! All of them run one engine, [`StreamDecoder`], which async front-ends drive from their
//! own poll loops; so the rules (sticky errors, truncation never a short success, no spin,
//! faults placed in the file) are the same everywhere.
//!
//! Reading an entry of a file, through the catalog, as `std::io::Read`:
//!
//! ```
//! # #[cfg(feature = "std")] {
//! use std::io::Read;
//! use ngi_core::rsli::Builder;
//! use ngi_core::{Method, OpenOptions};
//!
//! let mut builder = Builder::new();
//! builder.add(b"TEXT", Method::Lzss, b"to be or not to be, that is the question")?;
//! let path = std::env::temp_dir().join(format!("ngi-io-doc-{}.rsli", std::process::id()));
//! std::fs::write(&path, builder.build()?)?;
//!
//! let file = std::fs::File::open(&path)?;
//! let catalog = ngi_core::io::open_at(&file, OpenOptions::DEFAULT)?; // header + table only
//! let index = catalog.find(b"text").unwrap();
//! let mut text = String::new();
//! catalog.reader(index, &file)?.read_to_string(&mut text)?; // its packed range only
//! assert_eq!(text, "to be or not to be, that is the question");
//! # std::fs::remove_file(&path)?;
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#[cfg(feature = "std")]
mod at;
#[cfg(feature = "embedded-io")]
#[cfg_attr(docsrs, doc(cfg(feature = "embedded-io")))]
pub mod embedded;
mod error;
mod reader;
mod span;
#[cfg(feature = "std")]
mod std_io;
mod stream;

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use at::{DEFAULT_CHUNK, EntryReader, MAX_CHUNK, RangeReader, ReadAt, open_at, open_at_in};
pub use error::OpenError;
pub use reader::{DEFAULT_BUFFER_LEN, DecodeReader};
pub use stream::{StreamDecoder, StreamError};

/// Readers and catalogs move to other threads and are shared across them as any plain data
/// does: asserted here, so that a change that breaks it fails to build.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<StreamDecoder>();
    send_sync::<StreamError>();
    send_sync::<DecodeReader<&[u8]>>();
    send_sync::<crate::archive::Entry>();
    send_sync::<crate::archive::Catalog<crate::archive::Slots<'static>>>();
    send_sync::<crate::archive::Opener<crate::archive::Slots<'static>>>();
    #[cfg(feature = "alloc")]
    send_sync::<crate::archive::Catalog<alloc::vec::Vec<crate::archive::Entry>>>();
    #[cfg(feature = "std")]
    send_sync::<EntryReader<std::sync::Arc<std::fs::File>>>();
    #[cfg(feature = "std")]
    send_sync::<EntryReader<&std::fs::File>>();
    #[cfg(feature = "embedded-io")]
    send_sync::<embedded::SeekEntryReader<embedded::SliceSource<'static>>>();
    #[cfg(feature = "heapless")]
    send_sync::<crate::archive::Catalog<heapless::Vec<crate::archive::Entry, 4>>>();
};
