//! # ngi-tokio
//!
//! The async front-end of [ngi](ngi_core): the entries of NRes and RsLi archives (the
//! resource archives of *Parkan: Iron Strategy*) as tokio
//! [`AsyncRead`](tokio::io::AsyncRead) + [`AsyncBufRead`](tokio::io::AsyncBufRead)
//! readers and as `Stream`s of [`Bytes`](bytes::Bytes), many at once from one open file,
//! with bounded memory per reader. For servers and async tools.
//!
//! * [`Archive`]: an open archive (`Clone + Send + Sync + 'static`, an `Arc` of the
//!   catalog and the source), from a path (header and directory read, nothing else) or
//!   from [`Bytes`](bytes::Bytes) (zero-copy).
//! * [`EntryReader`] ([`Archive::reader`]): one entry's decoded bytes, owned; reads only
//!   the entry's packed range, by positional reads: in place when the page cache holds
//!   the chunk (Linux, `preadv2` with `RWF_NOWAIT`, which refuses rather than block),
//!   else on tokio's blocking pool.
//! * [`EntryStream`] ([`Archive::stream`], or `From` any `EntryReader`, one from
//!   [`Archive::reader_from`] say): the same as 64 KiB `Bytes` chunks.
//! * [`DecodeReader`]: any packed stream read from a caller's `AsyncBufRead`.
//! * [`Cache`]: the engine's archive cache (SPEC 1.7) for servers: one shared `Archive`
//!   per path, opened once for concurrent requests, closed after 10 s unheld unless
//!   pinned, reopened when the file changes on disk, bounded (LRU).
//!
//! There is no codec logic here: every reader drives the core's
//! [`StreamDecoder`](ngi_core::io::StreamDecoder) from one poll loop, so the rules are the
//! core's: the input ending early is `UnexpectedEof`, corrupt data `InvalidData` (both
//! with the core's error, naming entry and file offset, inside), errors stick, `Ok(0)`
//! comes only at the end, and a decoder that makes no progress is an error, not a spin.
//! Each poll does bounded work and spends tokio's coop budget, and a reader yields after
//! a millisecond of decoding whatever the codec, so a huge entry decoding from memory
//! cannot starve its runtime.
//!
//! An entry as an HTTP body, with any server built on `http-body` streams (axum's
//! `Body::from_stream`, hyper's `StreamBody`):
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> std::io::Result<()> {
//! use futures_core::Stream;
//! use tokio_util::io::ReaderStream;
//!
//! let archive = ngi_tokio::Archive::open("../samples/sample.nres").await?;
//! let index = archive.find(b"readme.txt").expect("the sample has it");
//! let size = archive.entry(index).map(|e| e.size); // Content-Length
//!
//! // Chunks of 64 KiB straight from the decoder...
//! let body = archive.stream(index)?;
//! // ... or any AsyncRead adapter over the reader.
//! let also = ReaderStream::with_capacity(archive.reader(index)?, 64 * 1024);
//! # fn is_body(_: &impl Stream<Item = std::io::Result<bytes::Bytes>>) {}
//! # is_body(&body); is_body(&also);
//! # assert!(size.is_some());
//! # Ok(())
//! # }
//! ```
//!
//! An archive opened from a file reads the entries at the offsets its directory gave
//! when it was opened. Update a served file by renaming a new one over it (the open
//! archive keeps the old file); a file rewritten in place under open readers can give
//! them wrong bytes without an error: see [`Archive::file_changed`].
//!
//! Feature `futures-io`: `futures_io::AsyncRead + AsyncBufRead` for [`EntryReader`] and
//! [`DecodeReader`] (over a futures-io `AsyncBufRead`), on the same poll loop. Readers of
//! an archive opened from a file use the tokio runtime it was opened on for their reads,
//! whichever executor polls them: once that runtime has shut down, a read the page cache
//! cannot answer inline fails (`Other`, naming the entry and offset) where one it can
//! still succeeds, so an archive should not outlive its runtime (a `static` shared by
//! several `#[tokio::test]`s, each with a runtime of its own, passes until the file
//! leaves the page cache).
//!
//! Not inside a tokio task: another executor's `block_on` (`futures::executor`'s) of a
//! read, whatever the archive's source. A reader yields after a millisecond of
//! decoding, and tokio holds a yielded task's wake until its worker comes back to it,
//! which it does not while `block_on` blocks the worker: the read waits for ever. Use
//! `spawn_blocking` or `block_in_place` around such a `block_on`, or `.await` the read.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
// Every public fallible function says when it fails (clippy, so CI keeps it so).
#![warn(clippy::missing_errors_doc)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod archive;
mod cache;
mod decode;
mod entry;
mod error;
#[cfg(feature = "futures-io")]
mod futures;
mod packed;
mod poll;

pub use archive::{Archive, DEFAULT_READ_CHUNK, Opener, open_file};
pub use cache::{Cache, DEFAULT_IDLE, DEFAULT_MAX_OPEN};
pub use decode::DecodeReader;
pub use entry::{DEFAULT_STREAM_CHUNK, EntryReader, EntryStream};
pub use error::ReadError;
pub use ngi_core::archive::{Entry, Format};
pub use ngi_core::{Limits, Method, OpenOptions};

/// The workspace README's examples, compiled and run as doc tests here: this crate can
/// reach everything they use (ngi-core with `std` and `embedded-io`, tokio, bytes), the
/// core alone cannot compile the async ones.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
mod readme {}

/// What the issue promises of the types, checked at compile time: a change that breaks it
/// fails to build.
const _: () = {
    const fn archive<T: Clone + Send + Sync + 'static>() {}
    const fn reader<
        T: tokio::io::AsyncRead + tokio::io::AsyncBufRead + Send + Sync + Unpin + 'static,
    >() {
    }
    const fn stream<
        T: futures_core::Stream<Item = std::io::Result<bytes::Bytes>> + Send + Sync + Unpin + 'static,
    >() {
    }
    archive::<Archive>();
    archive::<Cache>();
    reader::<EntryReader>();
    reader::<DecodeReader<&'static [u8]>>();
    reader::<DecodeReader<tokio::io::BufReader<tokio::fs::File>>>();
    stream::<EntryStream>();
};

#[cfg(feature = "futures-io")]
const _: () = {
    const fn reader<
        T: futures_io::AsyncRead + futures_io::AsyncBufRead + Send + Sync + Unpin + 'static,
    >() {
    }
    reader::<EntryReader>();
    reader::<DecodeReader<&'static [u8]>>();
};
