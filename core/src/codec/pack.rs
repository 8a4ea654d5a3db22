//! Packing (feature `alloc`): the encoder of every method, chosen by [`Method`], the
//! counterpart of [`Unpacker`](super::Unpacker) and [`unpack_into`](super::unpack_into).

use super::xor::XorStream;
use super::{Method, lzhuf, lzss};
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
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::MethodNotImplemented { method } => write!(
                f,
                "packing method {method} ({:#05x}) is not in this build (Deflate needs the `deflate` feature)",
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
///   feature. Every other method always packs.
pub fn pack(
    method: Method,
    key: u16,
    data: &[u8],
    options: &PackOptions,
) -> Result<Vec<u8>, PackError> {
    let mut packed = match method {
        Method::Stored | Method::Xor => data.to_vec(),
        Method::Lzss | Method::XorLzss => lzss::encode(data),
        Method::Lzhuf | Method::XorLzhuf => lzhuf::encode(data),
        #[cfg(feature = "deflate")]
        Method::Deflate => {
            let level = options.deflate_level.min(MAX_DEFLATE_LEVEL);
            miniz_oxide::deflate::compress_to_vec(data, level)
        }
        #[cfg(not(feature = "deflate"))]
        Method::Deflate => {
            let _ = options;
            return Err(PackError::MethodNotImplemented { method });
        }
    };
    // Key 0 is the identity: no pass over the stream for it.
    if method.uses_xor() && key != 0 {
        XorStream::new(key).apply(&mut packed);
    }
    Ok(packed)
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
}
