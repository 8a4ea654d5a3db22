//! Deflate (method 0x100): raw RFC 1951 streams (SPEC 3.3), decoded by a resumable state
//! machine with a table-driven fast path.
//!
//! # Decoding
//! [`InflateDecoder`] implements the [`Decoder`] contract: it resumes at any byte boundary
//! of input and output (inside a block header, a code-length list, a symbol, a match, a
//! stored block), never allocates and never writes past `unpacked_size`. Its state is a
//! plain struct of **42 376 bytes** on 64-bit targets (asserted by a test), under the 48 KiB
//! budget: the 32 KiB window (32 768), the literal/length table (1 536 `u32`: 6 144), the
//! distance table, which also holds the code-length table while a dynamic header is read
//! (768 `u32`: 3 072), the code lengths of a dynamic header (320), and 72 bytes of bit
//! buffer, counters, block state and the kept error.
//!
//! [`decode_into`] is the one-shot form: the whole stream into an exact-size buffer, with
//! no window: the output is the window.
//!
//! Both forms run the same code: a careful state machine that consumes input a byte at a
//! time, only when the bits at hand do not suffice, and a fast loop taken whenever at
//! least [`FAST_IN`] bytes of input and [`FAST_OUT`] bytes of output room are at hand. The
//! fast loop keeps a 64-bit bit buffer refilled branch-free with `u64::from_le_bytes`,
//! decodes through 10-bit (literal/length) and 8-bit (distance) primary tables with
//! second-level tables (up to three literals per refill), and copies matches in whole
//! 16-byte words (distances of 16 and more, also from the window when the source does not
//! wrap) or 8-byte words (distances 8-15), or with `copy_within` repeating the pattern for
//! shorter ones, with no per-byte checks; on leaving it gives back the whole bytes it read
//! ahead. The word copies may write up to 15 bytes of scratch past a match, always inside
//! the output room of the call (so never past `unpacked_size`, nor past the caller's
//! slice); later symbols overwrite it, but when a call stops for want of input, bytes of
//! the output slice past the reported `produced` may hold scratch (they are overwritten
//! when decoding resumes there). The streaming form decodes straight into the caller's output; matches
//! reaching back before the current call read the window, which is refreshed once per call.
//!
//! # Sizes and errors
//! The output is exactly `unpacked_size` bytes (SPEC 2.7). A symbol that would produce
//! more is [`InflateError::TooMuchOutput`] (detected before it is written); a final block
//! ending earlier is [`InflateError::EndBeforeSize`]. The decoder reports
//! [`Status::Done`] only after the final block's end: bytes after it are not consumed.
//! Input ending before that is [`DecodeError::Truncated`]. Every other fault is a
//! [`DecodeError::Inflate`] with an [`InflateError`] and the offset in the packed stream of
//! the byte holding the last bit read when the fault was found.
//!
//! Code completeness follows zlib: over-subscribed codes are errors, and so are incomplete
//! ones, except a literal/length or distance code with a single one-bit code (or, for
//! distances, none at all); decoding the unassigned pattern of such a code is
//! [`InflateError::UnassignedCode`]. A literal/length code without a code for 256 is
//! [`InflateError::MissingEndOfBlock`].
//!
//! ```
//! use ngi_core::codec::inflate::{self, InflateDecoder};
//! use ngi_core::{Decoder, Status};
//!
//! // zlib's fixed-Huffman block for "aaaaaa": 'a', 'a', a match of 4 at distance 1,
//! // then one byte that is not part of the stream.
//! let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00, 0xFF];
//! let mut out = [0u8; 6];
//! assert_eq!(inflate::decode_into(&packed, &mut out), Ok(5));
//! assert_eq!(&out, b"aaaaaa");
//!
//! let mut d = InflateDecoder::new(6);
//! let mut streamed = [0u8; 6];
//! let p = d.decode(&packed, &mut streamed, true).unwrap();
//! assert_eq!((p.consumed, p.produced, p.status), (5, 6, Status::Done));
//! assert_eq!(streamed, out);
//! ```

mod huffman;

use super::{Decoder, Progress, Status};
use crate::error::DecodeError;
use core::fmt;
use huffman::{
    BAD, CL_ROOT, DIST_ROOT, DIST_SIZE, EOB, HOLE, LEN, LINK, LIT, LIT_ROOT, LIT_SIZE, build,
    lookup,
};

/// Size of the window: the furthest a match may reach back.
pub const WINDOW_SIZE: usize = 32768;
const WMASK: usize = WINDOW_SIZE - 1;
/// Input bytes the fast loop needs at hand.
pub const FAST_IN: usize = 16;
/// Output room the fast loop needs at hand: a longest match (258) and the scratch of its
/// last 16-byte word (15), rounded up.
pub const FAST_OUT: usize = 280;

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
    /// The final block ended before `unpacked_size` bytes were produced (the decoder's
    /// `produced_total` says how many were).
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
                "match distance {distance} reaches before the output ({available} bytes produced)"
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

const CL_ORDER: [u8; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Where the decoder stands between two bytes of input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before a block header.
    Header,
    /// Before a stored block's `LEN`/`NLEN` (the header bits are read).
    StoredLen,
    /// Inside a stored block: `left` bytes to copy.
    Stored { left: u16 },
    /// Before `HLIT`, `HDIST`, `HCLEN`.
    DynHeader,
    /// Reading the code-length code's lengths: `i` of them read.
    CodeLens { i: u8 },
    /// Reading the literal/length and distance code lengths: `i` of them read.
    Lens { i: u16 },
    /// Inside a Huffman block, before a symbol.
    Symbols,
    /// Copying a match: `left` bytes from `dist` back.
    Copy { left: u16, dist: u16 },
    /// After the final block.
    Done,
}

/// The whole decoding state except the window.
#[derive(Debug, Clone)]
struct Inflater {
    lit: [u32; LIT_SIZE],
    dist: [u32; DIST_SIZE],
    lens: [u8; 320],
    bits: u64,
    nbits: u32,
    phase: Phase,
    last: bool,
    hlit: u16,
    hdist: u16,
    hclen: u8,
    expected: u64,
    produced: u64,
    /// Packed bytes consumed by earlier calls.
    consumed: u64,
    failed: Option<DecodeError>,
}

/// Decoder of raw Deflate (method 0x100).
///
/// State: 42 376 bytes on 64-bit targets, all inline (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct InflateDecoder {
    core: Inflater,
    window: [u8; WINDOW_SIZE],
}

impl InflateDecoder {
    /// A decoder that must produce exactly `unpacked_size` bytes.
    pub fn new(unpacked_size: u64) -> InflateDecoder {
        InflateDecoder {
            core: Inflater::new(unpacked_size),
            window: [0; WINDOW_SIZE],
        }
    }
}

impl Decoder for InflateDecoder {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let core = &mut self.core;
        if let Some(e) = core.failed {
            return Err(e);
        }
        let left = usize::try_from(core.expected - core.produced).unwrap_or(usize::MAX);
        let room = left.min(output.len());
        let output = &mut output[..room];
        let before = core.produced;
        let r = core.run(input, output, Some(&self.window));
        // Refresh the window with the last bytes produced, at their positions.
        let n = (core.produced - before) as usize;
        let keep = n.min(WINDOW_SIZE);
        let tail = &output[n - keep..n];
        let start = ((before + (n - keep) as u64) as usize) & WMASK;
        let first = keep.min(WINDOW_SIZE - start);
        self.window[start..start + first].copy_from_slice(&tail[..first]);
        self.window[..keep - first].copy_from_slice(&tail[first..]);
        core.finish(r, n, input_ended)
    }

    fn expected_len(&self) -> u64 {
        self.core.expected
    }

    fn produced_total(&self) -> u64 {
        self.core.produced
    }
}

/// Decodes a whole raw Deflate stream into `out`, whose length is the entry's
/// `unpacked_size`, and returns how many bytes of `packed` the stream used (through the
/// byte holding the final block's last bit; the rest is not part of it).
///
/// No window is kept: the output is the window. Fails with [`DecodeError::Truncated`] when
/// `packed` ends early, and with [`DecodeError::Inflate`] on a corrupt stream.
pub fn decode_into(packed: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    let mut core = Inflater::new(out.len() as u64);
    let r = core.run(packed, out, None);
    let n = core.produced as usize;
    let p = core.finish(r, n, true)?;
    match p.status {
        Status::Done => Ok(p.consumed),
        _ => Err(DecodeError::Truncated {
            produced: core.produced,
            expected: core.expected,
        }),
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy)]
struct Run {
    consumed: usize,
    /// Stopped for want of output room (not input).
    out_full: bool,
    error: Option<InflateError>,
}

impl Inflater {
    fn new(expected: u64) -> Inflater {
        Inflater {
            lit: [0; LIT_SIZE],
            dist: [0; DIST_SIZE],
            lens: [0; 320],
            bits: 0,
            nbits: 0,
            phase: Phase::Header,
            last: false,
            hlit: 0,
            hdist: 0,
            hclen: 0,
            expected,
            produced: 0,
            consumed: 0,
            failed: None,
        }
    }

    /// Turns a run into the call's outcome; `n` bytes were produced (already counted).
    fn finish(&mut self, r: Run, n: usize, input_ended: bool) -> Result<Progress, DecodeError> {
        let offset = self.consumed + r.consumed as u64 - (self.nbits / 8) as u64;
        self.consumed += r.consumed as u64;
        if let Some(error) = r.error {
            let e = DecodeError::Inflate { error, offset };
            self.failed = Some(e);
            return Err(e);
        }
        let status = if self.phase == Phase::Done {
            Status::Done
        } else if r.out_full {
            Status::OutputFull
        } else if input_ended {
            let e = DecodeError::Truncated {
                produced: self.produced,
                expected: self.expected,
            };
            self.failed = Some(e);
            return Err(e);
        } else {
            Status::NeedInput
        };
        Ok(Progress {
            consumed: r.consumed,
            produced: n,
            status,
        })
    }

    /// Decodes from `input` into `out` (at most the bytes still expected), with `window`
    /// holding the bytes before `out` (`None`: nothing precedes it). Counts what it
    /// produces in `self.produced`.
    fn run(&mut self, input: &[u8], out: &mut [u8], window: Option<&[u8; WINDOW_SIZE]>) -> Run {
        let mut ip = 0usize;
        let mut op = 0usize;
        let base = self.produced;
        let r = self.step(input, &mut ip, out, &mut op, window, base);
        self.produced = base + op as u64;
        match r {
            Ok(out_full) => Run {
                consumed: ip,
                out_full,
                error: None,
            },
            Err(e) => Run {
                consumed: ip,
                out_full: false,
                error: Some(e),
            },
        }
    }

    /// Takes one more input byte into the bit buffer; `false` when there is none.
    #[inline(always)]
    fn pull(&mut self, input: &[u8], ip: &mut usize) -> bool {
        match input.get(*ip) {
            Some(&b) => {
                self.bits |= (b as u64) << self.nbits;
                self.nbits += 8;
                *ip += 1;
                true
            }
            None => false,
        }
    }

    /// Makes sure `n` (at most 56) bits are in the buffer; `false` when input ran out.
    #[inline(always)]
    fn need(&mut self, n: u32, input: &[u8], ip: &mut usize) -> bool {
        while self.nbits < n {
            if !self.pull(input, ip) {
                return false;
            }
        }
        true
    }

    #[inline(always)]
    fn drop_bits(&mut self, n: u32) {
        self.bits >>= n;
        self.nbits -= n;
    }

    /// Peeks a code of `table` with the bits at hand, pulling bytes until its length is
    /// covered: `None` when input ran out first.
    #[inline(always)]
    fn peek_code(
        &mut self,
        table: Tab,
        root: u32,
        skip: u32,
        input: &[u8],
        ip: &mut usize,
    ) -> Option<u32> {
        loop {
            let t: &[u32] = match table {
                Tab::Lit => &self.lit,
                Tab::Dist => &self.dist,
            };
            let e = lookup(t, root, self.bits >> skip);
            if (e & 0xFF) + skip <= self.nbits {
                return Some(e);
            }
            if !self.pull(input, ip) {
                return None;
            }
        }
    }

    /// The careful state machine; returns `Ok(true)` when it stopped for want of output
    /// room, `Ok(false)` for want of input (or when done).
    fn step(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        window: Option<&[u8; WINDOW_SIZE]>,
        base: u64,
    ) -> Result<bool, InflateError> {
        loop {
            match self.phase {
                Phase::Done => return Ok(false),
                Phase::Header => {
                    if !self.need(3, input, ip) {
                        return Ok(false);
                    }
                    self.last = self.bits & 1 != 0;
                    let kind = (self.bits >> 1) & 3;
                    self.drop_bits(3);
                    match kind {
                        0 => {
                            let align = self.nbits % 8;
                            self.drop_bits(align);
                            self.phase = Phase::StoredLen;
                        }
                        1 => {
                            let mut l = [0u8; 320];
                            l[..144].fill(8);
                            l[144..256].fill(9);
                            l[256..280].fill(7);
                            l[280..288].fill(8);
                            build(&l[..288], &mut self.lit, LIT_ROOT, CodeTable::Literals)?;
                            l[..32].fill(5);
                            build(&l[..32], &mut self.dist, DIST_ROOT, CodeTable::Distances)?;
                            self.phase = Phase::Symbols;
                        }
                        2 => self.phase = Phase::DynHeader,
                        _ => return Err(InflateError::ReservedBlockType),
                    }
                }
                Phase::StoredLen => {
                    if !self.need(32, input, ip) {
                        return Ok(false);
                    }
                    let len = self.bits as u16;
                    let nlen = (self.bits >> 16) as u16;
                    if len != !nlen {
                        return Err(InflateError::StoredLengthMismatch { len, nlen });
                    }
                    let produced = base + *op as u64;
                    if produced + len as u64 > self.expected {
                        return Err(InflateError::TooMuchOutput);
                    }
                    self.drop_bits(32);
                    self.phase = Phase::Stored { left: len };
                }
                Phase::Stored { mut left } => {
                    // Whole bytes still in the bit buffer come first.
                    while left > 0 && self.nbits >= 8 && *op < out.len() {
                        out[*op] = self.bits as u8;
                        *op += 1;
                        self.drop_bits(8);
                        left -= 1;
                    }
                    if self.nbits < 8 {
                        let n = (left as usize).min(input.len() - *ip).min(out.len() - *op);
                        out[*op..*op + n].copy_from_slice(&input[*ip..*ip + n]);
                        *op += n;
                        *ip += n;
                        left -= n as u16;
                    }
                    self.phase = Phase::Stored { left };
                    if left == 0 {
                        self.end_block(base + *op as u64)?;
                    } else if *op == out.len() {
                        return Ok(true);
                    } else {
                        return Ok(false);
                    }
                }
                Phase::DynHeader => {
                    if !self.need(14, input, ip) {
                        return Ok(false);
                    }
                    self.hlit = (self.bits & 31) as u16 + 257;
                    self.hdist = ((self.bits >> 5) & 31) as u16 + 1;
                    self.hclen = ((self.bits >> 10) & 15) as u8 + 4;
                    self.drop_bits(14);
                    if self.hlit > 286 {
                        return Err(InflateError::TooManyLengthCodes { hlit: self.hlit });
                    }
                    if self.hdist > 30 {
                        return Err(InflateError::TooManyDistanceCodes { hdist: self.hdist });
                    }
                    self.lens[..19].fill(0);
                    self.phase = Phase::CodeLens { i: 0 };
                }
                Phase::CodeLens { mut i } => {
                    while i < self.hclen {
                        if !self.need(3, input, ip) {
                            self.phase = Phase::CodeLens { i };
                            return Ok(false);
                        }
                        self.lens[CL_ORDER[i as usize] as usize] = (self.bits & 7) as u8;
                        self.drop_bits(3);
                        i += 1;
                    }
                    build(
                        &self.lens[..19],
                        &mut self.dist,
                        CL_ROOT,
                        CodeTable::CodeLengths,
                    )?;
                    self.phase = Phase::Lens { i: 0 };
                }
                Phase::Lens { mut i } => {
                    let total = self.hlit + self.hdist;
                    while i < total {
                        let Some(e) = self.peek_code(Tab::Dist, CL_ROOT, 0, input, ip) else {
                            self.phase = Phase::Lens { i };
                            return Ok(false);
                        };
                        let clen = e & 0xFF;
                        let sym = e >> 16;
                        if sym < 16 {
                            self.lens[i as usize] = sym as u8;
                            self.drop_bits(clen);
                            i += 1;
                            continue;
                        }
                        let (extra, add) = match sym {
                            16 => (2, 3),
                            17 => (3, 3),
                            _ => (7, 11),
                        };
                        if !self.need(clen + extra, input, ip) {
                            self.phase = Phase::Lens { i };
                            return Ok(false);
                        }
                        let count = ((self.bits >> clen) & ((1 << extra) - 1)) as u16 + add;
                        let value = if sym == 16 {
                            if i == 0 {
                                return Err(InflateError::RepeatWithoutPrevious);
                            }
                            self.lens[i as usize - 1]
                        } else {
                            0
                        };
                        if i + count > total {
                            return Err(InflateError::RepeatPastEnd);
                        }
                        self.drop_bits(clen + extra);
                        self.lens[i as usize..(i + count) as usize].fill(value);
                        i += count;
                    }
                    let hlit = self.hlit as usize;
                    if self.lens[256] == 0 {
                        return Err(InflateError::MissingEndOfBlock);
                    }
                    build(
                        &self.lens[..hlit],
                        &mut self.lit,
                        LIT_ROOT,
                        CodeTable::Literals,
                    )?;
                    build(
                        &self.lens[hlit..total as usize],
                        &mut self.dist,
                        DIST_ROOT,
                        CodeTable::Distances,
                    )?;
                    self.phase = Phase::Symbols;
                }
                Phase::Copy { left, dist } => {
                    let n = (left as usize).min(out.len() - *op);
                    copy_match(out, *op, window, base, dist as usize, n);
                    *op += n;
                    let left = left - n as u16;
                    if left == 0 {
                        self.phase = Phase::Symbols;
                    } else {
                        self.phase = Phase::Copy { left, dist };
                        return Ok(true);
                    }
                }
                Phase::Symbols => {
                    if input.len() - *ip >= FAST_IN {
                        self.fast(input, ip, out, op, window, base)?;
                        if self.phase != Phase::Symbols {
                            continue;
                        }
                    }
                    let Some(e) = self.peek_code(Tab::Lit, LIT_ROOT, 0, input, ip) else {
                        return Ok(false);
                    };
                    let len = e & 0xFF;
                    let tag = (e >> 8) & 0xFF;
                    let value = e >> 16;
                    let produced = base + *op as u64;
                    match tag {
                        LIT => {
                            if produced == self.expected {
                                return Err(InflateError::TooMuchOutput);
                            }
                            if *op == out.len() {
                                return Ok(true);
                            }
                            out[*op] = value as u8;
                            *op += 1;
                            self.drop_bits(len);
                        }
                        EOB => {
                            self.drop_bits(len);
                            self.end_block(produced)?;
                        }
                        t if t & 0xF0 == LEN => {
                            let lextra = t & 0xF;
                            if !self.need(len + lextra, input, ip) {
                                return Ok(false);
                            }
                            let mlen = value + ((self.bits >> len) & ((1 << lextra) - 1)) as u32;
                            let skip = len + lextra;
                            let Some(d) = self.peek_code(Tab::Dist, DIST_ROOT, skip, input, ip)
                            else {
                                return Ok(false);
                            };
                            let dlen = d & 0xFF;
                            let dtag = (d >> 8) & 0xFF;
                            if dtag & 0xF0 != LEN {
                                return Err(bad_dist(d));
                            }
                            let dextra = dtag & 0xF;
                            if !self.need(skip + dlen + dextra, input, ip) {
                                return Ok(false);
                            }
                            let dist = (d >> 16)
                                + ((self.bits >> (skip + dlen)) & ((1 << dextra) - 1)) as u32;
                            if dist as u64 > produced {
                                return Err(InflateError::DistanceTooFar {
                                    distance: dist as u16,
                                    available: produced as u16,
                                });
                            }
                            if produced + mlen as u64 > self.expected {
                                return Err(InflateError::TooMuchOutput);
                            }
                            self.drop_bits(skip + dlen + dextra);
                            self.phase = Phase::Copy {
                                left: mlen as u16,
                                dist: dist as u16,
                            };
                        }
                        _ => return Err(bad_lit(e)),
                    }
                }
            }
        }
    }

    /// After an end-of-block code (or a stored block's last byte).
    fn end_block(&mut self, produced: u64) -> Result<(), InflateError> {
        if !self.last {
            self.phase = Phase::Header;
            return Ok(());
        }
        if produced != self.expected {
            return Err(InflateError::EndBeforeSize);
        }
        self.phase = Phase::Done;
        Ok(())
    }

    /// The fast loop: while at least [`FAST_IN`] input bytes are at hand, decodes symbols
    /// with the bit buffer in locals: with word copies while [`FAST_OUT`] bytes of room
    /// are, then with exact copies until a symbol does not fit (left unread). Leaves with
    /// the whole bytes it read ahead given back, in [`Phase::Symbols`] or, after an
    /// end-of-block, the next phase.
    #[inline(never)]
    fn fast(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        window: Option<&[u8; WINDOW_SIZE]>,
        base: u64,
    ) -> Result<(), InflateError> {
        let start_ip = *ip;
        let mut i = *ip;
        let mut o = *op;
        let mut bits = self.bits;
        let mut nbits = self.nbits;
        let in_end = input.len() - 8;
        let out_end = out.len().saturating_sub(FAST_OUT);
        let lmask = (1u64 << LIT_ROOT) - 1;
        let dmask = (1u64 << DIST_ROOT) - 1;
        let mut result = Ok(());
        let mut eob = false;
        while i <= in_end && o < out_end {
            // Refill to 56..=63 bits.
            let word = u64::from_le_bytes(input[i..i + 8].try_into().unwrap_or([0; 8]));
            bits |= word << nbits;
            i += ((63 - nbits) >> 3) as usize;
            nbits |= 56;
            let mut e = self.lit[(bits & lmask) as usize];
            if e & (LINK << 8) != 0 {
                e = lookup(&self.lit, LIT_ROOT, bits);
            }
            let tag = (e >> 8) & 0xFF;
            if tag == LIT {
                let l = e & 0xFF;
                bits >>= l;
                nbits -= l;
                out[o] = (e >> 16) as u8;
                o += 1;
                // A second literal from the same refill, when its bits are at hand.
                let e2 = lookup(&self.lit, LIT_ROOT, bits);
                if (e2 >> 8) & 0xFF == LIT && (e2 & 0xFF) <= nbits {
                    let l2 = e2 & 0xFF;
                    bits >>= l2;
                    nbits -= l2;
                    out[o] = (e2 >> 16) as u8;
                    o += 1;
                    // And a third: 56 bits cover three 15-bit codes.
                    let e3 = lookup(&self.lit, LIT_ROOT, bits);
                    if (e3 >> 8) & 0xFF == LIT && (e3 & 0xFF) <= nbits {
                        let l3 = e3 & 0xFF;
                        bits >>= l3;
                        nbits -= l3;
                        out[o] = (e3 >> 16) as u8;
                        o += 1;
                    }
                }
                continue;
            }
            if tag & 0xF0 != LEN {
                if tag == EOB {
                    let l = e & 0xFF;
                    bits >>= l;
                    nbits -= l;
                    eob = true;
                } else {
                    result = Err(bad_lit(e));
                }
                break;
            }
            let l = e & 0xFF;
            bits >>= l;
            nbits -= l;
            let extra = tag & 0xF;
            let mlen = ((e >> 16) + (bits & ((1 << extra) - 1)) as u32) as usize;
            bits >>= extra;
            nbits -= extra;
            let mut d = self.dist[(bits & dmask) as usize];
            if d & (LINK << 8) != 0 {
                d = lookup(&self.dist, DIST_ROOT, bits);
            }
            let dtag = (d >> 8) & 0xFF;
            if dtag & 0xF0 != LEN {
                result = Err(bad_dist(d));
                break;
            }
            let dl = d & 0xFF;
            bits >>= dl;
            nbits -= dl;
            let dextra = dtag & 0xF;
            let dist = ((d >> 16) + (bits & ((1 << dextra) - 1)) as u32) as usize;
            bits >>= dextra;
            nbits -= dextra;
            let produced = base + o as u64;
            if dist as u64 > produced {
                result = Err(InflateError::DistanceTooFar {
                    distance: dist as u16,
                    available: produced as u16,
                });
                break;
            }
            if dist <= o {
                if dist >= 16 {
                    // Whole 16-byte words: up to 15 bytes of scratch past the match, inside
                    // the room the loop keeps (see `FAST_OUT`), overwritten by what follows.
                    let src = o - dist;
                    let mut k = 0;
                    while k < mlen {
                        let mut w = [0u8; 16];
                        w.copy_from_slice(&out[src + k..src + k + 16]);
                        out[o + k..o + k + 16].copy_from_slice(&w);
                        k += 16;
                    }
                } else if dist >= 8 {
                    // 8-byte words: each reads only bytes already final (8 or more back).
                    let src = o - dist;
                    let mut k = 0;
                    while k < mlen {
                        let mut w = [0u8; 8];
                        w.copy_from_slice(&out[src + k..src + k + 8]);
                        out[o + k..o + k + 8].copy_from_slice(&w);
                        k += 8;
                    }
                } else {
                    copy_within(out, o, dist, mlen);
                }
            } else {
                match window {
                    // Wholly in the window and not wrapping: 16-byte words, as above.
                    Some(w)
                        if dist - o >= mlen
                            && (((base - (dist - o) as u64) as usize) & WMASK) + mlen + 16
                                <= WINDOW_SIZE =>
                    {
                        let from = ((base - (dist - o) as u64) as usize) & WMASK;
                        let mut k = 0;
                        while k < mlen {
                            let mut word = [0u8; 16];
                            word.copy_from_slice(&w[from + k..from + k + 16]);
                            out[o + k..o + k + 16].copy_from_slice(&word);
                            k += 16;
                        }
                    }
                    _ => copy_match(out, o, window, base, dist, mlen),
                }
            }
            o += mlen;
        }
        // Near the end of the output room: the same decoding with exact copies; a symbol
        // that does not fit is left unread, for the careful path to judge.
        while result.is_ok() && !eob && i <= in_end {
            let word = u64::from_le_bytes(input[i..i + 8].try_into().unwrap_or([0; 8]));
            bits |= word << nbits;
            i += ((63 - nbits) >> 3) as usize;
            nbits |= 56;
            let (bits0, nbits0) = (bits, nbits);
            let e = lookup(&self.lit, LIT_ROOT, bits);
            let tag = (e >> 8) & 0xFF;
            let l = e & 0xFF;
            if tag == LIT {
                if o == out.len() {
                    break;
                }
                bits >>= l;
                nbits -= l;
                out[o] = (e >> 16) as u8;
                o += 1;
                continue;
            }
            if tag & 0xF0 != LEN {
                if tag == EOB {
                    bits >>= l;
                    nbits -= l;
                    eob = true;
                } else {
                    result = Err(bad_lit(e));
                }
                break;
            }
            bits >>= l;
            nbits -= l;
            let extra = tag & 0xF;
            let mlen = ((e >> 16) + (bits & ((1 << extra) - 1)) as u32) as usize;
            bits >>= extra;
            nbits -= extra;
            let d = lookup(&self.dist, DIST_ROOT, bits);
            let dtag = (d >> 8) & 0xFF;
            if dtag & 0xF0 != LEN {
                result = Err(bad_dist(d));
                break;
            }
            let dl = d & 0xFF;
            bits >>= dl;
            nbits -= dl;
            let dextra = dtag & 0xF;
            let dist = ((d >> 16) + (bits & ((1 << dextra) - 1)) as u32) as usize;
            bits >>= dextra;
            nbits -= dextra;
            let produced = base + o as u64;
            if dist as u64 > produced {
                result = Err(InflateError::DistanceTooFar {
                    distance: dist as u16,
                    available: produced as u16,
                });
                break;
            }
            if o + mlen > out.len() {
                bits = bits0;
                nbits = nbits0;
                break;
            }
            copy_match(out, o, window, base, dist, mlen);
            o += mlen;
        }
        // Give back the whole bytes read ahead (all from this call's input).
        let back = ((nbits / 8) as usize).min(i - start_ip);
        i -= back;
        nbits -= back as u32 * 8;
        bits &= (1u64 << nbits) - 1;
        self.bits = bits;
        self.nbits = nbits;
        *ip = i;
        *op = o;
        result?;
        if eob {
            self.end_block(base + o as u64)?;
        }
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Tab {
    Lit,
    Dist,
}

fn bad_lit(e: u32) -> InflateError {
    if (e >> 8) & 0xFF == BAD {
        InflateError::InvalidLengthSymbol {
            symbol: (e >> 16) as u16,
        }
    } else {
        debug_assert_eq!((e >> 8) & 0xFF, HOLE);
        InflateError::UnassignedCode {
            table: CodeTable::Literals,
        }
    }
}

fn bad_dist(e: u32) -> InflateError {
    if (e >> 8) & 0xFF == BAD {
        InflateError::InvalidDistanceSymbol {
            symbol: (e >> 16) as u16,
        }
    } else {
        InflateError::UnassignedCode {
            table: CodeTable::Distances,
        }
    }
}

/// Copies `len` bytes from `dist` back to `out[at..]`, the bytes before `out` read from
/// `window` (bytes produced before it: `base`). The caller checked `dist <= base + at`.
#[inline(always)]
fn copy_match(
    out: &mut [u8],
    at: usize,
    window: Option<&[u8; WINDOW_SIZE]>,
    base: u64,
    dist: usize,
    len: usize,
) {
    if dist <= at {
        copy_within(out, at, dist, len);
        return;
    }
    let back = dist - at;
    let n = back.min(len);
    if let Some(w) = window {
        let from = ((base - back as u64) as usize) & WMASK;
        let first = n.min(WINDOW_SIZE - from);
        out[at..at + first].copy_from_slice(&w[from..from + first]);
        out[at + first..at + n].copy_from_slice(&w[..n - first]);
    }
    if len > n {
        copy_within(out, at + n, dist, len - n);
    }
}

/// Copies `len` bytes from `dist` back within `out` (`dist <= at`), repeating the pattern
/// when the copy overlaps its source.
#[inline(always)]
fn copy_within(out: &mut [u8], at: usize, dist: usize, len: usize) {
    let src = at - dist;
    if dist >= len {
        out.copy_within(src..src + len, at);
    } else if dist == 1 {
        let b = out[src];
        out[at..at + len].fill(b);
    } else {
        let mut done = 0;
        while done < len {
            let n = (len - done).min(dist + done);
            out.copy_within(src..src + n, at + done);
            done += n;
        }
    }
}

#[cfg(test)]
mod tests;
