//! Deflate (method 0x100): raw RFC 1951 streams (SPEC 3.3), decoded by a resumable state
//! machine with a table-driven fast path.
//!
//! # Decoding
//! [`InflateDecoder`] implements the [`Decoder`] contract: it resumes at any byte boundary
//! of input and output (inside a block header, a code-length list, a symbol, a match, a
//! stored block), never allocates and never writes past `unpacked_size`. Its state is a
//! plain struct of **42 648 bytes** on 64-bit targets (asserted by a test), under the 48 KiB
//! budget: the 32 KiB window (32 768) with a 272-byte copy of its first bytes after its end
//! (so word copies read through its wrap), the literal/length table (1 536 `u32`: 6 144), the
//! distance table, which also holds the code-length table while a dynamic header is read
//! (768 `u32`: 3 072), the code lengths of a dynamic header (320), and 72 bytes of bit
//! buffer, counters, block state and the kept error.
//!
//! [`decode_into`] is the one-shot form: the whole stream into an exact-size buffer, with
//! no window: the output is the window.
//!
//! Both forms run the same code (the fast loop is built once per form, so one-shot decoding
//! carries none of the window's tests): a careful state machine that consumes input a byte
//! at a time, only when the bits at hand do not suffice, and a fast loop taken whenever at
//! least [`FAST_IN`] bytes of input and [`FAST_OUT`] bytes of output room are at hand
//! (streaming: a few bytes, with each match checking its own room, so the careful path
//! decodes only the symbol that does not fit at the end of each call's room). The
//! fast loop keeps a 64-bit bit buffer refilled branch-free with `u64::from_le_bytes`,
//! decodes through 10-bit (literal/length) and 8-bit (distance) primary tables with
//! second-level tables, whose entries let one shift take a code and its extra bits and one
//! sign test tell a literal (up to three literals per refill); it looks the next code up
//! before copying a match, so the load overlaps the copy. Matches are copied in whole
//! 16-byte words (distances of 16 and more) or 8-byte words (distances 8-15), or with
//! `copy_within` repeating the pattern for shorter ones, with no per-byte checks; on
//! leaving it gives back the whole bytes it read ahead. The word copies may write up to 15
//! bytes of scratch past a match, always inside the output room of the call (so never past
//! `unpacked_size`, nor past the caller's slice); later symbols overwrite it, but when a call
//! stops for want of input, bytes of the output slice past the reported `produced` may hold
//! scratch (they are overwritten when decoding resumes there).
//!
//! The streaming form decodes straight into the caller's output; matches reaching back
//! before the current call read the window, which is refreshed once per call with the
//! bytes a later match can still reach. A call that ends inside a stored block looks at
//! the unconsumed input for the headers of the stored blocks that follow: bytes those will
//! push more than 32 KiB back before any Huffman block can start are not copied, and after
//! a final stored block nothing is, so stored data is copied about once, as in one-shot
//! decoding, not twice. (The look ahead only saves work: the bytes are decoded when they
//! come again, as the [`Decoder`] contract has them.)
//!
//! Early in a call a match's source is in the window or in the output at about even odds,
//! a branch no predictor learns: the loop picks the slice to copy from (window or output)
//! with conditional moves instead, which is what brings streaming with 32 KiB of output
//! room per call close to the one-shot speed (see BENCHMARKS.md).
//!
//! # Sizes and errors
//! The output is exactly `unpacked_size` bytes (SPEC 2.7). A symbol that would produce
//! more is [`InflateError::TooMuchOutput`] (detected before it is written); a final block
//! ending earlier is [`InflateError::EndBeforeSize`]. The decoder reports
//! [`Status::Done`] only after the final block's end: bytes after it are not consumed.
//! Input ending before that is [`DecodeError::Truncated`]. Every other fault is a
//! [`DecodeError::Inflate`] with an [`InflateError`] and the offset in the packed stream of
//! the byte holding the last bit of what showed the fault (the symbol, the field or the
//! repeat code with its extra bits): the same wherever the calls split the input.
//!
//! Code completeness follows zlib: over-subscribed codes are errors, and so are incomplete
//! ones, except a literal/length or distance code with a single one-bit code (or, for
//! distances, none at all); decoding the unassigned pattern of such a code is
//! [`InflateError::UnassignedCode`]. A literal/length code without a code for 256 is
//! [`InflateError::MissingEndOfBlock`].
//! One difference from zlib: a code-length code with no code at all is
//! [`InflateError::IncompleteCode`] at once, where zlib reads on and fails later (both
//! reject the stream; cut short there, zlib calls it truncated).
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

use super::copy;
use super::ring::{self, Ring};
use super::tally::{Stop, Tally};
use super::{DecodeError, Decoder, Progress, Status};
use core::fmt;
use huffman::{
    BAD, CL_ROOT, DIST_ROOT, DIST_SIZE, EOB, EXCEPTIONAL, LINK, LIT_ROOT, LIT_SIZE, LITERAL, build,
    consumed, kind, link_index, lookup, value, with_extra,
};

/// Size of the window: the furthest a match may reach back.
pub const WINDOW_SIZE: usize = 32768;
const WMASK: usize = WINDOW_SIZE - 1;
/// Bytes past the window's end that repeat its first bytes, so that a 16-byte word copy of
/// a longest match (258 bytes, read as 17 words) from anywhere in the window reads on
/// through its wrap without a test.
const MIRROR: usize = 272;
/// The window with its mirrored tail.
type InflateRing = Ring<{ WINDOW_SIZE + MIRROR }, MIRROR, 0>;
/// What one call sees of the window.
type Window<'a> = ring::Window<'a, { WINDOW_SIZE + MIRROR }, MIRROR, 0>;
/// The window's bytes, as the fast loop reads them.
type WindowBytes = [u8; WINDOW_SIZE + MIRROR];
/// The longest match.
const MAX_MATCH: usize = 258;
/// Input bytes the fast loop needs at hand.
pub const FAST_IN: usize = 16;
/// Output room the one-shot fast loop needs at hand: two literals, a longest match (258)
/// and the scratch of its last 16-byte word (15), rounded up.
pub const FAST_OUT: usize = 280;
/// Output room the streaming fast loop needs at hand: three literals. A match checks its
/// own room (its length rounded up to a whole 16-byte word) before it is taken, which
/// costs the one-shot form a test per match for nothing, but saves the streaming form
/// decoding the last ~280 bytes of every call's room the careful way (a measured 1-2 % of
/// its time with 32 KiB of room per call).
const STREAM_OUT: usize = 3;

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
    /// Packed bytes consumed by earlier calls.
    consumed: u64,
    tally: Tally<Option<DecodeError>>,
}

/// Decoder of raw Deflate (method 0x100).
///
/// State: 42 648 bytes on 64-bit targets, all inline (see the [module docs](self)).
#[derive(Debug, Clone)]
pub struct InflateDecoder {
    core: Inflater,
    window: InflateRing,
}

impl InflateDecoder {
    /// A decoder that must produce exactly `unpacked_size` bytes.
    pub fn new(unpacked_size: u64) -> InflateDecoder {
        InflateDecoder {
            core: Inflater::new(unpacked_size),
            window: InflateRing::new(),
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
        let output = core.tally.begin(output)?;
        let before = core.tally.produced();
        let r = core.run(input, output, Some(&mut self.window));
        // Refresh the window with the last bytes produced, at their positions, leaving out
        // those no later match can reach: all of them once the final block has ended, and
        // inside a stored block those that the stored bytes known to follow will push more
        // than a window back before the next match can come.
        let n = r.produced;
        let keep = match core.phase {
            Phase::Done => 0,
            Phase::Stored { left } => {
                let ahead = core.stored_ahead(left, &input[r.consumed.min(input.len())..]);
                n.min(WINDOW_SIZE.saturating_sub(ahead))
            }
            _ => n.min(WINDOW_SIZE),
        };
        if keep > 0 {
            let at = (before + (n - keep) as u64) as usize;
            self.window.remember(&output[n - keep..n], at);
        }
        core.finish(r, input_ended)
    }

    fn expected_len(&self) -> u64 {
        self.core.tally.expected()
    }

    fn produced_total(&self) -> u64 {
        self.core.tally.produced()
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
    let p = core.finish(r, true)?;
    match p.status {
        Status::Done => Ok(p.consumed),
        // Out of room before the final block's end: the stream is cut short (its end
        // would be past the size), as `Truncated` reports it.
        _ => Err(DecodeError::Truncated {
            produced: core.tally.produced(),
            expected: core.tally.expected(),
        }),
    }
}

/// How a run ended.
#[derive(Debug, Clone, Copy)]
struct Run {
    consumed: usize,
    produced: usize,
    stop: Stop,
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
            consumed: 0,
            tally: Tally::new(expected),
        }
    }

    /// In a stored block with `left` bytes to go and `rest` the input not yet consumed: how
    /// many bytes of output are sure to come from stored blocks before any Huffman block
    /// can, counting the blocks whose headers `rest` already shows (at most 16 of them, and
    /// only as far as a window). `usize::MAX` when the final block is among them: no match
    /// follows at all. A look ahead only: the bytes are read again when decoded, and a
    /// header that does not check out simply ends the count.
    fn stored_ahead(&self, left: u16, rest: &[u8]) -> usize {
        let buffered = (self.nbits / 8) as usize;
        let Some(in_input) = (left as usize).checked_sub(buffered) else {
            return 0;
        };
        let mut ahead = left as usize;
        let mut at = in_input;
        for _ in 0..16 {
            if ahead >= WINDOW_SIZE {
                break;
            }
            // A stored block ends on a byte boundary, so the next header starts a byte.
            let Some(&[h, l0, l1, n0, n1]) = rest.get(at..at + 5) else {
                break;
            };
            let len = u16::from_le_bytes([l0, l1]);
            if (h >> 1) & 3 != 0 || len != !u16::from_le_bytes([n0, n1]) {
                break;
            }
            if h & 1 != 0 {
                return usize::MAX;
            }
            ahead += len as usize;
            at += 5 + len as usize;
        }
        ahead
    }

    /// Turns a run into the call's outcome.
    fn finish(&mut self, r: Run, input_ended: bool) -> Result<Progress, DecodeError> {
        // The byte holding the last bit read: every fault is raised with the bits that
        // show it consumed, so the fast and the careful path agree on it.
        let bits_read = (self.consumed + r.consumed as u64) * 8 - self.nbits as u64;
        let offset = bits_read.saturating_sub(1) / 8;
        self.consumed += r.consumed as u64;
        if let Some(error) = r.error {
            return Err(self
                .tally
                .fail(r.produced, DecodeError::Inflate { error, offset }));
        }
        self.tally
            .settle_marked(r.consumed, r.produced, r.stop, input_ended)
    }

    /// Decodes from `input` into `out` (at most the bytes still expected), with `window`
    /// holding the bytes before `out` (`None`: nothing precedes it).
    fn run(&mut self, input: &[u8], out: &mut [u8], window: Option<&mut InflateRing>) -> Run {
        let mut ip = 0usize;
        let mut op = 0usize;
        let base = self.tally.produced();
        // The window's ring positions are the stream's, from 0 (`base` may pass 4 GiB on
        // 64-bit hosts only, and only its low 15 bits matter here).
        let window = Window::new(window, base as usize & WMASK);
        let r = self.step(input, &mut ip, out, &mut op, &window, base);
        let (stop, error) = match r {
            Err(e) => (Stop::InputEmpty, Some(e)),
            Ok(_) if self.phase == Phase::Done => (Stop::End, None),
            Ok(true) => (Stop::OutputFull, None),
            Ok(false) => (Stop::InputEmpty, None),
        };
        Run {
            consumed: ip,
            produced: op,
            stop,
            error,
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
            if consumed(e) + skip <= self.nbits {
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
        window: &Window<'_>,
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
                    // Faults are located after the bits that show them (see `finish`).
                    self.drop_bits(32);
                    if len != !nlen {
                        return Err(InflateError::StoredLengthMismatch { len, nlen });
                    }
                    let produced = base + *op as u64;
                    if produced + len as u64 > self.tally.expected() {
                        return Err(InflateError::TooMuchOutput);
                    }
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
                        let clen = consumed(e);
                        let sym = value(e);
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
                        self.drop_bits(clen + extra);
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
                    window.copy_match::<MAX_MATCH>(out, *op, dist as usize, n);
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
                        if window.ring.is_some() {
                            self.fast::<true>(input, ip, out, op, window, base)?;
                        } else {
                            self.fast::<false>(input, ip, out, op, window, base)?;
                        }
                        if self.phase != Phase::Symbols {
                            continue;
                        }
                    }
                    let Some(e) = self.peek_code(Tab::Lit, LIT_ROOT, 0, input, ip) else {
                        return Ok(false);
                    };
                    let produced = base + *op as u64;
                    if e & LITERAL != 0 {
                        if produced == self.tally.expected() {
                            self.drop_bits(consumed(e));
                            return Err(InflateError::TooMuchOutput);
                        }
                        if *op == out.len() {
                            return Ok(true);
                        }
                        out[*op] = (e >> 16) as u8;
                        *op += 1;
                        self.drop_bits(consumed(e));
                    } else if kind(e) == EOB {
                        self.drop_bits(consumed(e));
                        self.end_block(produced)?;
                    } else if kind(e) == 0 {
                        // `peek_code` made sure the extra bits are at hand too.
                        let mlen = with_extra(e, self.bits);
                        let skip = consumed(e);
                        let Some(d) = self.peek_code(Tab::Dist, DIST_ROOT, skip, input, ip) else {
                            return Ok(false);
                        };
                        let dist = with_extra(d, self.bits >> skip);
                        self.drop_bits(skip + consumed(d));
                        if kind(d) != 0 {
                            return Err(bad_dist(d));
                        }
                        if dist as u64 > produced {
                            return Err(InflateError::DistanceTooFar {
                                distance: dist as u16,
                                available: produced as u16,
                            });
                        }
                        if produced + mlen as u64 > self.tally.expected() {
                            return Err(InflateError::TooMuchOutput);
                        }
                        self.phase = Phase::Copy {
                            left: mlen as u16,
                            dist: dist as u16,
                        };
                    } else {
                        self.drop_bits(consumed(e));
                        return Err(bad_lit(e));
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
        if produced != self.tally.expected() {
            return Err(InflateError::EndBeforeSize);
        }
        self.phase = Phase::Done;
        Ok(())
    }

    /// The fast loop: while at least [`FAST_IN`] bytes of input and [`FAST_OUT`] bytes of
    /// output room (streaming: [`STREAM_OUT`], and room for each match) are at hand, decodes
    /// whole symbols with the bit buffer in locals and copies matches in words. Leaves with
    /// the whole bytes it read ahead given back, in [`Phase::Symbols`] or, after an
    /// end-of-block, the next phase; the careful path finishes what is left near the
    /// buffers' ends.
    #[inline(never)]
    fn fast<const STREAM: bool>(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        window: &Window<'_>,
        base: u64,
    ) -> Result<(), InflateError> {
        let (Some(in_end), Some(out_end)) = (
            input.len().checked_sub(FAST_IN),
            out.len()
                .checked_sub(if STREAM { STREAM_OUT } else { FAST_OUT }),
        ) else {
            return Ok(());
        };
        if *ip > in_end {
            return Ok(());
        }
        let ring: Option<&WindowBytes> = if STREAM { window.ring_bytes() } else { None };
        // How far before this call's output a match may reach: the bytes produced before
        // it, but never more than the window holds.
        let reach = base.min(WINDOW_SIZE as u64) as usize;
        let start_ip = *ip;
        let mut i = *ip;
        let mut o = *op;
        let mut bits = self.bits;
        let mut nbits = self.nbits;
        let lit = &self.lit;
        let dtab = &self.dist;
        const LMASK: u64 = (1 << LIT_ROOT) - 1;
        const DMASK: u64 = (1 << DIST_ROOT) - 1;
        let mut result = Ok(());
        let mut eob = false;
        // In this loop only the low six bits of `nbits` count the bits held: `take`
        // subtracts whole entries, whose low six bits are what they consume, and every use
        // masks (shift counts are taken mod 64), so the path from one lookup to the next
        // has no masking step on it (a few percent of the loop's time).
        //
        // Tops the buffer up to 56..=63 bits, branch-free. The bits above `nbits` are
        // either zero or the stream's own next bits, so topping up never changes the bits
        // a table lookup already used. Two refills per iteration stay inside `FAST_IN`.
        macro_rules! refill {
            () => {
                let word = u64::from_le_bytes(input[i..i + 8].try_into().unwrap_or([0; 8]));
                bits |= word.wrapping_shl(nbits);
                i += 7 - ((nbits >> 3) & 7) as usize;
                nbits |= 56;
            };
        }
        // An entry's `consumed` is under 64 (bits 6-7 clear), so shifting or subtracting by
        // the whole entry takes exactly that many bits (see `nbits` above).
        macro_rules! take {
            ($e:expr) => {
                bits = bits.wrapping_shr($e);
                nbits = nbits.wrapping_sub($e);
            };
        }
        // At the top of each iteration the buffer holds at least 48 bits and `e` is the
        // primary entry of the next code (looked up ahead so the load overlaps the
        // previous copy). Each iteration refills at most twice.
        refill!();
        let mut e = lit[(bits & LMASK) as usize];
        while i <= in_end && o <= out_end {
            if e & LITERAL != 0 {
                // Three literal codes (at most 45 bits) fit in what one refill gives.
                take!(e);
                out[o] = (e >> 16) as u8;
                e = lit[(bits & LMASK) as usize];
                if e & LITERAL != 0 {
                    take!(e);
                    out[o + 1] = (e >> 16) as u8;
                    e = lit[(bits & LMASK) as usize];
                    if e & LITERAL != 0 {
                        take!(e);
                        out[o + 2] = (e >> 16) as u8;
                        o += 3;
                        refill!();
                        e = lit[(bits & LMASK) as usize];
                        continue;
                    }
                    o += 2;
                } else {
                    o += 1;
                }
                // A match needs up to 48 bits: top up (`e` stays valid, see `refill`).
                refill!();
            }
            if e & EXCEPTIONAL != 0 {
                if kind(e) == LINK {
                    e = lit[link_index(e, LIT_ROOT, bits)];
                }
                if e & LITERAL != 0 {
                    take!(e);
                    out[o] = (e >> 16) as u8;
                    o += 1;
                    refill!();
                    e = lit[(bits & LMASK) as usize];
                    continue;
                }
                if kind(e) != 0 {
                    take!(e);
                    if kind(e) == EOB {
                        eob = true;
                    } else {
                        result = Err(bad_lit(e));
                    }
                    break;
                }
            }
            // A match: its length code and extra bits (at most 20), then the distance's
            // (at most 28).
            let mlen = with_extra(e, bits) as usize;
            // The room its word copies may write (see `STREAM_OUT`); without it the match
            // is left, untaken, to the careful path.
            let span = (mlen + 15) & !15;
            if STREAM && o + span > out.len() {
                break;
            }
            take!(e);
            let mut d = dtab[(bits & DMASK) as usize];
            if d & EXCEPTIONAL != 0 {
                if kind(d) == LINK {
                    d = dtab[link_index(d, DIST_ROOT, bits)];
                }
                if kind(d) != 0 {
                    take!(d);
                    result = Err(bad_dist(d));
                    break;
                }
            }
            let saved = bits;
            take!(d);
            let dist = with_extra(d, saved) as usize;
            refill!();
            e = lit[(bits & LMASK) as usize];
            // Streaming, a match whose source lies wholly in the window (reading on through
            // its mirrored tail where it wraps), or wholly in this call's output and at
            // least its length rounded up to a word back (so no word reads bytes the match
            // itself writes), is copied in 16-byte words from a slice chosen by conditional
            // moves, not a branch: which place it is (about even odds early in a call) is
            // a branch no predictor learns. The test is one branch, nearly always taken;
            // `black_box` keeps the compiler from splitting its `|` into two branches, one
            // of which would follow those odds (measured 10 % slower).
            let back = dist.wrapping_sub(o);
            let from = (base.wrapping_sub(back as u64) as usize) & WMASK;
            let in_out = dist <= o;
            // Only streaming pays for the test (`fast` is built once per form).
            let select = STREAM
                && core::hint::black_box(
                    (in_out & (dist >= span)) | ((back >= mlen) & (back <= reach)),
                );
            if let (true, Some(w)) = (select, ring) {
                let (done, rest) = out.split_at_mut(o);
                let src: &[u8] = if in_out { done } else { w };
                let at = if in_out { o - dist } else { from };
                let mut k = 0;
                loop {
                    let mut v = [0u8; 16];
                    v.copy_from_slice(&src[at + k..at + k + 16]);
                    rest[k..k + 16].copy_from_slice(&v);
                    k += 16;
                    if k >= mlen {
                        break;
                    }
                }
            } else if dist <= o {
                let src = o - dist;
                if dist >= 16 {
                    // Whole 16-byte words: up to 15 bytes of scratch past the match, inside
                    // the room the loop keeps (`FAST_OUT`) or checked (`span`), overwritten by
                    // what follows.
                    let mut k = 0;
                    loop {
                        let mut w = [0u8; 16];
                        w.copy_from_slice(&out[src + k..src + k + 16]);
                        out[o + k..o + k + 16].copy_from_slice(&w);
                        k += 16;
                        if k >= mlen {
                            break;
                        }
                    }
                } else if dist >= 8 {
                    // 8-byte words: each reads only bytes already final (8 or more back).
                    let mut k = 0;
                    loop {
                        let mut w = [0u8; 8];
                        w.copy_from_slice(&out[src + k..src + k + 8]);
                        out[o + k..o + k + 8].copy_from_slice(&w);
                        k += 8;
                        if k >= mlen {
                            break;
                        }
                    }
                } else {
                    copy::within::<MAX_MATCH>(out, o, dist, mlen);
                }
            } else if dist as u64 <= base + o as u64 {
                // Reaching back before this call's output, into the window (streaming only:
                // one-shot, `base` is 0 and nothing precedes the output): all the word path
                // above leaves is a source straddling the call's start, rare.
                copy_straddling(out, o, ring, base, dist, mlen);
            } else {
                let produced = base + o as u64;
                result = Err(InflateError::DistanceTooFar {
                    distance: dist as u16,
                    available: produced as u16,
                });
                break;
            }
            o += mlen;
        }
        // Give back the whole bytes read ahead (all from this call's input).
        let mut nbits = nbits & 63;
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

fn bad_dist(e: u32) -> InflateError {
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

/// The fast loop's copy of a match whose source straddles the start of the call's
/// output (`dist > at`, `dist <= base + at`): the part before it from `window` (`base`
/// bytes precede the output), the rest from `out`. The same copy as
/// [`ring::Window::copy_match`], kept here because its shape is the loop's: read inline
/// from the window's bytes, where the shared one reads out of line, it leaves the
/// registers of the one-shot loop as they were; through the shared one that loop runs 5 %
/// more instructions (callgrind, `benches/examples/callgrind.rs`).
#[inline(always)]
fn copy_straddling(
    out: &mut [u8],
    at: usize,
    window: Option<&WindowBytes>,
    base: u64,
    dist: usize,
    len: usize,
) {
    if dist <= at {
        copy::within::<MAX_MATCH>(out, at, dist, len);
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
        copy::within::<MAX_MATCH>(out, at + n, dist, len - n);
    }
}

#[cfg(test)]
mod tests;
