//! Packing (feature `alloc`): the encoder of every method, chosen by [`Method`], the
//! counterpart of [`Unpacker`](super::Unpacker) and [`unpack_into`](super::unpack_into).

use super::xor::XorStream;
use super::{Method, lzhuf, lzss};
use alloc::collections::TryReserveError;
use alloc::vec::Vec;
use core::fmt;

/// The Deflate level [`PackOptions::default`] has.
///
/// 9, miniz_oxide's (and zlib's) "best compression": a library is packed once and read
/// many times, and inflating costs the same whatever level made the stream, so the
/// slower search is paid once, offline, for the smallest files. The gain over 6 (zlib's
/// default) is small: with miniz_oxide 0.8.9, 0.2 to 0.4 % on 300 KB of licence text and
/// 1.2 MB of machine code, for 1.3 to 1.7 times the packing time (still under 0.15 s a
/// megabyte in a release build). 10 gave no measurable gain over 9.
pub const DEFAULT_DEFLATE_LEVEL: u8 = 9;

/// The highest Deflate level miniz_oxide has; higher levels are taken as this one.
pub const MAX_DEFLATE_LEVEL: u8 = 10;

/// How [`pack`] compresses.
///
/// ```
/// use ngi_core::codec::PackOptions;
///
/// let fast = PackOptions::default().with_deflate_level(1);
/// assert_eq!(fast.deflate_level, 1);
/// assert_eq!(PackOptions::default().with_deflate_level(200).deflate_level, 10);
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackOptions {
    /// The level of [`Method::Deflate`] streams, as
    /// `miniz_oxide::deflate::compress_to_vec` takes it: 0 writes stored blocks only, 1
    /// is the fastest, 6 zlib's default, 9 the default here ([`DEFAULT_DEFLATE_LEVEL`]),
    /// 10 the slowest search; above [`MAX_DEFLATE_LEVEL`] is taken as 10. Every level gives
    /// a stream any RFC 1951 inflater reads. Without the `deflate` feature it is unused.
    pub deflate_level: u8,
}

impl PackOptions {
    /// The same options with `deflate_level` set to `level` (capped at
    /// [`MAX_DEFLATE_LEVEL`]).
    pub const fn with_deflate_level(mut self, level: u8) -> Self {
        self.deflate_level = if level > MAX_DEFLATE_LEVEL {
            MAX_DEFLATE_LEVEL
        } else {
            level
        };
        self
    }
}

impl Default for PackOptions {
    fn default() -> Self {
        PackOptions {
            deflate_level: DEFAULT_DEFLATE_LEVEL,
        }
    }
}

/// Why [`pack`] could not pack.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackError {
    /// The method is defined by the format but this build cannot pack it:
    /// [`Method::Deflate`] without the `deflate` feature.
    MethodNotImplemented {
        /// The method asked for.
        method: Method,
    },
    /// The packed stream could not grow: there is less memory than it needs. Packing
    /// reserves its output without aborting, so a caller can refuse the entry instead of
    /// ending the process.
    OutOfMemory {
        /// The method asked for.
        method: Method,
    },
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::MethodNotImplemented { method } => write!(
                f,
                "packing method {method} ({:#05x}) is not in this build (Deflate needs the `deflate` feature)",
                method.bits()
            ),
            PackError::OutOfMemory { method } => write!(
                f,
                "packing with method {method} ({:#05x}) needs more memory than there is",
                method.bits()
            ),
        }
    }
}

impl core::error::Error for PackError {}

/// Packs `data` with `method`: the stream an RsLi entry of that method holds, which
/// [`unpack_into`](super::unpack_into) (or an [`Unpacker`](super::Unpacker) of
/// `data.len()` bytes) turns back into `data`.
///
/// Stored and XOR keep the data as is; LZSS and LZHUF go through the encoders that match
/// `LZSS.C` and `LZHUF.C` byte for byte ([`lzss::encode`], [`lzhuf::encode`]); Deflate
/// (feature `deflate`) is a raw RFC 1951 stream from miniz_oxide at
/// `options.deflate_level` (no zlib or gzip wrapper). The XOR methods (0x20, 0x60, 0xA0)
/// then encrypt the stream with the keystream of `key`, the entry's data key; the others
/// ignore it. Key 0's keystream is all zeros, so with key 0 the XOR methods give the
/// stream before encryption (a writer that learns the key later encrypts it then).
///
/// ```
/// use ngi_core::codec::{self, PackOptions};
/// use ngi_core::Method;
///
/// let data = b"to pack, to pack, to pack again";
/// let packed = codec::pack(Method::XorLzhuf, 0x1234, data, &PackOptions::default()).unwrap();
/// assert!(packed.len() < data.len());
/// let mut out = [0u8; 31];
/// assert_eq!(codec::unpack_into(Method::XorLzhuf, 0x1234, &packed, &mut out), Ok(packed.len()));
/// assert_eq!(&out, data);
/// ```
///
/// LZSS and LZHUF take time the data chooses, up to about a hundred times that of
/// ordinary data for crafted input (see [`lzss::encode`]'s "Time").
///
/// # Errors
///
/// * [`PackError::MethodNotImplemented`] for [`Method::Deflate`] without the `deflate`
///   feature.
/// * [`PackError::OutOfMemory`] when the packed stream cannot be allocated: its memory is
///   reserved without aborting the process (as a `Vec` that cannot grow would), so a
///   large entry where memory is short is an error of that entry (where the allocator
///   refuses it: a system that overcommits memory may grant it and end the process
///   later, when the pages are filled).
pub fn pack(
    method: Method,
    key: u16,
    data: &[u8],
    options: &PackOptions,
) -> Result<Vec<u8>, PackError> {
    let packed = match method {
        Method::Stored | Method::Xor => copied(data),
        Method::Lzss | Method::XorLzss => lzss::try_encode(data),
        Method::Lzhuf | Method::XorLzhuf => lzhuf::try_encode(data),
        #[cfg(feature = "deflate")]
        Method::Deflate => deflate(data, options.deflate_level.min(MAX_DEFLATE_LEVEL)),
        #[cfg(not(feature = "deflate"))]
        Method::Deflate => {
            let _ = options;
            return Err(PackError::MethodNotImplemented { method });
        }
    };
    let mut packed = packed.map_err(|_| PackError::OutOfMemory { method })?;
    // Key 0 is the identity: no pass over the stream for it.
    if method.uses_xor() && key != 0 {
        XorStream::new(key).apply(&mut packed);
    }
    Ok(packed)
}

/// `data` in a `Vec` reserved without aborting.
fn copied(data: &[u8]) -> Result<Vec<u8>, TryReserveError> {
    let mut out = Vec::new();
    out.try_reserve_exact(data.len())?;
    out.extend_from_slice(data);
    Ok(out)
}

/// A raw Deflate stream of `data` from miniz_oxide at `level`: the stream
/// `miniz_oxide::deflate::compress_to_vec` gives (the compressor's output does not depend
/// on the room it is given), its room reserved without aborting.
#[cfg(feature = "deflate")]
fn deflate(data: &[u8], level: u8) -> Result<Vec<u8>, TryReserveError> {
    use miniz_oxide::deflate::core::{
        CompressorOxide, TDEFLFlush, TDEFLStatus, compress, create_comp_flags_from_zip_params,
    };
    // Level, then window bits 0 (a raw stream, no zlib wrapper), then the default strategy.
    let flags = create_comp_flags_from_zip_params(i32::from(level), 0, 0);
    let mut compressor = CompressorOxide::new(flags);
    let mut out: Vec<u8> = Vec::new();
    // At most 1 MiB first, then as a `Vec` grows: a stream that fits where memory is
    // short is not refused for a guess at its size (`compress_to_vec` takes half the
    // input at once).
    out.try_reserve((data.len() / 2).clamp(1024, 1 << 20))?;
    let mut input = data;
    let mut stuck = false;
    loop {
        let at = out.len();
        if at == out.capacity() || stuck {
            // Doubles the room: a call that did nothing gets more, until memory runs out.
            out.try_reserve(out.capacity().max(1024))?;
        }
        // Within the capacity: no allocation.
        out.resize(out.capacity(), 0);
        let room = out.get_mut(at..).unwrap_or_default();
        let (status, consumed, produced) =
            compress(&mut compressor, input, room, TDEFLFlush::Finish);
        out.truncate(at + produced);
        input = input.get(consumed..).unwrap_or_default();
        stuck = consumed == 0 && produced == 0;
        match status {
            // Out of room (`Okay`) or not yet flushed: more room, and on.
            TDEFLStatus::Okay | TDEFLStatus::PutBufFailed => {}
            // `BadParam` comes only after `Done` or a failed output callback, neither of
            // which happens here.
            TDEFLStatus::Done | TDEFLStatus::BadParam => return Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::unpack_into;
    use alloc::vec;

    #[test]
    fn every_method_round_trips_and_xor_is_keyed() {
        let data = b"Parkan: Iron Strategy, Parkan: Iron Strategy, Parkan!".repeat(9);
        let options = PackOptions::default();
        for method in Method::ALL {
            let packed = match pack(method, 0xBEEF, &data, &options) {
                Ok(p) => p,
                Err(e) => {
                    assert_eq!(e, PackError::MethodNotImplemented { method });
                    assert!(method == Method::Deflate && !cfg!(feature = "deflate"));
                    continue;
                }
            };
            let mut out = vec![0u8; data.len()];
            assert_eq!(
                unpack_into(method, 0xBEEF, &packed, &mut out),
                Ok(packed.len()),
                "{method}"
            );
            assert_eq!(out, data, "{method}");
            let plain = pack(method, 0, &data, &options).unwrap();
            assert_eq!(plain == packed, !method.uses_xor(), "{method}");
        }
    }

    /// The streaming compressor with room reserved a piece at a time gives the stream
    /// `compress_to_vec` gives, byte for byte, at every level: libraries packed before
    /// pack the same, and `ngi unpack` still finds their streams reproduced.
    #[cfg(feature = "deflate")]
    #[test]
    fn deflate_gives_what_compress_to_vec_gives() {
        let text = b"Parkan: Iron Strategy. ".repeat(50_000);
        // A generator's bytes: little to match, so the stream outgrows half the input.
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let noise: Vec<u8> = (0..300_000)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 56) as u8
            })
            .collect();
        for data in [&b""[..], b"a", &text, &noise] {
            for level in 0..=MAX_DEFLATE_LEVEL {
                let want = miniz_oxide::deflate::compress_to_vec(data, level);
                let got = deflate(data, level).unwrap();
                assert!(got == want, "{} bytes at level {level}", data.len());
            }
        }
    }
}
