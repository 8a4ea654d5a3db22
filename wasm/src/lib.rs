//! `ngi-wasm`: ngi-core's catalog and decoding readers as a WebAssembly module of plain
//! numbers, for the WASM check (`scripts/wasm-check.sh`, host `wasm/host.mjs`).
//!
//! The crate is `#![no_std]` with no allocator and depends on `ngi-core` with
//! `default-features = false, features = ["embedded-io"]`, so the module links neither
//! `std` nor `alloc`: `std` would bring a second `#[panic_handler]` (a build error beside
//! the one here), `alloc` would fail to link for want of a global allocator.
//!
//! # The file stays with the host
//!
//! The module never holds the archive. It reads it as a flash-backed embedded host
//! would: through one imported function, `env.read_at(offset, ptr, len)`, which copies up
//! to `len` bytes of the file at `offset` into linear memory at `ptr` and returns how many
//! (negative when the host cannot read). Around it, `HostSource` is an
//! `embedded_io::Read + Seek`, so ngi-core's own driver opens the archive
//! (`io::embedded::open_seekable`: the header, the table and the trailer only, into a
//! fixed array of entries) and `Catalog::seek_reader` reads one entry's packed range and
//! decodes it as it goes. That import is the module's only one.
//!
//! # Interface
//!
//! Every call takes the file's length `len` and opens the archive afresh, so no state is
//! kept between calls.
//!
//! | export | returns |
//! |---|---|
//! | `output_ptr()`, `output_capacity()` | where results are written, and how many bytes fit |
//! | `entry_count(len)` | the number of entries |
//! | `entry_method(len, index)` | the method's flag bits (`flags & 0x1E0`: 0x000 ... 0x100) |
//! | `entry_name(len, index)` | the name's length; the name is in the output buffer |
//! | `decode_entry(len, index)` (`i64`) | the unpacked size; the bytes are in the output buffer |
//!
//! Every export returns a negative error code ([`Error`]) instead when it fails.
//!
//! # Limits
//!
//! Archives of at most [`MAX_ENTRIES`] entries, entries of at most [`OUTPUT_CAPACITY`]
//! bytes unpacked. The entry array (about 53 KiB) and the decoding reader (about 47 KiB,
//! most of it the Deflate window) live on the stack, with the copies building them makes:
//! the module needs between 180 and 192 KiB of it (measured with `-zstack-size`), well
//! inside the 1 MiB rustc gives wasm32-unknown-unknown modules.
//!
//! # Memory without `unsafe`
//!
//! The buffers the host writes and reads are statics of [`AtomicU8`], which may be changed
//! behind a shared reference and have the layout of `u8`: their addresses are taken
//! safely, the host writes them during `read_at` (the module then loads them atomically)
//! and reads the output between calls. No raw pointer is dereferenced. The only `unsafe`
//! are the `#[unsafe(no_mangle)]` attribute of the exports (see the `export!` macro) and
//! the `unsafe extern` block declaring `read_at` (see [`host`]).

#![no_std]
#![deny(unsafe_code)]

use core::fmt;
use core::sync::atomic::{AtomicU8, Ordering::Relaxed};

use embedded_io::{ErrorType, Read, Seek, SeekFrom};
use ngi_core::archive::{Catalog, Entry, Error as ArchiveError, Slots};
use ngi_core::io::OpenError;
use ngi_core::io::embedded::{ReadError, open_seekable};
use ngi_core::rsli::RsliError;
use ngi_core::{OpenOptions, nres::NresError};

/// The largest unpacked entry (and name) the module returns, in bytes.
pub const OUTPUT_CAPACITY: usize = 256 * 1024;
/// The most entries an archive may have: the fixed array the catalog is opened into.
pub const MAX_ENTRIES: usize = 512;
/// The most bytes one `read_at` asks the host for.
const SCRATCH_LEN: usize = 4096;

/// Where the module writes names and unpacked entries for the host.
static OUTPUT: [AtomicU8; OUTPUT_CAPACITY] = [const { AtomicU8::new(0) }; OUTPUT_CAPACITY];
/// Where the host copies the bytes `read_at` asks for.
static SCRATCH: [AtomicU8; SCRATCH_LEN] = [const { AtomicU8::new(0) }; SCRATCH_LEN];

/// The host's side.
mod host {
    // The one import. `read_at` takes and returns plain integers and writes only into
    // linear memory the module names (always `SCRATCH`, a static of atomics), so calling
    // it cannot break any Rust invariant: it is declared `safe`, which an `unsafe extern`
    // block is required for.
    #[allow(unsafe_code)]
    #[link(wasm_import_module = "env")]
    unsafe extern "C" {
        /// Copies up to `len` bytes of the file at `offset` to `ptr`; returns how many, 0
        /// at the end of the file, negative when the host cannot read.
        pub safe fn read_at(offset: u32, ptr: u32, len: u32) -> i32;
    }
}

/// Why a call failed; exports return its value, which is negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Error {
    /// The host's `read_at` failed.
    HostRead = -1,
    /// The file is no archive (unknown magic, bad header, too short for its directory or
    /// table).
    BadLibrary = -2,
    /// The archive has more than [`MAX_ENTRIES`] entries.
    TooManyEntries = -3,
    /// There is no entry with this index.
    NoSuchEntry = -4,
    /// The entry's unpacked size is larger than [`OUTPUT_CAPACITY`].
    OutputTooSmall = -5,
    /// The entry's flags name no method.
    UnsupportedMethod = -6,
    /// The entry's packed bytes reach past the end of the file.
    DataOutOfBounds = -7,
    /// Decoding the packed bytes failed.
    Decode = -8,
    /// Any other error ngi-core reports.
    Other = -9,
}

impl From<ArchiveError> for Error {
    fn from(error: ArchiveError) -> Error {
        match error {
            ArchiveError::UnknownFormat { .. } => Error::BadLibrary,
            ArchiveError::StorageTooSmall { .. } => Error::TooManyEntries,
            ArchiveError::NoSuchEntry { .. } => Error::NoSuchEntry,
            ArchiveError::Rsli(e) => match e {
                RsliError::Truncated { .. }
                | RsliError::BadMagic { .. }
                | RsliError::BadReserved { .. }
                | RsliError::BadVersion { .. }
                | RsliError::NegativeEntryCount { .. } => Error::BadLibrary,
                RsliError::NoSuchEntry { .. } => Error::NoSuchEntry,
                RsliError::UnsupportedMethod { .. } => Error::UnsupportedMethod,
                RsliError::DataOutOfBounds { .. } => Error::DataOutOfBounds,
                RsliError::Decode { .. } => Error::Decode,
                _ => Error::Other,
            },
            ArchiveError::Nres(e) => match e {
                NresError::DataBeforeHeader { .. } | NresError::DataPastDirectory { .. } => {
                    Error::DataOutOfBounds
                }
                NresError::NoSuchEntry { .. } => Error::NoSuchEntry,
                NresError::Limit { .. } | NresError::NameUnterminated { .. } => Error::Other,
                _ => Error::BadLibrary,
            },
            _ => Error::Other,
        }
    }
}

impl From<OpenError<HostError>> for Error {
    fn from(error: OpenError<HostError>) -> Error {
        match error {
            OpenError::Archive(e) => e.into(),
            OpenError::Source(HostError) => Error::HostRead,
            _ => Error::HostRead,
        }
    }
}

impl From<ReadError<HostError>> for Error {
    fn from(error: ReadError<HostError>) -> Error {
        match error {
            ReadError::Stream(_) => Error::Decode,
            _ => Error::HostRead,
        }
    }
}

/// The host's `read_at` returned an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostError;

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the host could not read the file")
    }
}

impl core::error::Error for HostError {}

impl embedded_io::Error for HostError {
    fn kind(&self) -> embedded_io::ErrorKind {
        embedded_io::ErrorKind::Other
    }
}

/// The host's file as an `embedded_io::Read + Seek`: a position, and `read_at` per read.
struct HostSource {
    position: u64,
    len: u64,
}

impl ErrorType for HostSource {
    type Error = HostError;
}

impl Read for HostSource {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, HostError> {
        let want = buf.len().min(SCRATCH_LEN);
        // Offsets past 4 GiB cannot be asked for: they are past the end of any file here.
        let Ok(offset) = u32::try_from(self.position) else {
            return Ok(0);
        };
        let got = host::read_at(offset, address(&SCRATCH), want as u32);
        let got = usize::try_from(got).map_err(|_| HostError)?.min(want);
        for (byte, cell) in buf.iter_mut().zip(&SCRATCH[..got]) {
            *byte = cell.load(Relaxed);
        }
        self.position += got as u64;
        Ok(got)
    }
}

impl Seek for HostSource {
    fn seek(&mut self, pos: SeekFrom) -> Result<u64, HostError> {
        self.position = match pos {
            SeekFrom::Start(at) => at,
            SeekFrom::End(delta) => self.len.saturating_add_signed(delta),
            SeekFrom::Current(delta) => self.position.saturating_add_signed(delta),
        };
        Ok(self.position)
    }
}

/// A count or size as an export returns it, or the negative error code.
fn result_i32(result: Result<usize, Error>) -> i32 {
    match result {
        // Counts and sizes are bounded by the capacities, far below `i32::MAX`.
        Ok(n) => i32::try_from(n).unwrap_or(Error::Other as i32),
        Err(error) => error as i32,
    }
}

/// The address of a buffer in linear memory (wasm32 addresses are 32 bits wide).
fn address(buffer: &[AtomicU8]) -> u32 {
    buffer.as_ptr().addr() as u32
}

/// Opens the host's file of `len` bytes through ngi-core's embedded-io driver and runs
/// `f` on the catalog and the source.
fn with_catalog<R>(
    len: u32,
    f: impl FnOnce(&Catalog<Slots<'_>>, &mut HostSource) -> Result<R, Error>,
) -> Result<R, Error> {
    let mut source = HostSource {
        position: 0,
        len: len.into(),
    };
    let mut storage = [Entry::EMPTY; MAX_ENTRIES];
    let catalog = open_seekable(&mut source, Slots::new(&mut storage), OpenOptions::DEFAULT)?;
    f(&catalog, &mut source)
}

/// Entry `index` of `catalog`, with its index as a `usize`.
fn entry<'c>(catalog: &'c Catalog<Slots<'_>>, index: u32) -> Result<(usize, &'c Entry), Error> {
    let index = usize::try_from(index).map_err(|_| Error::NoSuchEntry)?;
    let entry = catalog.entry(index).ok_or(Error::NoSuchEntry)?;
    Ok((index, entry))
}

/// Copies `bytes` to `OUTPUT` at `at` and returns the end.
fn put_output(at: usize, bytes: &[u8]) -> Result<usize, Error> {
    let end = at.checked_add(bytes.len()).ok_or(Error::OutputTooSmall)?;
    let target = OUTPUT.get(at..end).ok_or(Error::OutputTooSmall)?;
    for (cell, &byte) in target.iter().zip(bytes) {
        cell.store(byte, Relaxed);
    }
    Ok(end)
}

fn entry_count(len: u32) -> i32 {
    result_i32(with_catalog(len, |catalog, _| Ok(catalog.len())))
}

fn entry_method(len: u32, index: u32) -> i32 {
    result_i32(with_catalog(len, |catalog, _| {
        let (_, entry) = entry(catalog, index)?;
        let method = entry.method.ok_or(Error::UnsupportedMethod)?;
        Ok(usize::from(method.bits()))
    }))
}

fn entry_name(len: u32, index: u32) -> i32 {
    result_i32(with_catalog(len, |catalog, _| {
        put_output(0, entry(catalog, index)?.1.name())
    }))
}

fn decode_entry(len: u32, index: u32) -> i64 {
    let result = with_catalog(len, |catalog, source| {
        let (index, entry) = entry(catalog, index)?;
        if entry.size > OUTPUT_CAPACITY as u64 {
            return Err(Error::OutputTooSmall);
        }
        let mut reader = catalog.seek_reader(index, source)?;
        let mut buffer = [0u8; 4096];
        let mut end = 0;
        loop {
            match reader.read(&mut buffer)? {
                0 => return Ok(end),
                n => end = put_output(end, buffer.get(..n).unwrap_or_default())?,
            }
        }
    });
    match result {
        Ok(size) => size as i64,
        Err(error) => i64::from(error as i32),
    }
}

/// Exports safe functions of this crate under their own names, as `extern "C"` shims
/// that only call them.
///
/// `#[no_mangle]` is an unsafe attribute (edition 2024) because an exported name may
/// collide with another symbol of the link (say `memcpy`) and silently replace it. A
/// wasm module cannot export a function without it (or `export_name`, just as unsafe), so
/// this is the one place `unsafe_code` is allowed. The names exported here are the
/// module's interface and clash with nothing, and the allowed items hold nothing but the
/// call, so no unsafe block can hide in them. (The import block of [`host`] is the other
/// place, for the same want of a safe spelling.)
macro_rules! export {
    ($($name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        /// The `extern "C"` exports of the module (see the crate docs).
        pub mod exports {
            $(
                #[doc = concat!("Export `", stringify!($name), "`.")]
                #[allow(unsafe_code)] // `no_mangle` only, see `export!`
                #[unsafe(no_mangle)]
                pub extern "C" fn $name($($arg: $ty),*) -> $ret {
                    super::$name($($arg),*)
                }
            )*
        }
    };
}

fn output_ptr() -> u32 {
    address(&OUTPUT)
}

fn output_capacity() -> u32 {
    OUTPUT_CAPACITY as u32
}

export! {
    output_ptr() -> u32;
    output_capacity() -> u32;
    entry_count(len: u32) -> i32;
    entry_method(len: u32, index: u32) -> i32;
    entry_name(len: u32, index: u32) -> i32;
    decode_entry(len: u32, index: u32) -> i64;
}

/// A panic (there should be none: ngi-core does not panic on any input, and the code here
/// checks every index) traps, which the host sees as a `RuntimeError`.
#[cfg(target_arch = "wasm32")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
