//! An open archive: its catalog and its source, shared by every reader of it.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use ngi_core::archive::{Catalog, Entry, Format};
use ngi_core::{Limits, OpenOptions};
use tokio::runtime::Handle;

use crate::entry::{EntryReader, EntryStream};
use crate::error::join_error;
use crate::packed::{FileRange, Packed};

/// The packed bytes a reader of a file reads at a time, unless
/// [`Archive::with_read_chunk`] says otherwise. A reader holds up to two buffers of this
/// size: the chunk being decoded and the next (read ahead on the blocking pool when the
/// page cache does not hold it).
pub const DEFAULT_READ_CHUNK: usize = 24 * 1024;

/// The bounds of [`Archive::with_read_chunk`].
const READ_CHUNK_RANGE: (usize, usize) = (512, 8 << 20);

/// How an archive file is opened: from the path asked for, the handle to read. Its
/// error is the open's. See [`Cache::with_opener`](crate::Cache::with_opener).
pub type Opener = Arc<dyn Fn(&Path) -> io::Result<File> + Send + Sync>;

/// An NRes or RsLi archive, open for reading any number of its entries at once from any
/// number of tasks.
///
/// Opening reads the header and the directory only (through the core's opener, on the
/// blocking pool), so memory is O(entries). An `Archive` is an [`Arc`] of the catalog and
/// the source: cloning it is cheap, and it is `Send + Sync + 'static`. Readers own what
/// they need (the catalog is not borrowed), so they can be spawned, and they read the file
/// with positional reads: no cursor is shared, and readers never wait on each other. A
/// read goes to tokio's blocking pool unless the page cache can answer it without
/// blocking ([`with_cached_reads_inline`](Archive::with_cached_reads_inline)).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use tokio::io::AsyncReadExt;
///
/// let archive = ngi_tokio::Archive::open("../samples/sample.rsli").await?;
/// let index = archive.find(b"README.TXT").expect("the sample has it");
/// let mut text = String::new();
/// archive.reader(index)?.read_to_string(&mut text).await?;
/// assert!(text.starts_with("ngi sample RsLi library"));
///
/// // Every entry, each on its own task, from one open file.
/// let tasks: Vec<_> = (0..archive.len())
///     .map(|i| {
///         let archive = archive.clone();
///         tokio::spawn(async move { archive.read(i).await })
///     })
///     .collect();
/// for task in tasks {
///     task.await??;
/// }
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Archive {
    shared: Arc<Shared>,
    read_chunk: usize,
    cached_inline: bool,
}

impl Archive {
    /// Whether `self` and `other` are the same open archive (clones of one `open`), as
    /// [`Cache::get`](crate::Cache::get) hands out.
    pub fn is_same_open(&self, other: &Archive) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// How many `Archive` values and readers share this open archive (the cache's value
    /// included): a reader holds the file, not the `Archive`, and an archive read by one
    /// is not idle (closing it would only make the next request open the file again
    /// while the reader still holds it).
    pub(crate) fn holders(&self) -> usize {
        let readers = match &self.shared.source {
            // The shared part holds one of the file's counts.
            Source::File { file, .. } => Arc::strong_count(file) - 1,
            Source::Memory(_) => 0,
        };
        Arc::strong_count(&self.shared) + readers
    }
}

struct Shared {
    catalog: Catalog<Vec<Entry>>,
    source: Source,
    options: OpenOptions,
    /// The opened file's metadata, taken from its handle at open.
    metadata: Option<std::fs::Metadata>,
}

enum Source {
    Memory(Bytes),
    File { file: Arc<File>, runtime: Handle },
}

impl Archive {
    /// Opens the archive at `path` with the default options ([`OpenOptions::DEFAULT`]:
    /// the default [`Limits`], no raw mode, no media trailer). Only a regular file is
    /// opened, and on Linux trying a FIFO or a device never blocks.
    ///
    /// # Errors
    ///
    /// * `Other` outside a tokio runtime (rather than a panic), or when the open on the
    ///   blocking pool does not finish (its runtime shut down).
    /// * The error of opening the file, or of reading its metadata or its bytes, of the
    ///   kind the OS gives (`NotFound`, `PermissionDenied`, ...).
    /// * `InvalidInput` when what `path` opens is not a regular file (a folder, a FIFO, a
    ///   device).
    /// * The core's opener's error ([`ngi_core::io::open_at`]), with the
    ///   [`ngi_core::archive::Error`] as the `io::Error`'s inner error: `UnexpectedEof`
    ///   when an RsLi file is shorter than its header and table, else `InvalidData` (an
    ///   unknown format, a header that breaks its format's rules, more entries than the
    ///   limits allow).
    /// * `UnexpectedEof`, with a message and no inner core error, when the file gets
    ///   shorter while it is read ([`OpenError::Eof`](ngi_core::io::OpenError::Eof)).
    pub async fn open(path: impl AsRef<Path>) -> io::Result<Archive> {
        Archive::open_with(path, OpenOptions::DEFAULT).await
    }

    /// Opens the archive at `path` under `options`: its limits (`max_entries` checked at
    /// open, `max_entry_size` by each [`reader`](Archive::reader)), raw mode, the media
    /// trailer. `max_total` is not applied: a total is a run's (an archive's readers may
    /// serve any number of requests), so a caller that wants one counts it with
    /// [`ngi_core::limits::Budget`].
    ///
    /// # Cancel safety
    /// Dropping the future before it completes leaves nothing open: the open on the
    /// blocking pool finishes and is discarded.
    ///
    /// # Errors
    ///
    /// [`open`](Archive::open)'s, under `options`: in raw mode, `InvalidData` for a file
    /// too long for the 32-bit size field or when the limits allow no entry
    /// ([`RawTooLarge`](ngi_core::nres::NresError::RawTooLarge),
    /// [`RawOverLimit`](ngi_core::nres::NresError::RawOverLimit)) instead of the format's.
    pub async fn open_with(path: impl AsRef<Path>, options: OpenOptions) -> io::Result<Archive> {
        Archive::open_by(path.as_ref(), options, None).await
    }

    /// [`open_with`](Archive::open_with), with the file opened by `opener` instead of
    /// [`open_file`] (see [`Cache::with_opener`](crate::Cache::with_opener)).
    pub(crate) async fn open_by(
        path: &Path,
        options: OpenOptions,
        opener: Option<Opener>,
    ) -> io::Result<Archive> {
        let runtime = Handle::try_current().map_err(io::Error::other)?;
        let path = path.to_owned();
        let reads_on = runtime.clone();
        runtime
            .spawn_blocking(move || Archive::open_blocking(&path, options, opener, reads_on))
            .await
            .map_err(|e| join_error("the open on tokio's blocking pool", e))?
    }

    /// The open itself, on a thread that may block; the archive reads on `runtime`'s
    /// blocking pool.
    pub(crate) fn open_blocking(
        path: &Path,
        options: OpenOptions,
        opener: Option<Opener>,
        runtime: Handle,
    ) -> io::Result<Archive> {
        let file = match opener {
            Some(opener) => opener(path)?,
            None => open_file(path)?,
        };
        // From the handle, not the path: what was opened, whatever the path names by now.
        let metadata = file.metadata()?;
        if !metadata.is_file() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{path:?}: not a regular file"),
            ));
        }
        let catalog = ngi_core::io::open_at(&file, options)?;
        let source = Source::File {
            file: Arc::new(file),
            runtime,
        };
        Ok(Archive::new(catalog, source, options, Some(metadata)))
    }

    /// An archive in memory, with the default options: readers decode straight from
    /// `bytes`, zero-copy, and need no runtime. (But not another executor's `block_on`
    /// inside a tokio task, as for any archive: see the [crate](crate) docs.)
    ///
    /// ```
    /// let bytes = std::fs::read("../samples/sample.nres")?;
    /// let archive = ngi_tokio::Archive::from_bytes(bytes.into())?;
    /// assert!(archive.len() > 0);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The core's [`Catalog::open`]'s, as the `io::Error`'s inner error:
    /// * `UnexpectedEof` when `bytes` start an RsLi file and are shorter than its header
    ///   and table.
    /// * `InvalidData` otherwise: an unknown format
    ///   ([`UnknownFormat`](ngi_core::archive::Error::UnknownFormat)), a header that breaks
    ///   its format's rules or counts more entries than the limits allow.
    pub fn from_bytes(bytes: Bytes) -> io::Result<Archive> {
        Archive::from_bytes_with(bytes, OpenOptions::DEFAULT)
    }

    /// [`from_bytes`](Archive::from_bytes) under `options`.
    ///
    /// # Errors
    ///
    /// [`from_bytes`](Archive::from_bytes)'s, under `options`: in raw mode, `InvalidData`
    /// for bytes too long for the 32-bit size field or when the limits allow no entry
    /// ([`RawTooLarge`](ngi_core::nres::NresError::RawTooLarge),
    /// [`RawOverLimit`](ngi_core::nres::NresError::RawOverLimit)) instead of the format's.
    pub fn from_bytes_with(bytes: Bytes, options: OpenOptions) -> io::Result<Archive> {
        let catalog = Catalog::open(&bytes, options)?;
        Ok(Archive::new(catalog, Source::Memory(bytes), options, None))
    }

    fn new(
        catalog: Catalog<Vec<Entry>>,
        source: Source,
        options: OpenOptions,
        metadata: Option<std::fs::Metadata>,
    ) -> Archive {
        Archive {
            shared: Arc::new(Shared {
                catalog,
                source,
                options,
                metadata,
            }),
            read_chunk: DEFAULT_READ_CHUNK,
            cached_inline: true,
        }
    }

    /// The same archive (shared, not reopened) whose readers read the file `len` bytes at
    /// a time (clamped to 512 B ..= 8 MiB); [`DEFAULT_READ_CHUNK`] otherwise. Larger
    /// chunks mean fewer trips to the blocking pool and more memory per reader (two
    /// chunks each), and, with [cached reads inline](Archive::with_cached_reads_inline),
    /// longer polls: a chunk the page cache holds is copied out on the task's own thread
    /// (8 MiB: about 3.5 ms in one poll, a probe's figure, against 35 µs for the default).
    /// No effect on an archive in memory.
    #[must_use]
    pub fn with_read_chunk(mut self, len: usize) -> Archive {
        self.read_chunk = len.clamp(READ_CHUNK_RANGE.0, READ_CHUNK_RANGE.1);
        self
    }

    /// The same archive (shared, not reopened) whose readers send every read to the
    /// blocking pool (`false`), or first try the page cache in place (`true`, the
    /// default). On Linux a chunk the page cache holds is read at once with `preadv2`
    /// and `RWF_NOWAIT`, which refuses (`EAGAIN`) rather than wait for the disk, so the
    /// runtime is never blocked either way; a trip to the blocking pool costs tens of
    /// microseconds (two thread wake-ups), more than decoding a chunk of some methods.
    /// Elsewhere every read goes to the pool.
    #[must_use]
    pub fn with_cached_reads_inline(mut self, on: bool) -> Archive {
        self.cached_inline = on;
        self
    }

    /// The bytes a reader of the file reads at a time
    /// ([`with_read_chunk`](Archive::with_read_chunk)).
    pub fn read_chunk(&self) -> usize {
        self.read_chunk
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.shared.catalog.len()
    }

    /// Whether the archive has no entries.
    pub fn is_empty(&self) -> bool {
        self.shared.catalog.is_empty()
    }

    /// The index of the entry named `name`, by the format's engine rules (NRes: ASCII
    /// case-insensitive, by binary search over `sort_index`, or by a linear scan when that
    /// table cannot be searched; RsLi: `rsFind`). `None` when the engine's lookup finds
    /// none, which for a badly sorted table can be so even though an entry has the name
    /// (as in the game).
    ///
    /// Of two entries whose names the engine takes as one (real archives hold such pairs:
    /// `Steel.mat` and `STEEL.MAT`), a lookup by either name gives the same one, the one
    /// the game loads. A server that lists [`entries`](Archive::entries) and links each
    /// by its name serves that one under both links: link the others by index (as `ngi
    /// serve`'s `?index=` does), or compare `find`'s answer with the entry's index.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.shared.catalog.find(name)
    }

    /// Entry `index`'s metadata (name, decoded size, packed range, method, key and the
    /// format's own record), `None` past the end.
    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.shared.catalog.entry(index)
    }

    /// Every entry's metadata, in directory order.
    pub fn entries(&self) -> &[Entry] {
        self.shared.catalog.entries()
    }

    /// The format, detected from the magic.
    pub fn format(&self) -> Format {
        self.shared.catalog.format()
    }

    /// The core's catalog: header, lookup table, problems and the rest.
    pub fn catalog(&self) -> &Catalog<Vec<Entry>> {
        &self.shared.catalog
    }

    /// The metadata of the file the archive was opened from (size, modification time,
    /// inode), read from the open handle when it was opened: what an HTTP server builds
    /// its validators from (`ETag`, `Last-Modified`). `None` for an archive in memory.
    pub fn file_metadata(&self) -> Option<&std::fs::Metadata> {
        self.shared.metadata.as_ref()
    }

    /// Whether the file the archive was opened from has been written since: its size or
    /// modification time, read from the open handle now (an `fstat`, which blocks the
    /// calling thread as briefly as any on a local disk), differ from
    /// [`file_metadata`](Archive::file_metadata)'s. `Ok(false)` for an archive in memory.
    ///
    /// A file replaced by a rename keeps the old one open and unchanged. One rewritten in
    /// place (`cp` over it) changes under its readers, which go on reading at the offsets
    /// of the directory they opened: the entry then fails to decode (a file cut short is
    /// `UnexpectedEof`, like a truncated stream) or, worse, decodes to bytes of the new
    /// version or of both with no error at all (a stored entry always does). A server
    /// checks this after reading an entry, before it sends the last bytes. What it cannot
    /// see: a rewrite of the same size that leaves the modification time as it was (a
    /// tool that sets it back, or a file system whose clock is too coarse to tell two
    /// writes apart). The status-change time would see the first, but a rename over the
    /// file moves it too (the old file loses its link), and that is the way to update a
    /// served file without disturbing its readers; [`Cache`](crate::Cache) looks at it
    /// by path, for the requests to come.
    ///
    /// # Errors
    ///
    /// * The error of reading the open file's metadata, of the kind the OS gives.
    pub fn file_changed(&self) -> io::Result<bool> {
        let (Source::File { file, .. }, Some(then)) = (&self.shared.source, &self.shared.metadata)
        else {
            return Ok(false);
        };
        let now = file.metadata()?;
        Ok(now.len() != then.len() || now.modified().ok() != then.modified().ok())
    }

    /// The options the archive was opened with.
    pub fn options(&self) -> OpenOptions {
        self.shared.options
    }

    /// The limits of [`options`](Archive::options): readers are held to its
    /// `max_entry_size` (see [`open_with`](Archive::open_with) for `max_total`).
    pub fn limits(&self) -> Limits {
        self.shared.options.limits
    }

    /// A reader of entry `index`'s decoded bytes: tokio `AsyncRead + AsyncBufRead`,
    /// owned (`Send + Sync + Unpin + 'static`).
    ///
    /// Everything that can be known before reading is checked here, before any read: the
    /// index, the entry's packed range against the file and its method (the catalog's
    /// [`packed_range`](Catalog::packed_range)), then its decoded size against the
    /// archive's [`Limits`] (`max_entry_size`, as `ngi --max-entry-size`).
    ///
    /// # Errors
    ///
    /// The core's [`ngi_core::archive::Error`], as the `io::Error`'s inner error:
    /// * `InvalidInput` when there is no entry `index`
    ///   ([`NoSuchEntry`](ngi_core::archive::Error::NoSuchEntry)).
    /// * `InvalidData` when the entry's packed range or method breaks its format's rules
    ///   ([`Catalog::packed_range`]'s), or its decoded size is above `max_entry_size`
    ///   ([`Catalog::check_limits`]'s); the error names the entry.
    ///
    /// Nothing is read here: the file's errors, and the stream's, come from the reader.
    pub fn reader(&self, index: usize) -> io::Result<EntryReader> {
        let catalog = &self.shared.catalog;
        // In the core's order (the entry's own faults, then its limits), and before the
        // decoder is allocated.
        let range = catalog.packed_range(index)?;
        catalog.check_limits(index, &self.shared.options.limits)?;
        let core = catalog.boxed_stream_decoder(index)?;
        let packed = match &self.shared.source {
            Source::Memory(bytes) => Packed::Memory(bytes.slice_ref(catalog.packed(index, bytes)?)),
            Source::File { file, runtime } => Packed::File(FileRange::new(
                catalog.get(index)?.index,
                Arc::clone(file),
                runtime.clone(),
                range,
                self.read_chunk,
                self.cached_inline,
            )),
        };
        Ok(EntryReader::new(index, packed, core))
    }

    /// A reader of entry `index`'s decoded bytes from byte `start` on (an HTTP range, a
    /// resumed download), checked as [`reader`](Archive::reader) checks. A stored entry
    /// (NRes, RsLi method 0) reads only its bytes from `start` on; a packed one is decoded
    /// from its beginning and its first `start` bytes are thrown away as they come, so
    /// that a corrupt stream before `start` is still an error (skipping goes through the
    /// reader's 16 KiB buffer of decoded bytes, which a plain `AsyncRead` user would
    /// otherwise not allocate). From `start` at the entry's size, the reader gives
    /// nothing.
    ///
    /// ```
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> std::io::Result<()> {
    /// use tokio::io::AsyncReadExt;
    ///
    /// let archive = ngi_tokio::Archive::open("../samples/sample.nres").await?;
    /// let index = archive.find(b"readme.txt").expect("the sample has it");
    /// let whole = archive.read(index).await?;
    /// let mut tail = Vec::new();
    /// archive.reader_from(index, 4)?.read_to_end(&mut tail).await?;
    /// assert_eq!(tail, whole[4..]);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// * [`reader`](Archive::reader)'s, checked first.
    /// * `InvalidInput` when `start` is past the entry's size.
    pub fn reader_from(&self, index: usize, start: u64) -> io::Result<EntryReader> {
        let catalog = &self.shared.catalog;
        let range = catalog.packed_range(index)?;
        catalog.check_limits(index, &self.shared.options.limits)?;
        let entry = catalog.get(index)?;
        if start > entry.size {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "entry {}: start {start} is past its size {}",
                    entry.index, entry.size
                ),
            ));
        }
        if start == 0 || entry.method != Some(ngi_core::Method::Stored) {
            return Ok(self.reader(index)?.skipping(start));
        }
        // Stored: the decoder starts at `start`, as does the range it reads.
        let from = range.start.saturating_add(start).min(range.end);
        let unpacker = ngi_core::Unpacker::new(ngi_core::Method::Stored, entry.size - start, 0);
        let core = ngi_core::io::StreamDecoder::from_decoder(unpacker.into_boxed())
            .at(Some(entry.index), from);
        let packed = match &self.shared.source {
            Source::Memory(bytes) => {
                let packed = catalog.packed(index, bytes)?;
                let offset = usize::try_from(from - range.start).unwrap_or(packed.len());
                Packed::Memory(bytes.slice_ref(&packed[offset.min(packed.len())..]))
            }
            Source::File { file, runtime } => Packed::File(FileRange::new(
                entry.index,
                Arc::clone(file),
                runtime.clone(),
                from..range.end,
                self.read_chunk,
                self.cached_inline,
            )),
        };
        Ok(EntryReader::new(index, packed, core).starting_at(start))
    }

    /// Entry `index`'s decoded bytes as a `Stream` of [`Bytes`] chunks of
    /// [`DEFAULT_STREAM_CHUNK`](crate::DEFAULT_STREAM_CHUNK) (64 KiB; the last may be shorter;
    /// [`EntryStream::with_chunk_len`] to change it), checked as
    /// [`reader`](Archive::reader) checks.
    ///
    /// # Errors
    ///
    /// [`reader`](Archive::reader)'s.
    pub fn stream(&self, index: usize) -> io::Result<EntryStream> {
        self.reader(index).map(EntryStream::new)
    }

    /// Entry `index`'s decoded bytes, read whole (its size is bounded by the limits;
    /// memory is reserved as bytes arrive, doubling from 1 MiB, so that a size the file
    /// claims is not taken on trust, and never past that size: the `Vec`'s capacity is
    /// its length).
    ///
    /// # Errors
    ///
    /// * [`reader`](Archive::reader)'s.
    /// * `UnexpectedEof` when the packed bytes end before they decode to the entry's size
    ///   (a file cut short since it was opened included), `InvalidData` when they are
    ///   corrupt or the codec stalls; either with the core's
    ///   [`StreamError`](ngi_core::io::StreamError) as the inner error, naming the entry
    ///   and the file offset.
    /// * A failed read of the file, of its kind, the message naming the entry and the
    ///   offset; `Other` when a read on the blocking pool does not finish (the runtime the
    ///   archive was opened on shut down).
    pub async fn read(&self, index: usize) -> io::Result<Vec<u8>> {
        use tokio::io::AsyncReadExt;
        let mut reader = self.reader(index)?;
        let size = usize::try_from(reader.unpacked_size()).unwrap_or(0);
        let mut out = Vec::new();
        // Not `read_to_end`, whose buffer doubles past the size: a 129 MiB entry held
        // 256 MiB. Grown when full, by as much as it holds (1 MiB at first) and never past
        // the size: a reservation before every read reallocated the buffer after each
        // 32 KiB, 4 064 times for a 128 MiB entry, copying it each time with an allocator
        // that cannot grow a block in place.
        while out.len() < size {
            if out.len() == out.capacity() {
                let ahead = out.len().max(crate::entry::RESERVE_AHEAD);
                out.reserve_exact(ahead.min(size - out.len()));
            }
            if reader.read_buf(&mut out).await? == 0 {
                break;
            }
        }
        // The reader confirms the end of the stream (or fails) on a read that gives
        // nothing; it never gives more than the size.
        let mut probe = [0u8; 64];
        loop {
            match reader.read(&mut probe).await? {
                0 => return Ok(out),
                n => out.extend_from_slice(&probe[..n]),
            }
        }
    }
}

/// Opens `path` for reading as [`Archive::open`] and the [`Cache`](crate::Cache) do:
/// without waiting on a FIFO or a device that waits for a peer (Linux: `O_NONBLOCK`,
/// which changes nothing for a regular file's reads). They refuse anything but a regular
/// file afterwards, from the handle's metadata. For an
/// [`Opener`](crate::Cache::with_opener) that checks what the usual open gives.
///
/// # Errors
///
/// The open's.
pub fn open_file(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32);
    }
    options.open(path)
}

impl fmt::Debug for Archive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match &self.shared.source {
            Source::Memory(bytes) => format!("memory ({} bytes)", bytes.len()),
            Source::File { file, .. } => format!("{file:?}"),
        };
        f.debug_struct("Archive")
            .field("format", &self.format())
            .field("entries", &self.len())
            .field("source", &source)
            .field("options", &self.shared.options)
            .field("read_chunk", &self.read_chunk)
            .field("cached_inline", &self.cached_inline)
            .finish()
    }
}
