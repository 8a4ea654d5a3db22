//! LZHUF (method 0x80) and XOR-then-LZHUF (method 0xA0): Yoshizaki's 1988 `LZHUF.C` format
//! (SPEC 3.2), decoded by a resumable state machine with a fast path, and encoded as
//! `LZHUF.C` does it.
//!
//! # The format
//! LZSS over a 4096-byte ring (write position starting at 4036 = `N - F`, `F` = 60), whose
//! literals and match lengths are one alphabet of 314 symbols coded by an adaptive Huffman
//! tree: 256 literals, then the lengths 3..=60. After every symbol the tree counts it and
//! keeps its nodes ordered by frequency; when the root's count reaches `0x8000` the counts
//! are halved and the tree rebuilt. A match symbol is followed by its position `p`
//! (the copy starts `p + 1` bytes back): 8 bits whose upper 6 come from a table, then 1 to
//! 6 more bits shifted in, the low 6 bits of the shifted value being the low 6 bits of `p`
//! (an implementation that ORs the extra bits into the unshifted byte is wrong). Bits are
//! read most significant first. The stream has no end marker and no length header:
//! decoding stops as soon as the entry's `unpacked_size` bytes are out, even inside a
//! match, and the input after the byte holding the last bit used is not part of it (the
//! consumed count says where it ended).
//!
//! # Where this follows the engine rather than `LZHUF.C`
//! * **Ring prefill.** The engine (`Ngi32.dll`) fills all 4096 ring bytes with `0x20`
//!   before decoding, and so does [`LzhufDecoder`]. `LZHUF.C`'s decoder fills only the
//!   first 4036 and leaves the last 60 (`4036..=4095`) at zero. Every stream an encoder
//!   makes decodes the same either way (an encoder refers only to bytes it has seen or to
//!   the prefill it shares with the decoder); only a crafted stream that copies from one
//!   of those 60 slots before it is written tells them apart, and it reads `0x20` here (a
//!   conformance test has one). The encoder (`encode`, feature `alloc`) prefills its own
//!   ring exactly as `LZHUF.C` does, so its choices are `LZHUF.C`'s.
//! * **Truncation.** `LZHUF.C` reads zero bits past the end of its input, so a truncated
//!   stream silently decodes to garbage; here a stream whose input ends (the caller says
//!   so) before `unpacked_size` bytes are out is a [`DecodeError::Truncated`]. A valid
//!   stream never needs a bit past its end, and the decoder never asks for a byte before
//!   it needs a bit of it.
//! * **Tree rebuild.** The rebuild shifts whole elements, as `LZHUF.C` does with its
//!   16-bit `int`s; ports that compiled its `memmove` byte count with 32-bit `int`s move
//!   half and go wrong after the first rebuild (about 32 K symbols in).
//!
//! # Decoding
//! [`LzhufDecoder`] implements the [`Decoder`] contract: it resumes at any byte boundary of
//! input and output (a symbol's bits may be split across calls at any bit, a match across
//! output calls at any byte), never allocates, never loops without progress, and never
//! writes past `unpacked_size` (but bytes of an output slice past what a call reports
//! produced may hold scratch of its 8-byte match copies, overwritten when decoding gets
//! there). With a key (method 0xA0) each packed byte is XORed with the
//! keystream of SPEC 2.3 as it is consumed: no second pass over the entry and no buffer of
//! it (the fast path decrypts 512 bytes at a time into a stack block).
//!
//! Its state is a plain struct of **9792 bytes** on 64-bit targets (asserted by a test):
//! the 4096-byte ring, the 5648-byte tree (`freq` 642, `son` 627 and `prnt` 1255 `u16`s,
//! and the 600-byte lookup of its top 5 levels the fast loop descends by),
//! and 44 bytes of bit buffer, phase, counters, keystream and error flag. It fits in a
//! `static`, on the stack or in a `Box`.
//!
//! [`decode_into`] is the one-shot form: the whole stream into an exact-size buffer. It
//! keeps no ring at all (the output is the window; references before its start read the
//! `0x20` prefill), so it needs only the tree and the bit buffer: about 9 KiB of stack
//! (with a key, the 512-byte block it decrypts into), as its tree has a deeper lookup (7
//! levels, 3480 bytes) than the streaming decoder's: 1.11-1.14× faster on text,
//! 0.99-1.02× on binary (BENCHMARKS.md).
//!
//! [`InPlaceDecoder`] is the third form, for callers that decode into a buffer of their
//! own and write the bytes on from there (`ngi cat`, `extract` and `verify` do): its
//! window is the caller's buffer (the last 4096 bytes before each call's room), so it
//! keeps no ring, and with the room under 10 KiB that frees it takes the one-shot
//! decoder's 7-level lookup (8 592 bytes of state). It decodes at 0.98-0.99× the one-shot
//! speed, where the ring-keeping `LzhufDecoder` runs at 0.85× (text) and 0.96× (binary)
//! (BENCHMARKS.md). See [`InPlace`](super::InPlace) for its contract.
//!
//! All three run the same code: a careful state machine that takes one bit at a time, and a
//! fast loop it enters whenever a whole symbol with its position is sure to fit in the
//! input and the output at hand (16 packed bytes, 64 bytes of room). The fast loop keeps a
//! 64-bit bit buffer refilled with one big-endian 8-byte load per symbol, takes a code's
//! first 5 (one-shot: 7) levels from a lookup kept over the top of the tree and walks
//! the rest with no edge checks, copies matches with slice copies, and never suspends;
//! on leaving
//! it hands back the whole bytes it had loaded but not used. The streaming decoder decodes
//! straight into the caller's output; its ring is read only for matches reaching back
//! before the current call, and refreshed once per call from the bytes produced.
//!
//! With the encoder (feature `alloc`):
//!
//! ```
//! # #[cfg(feature = "alloc")] {
//! use ngi_core::codec::lzhuf::{self, LzhufDecoder};
//! use ngi_core::{Decoder, Status};
//!
//! let text = b"LZHUF: LZSS with an adaptive Huffman coder; LZSS with an adaptive Huffman coder.";
//! let packed = lzhuf::encode(text);
//! assert!(packed.len() < text.len());
//!
//! let mut out = vec![0u8; text.len()];
//! assert_eq!(lzhuf::decode_into(&packed, None, &mut out), Ok(packed.len()));
//! assert_eq!(out, text);
//!
//! // The same stream, one byte of input and of output per call.
//! let mut decoder = LzhufDecoder::new(text.len() as u64, None);
//! let (mut consumed, mut got) = (0, Vec::new());
//! loop {
//!     let mut byte = [0u8; 1];
//!     let end = (consumed + 1).min(packed.len());
//!     let p = decoder.decode(&packed[consumed..end], &mut byte, end == packed.len()).unwrap();
//!     consumed += p.consumed;
//!     got.extend_from_slice(&byte[..p.produced]);
//!     if p.status == Status::Done {
//!         break;
//!     }
//! }
//! assert_eq!((consumed, &got[..]), (packed.len(), &text[..]));
//! # }
//! ```

use super::ring::{self, Ring};
use super::tally::{self, Stop, Tally};
use super::{DecodeError, Decoder, Progress};

mod decode;
mod deep;
#[cfg(feature = "alloc")]
mod encode;
mod fast;
mod in_place;
mod tables;
mod top;
mod tree;

#[cfg(feature = "alloc")]
pub use encode::encode;
#[cfg(feature = "alloc")]
pub(crate) use encode::try_encode;
pub use in_place::InPlaceDecoder;

use decode::Cursor;
use deep::DeepTop;
use top::Top;

/// Size of the ring (`N` of `LZHUF.C`).
pub const RING_SIZE: usize = 4096;
/// The byte the engine fills the whole ring with before decoding.
pub const PREFILL: u8 = 0x20;
/// The longest match (`F` of `LZHUF.C`).
pub const MAX_MATCH: usize = 60;
/// The shortest match (`THRESHOLD + 1` of `LZHUF.C`).
pub const MIN_MATCH: usize = 3;
/// The ring position the first output byte is written to (`N - F`).
pub const START: usize = RING_SIZE - MAX_MATCH;

const MASK: usize = RING_SIZE - 1;
/// The decoder's ring: no mirror, as no loop here reads it by words.
type LzhufRing = Ring<RING_SIZE, 0, PREFILL>;
/// What one call sees of the ring.
type Window<'a> = ring::Window<'a, RING_SIZE, 0, PREFILL>;

/// Decoder of LZHUF (method 0x80) and, with a key, XOR-then-LZHUF (method 0xA0).
///
/// State: 9792 bytes (the 4096-byte ring, prefilled with `0x20` as the engine does, the
/// 5648-byte adaptive Huffman tree and 44 bytes of bit buffer, phase, counters, keystream
/// and error flag), so it fits in a `static`, on the stack or in a `Box`. See the
/// [module docs](self) for the format and an example.
#[derive(Clone)]
pub struct LzhufDecoder {
    /// The last 4096 bytes produced by earlier calls, at their ring positions (`0x20` where
    /// nothing was written yet).
    ring: LzhufRing,
    cursor: Cursor,
    tally: Tally,
}

impl LzhufDecoder {
    /// A decoder that must produce exactly `unpacked_size` bytes; `key` is the entry's data
    /// key for method 0xA0 (`None` for method 0x80).
    pub const fn new(unpacked_size: u64, key: Option<u16>) -> LzhufDecoder {
        LzhufDecoder {
            ring: LzhufRing::new(),
            cursor: Cursor::new(key, Top::new()),
            tally: Tally::new(unpacked_size),
        }
    }

    /// A state of zero bytes, to be [`reset`](LzhufDecoder::reset) before use: written
    /// with a memset, where [`new`](LzhufDecoder::new)'s (its ring of spaces, its tree)
    /// would be copied from a 9.6 KiB constant the program holds.
    pub(crate) const ZEROED: LzhufDecoder = LzhufDecoder {
        ring: LzhufRing::zeroed(),
        cursor: Cursor::zeroed(Top::zeroed()),
        tally: Tally::new(0),
    };

    /// The state [`new`](LzhufDecoder::new) gives, written in place, for a decoder reused
    /// entry after entry: no 10 KiB value is built on the stack to be moved here.
    pub fn reset(&mut self, unpacked_size: u64, key: Option<u16>) {
        self.ring.reset();
        self.cursor.reset(key, Top::new());
        self.tally = Tally::new(unpacked_size);
    }
}

impl Decoder for LzhufDecoder {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let output = self.tally.begin(output)?;
        // The ring position of `output[0]`; `produced % 4096` taken without truncating.
        let base = (START + (self.tally.produced() & MASK as u64) as usize) & MASK;
        let window = Window::new(Some(&mut self.ring), base);
        let run = self.cursor.run(input, output, 0, &window);
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

/// Decodes a whole LZHUF stream (method 0x80, or 0xA0 with `key`) into `out`, whose length
/// is the entry's `unpacked_size`, and returns how many bytes of `packed` the stream used:
/// the bytes up to and including the one holding its last bit (the rest is not part of
/// it).
///
/// No ring is kept: the output is the window.
///
/// ```
/// use ngi_core::codec::lzhuf;
///
/// // The initial tree gives the literal 'A' the 9-bit code 111001101; padding fills the
/// // second byte, and the third is not part of the stream.
/// let mut out = [0u8; 1];
/// assert_eq!(lzhuf::decode_into(&[0b1110_0110, 0b1000_0000, 0xFF], None, &mut out), Ok(2));
/// assert_eq!(&out, b"A");
/// ```
///
/// # Errors
///
/// * [`DecodeError::Truncated`] when `packed` ends before `out` is full;
///   `out[..produced]` then holds the bytes decoded.
pub fn decode_into(packed: &[u8], key: Option<u16>, out: &mut [u8]) -> Result<usize, DecodeError> {
    let mut cursor = Cursor::new(key, DeepTop::new());
    let window = Window::new(None, START);
    let run = cursor.run(packed, out, 0, &window);
    tally::one_shot(run.consumed, run.produced, out.len())
}

/// What one [`Cursor::run`] did.
#[derive(Debug)]
struct Run {
    consumed: usize,
    produced: usize,
    /// Why it stopped: for want of input, or with the output full.
    stop: Stop,
}

#[cfg(test)]
mod tests;
