//! Deflate with the window in the caller's buffer ([`InPlaceDecoder`]; the contract is
//! [`InPlace`]'s): the bytes before each call's output room are the last ones decoded, so
//! matches read them where they are, through the one-shot loop, and the decoder keeps no
//! window of its own.
//!
//! [`InflateDecoder`](super::InflateDecoder) decodes into whatever room each call is
//! given, so a match may reach back into its own window or into the call's output, and it
//! must pick one per match and copy every call's output into the window. With 32 KiB of
//! room per call that costs it 7-18 % against one-shot decoding (as it does zlib-rs, built
//! the same way; see BENCHMARKS.md).

use super::window::stored_ahead;
use super::{Inflater, Phase, WINDOW_SIZE};
use crate::codec::in_place::{self, InPlace};
use crate::codec::{DecodeError, Progress};

/// A Deflate decoder whose window is the caller's buffer (see [`InPlace`] for the
/// contract; import the trait to call it). Each call decodes into `buf[at..]` and reads
/// matches from `buf[..at]`, which must hold the last `at` bytes decoded: all of them
/// while fewer than a window (32 KiB) are, at least a window after that.
///
/// Otherwise as [`InflateDecoder`](super::InflateDecoder): exactly `unpacked_size`
/// bytes, resumable at any byte of input, the same output, errors and offsets, a failure
/// kept. The state is the decoding tables and counters only (9 616 bytes on 64-bit
/// targets). Give it a buffer well over a window, so that each slide pays for many calls'
/// output: with a window and 32 KiB of room, a slide copies 32 KiB per 32 KiB decoded (as
/// the other form copies into its window), with a window and 512 KiB, 32 KiB per 512 KiB.
///
/// ```
/// use ngi_core::codec::inflate::{InPlaceDecoder, WINDOW_SIZE};
/// use ngi_core::codec::InPlace;
/// use ngi_core::Status;
///
/// // zlib's fixed-Huffman block for "aaaaaa".
/// let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00];
/// let mut d = InPlaceDecoder::new(6);
/// // A window and 16 KiB of room.
/// let mut buf = vec![0u8; WINDOW_SIZE + (16 << 10)];
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
/// ```
#[derive(Clone)]
pub struct InPlaceDecoder {
    core: Inflater,
    /// The stream position before which no match can reach any more: 0, or where
    /// [`slide`](InPlace::slide) kept less than a window because stored bytes
    /// follow that push it out before a match can come.
    floor: u64,
}

impl InPlaceDecoder {
    /// A decoder that must produce exactly `unpacked_size` bytes.
    pub const fn new(unpacked_size: u64) -> InPlaceDecoder {
        InPlaceDecoder {
            core: Inflater::new(unpacked_size),
            floor: 0,
        }
    }

    /// The state [`new`](InPlaceDecoder::new) gives, written in place, for a decoder
    /// reused entry after entry (one kept in a `static`, say).
    pub fn reset(&mut self, unpacked_size: u64) {
        // Every field named, so that one added later cannot be left out.
        let InPlaceDecoder { core, floor } = self;
        core.reset(unpacked_size);
        *floor = 0;
    }
}

impl InPlace for InPlaceDecoder {
    /// As [`InPlace::decode`].
    fn decode(
        &mut self,
        input: &[u8],
        buf: &mut [u8],
        at: usize,
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let core = &mut self.core;
        let room = in_place::begin(&core.tally, buf, at, WINDOW_SIZE, self.floor)?;
        let r = core.run(input, &mut buf[..at + room], at, None);
        core.finish(r, input_ended)
    }

    /// As [`InPlace::retain`]: the last window of the bytes before `end`, or less inside
    /// a stored block when `rest` shows stored bytes that will push them out before the
    /// next match can come (none after the final block starts), so stored data is copied
    /// once, not twice. (An `end` past the bytes produced is a caller's mistake: the count
    /// is then of the produced bytes, which are not the last ones before such an `end`.)
    ///
    /// ```
    /// use ngi_core::codec::inflate::{InPlaceDecoder, WINDOW_SIZE};
    /// use ngi_core::codec::InPlace;
    ///
    /// // zlib's fixed-Huffman block for "aaaaaa", into a first buffer of 4 bytes.
    /// let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00];
    /// let mut d = InPlaceDecoder::new(6);
    /// let mut first = [0u8; 4];
    /// let p = d.decode(&packed, &mut first, 0, true).unwrap();
    /// assert_eq!(p.produced, 4);
    /// // A match may reach all four: they go to the front of the next buffer.
    /// let keep = d.retain(4, &packed[p.consumed..]);
    /// assert_eq!(keep, 4);
    /// let mut next = vec![0u8; WINDOW_SIZE + 4096];
    /// next[..keep].copy_from_slice(&first[4 - keep..]);
    /// let q = d.decode(&packed[p.consumed..], &mut next, keep, true).unwrap();
    /// assert_eq!(&next[keep..keep + q.produced], b"aa");
    ///
    /// // A final stored block of 40 000 bytes: once 1000 are out, the rest of the block
    /// // pushes them out of the window before any match could come, so none is kept.
    /// let mut packed = vec![0x01, 0x40, 0x9C, 0xBF, 0x63];
    /// packed.extend((0..40_000u32).map(|i| i as u8));
    /// let mut d = InPlaceDecoder::new(40_000);
    /// let p = d.decode(&packed, &mut [0u8; 1000], 0, false).unwrap();
    /// assert_eq!(d.retain(1000, &packed[p.consumed..]), 0);
    /// ```
    fn retain(&mut self, end: usize, rest: &[u8]) -> usize {
        let produced = self.core.tally.produced();
        let end = (end as u64).min(produced) as usize;
        let mut keep = end.min(WINDOW_SIZE);
        // Fewer only where no match can reach them (the floor moves up to say so, and
        // nowhere else: `decode` holds every other slide to a whole window).
        let ahead = match self.core.phase {
            Phase::Done => usize::MAX,
            Phase::Stored { left } => stored_ahead(&self.core, left, rest),
            _ => 0,
        };
        if keep.saturating_add(ahead) > WINDOW_SIZE {
            keep = WINDOW_SIZE.saturating_sub(ahead);
            self.floor = self.floor.max(produced - keep as u64);
        }
        keep
    }

    fn window(&self) -> usize {
        WINDOW_SIZE
    }

    fn expected_len(&self) -> u64 {
        self.core.tally.expected()
    }

    fn produced_total(&self) -> u64 {
        self.core.tally.produced()
    }
}
