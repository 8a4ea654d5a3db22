//! LZSS (method 0x40) and XOR-then-LZSS (method 0x60): Okumura's 1989 `LZSS.C` format
//! (SPEC 3.1), decoded by a resumable state machine with a fast path, and encoded byte for
//! byte as `LZSS.C` does it.
//!
//! # The format
//! A 4096-byte ring, write position starting at `0xFEE`. A control byte gives 8 flags, least
//! significant bit first. Flag 1: one literal byte follows. Flag 0: two bytes `lo`, `hi`
//! follow, naming the absolute ring position `lo | (hi & 0xF0) << 4` and the length
//! `(hi & 0x0F) + 3`; the bytes are copied one at a time from the ring to the ring (so a copy
//! may overlap its own output) and to the output. The stream has no end marker: decoding
//! stops as soon as the entry's `unpacked_size` bytes are out, even inside a copy or a
//! control byte, and any input after that point is not part of the stream (the consumed
//! count says where it ended).
//!
//! # The ring prefill: engine, not `LZSS.C`
//! The engine (`Ngi32.dll`) fills all 4096 ring bytes with `0x20` before decoding, and so
//! does [`LzssDecoder`]. `LZSS.C`'s decoder fills only the first 4078 (`N - F`) and leaves
//! the last 18, `0xFEE..=0xFFF`, at zero (the `pylzss` port leaves them uninitialised; in
//! practice they read as zero too). The two agree on every stream an encoder produces,
//! because an encoder only refers to bytes it has seen or to the `0x20` prefill it shares
//! with the decoder; they differ only on a crafted stream that copies from one of those 18
//! slots before it is first written (the conformance tests have one: it yields `0x20` here).
//! The encoder (`encode`, feature `alloc`) prefills its own ring exactly as `LZSS.C` does, so its output is
//! `LZSS.C`'s.
//!
//! # Decoding
//! [`LzssDecoder`] implements the [`Decoder`] contract: it resumes at any byte boundary of
//! input and output (inside a control byte, between the two bytes of a match, inside a
//! copy), never allocates, and never writes past `unpacked_size` (nor past the bytes it
//! reports produced). With a key (method 0x60) each packed byte is XORed with the
//! keystream of SPEC 2.3 as it is consumed: no second pass over the entry and no buffer of
//! it.
//!
//! Its state is a plain struct of **4152 bytes** on 64-bit targets (asserted by a test):
//! the 4096-byte ring with its first 18 bytes mirrored past the end (4114), the
//! bookkeeping every decoder shares (the expected and produced counts and the failure
//! flag: 17 bytes, padded to 24 as a struct of its own), and 10 bytes of flags, phase and
//! keystream: 4148, padded to 4152. It can live in a `static`, on the stack or in a `Box`.
//!
//! [`decode_into`] is the one-shot form: the whole stream into an exact-size buffer. It
//! keeps no ring at all: the output is the window, and only references to bytes before the
//! start of the output (the `0x20` prefill) are served specially.
//!
//! Both forms run the same code. A careful state machine takes one byte at a time and can
//! stop anywhere; whenever a whole group (a control byte and its 8 units) fits in the input
//! and output at hand, fast loops take over, which keep their state in locals, never
//! suspend, and move every unit with the same branch-free 18-byte copy (see `fast.rs` for
//! their preconditions and why the scratch they write past a unit never outlives the call).
//! The streaming form decodes straight into the caller's output: its ring is read only by
//! matches that reach back before the current call, and refreshed once per call from the
//! bytes produced. So the careful path runs only at the edges of each call.
//!
//! ```
//! use ngi_core::codec::lzss::{self, LzssDecoder};
//! use ngi_core::{Decoder, Status};
//!
//! // One literal 'a', then a 17-byte copy of the ring slot it was written to: overlapping.
//! let packed = [0b0000_0001, b'a', 0xEE, 0xFE];
//! let mut out = [0u8; 18];
//! assert_eq!(lzss::decode_into(&packed, None, &mut out), Ok(4));
//! assert_eq!(out, [b'a'; 18]);
//!
//! // The same stream, one byte of input and one of output per call.
//! let mut decoder = LzssDecoder::new(18, None);
//! let (mut consumed, mut produced) = (0, 0);
//! let mut streamed = [0u8; 18];
//! loop {
//!     let input = &packed[consumed..(consumed + 1).min(packed.len())];
//!     let room = &mut streamed[produced..(produced + 1).min(18)];
//!     let p = decoder.decode(input, room, consumed + input.len() == packed.len()).unwrap();
//!     consumed += p.consumed;
//!     produced += p.produced;
//!     if p.status == Status::Done {
//!         break;
//!     }
//! }
//! assert_eq!((consumed, streamed), (4, out));
//! ```

use super::ring::{self, Ring};
use super::tally::{self, Stop, Tally};
use super::{DecodeError, Decoder, Progress, XorStream};

#[cfg(feature = "alloc")]
mod encode;
mod fast;

#[cfg(feature = "alloc")]
pub use encode::encode;
#[cfg(feature = "alloc")]
pub(crate) use encode::try_encode;

/// Size of the ring (`N` of `LZSS.C`).
pub const RING_SIZE: usize = 4096;
/// The byte the engine fills the whole ring with before decoding.
pub const PREFILL: u8 = 0x20;
/// The ring position the first output byte is written to (`N - F` of `LZSS.C`).
pub const START: usize = RING_SIZE - MAX_MATCH;
/// The shortest match (`THRESHOLD + 1` of `LZSS.C`).
pub const MIN_MATCH: usize = 3;
/// The longest match (`F` of `LZSS.C`).
pub const MAX_MATCH: usize = 18;

const MASK: usize = RING_SIZE - 1;
/// The decoder's ring with its first 18 bytes mirrored past the end, so that any 18 bytes
/// (a unit's move in the fast loop) from any position can be read without wrapping.
type LzssRing = Ring<{ RING_SIZE + MAX_MATCH }, MAX_MATCH, PREFILL>;
/// What one call sees of the ring. The call's first 18 bytes are written through to it as
/// they are produced ([`Window::write_through`]), so that an 18-byte move from just before
/// the call's output reads them.
type Window<'a> = ring::Window<'a, { RING_SIZE + MAX_MATCH }, MAX_MATCH, PREFILL>;

/// Decoder of LZSS (method 0x40) and, with a key, XOR-then-LZSS (method 0x60).
///
/// State: 4152 bytes on 64-bit targets (the 4096-byte ring, prefilled with `0x20` as the
/// engine does, 18 bytes mirroring its start, and counters, flags and keystream), so it
/// fits in a `static`, on the stack or in a `Box`. See the [module docs](self) for the
/// format and an example.
#[derive(Clone)]
pub struct LzssDecoder {
    /// The last 4096 bytes produced by earlier calls, at their ring positions (`0x20` where
    /// nothing was written yet), then the first 18 again.
    ring: LzssRing,
    tally: Tally,
    cursor: Cursor,
}

impl LzssDecoder {
    /// A decoder that must produce exactly `unpacked_size` bytes; `key` is the entry's data
    /// key for method 0x60 (`None` for method 0x40).
    pub const fn new(unpacked_size: u64, key: Option<u16>) -> LzssDecoder {
        LzssDecoder {
            ring: LzssRing::new(),
            tally: Tally::new(unpacked_size),
            cursor: Cursor::new(key),
        }
    }

    /// A state of zero bytes, to be [`reset`](LzssDecoder::reset) before use: written
    /// with a memset, where [`new`](LzssDecoder::new)'s ring of spaces would be copied
    /// from a constant.
    pub(crate) const ZEROED: LzssDecoder = LzssDecoder {
        ring: LzssRing::zeroed(),
        tally: Tally::new(0),
        cursor: Cursor {
            flags: 0,
            phase: Phase::Unit,
            xor: None,
        },
    };

    /// The state [`new`](LzssDecoder::new) gives, written in place, for a decoder reused
    /// entry after entry: no 4 KiB value is built on the stack to be moved here.
    pub fn reset(&mut self, unpacked_size: u64, key: Option<u16>) {
        self.ring.reset();
        self.tally = Tally::new(unpacked_size);
        self.cursor = Cursor::new(key);
    }
}

impl Decoder for LzssDecoder {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let output = self.tally.begin(output)?;
        // The ring position of `output[0]`; `produced % 4096` computed without truncating.
        let base = (START + (self.tally.produced() & MASK as u64) as usize) & MASK;
        let mut window = Window::new(Some(&mut self.ring), base);
        let run = self.cursor.run(input, output, &mut window);
        self.ring.remember(&output[..run.produced], base);
        self.tally
            .settle(run.consumed, run.produced, run.stop, input_ended)
    }

    fn expected_len(&self) -> u64 {
        self.tally.expected()
    }

    fn produced_total(&self) -> u64 {
        self.tally.produced()
    }
}

/// Decodes a whole LZSS stream (method 0x40, or 0x60 with `key`) into `out`, whose length
/// is the entry's `unpacked_size`, and returns how many bytes of `packed` the stream used
/// (the rest is not part of it).
///
/// No ring is kept: the output is the window.
///
/// ```
/// use ngi_core::codec::lzss;
///
/// // A 3-byte copy from ring slot 0, still the 0x20 prefill, then the literal '!'.
/// let mut out = [0u8; 4];
/// assert_eq!(lzss::decode_into(&[0b10, 0x00, 0x00, b'!', 0xAA], None, &mut out), Ok(4));
/// assert_eq!(&out, b"   !");
/// ```
///
/// # Errors
///
/// * [`DecodeError::Truncated`] when `packed` ends before `out` is full;
///   `out[..produced]` then holds the bytes decoded.
pub fn decode_into(packed: &[u8], key: Option<u16>, out: &mut [u8]) -> Result<usize, DecodeError> {
    let mut cursor = Cursor::new(key);
    let mut window = Window::new(None, START);
    let run = cursor.run(packed, out, &mut window);
    tally::one_shot(run.consumed, run.produced, out.len())
}

/// Where the decoder stands between two bytes of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before a unit: the next flag (after a new control byte, if the flags are used up)
    /// says which kind.
    Unit,
    /// The flag said literal: its byte is next.
    Literal,
    /// The flag said match: `lo` is next.
    MatchLo,
    /// `lo` was read: `hi` is next.
    MatchHi { lo: u8 },
    /// A match is being copied: `left` bytes from `dist` bytes back.
    Copy { dist: u16, left: u8 },
}

/// The whole decoding state except the window: what the one-shot and streaming forms share.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    /// The flags of the current control byte not used yet, above a sentinel bit: `1` when
    /// they are used up (the engine's and `LZSS.C`'s `0xFF00` trick, counted downwards).
    flags: u16,
    phase: Phase,
    /// The keystream of method 0x60, positioned at the next packed byte.
    xor: Option<XorStream>,
}

/// What one [`Cursor::run`] did.
#[derive(Debug)]
struct Run {
    consumed: usize,
    produced: usize,
    /// Why it stopped: for want of input, or with the output full.
    stop: Stop,
}

impl Cursor {
    const fn new(key: Option<u16>) -> Cursor {
        Cursor {
            flags: 1,
            phase: Phase::Unit,
            xor: match key {
                Some(key) => Some(XorStream::new(key)),
                None => None,
            },
        }
    }

    /// The next packed byte, decrypted, or `None` when the input is used up.
    #[inline(always)]
    fn take(&mut self, io: &mut Io<'_, '_>) -> Option<u8> {
        let byte = *io.input.get(io.ip)?;
        io.ip += 1;
        Some(match &mut self.xor {
            Some(xor) => byte ^ xor.next_byte(),
            None => byte,
        })
    }

    /// Decodes from `input` into `out` until `out` is full or `input` runs dry. `out` must
    /// not be longer than what is left of the entry.
    ///
    /// This is the careful path: every step below takes one byte at a time, saves where it
    /// is in `phase` before it needs the next one, and returns `None` (suspends) when the
    /// input runs dry. Each step goes straight on into the next one while bytes last, so a
    /// unit whose bytes are at hand is decoded in one go. Whenever a whole group fits, the
    /// fast loop takes over.
    fn run(&mut self, input: &[u8], out: &mut [u8], window: &mut Window<'_>) -> Run {
        let mut io = Io {
            input,
            ip: 0,
            out,
            op: 0,
        };
        let stop = loop {
            if io.op == io.out.len() {
                break Stop::OutputFull;
            }
            if self.phase == Phase::Unit && io.fits() {
                let at = (io.ip, io.op);
                self.fast(&mut io, window);
                if (io.ip, io.op) != at {
                    continue;
                }
            }
            let step = match self.phase {
                Phase::Unit => self.unit(&mut io, window),
                Phase::Literal => self.literal(&mut io, window),
                Phase::MatchLo => self.match_lo(&mut io, window),
                Phase::MatchHi { lo } => self.match_hi(lo, &mut io, window),
                Phase::Copy { dist, left } => self.copy(dist, left, &mut io, window),
            };
            if step.is_none() {
                break Stop::InputEmpty;
            }
        };
        Run {
            consumed: io.ip,
            produced: io.op,
            stop,
        }
    }

    /// A unit starts: a new control byte if the flags are used up, then the next flag.
    fn unit(&mut self, io: &mut Io<'_, '_>, window: &mut Window<'_>) -> Option<()> {
        if self.flags <= 1 {
            self.flags = u16::from(self.take(io)?) | 0x100;
        }
        let literal = self.flags & 1 == 1;
        self.flags >>= 1;
        if literal {
            self.phase = Phase::Literal;
            self.literal(io, window)
        } else {
            self.phase = Phase::MatchLo;
            self.match_lo(io, window)
        }
    }

    /// A literal's byte (there is output room: the caller checked).
    fn literal(&mut self, io: &mut Io<'_, '_>, window: &mut Window<'_>) -> Option<()> {
        let byte = self.take(io)?;
        io.out[io.op] = byte;
        window.write_through(io.out, io.op, 1);
        io.op += 1;
        self.phase = Phase::Unit;
        Some(())
    }

    /// A match's first byte.
    fn match_lo(&mut self, io: &mut Io<'_, '_>, window: &mut Window<'_>) -> Option<()> {
        let lo = self.take(io)?;
        self.phase = Phase::MatchHi { lo };
        self.match_hi(lo, io, window)
    }

    /// A match's second byte; then the copy starts.
    fn match_hi(&mut self, lo: u8, io: &mut Io<'_, '_>, window: &mut Window<'_>) -> Option<()> {
        let hi = self.take(io)?;
        let (offset, len) = fast::unit(lo, hi);
        let dist = fast::distance(window.base, io.op, offset) as u16;
        self.phase = Phase::Copy {
            dist,
            left: len as u8,
        };
        self.copy(dist, len as u8, io, window)
    }

    /// As much of a match's copy as the output room takes (there is some: the caller
    /// checked).
    fn copy(
        &mut self,
        dist: u16,
        left: u8,
        io: &mut Io<'_, '_>,
        window: &mut Window<'_>,
    ) -> Option<()> {
        let n = usize::from(left).min(io.out.len() - io.op);
        window.copy_match::<MAX_MATCH>(io.out, io.op, usize::from(dist), n);
        window.write_through(io.out, io.op, n);
        io.op += n;
        self.phase = match left - n as u8 {
            0 => Phase::Unit,
            left => Phase::Copy { dist, left },
        };
        Some(())
    }

    /// Runs the fast loops, decrypting the input blockwise first for method 0x60.
    fn fast(&mut self, io: &mut Io<'_, '_>, window: &mut Window<'_>) {
        let Some(xor) = &mut self.xor else {
            let (input, out) = (io.input, &mut *io.out);
            return fast::groups(
                input,
                &mut io.ip,
                out,
                &mut io.op,
                &mut self.flags,
                window,
                true,
            );
        };
        let mut block = [0u8; fast::XOR_BLOCK];
        while io.fits() {
            let n = (io.input.len() - io.ip).min(fast::XOR_BLOCK);
            let before = *xor;
            xor.apply_copy(&io.input[io.ip..io.ip + n], &mut block);
            let mut used = 0;
            let to_end = io.ip + n == io.input.len();
            let flags = &mut self.flags;
            fast::groups(
                &block[..n],
                &mut used,
                io.out,
                &mut io.op,
                flags,
                window,
                to_end,
            );
            if used == 0 {
                *xor = before;
                break;
            }
            if used < n {
                // Put the keystream back at the first byte not used: replay `used` steps.
                *xor = before;
                xor.apply(&mut block[..used]);
            }
            io.ip += used;
        }
    }
}

/// The input and output of one call, and how far into each it is.
#[derive(Debug)]
struct Io<'i, 'o> {
    input: &'i [u8],
    ip: usize,
    out: &'o mut [u8],
    op: usize,
}

impl Io<'_, '_> {
    /// Whether a fast loop can run a group.
    fn fits(&self) -> bool {
        fast::fits(self.input.len() - self.ip, self.out.len() - self.op)
    }
}

#[cfg(test)]
mod tests;
