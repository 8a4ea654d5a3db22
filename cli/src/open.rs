//! An archive opened from its file through the core's catalog: only the header and the
//! directory are read at open, each entry's packed range when it is produced, so memory
//! never grows with the archive.

use std::fs::File;
use std::io::{BufRead, Read, Write};
use std::path::Path;

use ngi_core::archive::{Catalog, Entry, Error, Format};
use ngi_core::codec::Status;
use ngi_core::codec::{InPlace, InPlaceUnpacker};
use ngi_core::io::{OpenError, RangeReader, ReadAt, StreamDecoder};
use ngi_core::limits::{Budget, LimitError, Limits};
use ngi_core::{Method, OpenOptions};

use crate::report::{Failure, ShowPath};

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
        let hint = "use --raw to read it as one resource";
        ArchiveFile::open_hinting(path, raw, media_trailer, limits, hint)
    }

    /// [`open`](ArchiveFile::open) for a command that edits or unpacks it, which raw
    /// mode cannot serve (there is no directory to edit), so a file of no format is not
    /// told to try it.
    pub fn open_to_edit(
        path: &Path,
        media_trailer: bool,
        limits: &Limits,
    ) -> Result<Self, Failure> {
        let hint = "there is no directory to edit or unpack";
        ArchiveFile::open_hinting(path, false, media_trailer, limits, hint)
    }

    /// `hint`: what to say of a file of no format.
    fn open_hinting(
        path: &Path,
        raw: bool,
        media_trailer: bool,
        limits: &Limits,
        hint: &str,
    ) -> Result<Self, Failure> {
        let shown = path.shown();
        let file = crate::regular::open(path).map_err(|e| Failure::about(&shown, e))?;
        let options = OpenOptions::DEFAULT
            .with_limits(*limits)
            .with_raw(raw)
            .with_media_trailer(media_trailer);
        match ngi_core::io::open_at(&file, options) {
            Ok(catalog) => Ok(ArchiveFile { file, catalog }),
            Err(OpenError::Archive(Error::UnknownFormat { found, len })) => {
                let start = found.get(..usize::from(len)).unwrap_or_default();
                let starts = match start {
                    [] => "it is empty".to_string(),
                    _ => format!("it starts with \"{}\"", crate::names::display(start)),
                };
                Err(Failure::Bad(format!(
                    "{shown}: not an NRes or RsLi archive ({starts}); {hint}"
                )))
            }
            Err(OpenError::Archive(e)) => Err(Failure::about(&shown, with_flag(&e))),
            Err(e) => Err(Failure::about(&shown, e)),
        }
    }

    /// An archive this run wrote, read back for what a note says of it: no limit on its
    /// entries (the run chose them), and nothing when it cannot be read (the write is
    /// done by then, and the note is all that is lost).
    pub fn reopen_written(path: &Path, media_trailer: bool) -> Option<Self> {
        let limits = Limits::DEFAULT.with_max_entries(u32::MAX);
        ArchiveFile::open(path, false, media_trailer, &limits).ok()
    }

    pub fn format_name(&self) -> &'static str {
        match (self.catalog.is_raw(), self.catalog.format()) {
            (true, _) => "NRes, raw mode",
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
        let filled = self.fill_at(offset, &mut bytes)?;
        bytes.truncate(filled);
        Ok(bytes)
    }

    /// Fills `buf` from `offset` on, short only where the file ends; returns how much it
    /// filled. For callers that read many pieces through one buffer.
    pub fn fill_at(&self, offset: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        let mut filled = 0;
        while filled < buf.len() {
            match self
                .file
                .read_at(&mut buf[filled..], offset + filled as u64)
            {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(filled)
    }

    /// The bytes decoding entry `index` costs: its decoded size, or the packed bytes its
    /// decoder reads when more (see [`Budget::take_reading`]). What `--max-total` counts,
    /// and what the jobs of `-j N` are weighed by.
    pub fn cost(&self, index: usize) -> u64 {
        let (size, packed) = self.sizes(index);
        size.max(packed)
    }

    /// Entry `index`'s decoded size and the packed bytes its decoder reads.
    fn sizes(&self, index: usize) -> (u64, u64) {
        let size = self.entry(index).map_or(0, |e| e.size);
        let packed = self
            .catalog
            .packed_range(index)
            .map_or(0, |r| r.end - r.start);
        (size, packed)
    }

    /// Admits entry `index` into `budget` before anything is decoded: its decoded size
    /// against `--max-entry-size`, then the run's total against `--max-total`. Nothing is
    /// sized from the entry's fields.
    fn admit(&self, index: usize, budget: &mut Budget) -> Result<(), EntryError> {
        let limits = *budget.limits();
        self.catalog
            .check_limits(index, &limits)
            .map_err(|e| EntryError::Archive(with_flag(&e)))?;
        let (size, packed) = self.sizes(index);
        let id = u32::try_from(index).unwrap_or(u32::MAX);
        budget.take_reading(id, size, packed).map_err(|e| {
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
        self.stream_chunks(index, CHUNK, &mut |buffer, chunk| chunk.write(buffer, out))
    }

    /// [`stream_admitted`](ArchiveFile::stream_admitted) in chunks of `chunk_len` bytes
    /// (the last one shorter), given away: `hand_over(buffer, chunk)` gets each as
    /// `buffer[chunk.bytes]`, and may swap the buffer for another to keep it (see
    /// [`write_behind`](crate::write_behind::write_behind)) as long as the one left
    /// starts with the chunk's [`carry`](Chunk::carry) (the window the decoding of a
    /// Deflate or LZHUF entry goes on with). Its error is reported as the output's.
    /// Before a fault of the entry, what the decoding calls ahead of the failing one
    /// produced is handed over as a last, short chunk; the failing call's own output is
    /// not (a codec reports a fault without progress), so a corrupt entry decoded in one
    /// call (packed bytes all at hand) hands over nothing, through the reader alike.
    pub fn stream_chunks(
        &self,
        index: usize,
        chunk_len: usize,
        hand_over: &mut dyn FnMut(&mut Vec<u8>, Chunk) -> std::io::Result<()>,
    ) -> Result<(u64, u64), EntryError> {
        let range = self.catalog.packed_range(index).map_err(archive_error)?;
        // No larger than the entry: a buffer is zeroed when it is made, and an archive of
        // many small entries paid for 256 KiB of zeros each (a decoder makes no more than
        // the entry's size; one that would is refused before it hands over more).
        let size = self.entry(index).map_or(0, |e| e.size);
        let chunk_len = chunk_len
            .min(usize::try_from(size).unwrap_or(usize::MAX))
            .max(1);
        let in_place = self
            .catalog
            .in_place_decoder(index)
            .map_err(archive_error)?;
        let (written, used) = match in_place {
            Some(core) => self.in_place_chunks(index, core, range.clone(), chunk_len, hand_over)?,
            None => self.read_chunks(index, chunk_len, hand_over)?,
        };
        Ok((written, (range.end - range.start).saturating_sub(used)))
    }

    /// [`stream_chunks`](ArchiveFile::stream_chunks) through the entry's reader, each
    /// chunk read into the buffer from its start: the bytes written and the packed bytes
    /// used.
    fn read_chunks(
        &self,
        index: usize,
        chunk_len: usize,
        hand_over: &mut dyn FnMut(&mut Vec<u8>, Chunk) -> std::io::Result<()>,
    ) -> Result<(u64, u64), EntryError> {
        let mut reader = self
            .catalog
            .reader(index, &self.file)
            .map_err(archive_error)?;
        let mut buffer = vec![0u8; chunk_len];
        let mut written = 0u64;
        loop {
            // An empty buffer back from `hand_over` would read as the entry's end.
            buffer.resize(chunk_len, 0);
            let (filled, fault) = fill(&mut reader, &mut buffer, index);
            if filled > 0 {
                hand_over(&mut buffer, Chunk::new(0..filled, 0)).map_err(EntryError::Output)?;
                written += filled as u64;
            }
            if let Some(fault) = fault {
                return Err(fault);
            }
            if filled < chunk_len {
                break;
            }
        }
        Ok((written, reader.decoder().consumed()))
    }

    /// [`stream_chunks`](ArchiveFile::stream_chunks) of a Deflate or LZHUF entry, decoded
    /// with its window in the buffer, before each chunk (`core`, an
    /// [`InPlaceUnpacker`]): matches read the bytes where they are, and only the window
    /// is copied, once per chunk, where the window-keeping decoder of the entry's reader
    /// copies every read's output into its own window (`ngi cat` of Deflate 10-11 %
    /// faster; BENCHMARKS.md). The same bytes, chunks and faults as through the reader.
    fn in_place_chunks(
        &self,
        index: usize,
        mut core: StreamDecoder<InPlaceUnpacker>,
        range: std::ops::Range<u64>,
        chunk_len: usize,
        hand_over: &mut dyn FnMut(&mut Vec<u8>, Chunk) -> std::io::Result<()>,
    ) -> Result<(u64, u64), EntryError> {
        let mut packed = RangeReader::new(&self.file, range);
        let len = core.codec().window() + chunk_len;
        let mut buffer = vec![0u8; len];
        // `buffer[..start]` is the window carried over, `buffer[start..at]` the chunk
        // decoded so far.
        let (mut start, mut at) = (0, 0);
        let mut written = 0u64;
        loop {
            let end = start + chunk_len;
            let (carry, fault, done) = match packed.fill_buf() {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let e = archive_error(format_args!("entry {index}: reading it: {e}"));
                    (0, Some(e), false)
                }
                Ok(input) => {
                    let ended = input.is_empty();
                    match core.decode_in_place(input, ended, &mut buffer[..end], at) {
                        Err(e) => (0, Some(archive_error(e)), false),
                        Ok(p) => {
                            at += p.produced;
                            let done = p.status == Status::Done;
                            // What the next calls are given first decides how much of
                            // the window a stored block lets go.
                            let carry = if at == end && !done {
                                core.retain(at, &input[p.consumed..])
                            } else {
                                0
                            };
                            packed.consume(p.consumed);
                            (carry, None, done)
                        }
                    }
                }
            };
            if at > start && (at == end || done || fault.is_some()) {
                hand_over(&mut buffer, Chunk::new(start..at, carry)).map_err(EntryError::Output)?;
                written += (at - start) as u64;
                // A buffer of another length back would not hold the next chunk.
                buffer.resize(len, 0);
                (start, at) = (carry, carry);
            }
            if let Some(fault) = fault {
                return Err(fault);
            }
            if done {
                return Ok((written, core.consumed()));
            }
        }
    }
}

/// One chunk of decoded bytes handed over by
/// [`stream_chunks`](ArchiveFile::stream_chunks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    /// Where the chunk's bytes are in the buffer handed over.
    pub bytes: std::ops::Range<usize>,
    /// How many of the chunk's last bytes the buffer left after the hand-over must start
    /// with: the window of a Deflate or LZHUF entry decoded in place, 0 otherwise.
    pub carry: usize,
}

impl Chunk {
    fn new(bytes: std::ops::Range<usize>, carry: usize) -> Chunk {
        debug_assert!(carry <= bytes.end);
        Chunk { bytes, carry }
    }

    /// Writes the chunk from `buffer` into `out`, then moves its carry to the front:
    /// the hand-over of a caller that keeps the buffer.
    pub fn write(&self, buffer: &mut [u8], out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(&buffer[self.bytes.clone()])?;
        self.carry_into(buffer, None);
        Ok(())
    }

    /// The carry: the last `carry` bytes before `bytes.end` of `from` (or of `to` itself
    /// when `from` is `None`) to the front of `to`.
    pub fn carry_into(&self, to: &mut [u8], from: Option<&[u8]>) {
        let end = self.bytes.end;
        match from {
            Some(from) => to[..self.carry].copy_from_slice(&from[end - self.carry..end]),
            None => to.copy_within(end - self.carry..end, 0),
        }
    }
}

/// Reads `reader` into `buffer` until it is full or the entry ends: the bytes read, and
/// the fault that stopped it short, if one did. A whole chunk per hand-over, where one
/// read gives what one refill of the packed input decodes to (64 KiB of Deflate gave
/// 180 KiB on average, so `ngi cat` made three times the hand-overs and writes it needed).
fn fill(reader: &mut impl Read, buffer: &mut [u8], index: usize) -> (usize, Option<EntryError>) {
    let mut filled = 0;
    while filled < buffer.len() {
        match reader.read(&mut buffer[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // A stream's own error names the entry and the offset; a failed read of the
            // file does not.
            Err(e)
                if e.get_ref()
                    .is_some_and(|i| i.is::<ngi_core::io::StreamError>()) =>
            {
                return (filled, Some(archive_error(e)));
            }
            Err(e) => {
                let e = archive_error(format_args!("entry {index}: reading it: {e}"));
                return (filled, Some(e));
            }
        }
    }
    (filled, None)
}

/// `message` without the "entry {index}: " that the library's errors about an entry start
/// with, for a line that names the entry already, with its name: once is enough.
pub fn after_entry(index: usize, message: &str) -> &str {
    message
        .strip_prefix("entry ")
        .and_then(|rest| rest.strip_prefix(index.to_string().as_str()))
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(message)
}

/// The archive's refusal of an entry, as the line that reports it.
fn archive_error(e: impl std::fmt::Display) -> EntryError {
    EntryError::Archive(e.to_string())
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Three bytes a read of `data`, then `fault` (or the end): an OS error, which carries
    /// no inner error, as a failed read of the file does.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        fault: bool,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf.len().min(3).min(self.data.len() - self.at);
            if n == 0 && self.fault {
                return Err(std::io::Error::from_raw_os_error(5));
            }
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    /// Only the entry's own "entry N: " goes: another entry's, or none, stays.
    #[test]
    fn after_entry_takes_off_this_entry_only() {
        assert_eq!(
            after_entry(4, "entry 4: unpacked size 232"),
            "unpacked size 232"
        );
        assert_eq!(
            after_entry(4, "entry 41: unpacked size"),
            "entry 41: unpacked size"
        );
        assert_eq!(after_entry(1, "entry 12: x"), "entry 12: x");
        assert_eq!(after_entry(4, "reading it: EIO"), "reading it: EIO");
        assert_eq!(after_entry(4, "entry 4 overlaps"), "entry 4 overlaps");
    }

    fn message(e: EntryError) -> String {
        match e {
            EntryError::Archive(m) => m,
            _ => panic!("not the archive's error"),
        }
    }

    #[test]
    fn short_reads_fill_the_buffer_and_the_bytes_before_a_fault_are_kept() {
        let data: Vec<u8> = (0..10).collect();
        let mut r = Trickle {
            data: data.clone(),
            at: 0,
            fault: true,
        };
        let mut buffer = [0u8; 8];
        let (n, fault) = fill(&mut r, &mut buffer, 3);
        assert_eq!((n, fault.is_none()), (8, true));
        assert_eq!(buffer, data[..8]);
        let (n, fault) = fill(&mut r, &mut buffer, 3);
        assert_eq!(n, 2);
        assert_eq!(buffer[..2], data[8..]);
        let eio = std::io::Error::from_raw_os_error(5);
        assert_eq!(
            message(fault.unwrap()),
            format!("entry 3: reading it: {eio}")
        );
        let mut r = Trickle {
            data,
            at: 4,
            fault: false,
        };
        let (n, fault) = fill(&mut r, &mut buffer, 3);
        assert_eq!((n, fault.is_none()), (6, true));
    }

    /// The methods decoded in place, and one read through the entry's reader.
    const METHODS: [Method; 4] = [
        Method::Deflate,
        Method::Lzhuf,
        Method::XorLzhuf,
        Method::Lzss,
    ];

    /// A library of one entry of `data` packed by `method` in a fresh file, its declared
    /// size raised by `extra` (the stream then ends short of it).
    fn library(name: &str, method: Method, data: &[u8], extra: u32) -> ArchiveFile {
        let mut b = ngi_core::rsli::Builder::new();
        b.add(b"BIG", method, data).unwrap();
        let mut bytes = b.build().unwrap();
        // The table is XOR-encrypted with the key at offset 20; the declared size is at
        // offset 20 of the entry's 32-byte row.
        let key = u16::from_le_bytes([bytes[20], bytes[21]]);
        ngi_core::codec::xor::XorStream::new(key).apply(&mut bytes[32..64]);
        let size = u32::from_le_bytes(bytes[52..56].try_into().unwrap()) + extra;
        bytes[52..56].copy_from_slice(&size.to_le_bytes());
        ngi_core::codec::xor::XorStream::new(key).apply(&mut bytes[32..64]);
        let path = std::env::temp_dir().join(format!(
            "ngi-open-{}-{name}-{}",
            std::process::id(),
            method.bits()
        ));
        std::fs::write(&path, bytes).unwrap();
        let archive = ArchiveFile::open(&path, false, false, &Limits::default());
        let _ = std::fs::remove_file(&path);
        archive.unwrap_or_else(|_| panic!("the library opens"))
    }

    /// 2 MiB and a bit that Deflate packs about 4:1, so that one read of the packed bytes
    /// decodes to less than a chunk.
    fn contents() -> Vec<u8> {
        let mut x = 0x2545_f491_u32;
        let mut out = Vec::new();
        while out.len() < (2 << 20) + 777 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            out.extend_from_slice(format!("{:08x} parkan\n", x % 65536).as_bytes());
        }
        out
    }

    /// The lengths of the chunks handed over, their carries, their bytes, and how the
    /// stream ended.
    type Handed = (
        Vec<usize>,
        Vec<usize>,
        Vec<u8>,
        Result<(u64, u64), EntryError>,
    );

    /// Entry 0 of `archive` in chunks of `chunk` bytes.
    fn chunks(archive: &ArchiveFile, chunk: usize) -> Handed {
        let (mut lens, mut carries, mut bytes) = (Vec::new(), Vec::new(), Vec::new());
        let result = archive.stream_chunks(0, chunk, &mut |b, c| {
            lens.push(c.bytes.len());
            carries.push(c.carry);
            bytes.extend_from_slice(&b[c.bytes.clone()]);
            c.carry_into(b, None);
            Ok(())
        });
        (lens, carries, bytes, result)
    }

    #[test]
    fn every_chunk_but_the_last_is_whole() {
        let data = contents();
        for method in METHODS {
            let archive = library("whole", method, &data, 0);
            let (lens, carries, bytes, result) = chunks(&archive, 512 << 10);
            assert!(bytes == data, "{method}: other bytes");
            assert_eq!(lens.len(), data.len().div_ceil(512 << 10), "{method}");
            assert!(
                lens[..lens.len() - 1].iter().all(|&n| n == 512 << 10),
                "{method}: {lens:?}"
            );
            // Decoded in place, each chunk but the last hands a whole window on (the
            // text has no stored blocks to let one go); through the reader, none.
            let window = match method {
                Method::Deflate => 32 << 10,
                Method::Lzhuf | Method::XorLzhuf => 4 << 10,
                _ => 0,
            };
            let mut expected = vec![window; lens.len()];
            expected[lens.len() - 1] = 0;
            assert_eq!(carries, expected, "{method}");
            // Every packed byte used: none left over for `verify` to note.
            assert_eq!(result.ok(), Some((data.len() as u64, 0)), "{method}");
        }
    }

    #[test]
    fn a_fault_keeps_the_whole_chunks_before_it() {
        let data = contents();
        for method in METHODS {
            let archive = library("short", method, &data, 1000);
            let (lens, _, bytes, result) = chunks(&archive, 512 << 10);
            // The LZ methods have no end marker: their padding bits decode as symbols
            // too, before the input runs out.
            let n = bytes.len().min(data.len());
            assert!(bytes[..n] == data[..n], "{method}: other bytes");
            assert!(
                bytes.len() + (512 << 10) >= data.len(),
                "{method}: {} bytes",
                bytes.len()
            );
            assert!(
                lens.iter().rev().skip(1).all(|&n| n == 512 << 10),
                "{method}: {lens:?}"
            );
            let e = message(result.expect_err("the entry is short"));
            assert!(e.contains("entry 0"), "{method}: {e}");
        }
    }
}
