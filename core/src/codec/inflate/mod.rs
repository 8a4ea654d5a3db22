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
//! [`InPlaceDecoder`] streams with the window in the caller's buffer (the bytes before
//! each call's room are the last ones decoded): it runs the one-shot form's loop, copies
//! only when the caller slides the buffer, and its state is 9 616 bytes, no window.
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
//! before copying a match, so the load overlaps the copy. Matches are copied in 8-byte
//! words (distances of 8 and more; streaming, often 16-byte words from the window or the
//! output, see below), the first 32 bytes whatever the length so that short matches end on
//! no mispredicted branch, or with `copy_within` repeating the pattern for shorter
//! distances, with no per-byte checks; on leaving it gives back the whole bytes it read
//! ahead. The word copies may write up to 29 bytes of scratch past a match, always inside
//! the output room of the call (so never past `unpacked_size`, nor past the caller's
//! slice); later symbols overwrite it, but when a call
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

mod bits;
mod careful;
mod error;
mod fast;
mod header;
mod huffman;
mod in_place;
mod window;

pub use error::{CodeTable, InflateError};
pub use in_place::InPlaceDecoder;

use super::tally::{Stop, Tally};
use super::{DecodeError, Decoder, Progress, Status};
use huffman::{DIST_SIZE, LIT_SIZE};
use window::{InflateRing, WMASK, Window};

/// Size of the window: the furthest a match may reach back.
pub const WINDOW_SIZE: usize = 32768;
/// The longest match.
const MAX_MATCH: usize = 258;
/// Input bytes the fast loop needs at hand.
pub const FAST_IN: usize = 16;
/// Output room the one-shot fast loop needs at hand: two literals and a longest match (258)
/// with the scratch of its last 8-byte word (7), or the 32 bytes a short match writes,
/// rounded up.
pub const FAST_OUT: usize = 280;
/// Output room the streaming fast loop needs at hand: three literals. A match checks its
/// own room (its length rounded up to a whole 16-byte word, at least 32) before it is
/// taken, which costs the one-shot form a test per match for nothing, but saves the streaming form
/// decoding the last ~280 bytes of every call's room the careful way (a measured 1-2 % of
/// its time with 32 KiB of room per call).
const STREAM_OUT: usize = 3;

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

/// What a step of the careful path did: `None` to go on with the phase it left, or why the
/// call stops; each step suspends in one line (`return NEED_INPUT;`, with its place saved
/// in the phase).
type Step = Result<Option<Stop>, InflateError>;
/// Go on.
const NEXT: Step = Ok(None);
/// Suspend for want of input.
const NEED_INPUT: Step = Ok(Some(Stop::InputEmpty));
/// Suspend for want of output room.
const OUTPUT_FULL: Step = Ok(Some(Stop::OutputFull));

/// [`Inflater::hclen`] while the tables are the fixed ones (a real count is 4 to 19).
const FIXED_TABLES: u8 = u8::MAX;

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
    /// `HCLEN` of the dynamic header being read; otherwise [`FIXED_TABLES`] while `lit`
    /// and `dist` hold the fixed tables, so that a run of fixed blocks builds them once.
    /// (A dynamic header sets the count before it builds over the tables.) Kept in this
    /// byte rather than a flag of its own, which would take the state 8 bytes past its
    /// documented size.
    hclen: u8,
    /// Packed bytes consumed by earlier calls.
    consumed: u64,
    tally: Tally<Option<DecodeError>>,
}

/// Decoder of raw Deflate (method 0x100).
///
/// State: 42 648 bytes on 64-bit targets, all inline (see the [module docs](self)).
#[derive(Clone)]
pub struct InflateDecoder {
    core: Inflater,
    window: InflateRing,
}

impl InflateDecoder {
    /// A decoder that must produce exactly `unpacked_size` bytes.
    pub const fn new(unpacked_size: u64) -> InflateDecoder {
        InflateDecoder {
            core: Inflater::new(unpacked_size),
            window: InflateRing::new(),
        }
    }

    /// A state of zero bytes only, to be [`reset`](InflateDecoder::reset) before use
    /// (its tally holds an error): written where it goes with a memset, where
    /// [`new`](InflateDecoder::new)'s state, which is not all zeros, would be copied from
    /// a 42 KiB constant the program holds.
    pub(crate) const ZEROED: InflateDecoder = InflateDecoder {
        core: Inflater {
            tally: Tally::zeroed(),
            ..Inflater::new(0)
        },
        window: InflateRing::new(),
    };

    /// The state [`new`](InflateDecoder::new) gives, written in place, for a decoder
    /// reused entry after entry: no 42 KiB value is built on the stack to be moved here.
    ///
    /// ```
    /// use ngi_core::Decoder;
    /// use ngi_core::codec::InflateDecoder;
    ///
    /// // Two streams of one stored block each: "abc", then "hi".
    /// let first = [0x01, 0x03, 0x00, 0xFC, 0xFF, b'a', b'b', b'c'];
    /// let second = [0x01, 0x02, 0x00, 0xFD, 0xFF, b'h', b'i'];
    /// let mut decoder = InflateDecoder::new(3);
    /// let mut out = [0u8; 3];
    /// decoder.decode(&first, &mut out, true).unwrap();
    /// decoder.reset(2);
    /// let p = decoder.decode(&second, &mut out, true).unwrap();
    /// assert_eq!(&out[..p.produced], b"hi");
    /// ```
    pub fn reset(&mut self, unpacked_size: u64) {
        self.core.reset(unpacked_size);
        self.window.reset();
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
        let r = core.run(input, output, 0, Some(&mut self.window));
        let rest = &input[r.consumed.min(input.len())..];
        window::refresh(&mut self.window, core, &output[..r.produced], before, rest);
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
/// No window is kept: the output is the window.
///
/// # Errors
///
/// * [`DecodeError::Truncated`] when `packed` ends before the final block does.
/// * [`DecodeError::Inflate`] on a corrupt stream, one that would produce more or fewer
///   bytes than `out` holds included ([`InflateError::TooMuchOutput`],
///   [`InflateError::EndBeforeSize`]).
pub fn decode_into(packed: &[u8], out: &mut [u8]) -> Result<usize, DecodeError> {
    let mut core = Inflater::new(out.len() as u64);
    let r = core.run(packed, out, 0, None);
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
    const fn new(expected: u64) -> Inflater {
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

    /// [`new`](Inflater::new)'s state, written in place (a new value would be built on
    /// the stack first). Every field is named, so a field added later must be reset here.
    fn reset(&mut self, expected: u64) {
        let Inflater {
            lit,
            dist,
            lens,
            bits,
            nbits,
            phase,
            last,
            hlit,
            hdist,
            hclen,
            consumed,
            tally,
        } = self;
        lit.fill(0);
        dist.fill(0);
        lens.fill(0);
        (*bits, *nbits, *phase, *last) = (0, 0, Phase::Header, false);
        (*hlit, *hdist, *hclen, *consumed) = (0, 0, 0, 0);
        *tally = Tally::new(expected);
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

    /// Decodes from `input` into `out[start..]` (at most the bytes still expected), with
    /// `out[..start]` the last bytes produced before and `window` holding the bytes before
    /// `out` (`None`: nothing precedes it that a match may read).
    fn run(
        &mut self,
        input: &[u8],
        out: &mut [u8],
        start: usize,
        window: Option<&mut InflateRing>,
    ) -> Run {
        let mut ip = 0usize;
        let mut op = start;
        // The stream position of `out[0]`.
        let base = self.tally.produced() - start as u64;
        // The window's positions are the stream's, from 0 (only the low 15 bits of `base`
        // matter here).
        let window = Window::new(window, base as usize & WMASK);
        let (stop, error) = match self.step(input, &mut ip, out, &mut op, &window, base) {
            Ok(stop) => (stop, None),
            Err(e) => (Stop::InputEmpty, Some(e)),
        };
        Run {
            consumed: ip,
            produced: op - start,
            stop,
            error,
        }
    }

    /// The careful state machine, one step per phase, until a step suspends, the stream
    /// ends ([`Stop::End`]) or a fault. `base` bytes of the stream preceded `out`.
    fn step(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        window: &Window<'_>,
        base: u64,
    ) -> Result<Stop, InflateError> {
        loop {
            let stop = match self.phase {
                Phase::Done => return Ok(Stop::End),
                Phase::Header => self.header(input, ip)?,
                Phase::StoredLen => self.stored_len(input, ip, base + *op as u64)?,
                Phase::Stored { left } => self.stored(left, input, ip, out, op, base)?,
                Phase::DynHeader => self.dyn_header(input, ip)?,
                Phase::CodeLens { i } => self.code_lens(i, input, ip)?,
                Phase::Lens { i } => self.lens(i, input, ip)?,
                Phase::Copy { left, dist } => self.copy(left, dist, out, op, window)?,
                Phase::Symbols => self.symbols(input, ip, out, op, window, base)?,
            };
            if let Some(stop) = stop {
                return Ok(stop);
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
}

#[cfg(test)]
mod tests;
