//! An archive opened from its file through the core's catalog: only the header and the
//! directory are read at open, each entry's packed range when it is produced, so memory
//! never grows with the archive.

use std::fs::File;
use std::io::{Read, Write};
use std::path::Path;

use ngi_core::archive::{Catalog, Entry, Error, Format};
use ngi_core::io::{OpenError, ReadAt};
use ngi_core::limits::{Budget, LimitError, Limits};
use ngi_core::{Method, OpenOptions};

use crate::report::Failure;

/// Decoded bytes are streamed through a buffer of this size, whatever the entry declares.
/// 256 KiB rather than 64: fewer writes, and a Deflate window refreshed once per 256 KiB of
/// output (`ngi cat` into a pipe 4 % faster; BENCHMARKS.md).
const CHUNK: usize = 256 * 1024;

/// An archive of either format, open.
pub struct ArchiveFile {
    file: File,
    pub catalog: Catalog<Vec<Entry>>,
}

/// Why an entry could not be produced in full.
pub enum EntryError {
    /// The archive said no (bounds, method, decoding), or the entry alone is larger than
    /// `--max-entry-size`: this entry fails, the others may still be produced.
    Archive(String),
    /// The entry would bring the run's decoded bytes past `--max-total`: nothing more is
    /// produced.
    Total(String),
    /// The destination refused the bytes.
    Output(std::io::Error),
}

impl ArchiveFile {
    /// Opens the regular file at `path` by its magic (or in NRes raw mode when asked),
    /// refusing an archive of more than `limits.max_entries` entries before anything is
    /// read per entry.
    pub fn open(
        path: &Path,
        raw: bool,
        media_trailer: bool,
        limits: &Limits,
    ) -> Result<Self, Failure> {
        let shown = path.display();
        let file = open_regular(path).map_err(|e| Failure::about(&shown, e))?;
        let options = OpenOptions::DEFAULT
            .with_limits(*limits)
            .with_raw(raw)
            .with_media_trailer(media_trailer);
        match ngi_core::io::open_at(&file, options) {
            Ok(catalog) => Ok(ArchiveFile { file, catalog }),
            Err(OpenError::Archive(Error::UnknownFormat { found, len })) => {
                let start = found.get(..usize::from(len)).unwrap_or_default();
                Err(Failure::Bad(format!(
                    "{shown}: not an NRes or RsLi archive (starts with {}); use --raw to read it as one resource",
                    crate::names::display(start)
                )))
            }
            Err(OpenError::Archive(e)) => Err(Failure::about(&shown, with_flag(&e))),
            Err(e) => Err(Failure::about(&shown, e)),
        }
    }

    pub fn format_name(&self) -> &'static str {
        match (self.catalog.is_raw(), self.catalog.format()) {
            (true, _) => "NRes (raw mode)",
            (false, Format::Nres) => "NRes",
            (false, Format::Rsli) => "RsLi",
        }
    }

    pub fn len(&self) -> usize {
        self.catalog.len()
    }

    pub fn entry(&self, index: usize) -> Option<&Entry> {
        self.catalog.entry(index)
    }

    pub fn entries(&self) -> &[Entry] {
        self.catalog.entries()
    }

    /// The entry NAME selects under the format's engine rules.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.catalog.find(name)
    }

    /// The open file, for positional reads.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Up to `len` bytes of the file at `offset` (fewer at its end).
    pub fn read_at(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut bytes = vec![0u8; len];
        let mut filled = 0;
        while filled < len {
            match self
                .file
                .read_at(&mut bytes[filled..], offset + filled as u64)
            {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        bytes.truncate(filled);
        Ok(bytes)
    }

    /// Admits entry `index` into `budget` before anything is decoded: its decoded size
    /// against `--max-entry-size`, then the run's total against `--max-total`. Nothing is
    /// sized from the entry's fields.
    fn admit(&self, index: usize, budget: &mut Budget) -> Result<(), EntryError> {
        let limits = *budget.limits();
        self.catalog
            .check_limits(index, &limits)
            .map_err(|e| EntryError::Archive(with_flag(&e)))?;
        let size = self.entry(index).map_or(0, |e| e.size);
        let id = u32::try_from(index).unwrap_or(u32::MAX);
        budget.take(id, size).map_err(|e| {
            let message = format!("{e} (see {})", limit_flag(&e));
            match e {
                LimitError::TotalTooLarge { .. } => EntryError::Total(message),
                _ => EntryError::Archive(message),
            }
        })
    }

    /// Streams entry `index`, decoded, into `out`; returns the bytes written and the packed
    /// bytes left unused after the stream's end. The entry's own faults (bounds, method)
    /// are reported first, then the limits of `budget`, which the entry is taken from
    /// before any byte is decoded; only the entry's packed range is read from the file,
    /// through fixed buffers, whatever size the entry declares.
    pub fn stream(
        &self,
        index: usize,
        out: &mut dyn Write,
        budget: &mut Budget,
    ) -> Result<(u64, u64), EntryError> {
        self.admit_entry(index, budget)?;
        self.stream_admitted(index, out)
    }

    /// The first half of [`stream`](ArchiveFile::stream), which decides whether the entry
    /// is decoded at all: its own faults (bounds, method), then `budget`. Runs in entry
    /// order whatever the number of jobs, so the limits cut where they always did; the
    /// decoding, [`stream_admitted`](ArchiveFile::stream_admitted), may then run anywhere.
    pub fn admit_entry(&self, index: usize, budget: &mut Budget) -> Result<(), EntryError> {
        self.catalog.packed_range(index).map_err(archive_error)?;
        if self.entry(index).is_some_and(|e| e.method.is_none()) {
            // The reader's own refusal, word for word.
            self.catalog.unpacker(index).map_err(archive_error)?;
        }
        self.admit(index, budget)
    }

    /// The second half of [`stream`](ArchiveFile::stream): entry `index`, which
    /// [`admit_entry`](ArchiveFile::admit_entry) let through, decoded into `out`.
    pub fn stream_admitted(
        &self,
        index: usize,
        out: &mut dyn Write,
    ) -> Result<(u64, u64), EntryError> {
        self.stream_chunks(index, CHUNK, &mut |chunk, len| out.write_all(&chunk[..len]))
    }

    /// [`stream_admitted`](ArchiveFile::stream_admitted) in chunks of up to `chunk_len`
    /// bytes, given away: `hand_over(chunk, len)` gets each as `chunk[..len]`, and may swap
    /// the buffer for another to keep it (see
    /// [`write_behind`](crate::write_behind::write_behind)); the one left is resized to
    /// `chunk_len`. Its error is reported as the output's.
    pub fn stream_chunks(
        &self,
        index: usize,
        chunk_len: usize,
        hand_over: &mut dyn FnMut(&mut Vec<u8>, usize) -> std::io::Result<()>,
    ) -> Result<(u64, u64), EntryError> {
        let range = self.catalog.packed_range(index).map_err(archive_error)?;
        let mut reader = self
            .catalog
            .reader(index, &self.file)
            .map_err(archive_error)?;
        let chunk_len = chunk_len.max(1);
        let mut buffer = vec![0u8; chunk_len];
        let mut written = 0u64;
        loop {
            // An empty buffer back from `hand_over` would read as the entry's end.
            buffer.resize(chunk_len, 0);
            let n = match reader.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // A stream's own error names the entry and the offset; a failed read of
                // the file does not.
                Err(e)
                    if e.get_ref()
                        .is_some_and(|i| i.is::<ngi_core::io::StreamError>()) =>
                {
                    return Err(archive_error(e));
                }
                Err(e) => {
                    return Err(archive_error(format_args!(
                        "entry {index}: reading it: {e}"
                    )));
                }
            };
            hand_over(&mut buffer, n).map_err(EntryError::Output)?;
            written += n as u64;
        }
        let used = reader.decoder().consumed();
        Ok((written, (range.end - range.start).saturating_sub(used)))
    }
}

/// The archive's refusal of an entry, as the line that reports it.
fn archive_error(e: impl std::fmt::Display) -> EntryError {
    EntryError::Archive(e.to_string())
}

/// The file at `path`, which must be a regular one: a device or a pipe has no length to
/// check and could be read forever.
fn open_regular(path: &Path) -> std::io::Result<File> {
    let file = File::open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// The option that raises a limit.
fn limit_flag(e: &LimitError) -> &'static str {
    match e {
        LimitError::TooManyEntries { .. } => "--max-entries",
        LimitError::TotalTooLarge { .. } => "--max-total",
        _ => "--max-entry-size",
    }
}

/// The library's message, followed by the option that sets the limit it hit, if it did.
fn with_flag(e: &Error) -> String {
    match e.limit() {
        Some(limit) => format!("{e} (see {})", limit_flag(&limit)),
        None => e.to_string(),
    }
}

/// The JSON `method` value: the method's name, or "unsupported" for flags naming none.
pub fn method_name(entry: &Entry) -> &'static str {
    entry.method.map_or("unsupported", Method::name)
}
