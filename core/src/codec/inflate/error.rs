//! What can be wrong with a Deflate stream: [`InflateError`], and [`CodeTable`] for the
//! faults that are in one of a block's codes.

use super::huffman::{BAD, kind, value};
use crate::count::bytes;
use core::fmt;

/// Which of a block's Huffman codes a fault is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodeTable {
    /// The code-length code of a dynamic block header.
    CodeLengths,
    /// The literal/length code.
    Literals,
    /// The distance code.
    Distances,
}

impl fmt::Display for CodeTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            CodeTable::CodeLengths => "code-length",
            CodeTable::Literals => "literal/length",
            CodeTable::Distances => "distance",
        })
    }
}

/// What is wrong with a Deflate stream (RFC 1951), besides truncation.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InflateError {
    /// A block of type 3.
    ReservedBlockType,
    /// A stored block whose `LEN` is not the complement of its `NLEN`.
    StoredLengthMismatch {
        /// `LEN`.
        len: u16,
        /// `NLEN`.
        nlen: u16,
    },
    /// `HLIT + 257` above 286.
    TooManyLengthCodes {
        /// `HLIT + 257`.
        hlit: u16,
    },
    /// `HDIST + 1` above 30.
    TooManyDistanceCodes {
        /// `HDIST + 1`.
        hdist: u16,
    },
    /// More codes of some lengths than a prefix code can hold.
    OversubscribedCode {
        /// Which code.
        table: CodeTable,
    },
    /// Code lengths that leave bit patterns unassigned (beyond zlib's single-code exception).
    IncompleteCode {
        /// Which code.
        table: CodeTable,
    },
    /// Code-length symbol 16 (repeat the previous length) as the first length.
    RepeatWithoutPrevious,
    /// A code-length repeat running past `HLIT + HDIST` lengths.
    RepeatPastEnd,
    /// Literal/length symbol 286 or 287 (fixed blocks only).
    InvalidLengthSymbol {
        /// The symbol.
        symbol: u16,
    },
    /// Distance symbol 30 or 31 (fixed blocks only).
    InvalidDistanceSymbol {
        /// The symbol.
        symbol: u16,
    },
    /// The bit pattern no code of an incomplete (single-code) code is assigned to, or any
    /// distance when the block has no distance codes.
    UnassignedCode {
        /// Which code.
        table: CodeTable,
    },
    /// A match reaching back before the start of the output.
    DistanceTooFar {
        /// The match distance.
        distance: u16,
        /// Bytes produced before the match (fewer than `distance`, so under 32 KiB).
        available: u16,
    },
    /// A dynamic block whose literal/length code has no code for end-of-block (256).
    MissingEndOfBlock,
    /// The stream would produce more than `unpacked_size` bytes.
    TooMuchOutput,
    /// The final block ended before `unpacked_size` bytes were produced (a streaming
    /// decoder's [`produced_total`](crate::Decoder::produced_total) says how many were; a
    /// one-shot call does not).
    EndBeforeSize,
}

impl fmt::Display for InflateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            InflateError::ReservedBlockType => f.write_str("reserved block type 3"),
            InflateError::StoredLengthMismatch { len, nlen } => {
                write!(
                    f,
                    "stored block LEN {len:#06x} is not the complement of NLEN {nlen:#06x}"
                )
            }
            InflateError::TooManyLengthCodes { hlit } => {
                write!(f, "{hlit} literal/length codes (at most 286)")
            }
            InflateError::TooManyDistanceCodes { hdist } => {
                write!(f, "{hdist} distance codes (at most 30)")
            }
            InflateError::OversubscribedCode { table } => {
                write!(f, "over-subscribed {table} code")
            }
            InflateError::IncompleteCode { table } => write!(f, "incomplete {table} code"),
            InflateError::RepeatWithoutPrevious => {
                f.write_str("code-length repeat with no previous length")
            }
            InflateError::RepeatPastEnd => f.write_str("code-length repeat past the last code"),
            InflateError::InvalidLengthSymbol { symbol } => {
                write!(f, "invalid literal/length symbol {symbol}")
            }
            InflateError::InvalidDistanceSymbol { symbol } => {
                write!(f, "invalid distance symbol {symbol}")
            }
            InflateError::UnassignedCode { table } => {
                write!(f, "unassigned {table} code")
            }
            InflateError::DistanceTooFar {
                distance,
                available,
            } => write!(
                f,
                "match distance {distance} reaches before the output ({} produced)",
                bytes(u64::from(available))
            ),
            InflateError::MissingEndOfBlock => {
                f.write_str("literal/length code without end-of-block")
            }
            InflateError::TooMuchOutput => {
                f.write_str("stream produces more than the declared size")
            }
            InflateError::EndBeforeSize => f.write_str("final block ends before the declared size"),
        }
    }
}

impl core::error::Error for InflateError {}

/// The fault a literal/length entry that is neither a literal, a length nor end-of-block
/// stands for.
pub(super) fn bad_lit(e: u32) -> InflateError {
    if kind(e) == BAD {
        InflateError::InvalidLengthSymbol {
            symbol: value(e) as u16,
        }
    } else {
        InflateError::UnassignedCode {
            table: CodeTable::Literals,
        }
    }
}

/// The fault a distance entry that is no distance stands for.
pub(super) fn bad_dist(e: u32) -> InflateError {
    if kind(e) == BAD {
        InflateError::InvalidDistanceSymbol {
            symbol: value(e) as u16,
        }
    } else {
        InflateError::UnassignedCode {
            table: CodeTable::Distances,
        }
    }
}
