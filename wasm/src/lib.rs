//! `ngi-wasm`: ngi-core's RsLi reader as a WebAssembly module of plain numbers, for the
//! WASM check (`scripts/wasm-check.sh`, host `wasm/host.mjs`).
//!
//! The crate is `#![no_std]` with no allocator and depends on `ngi-core` with
//! `default-features = false`, so the module links neither `std` nor `alloc`: `std` would
//! bring a second `#[panic_handler]` (a build error beside the one here), `alloc` would
//! fail to link for want of a global allocator. The module imports nothing.
//!
//! # Interface
//!
//! The host copies a whole RsLi file into the input buffer (`input_ptr`, at most
//! `input_capacity` bytes), then passes its length `len` to every call: each call opens
//! the library afresh with [`Library::open_in`] (default options, no media trailer), so
//! no state is kept between calls.
//!
//! | export | returns |
//! |---|---|
//! | `input_ptr()`, `input_capacity()` | where the file goes, and how many bytes fit |
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
//! A file of at most [`INPUT_CAPACITY`] bytes with at most [`MAX_ENTRIES`] entries, and
//! entries of at most [`OUTPUT_CAPACITY`] bytes unpacked. A call copies the file, and
//! `decode_entry` the entry, into buffers on the stack (see below); their sum stays well
//! inside the 1 MiB stack rustc gives wasm32-unknown-unknown modules.
//!
//! # Memory without `unsafe`
//!
//! The buffers the host writes and reads are statics of [`AtomicU8`], which may be changed
//! behind a shared reference and have the layout of `u8`: their addresses are taken
//! safely, the host writes them between calls, and the module reads them with atomic
//! loads into ordinary stack buffers that ngi-core borrows. No raw pointer is
//! dereferenced. The only `unsafe` is the `#[unsafe(no_mangle)]` attribute of the exports
//! (see the `export!` macro).

#![no_std]
#![deny(unsafe_code)]

use core::sync::atomic::{AtomicU8, Ordering::Relaxed};
use ngi_core::rsli::{Entry, Library, OpenOptions, RsliError};

/// The largest RsLi file the module takes, in bytes.
pub const INPUT_CAPACITY: usize = 256 * 1024;
/// The largest unpacked entry (and name) the module returns, in bytes.
pub const OUTPUT_CAPACITY: usize = 256 * 1024;
/// The most entries a file may have: the fixed table storage [`Library::open_in`]
/// decrypts the table into.
pub const MAX_ENTRIES: usize = 512;

/// Where the host copies the file.
static INPUT: [AtomicU8; INPUT_CAPACITY] = [const { AtomicU8::new(0) }; INPUT_CAPACITY];
/// Where the module writes names and unpacked entries for the host.
static OUTPUT: [AtomicU8; OUTPUT_CAPACITY] = [const { AtomicU8::new(0) }; OUTPUT_CAPACITY];

/// Why a call failed; exports return its value, which is negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Error {
    /// `len` is larger than [`INPUT_CAPACITY`].
    InputTooLong = -1,
    /// The file is no RsLi library (bad header, or too short for its table).
    BadLibrary = -2,
    /// The library has more than [`MAX_ENTRIES`] entries.
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

impl From<RsliError> for Error {
    fn from(error: RsliError) -> Error {
        match error {
            RsliError::Truncated { .. }
            | RsliError::BadMagic { .. }
            | RsliError::BadReserved { .. }
            | RsliError::BadVersion { .. }
            | RsliError::NegativeEntryCount { .. } => Error::BadLibrary,
            RsliError::StorageTooSmall { .. } => Error::TooManyEntries,
            RsliError::NoSuchEntry { .. } => Error::NoSuchEntry,
            RsliError::UnsupportedMethod { .. } => Error::UnsupportedMethod,
            RsliError::DataOutOfBounds { .. } => Error::DataOutOfBounds,
            RsliError::Decode { .. } => Error::Decode,
            _ => Error::Other,
        }
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

/// Opens the file in `INPUT[..len]` and runs `f` on it.
///
/// The file is copied to the stack first: ngi-core borrows plain bytes, and the host may
/// change `INPUT` only between calls, never during one.
fn with_library<R>(len: u32, f: impl FnOnce(&Library<'_>) -> Result<R, Error>) -> Result<R, Error> {
    let source = usize::try_from(len)
        .ok()
        .and_then(|len| INPUT.get(..len))
        .ok_or(Error::InputTooLong)?;
    let mut bytes = [0u8; INPUT_CAPACITY];
    let bytes = bytes.get_mut(..source.len()).ok_or(Error::InputTooLong)?;
    for (byte, cell) in bytes.iter_mut().zip(source) {
        *byte = cell.load(Relaxed);
    }
    let mut storage = [Entry::default(); MAX_ENTRIES];
    let library = Library::open_in(bytes, &mut storage, OpenOptions::default())?;
    f(&library)
}

/// Entry `index` of `library`, with its index as a `usize`.
fn entry<'l>(library: &'l Library<'_>, index: u32) -> Result<(usize, &'l Entry), Error> {
    let index = usize::try_from(index).map_err(|_| Error::NoSuchEntry)?;
    let entry = library.entry(index).ok_or(Error::NoSuchEntry)?;
    Ok((index, entry))
}

/// Copies `bytes` to the start of `OUTPUT` and returns their length.
fn put_output(bytes: &[u8]) -> Result<usize, Error> {
    let target = OUTPUT.get(..bytes.len()).ok_or(Error::OutputTooSmall)?;
    for (cell, &byte) in target.iter().zip(bytes) {
        cell.store(byte, Relaxed);
    }
    Ok(bytes.len())
}

fn entry_count(len: u32) -> i32 {
    result_i32(with_library(len, |library| Ok(library.len())))
}

fn entry_method(len: u32, index: u32) -> i32 {
    result_i32(with_library(len, |library| {
        let (_, entry) = entry(library, index)?;
        let method = entry.method().map_err(|_| Error::UnsupportedMethod)?;
        Ok(usize::from(method.bits()))
    }))
}

fn entry_name(len: u32, index: u32) -> i32 {
    result_i32(with_library(len, |library| {
        put_output(entry(library, index)?.1.name())
    }))
}

fn decode_entry(len: u32, index: u32) -> i64 {
    let result = with_library(len, |library| {
        let (index, entry) = entry(library, index)?;
        let size = usize::try_from(entry.unpacked_size)
            .ok()
            .filter(|&size| size <= OUTPUT_CAPACITY)
            .ok_or(Error::OutputTooSmall)?;
        let mut out = [0u8; OUTPUT_CAPACITY];
        let out = out.get_mut(..size).ok_or(Error::OutputTooSmall)?;
        library.unpack_into(index, out)?;
        put_output(out)
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
/// call, so no unsafe block can hide in them.
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

fn input_ptr() -> u32 {
    address(&INPUT)
}

fn input_capacity() -> u32 {
    INPUT_CAPACITY as u32
}

fn output_ptr() -> u32 {
    address(&OUTPUT)
}

fn output_capacity() -> u32 {
    OUTPUT_CAPACITY as u32
}

export! {
    input_ptr() -> u32;
    input_capacity() -> u32;
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
