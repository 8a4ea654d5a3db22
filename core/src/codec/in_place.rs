//! Streaming with the window in the caller's buffer: the contract of the decoders that
//! keep no window of their own ([`InPlace`]), and their dispatch by method
//! ([`InPlaceUnpacker`]).
//!
//! Why a second streaming form: a [`Decoder`](super::Decoder) decodes into whatever room
//! each call is given, so it keeps its own window (copying every call's output into it)
//! and picks per match whether the source is there or in the call's output. That costs
//! Deflate 10-20 % and LZHUF 4-16 % against their one-shot forms (BENCHMARKS.md). Here the
//! bytes before each call's room are the last ones decoded, matches read them where they
//! are through the one-shot loop, and the only copy is a slide of the last window, once
//! per buffer's worth of output. A caller that writes the decoded bytes on (to a file, a
//! pipe, a socket) writes them from the buffer itself.

use super::tally::{Kept, Tally};
use super::{DecodeError, Method, Progress, inflate, lzhuf};

/// A resumable decoder whose window is the caller's buffer. Each call decodes into
/// `buf[at..]` and reads matches from `buf[..at]`, which must hold the last `at` bytes
/// decoded: all of them while fewer than a window are, at least a window after that
/// (32 KiB for Deflate, 4 KiB for LZHUF). When the buffer is full,
/// [`slide`](InPlace::slide) moves what a match can still reach to its front and returns
/// the `at` to go on with (or [`retain`](InPlace::retain) says how many of the last bytes
/// to copy to the front of another buffer, to go on in that one).
///
/// Bytes before the room that are not the last ones decoded decode to other bytes;
/// [`DecodeError::HistoryMismatch`] catches only a count that cannot be right. Otherwise
/// as the [`Decoder`](super::Decoder) contract: exactly `unpacked_size` bytes, resumable at
/// any byte of input, the same output, errors and offsets, a failure kept.
pub trait InPlace {
    /// Decodes from `input` into `buf[at..]` (at most the bytes still expected), reading
    /// matches from `buf[..at]`, which must be the last `at` bytes produced (see the
    /// [trait's docs](InPlace)). `Progress::produced` bytes from `buf[at]` on are new.
    /// The rest of the room, `buf[at + produced..]`, is scratch: a call may write bytes
    /// there that it does not count as produced (the fast loops copy whole words), so keep
    /// nothing in it. `buf[..at]` is only read.
    ///
    /// # Errors
    ///
    /// * A decoder that failed before returns its failure again, whatever the buffer.
    /// * [`DecodeError::HistoryMismatch`], before anything is decoded, when `at` is past
    ///   the buffer, more than the bytes produced, or less than a window of them; that
    ///   failure is not kept.
    /// * The stream's faults, as the [`Decoder`](super::Decoder) contract has them:
    ///   [`DecodeError::Truncated`] once `input_ended` is set and the stream needs more,
    ///   [`DecodeError::Inflate`] for a corrupt Deflate stream.
    fn decode(
        &mut self,
        input: &[u8],
        buf: &mut [u8],
        at: usize,
        input_ended: bool,
    ) -> Result<Progress, DecodeError>;

    /// How many of the bytes before `end` (where the decoded bytes end in the buffer) a
    /// later match can still reach: copy that many, the last ones before `end`, to the
    /// front of the next buffer, and go on there with `at` at their end. Never more than
    /// `end`, the bytes produced or a window. `rest` is the input the next calls are given
    /// first (the unconsumed input): a decoder may keep fewer when it shows bytes that
    /// push the window out before a match can come (Deflate's stored blocks), so give it
    /// exactly that, or later bytes may decode wrong.
    fn retain(&mut self, end: usize, rest: &[u8]) -> usize;

    /// [`retain`](InPlace::retain) and the move: the bytes of `buf[..end]` that a later
    /// match can still reach, to the front of `buf`; returns how many (the `at` to go on
    /// with). `end` past the buffer or past the bytes produced counts as the smaller of
    /// the two.
    ///
    /// A return of `buf.len()` (with the stream not done) says the buffer is no longer
    /// than the window it must keep: no call can decode into it, each returns
    /// [`OutputFull`](super::Status::OutputFull) with nothing done, so a loop that slides
    /// and calls again spins. Go on in a buffer of at least [`window`](InPlace::window)
    /// bytes and one more, from the bytes kept. (A call with no room is not refused: the
    /// decoder cannot tell a buffer cut short for one call from one that is too small.)
    fn slide(&mut self, buf: &mut [u8], end: usize, rest: &[u8]) -> usize {
        let end = (end.min(buf.len()) as u64).min(self.produced_total()) as usize;
        // `retain` keeps at most `end` bytes; the `min` holds an implementation outside
        // this crate to that too, instead of panicking on it.
        let keep = self.retain(end, rest).min(end);
        buf.copy_within(end - keep..end, 0);
        keep
    }

    /// The most bytes before the room a call may need (the format's window): 32 KiB for
    /// Deflate, 4 KiB for LZHUF. A buffer of a window and some room decodes any stream.
    fn window(&self) -> usize;

    /// The bytes the stream must produce (`unpacked_size`).
    fn expected_len(&self) -> u64;

    /// The bytes produced so far.
    fn produced_total(&self) -> u64;
}

/// The start of every in-place call, before anything is decoded: the kept failure if the
/// decoder failed, else a refusal of a history that cannot be right (`at` past the
/// buffer, more than the `produced` bytes, or fewer than a `window` of them, counted from
/// `floor`, before which no match can reach), else the room after `at` (cut to what the
/// entry has left).
pub(crate) fn begin<K: Kept>(
    tally: &Tally<K>,
    buf: &mut [u8],
    at: usize,
    window: usize,
    floor: u64,
) -> Result<usize, DecodeError> {
    // A failure kept comes first, as every decoder returns it again.
    let room = tally.begin(buf.get_mut(at..).unwrap_or_default())?.len();
    let produced = tally.produced();
    // A stream that is done needs no window: its later calls (no room, `Done`) may come
    // after a slide that kept nothing.
    let needed = match produced == tally.expected() {
        true => 0,
        false => produced.saturating_sub(floor).min(window as u64),
    };
    let given = at as u64;
    if at > buf.len() || given < needed || given > produced {
        return Err(DecodeError::HistoryMismatch {
            given,
            // At most a window (32 KiB), so it fits.
            needed: needed.min(u64::from(u16::MAX)) as u16,
            produced,
        });
    }
    Ok(room)
}

/// The in-place decoder of the methods that have one: Deflate, and LZHUF with or without
/// its key. (Stored and XOR entries need no window; LZSS has no in-place form yet.)
///
/// ```
/// use ngi_core::codec::{InPlace, InPlaceUnpacker};
/// use ngi_core::{Method, Status};
///
/// // zlib's fixed-Huffman block for "aaaaaa".
/// let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00];
/// let mut d = InPlaceUnpacker::new(Method::Deflate, 6, 0).unwrap();
/// // A window and 16 KiB of room.
/// let mut buf = vec![0u8; d.window() + (16 << 10)];
/// let (mut at, mut pos, mut got) = (0, 0, Vec::new());
/// loop {
///     if at == buf.len() {
///         at = d.slide(&mut buf, at, &packed[pos..]);
///     }
///     let p = d.decode(&packed[pos..], &mut buf, at, true).unwrap();
///     // The bytes decoded by this call, read where they are.
///     got.extend_from_slice(&buf[at..at + p.produced]);
///     (pos, at) = (pos + p.consumed, at + p.produced);
///     if p.status == Status::Done {
///         break;
///     }
/// }
/// assert_eq!(got, b"aaaaaa");
/// assert!(InPlaceUnpacker::new(Method::Lzss, 6, 0).is_none());
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
// Fixed size by design, as `Unpacker`: the whole state inline (9 616 bytes), no allocator.
#[allow(clippy::large_enum_variant)]
pub enum InPlaceUnpacker {
    /// Method 0x100.
    Inflate(inflate::InPlaceDecoder),
    /// Methods 0x080 and 0x0A0 (keyed).
    Lzhuf(lzhuf::InPlaceDecoder),
}

impl InPlaceUnpacker {
    /// The in-place decoder of `method` that must produce exactly `unpacked_size` bytes,
    /// keyed by `key` (method 0x0A0 uses it); `None` for a method without one.
    pub const fn new(method: Method, unpacked_size: u64, key: u16) -> Option<Self> {
        let n = unpacked_size;
        match method {
            Method::Deflate => Some(InPlaceUnpacker::Inflate(inflate::InPlaceDecoder::new(n))),
            Method::Lzhuf => Some(InPlaceUnpacker::Lzhuf(lzhuf::InPlaceDecoder::new(n, None))),
            Method::XorLzhuf => Some(InPlaceUnpacker::Lzhuf(lzhuf::InPlaceDecoder::new(
                n,
                Some(key),
            ))),
            Method::Stored | Method::Xor | Method::Lzss | Method::XorLzss => None,
        }
    }

    /// Makes this the decoder [`new`](InPlaceUnpacker::new) gives for these arguments,
    /// and returns `true`; for a method without an in-place form, returns `false` and
    /// leaves the decoder as it was. A decoder of the same method is reset where it is; one
    /// of the other method is replaced by a new state built apart (under 10 KiB).
    ///
    /// ```
    /// use ngi_core::codec::{InPlace, InPlaceUnpacker};
    /// use ngi_core::Method;
    ///
    /// let mut decoder = InPlaceUnpacker::new(Method::Deflate, 3, 0).unwrap();
    /// let mut buf = [0u8; 8];
    /// // A stored block of "abc", then, after a reset, one of "hi".
    /// decoder.decode(&[1, 3, 0, 0xFC, 0xFF, b'a', b'b', b'c'], &mut buf, 0, true).unwrap();
    /// assert!(decoder.reset(Method::Deflate, 2, 0));
    /// let p = decoder.decode(&[1, 2, 0, 0xFD, 0xFF, b'h', b'i'], &mut buf, 0, true).unwrap();
    /// assert_eq!(&buf[..p.produced], b"hi");
    /// assert!(!decoder.reset(Method::Lzss, 2, 0));
    /// ```
    #[must_use = "false means the method has no in-place form and nothing was reset"]
    pub fn reset(&mut self, method: Method, unpacked_size: u64, key: u16) -> bool {
        let n = unpacked_size;
        let lzhuf_key = match method {
            Method::Deflate => {
                match self {
                    InPlaceUnpacker::Inflate(d) => d.reset(n),
                    InPlaceUnpacker::Lzhuf(_) => {
                        *self = InPlaceUnpacker::Inflate(inflate::InPlaceDecoder::new(n));
                    }
                }
                return true;
            }
            Method::Lzhuf => None,
            Method::XorLzhuf => Some(key),
            Method::Stored | Method::Xor | Method::Lzss | Method::XorLzss => return false,
        };
        match self {
            InPlaceUnpacker::Lzhuf(d) => d.reset(n, lzhuf_key),
            InPlaceUnpacker::Inflate(_) => {
                *self = InPlaceUnpacker::Lzhuf(lzhuf::InPlaceDecoder::new(n, lzhuf_key));
            }
        }
        true
    }

    fn as_in_place(&mut self) -> &mut dyn InPlace {
        match self {
            InPlaceUnpacker::Inflate(d) => d,
            InPlaceUnpacker::Lzhuf(d) => d,
        }
    }

    fn as_in_place_ref(&self) -> &dyn InPlace {
        match self {
            InPlaceUnpacker::Inflate(d) => d,
            InPlaceUnpacker::Lzhuf(d) => d,
        }
    }
}

impl InPlace for InPlaceUnpacker {
    fn decode(
        &mut self,
        input: &[u8],
        buf: &mut [u8],
        at: usize,
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        self.as_in_place().decode(input, buf, at, input_ended)
    }

    fn retain(&mut self, end: usize, rest: &[u8]) -> usize {
        self.as_in_place().retain(end, rest)
    }

    fn window(&self) -> usize {
        self.as_in_place_ref().window()
    }

    fn expected_len(&self) -> u64 {
        self.as_in_place_ref().expected_len()
    }

    fn produced_total(&self) -> u64 {
        self.as_in_place_ref().produced_total()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host without a heap keeps its decoder in a `static`: every constructor is `const`.
    #[test]
    fn in_place_decoders_are_built_in_const_contexts() {
        static INFLATE: inflate::InPlaceDecoder = inflate::InPlaceDecoder::new(7);
        static LZHUF: lzhuf::InPlaceDecoder = lzhuf::InPlaceDecoder::new(7, Some(1));
        static UNPACKER: Option<InPlaceUnpacker> = InPlaceUnpacker::new(Method::Deflate, 7, 0);
        assert_eq!(INFLATE.produced_total(), 0);
        assert_eq!(LZHUF.produced_total(), 0);
        assert!(matches!(UNPACKER, Some(InPlaceUnpacker::Inflate(_))));
    }

    /// A reset forgets how little of the window a slide inside a stored block kept: the
    /// next stream's calls must give back its window as a new decoder's must.
    #[test]
    fn a_reset_forgets_how_little_a_slide_kept() {
        use super::super::DecodeError;
        // A final stored block of 40 000 bytes: after 1 000, the rest of the block pushes
        // them out of the window before a match can come, so `retain` keeps none.
        let mut stored = [0u8; 1005];
        stored[..5].copy_from_slice(&[0x01, 0x40, 0x9C, 0xBF, 0x63]);
        let mut used = inflate::InPlaceDecoder::new(40_000);
        let p = used.decode(&stored, &mut [0u8; 1000], 0, false).unwrap();
        assert_eq!(p.produced, 1000);
        assert_eq!(used.retain(1000, &stored[p.consumed..]), 0);
        used.reset(6);
        // zlib's fixed-Huffman block for "aaaaaa": 4 bytes, then a call given none of
        // them back, which a match may reach.
        let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00];
        for mut d in [used, inflate::InPlaceDecoder::new(6)] {
            let p = d.decode(&packed, &mut [0u8; 4], 0, true).unwrap();
            assert_eq!(p.produced, 4);
            let refused = d.decode(&packed[p.consumed..], &mut [0u8; 8], 0, true);
            assert_eq!(
                refused,
                Err(DecodeError::HistoryMismatch {
                    given: 0,
                    needed: 4,
                    produced: 4
                })
            );
        }
    }

    /// Decodes `packed` whole into a buffer of its own, one call.
    #[cfg(feature = "deflate")]
    fn decoded(d: &mut InPlaceUnpacker, packed: &[u8], len: usize) -> alloc::vec::Vec<u8> {
        let mut buf = alloc::vec![0u8; len];
        let p = d.decode(packed, &mut buf, 0, true).unwrap();
        assert_eq!((p.consumed, p.produced), (packed.len(), len));
        assert_eq!(p.status, super::super::Status::Done);
        buf
    }

    /// A reset decoder decodes as a new one, halfway through a stream or after one, to
    /// the same method or the other, and a method without an in-place form changes nothing.
    #[cfg(feature = "deflate")]
    #[test]
    fn a_reset_decoder_decodes_as_a_new_one() {
        use super::super::{PackOptions, pack};
        let text = b"in place, in place, reset and decoded again ".repeat(40);
        let key = 0x5A17;
        let streams = [Method::Deflate, Method::Lzhuf, Method::XorLzhuf].map(|m| {
            let packed = pack(m, key, &text, &PackOptions::default()).unwrap();
            (m, packed)
        });
        for (first, first_packed) in &streams {
            for (next, next_packed) in &streams {
                for cut in [0, first_packed.len() / 2, first_packed.len()] {
                    let mut d = InPlaceUnpacker::new(*first, text.len() as u64, key).unwrap();
                    let mut buf = alloc::vec![0u8; text.len()];
                    d.decode(&first_packed[..cut], &mut buf, 0, false).unwrap();
                    assert!(!d.reset(Method::Lzss, 1, key));
                    assert!(d.reset(*next, text.len() as u64, key));
                    let got = decoded(&mut d, next_packed, text.len());
                    assert!(got == text, "{first} cut at {cut}, then {next}");
                }
            }
        }
    }
}
