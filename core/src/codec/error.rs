//! Why a codec failed: [`DecodeError`], and [`UnsupportedMethod`] for flags that name no
//! method.
//!
//! They live here, beside the codecs that raise them, so that `codec/` depends on nothing
//! above it; [`crate::error`] re-exports both, where users of the whole crate look for
//! errors.

use crate::count::{bytes, decoded_bytes};
use core::fmt;

/// Why a codec (a decoder of one packed stream) failed.
///
/// A decoder that returned an error keeps returning the same error.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeError {
    /// The caller said the input had ended before the stream did: it had produced only
    /// `produced` of the `expected` bytes or, for Deflate, all of them (`produced ==
    /// expected`) with its last block not ended. SPEC 2.7 leaves that last case open;
    /// ngi takes a Deflate stream as whole only when its final block ends, as zlib does,
    /// since the bits that are missing could have held more bytes (an error as well).
    Truncated {
        /// Bytes produced before the input ran out.
        produced: u64,
        /// Bytes the entry declares (`unpacked_size`).
        expected: u64,
    },
    /// A Deflate stream (method 0x100) is corrupt.
    Inflate {
        /// What is wrong.
        error: super::inflate::InflateError,
        /// The offset in the packed stream of the byte holding the last bit read when the
        /// fault was detected.
        offset: u64,
    },
    /// A caller's mistake, not the stream's: the bytes given before the output room of an
    /// in-place decoder ([`InPlace`](super::InPlace): [`inflate::InPlaceDecoder`],
    /// [`lzhuf::InPlaceDecoder`], [`InPlaceUnpacker`](super::InPlaceUnpacker)) cannot be
    /// the last ones it produced: there are more of them than it has produced, or fewer
    /// than a window (or than all it has produced, when that is less), or the room would
    /// start past the end of the buffer. The decoder does not keep this error: a call
    /// with the right history goes on.
    ///
    /// [`inflate::InPlaceDecoder`]: super::inflate::InPlaceDecoder
    /// [`lzhuf::InPlaceDecoder`]: super::lzhuf::InPlaceDecoder
    HistoryMismatch {
        /// Bytes before the room, as given.
        given: u64,
        /// The fewest that hold the window (at most 32 768; a `u16` keeps this error, which
        /// a decoder stores, as small as the others).
        needed: u16,
        /// The bytes the decoder has produced.
        produced: u64,
    },
}

impl DecodeError {
    /// Where in the packed stream the fault lies, given where the input the codec was
    /// given ends: the codec's own offset for a corrupt stream, that end for a truncated
    /// one (it ran out there).
    pub fn offset_in_stream(&self, input_end: u64) -> u64 {
        match *self {
            DecodeError::Inflate { offset, .. } => offset,
            DecodeError::Truncated { .. } | DecodeError::HistoryMismatch { .. } => input_end,
        }
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A Deflate stream may produce every byte and still end before its last block
            // does; "after N of N" would read as output gone missing.
            DecodeError::Truncated { produced, expected } if produced == expected => write!(
                f,
                "packed stream ends before the end of its last block, after all {}",
                decoded_bytes(*expected)
            ),
            DecodeError::Truncated { produced, expected } => write!(
                f,
                "packed stream ends after {produced} of {}",
                decoded_bytes(*expected)
            ),
            DecodeError::Inflate { error, offset } => {
                write!(f, "corrupt Deflate stream at packed byte {offset}: {error}")
            }
            DecodeError::HistoryMismatch {
                given: _,
                needed: _,
                produced: 0,
            } => write!(
                f,
                "bytes given before the output room, but nothing is decoded yet: the \
                 first call's room starts at 0"
            ),
            DecodeError::HistoryMismatch {
                given, produced, ..
            } if given > produced => write!(
                f,
                "{} given before the output room, more than the {produced} decoded so far",
                bytes(*given)
            ),
            DecodeError::HistoryMismatch { given, needed, .. } if *given < u64::from(*needed) => {
                write!(
                    f,
                    "{} given before the output room, fewer than the last {needed} decoded, \
                     which later matches may reach",
                    bytes(*given)
                )
            }
            DecodeError::HistoryMismatch { given, .. } => write!(
                f,
                "the output room starts at {given}, past the end of the buffer"
            ),
        }
    }
}

impl core::error::Error for DecodeError {}

/// The `flags` of an RsLi entry name no packing method the format defines (SPEC 2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnsupportedMethod {
    /// The entry's whole `flags` field.
    pub flags: u16,
}

impl fmt::Display for UnsupportedMethod {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unsupported packing method {:#05x} (flags {:#06x})",
            self.flags & super::METHOD_MASK,
            self.flags
        )
    }
}

impl core::error::Error for UnsupportedMethod {}

#[cfg(feature = "std")]
impl From<DecodeError> for std::io::Error {
    fn from(e: DecodeError) -> Self {
        let kind = match e {
            DecodeError::Truncated { .. } => std::io::ErrorKind::UnexpectedEof,
            DecodeError::Inflate { .. } => std::io::ErrorKind::InvalidData,
            DecodeError::HistoryMismatch { .. } => std::io::ErrorKind::InvalidInput,
        };
        std::io::Error::new(kind, e)
    }
}
