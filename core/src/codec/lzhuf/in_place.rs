//! LZHUF with the window in the caller's buffer ([`InPlaceDecoder`]; the contract is
//! [`InPlace`]'s).
//!
//! With no ring to keep, the state is the tree and the bit buffer, as in the one-shot
//! decoder, and there is room under the streaming decoder's 10 KiB for the one-shot
//! decoder's deeper lookup ([`DeepTop`]): so this form runs the one-shot decoder's loop
//! as it is, where [`LzhufDecoder`](super::LzhufDecoder) pays for a 5-level lookup, a
//! choice of source per match and a copy of every call's output into its ring.

use super::deep::DeepTop;
use super::{Cursor, RING_SIZE, START, Window};
use crate::codec::in_place::{self, InPlace};
use crate::codec::tally::Tally;
use crate::codec::{DecodeError, Progress};

/// An LZHUF decoder (method 0x80, or 0xA0 with a key) whose window is the caller's buffer:
/// see [`InPlace`] for the contract (import the trait to call it). Each call decodes into
/// `buf[at..]` and reads matches from `buf[..at]`, which must hold the last `at` bytes
/// decoded: all of them while fewer than 4096 are (a match reaching before the stream's
/// start reads the engine's `0x20` prefill, as in the ring), at least 4096 after that.
///
/// Otherwise as [`LzhufDecoder`](super::LzhufDecoder): exactly `unpacked_size` bytes,
/// resumable at any byte of input, the same output and errors. The state is the tree
/// with the one-shot decoder's 7-level lookup and the bit buffer (8 592 bytes on 64-bit
/// targets; asserted), and decoding runs the one-shot decoder's loop.
///
/// ```
/// # #[cfg(feature = "alloc")] {
/// use ngi_core::codec::lzhuf::{self, InPlaceDecoder, RING_SIZE};
/// use ngi_core::codec::InPlace;
/// use ngi_core::Status;
///
/// let text = b"in place: the window is the caller's buffer, the window is the buffer".repeat(99);
/// let packed = lzhuf::encode(&text);
/// let mut d = InPlaceDecoder::new(text.len() as u64, None);
/// // A window and 1000 bytes of room: the last window slides to the front when full.
/// let mut buf = vec![0u8; RING_SIZE + 1000];
/// let (mut at, mut pos, mut got) = (0, 0, Vec::new());
/// loop {
///     if at == buf.len() {
///         at = d.slide(&mut buf, at, &packed[pos..]);
///     }
///     let p = d.decode(&packed[pos..], &mut buf, at, true).unwrap();
///     got.extend_from_slice(&buf[at..at + p.produced]);
///     (pos, at) = (pos + p.consumed, at + p.produced);
///     if p.status == Status::Done {
///         break;
///     }
/// }
/// assert_eq!((got, pos), (text, packed.len()));
/// # }
/// ```
#[derive(Clone)]
pub struct InPlaceDecoder {
    cursor: Cursor<DeepTop>,
    tally: Tally,
}

impl InPlaceDecoder {
    /// A decoder that must produce exactly `unpacked_size` bytes; `key` is the entry's data
    /// key for method 0xA0 (`None` for method 0x80).
    pub const fn new(unpacked_size: u64, key: Option<u16>) -> InPlaceDecoder {
        InPlaceDecoder {
            cursor: Cursor::new(key, DeepTop::new()),
            tally: Tally::new(unpacked_size),
        }
    }

    /// The state [`new`](InPlaceDecoder::new) gives, written in place, for a decoder
    /// reused entry after entry (one kept in a `static`, say): only the 3 480-byte lookup
    /// is built apart.
    pub fn reset(&mut self, unpacked_size: u64, key: Option<u16>) {
        // Every field named, so that one added later cannot be left out.
        let InPlaceDecoder { cursor, tally } = self;
        cursor.reset(key, DeepTop::new());
        *tally = Tally::new(unpacked_size);
    }
}

impl InPlace for InPlaceDecoder {
    fn decode(
        &mut self,
        input: &[u8],
        buf: &mut [u8],
        at: usize,
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let room = in_place::begin(&self.tally, buf, at, RING_SIZE, 0)?;
        // No ring: a match reaching before `buf` can only be one reaching before the
        // stream (with a whole ring before the room none reaches that far), and it reads
        // the prefill, as in the one-shot form.
        let window = Window::new(None, START);
        let run = self.cursor.run(input, &mut buf[..at + room], at, &window);
        self.tally
            .settle(run.consumed, run.produced, run.stop, input_ended)
    }

    /// As [`InPlace::retain`]: the last 4096 bytes before `end` (all of them while fewer
    /// were decoded), none once the stream is done.
    fn retain(&mut self, end: usize, _rest: &[u8]) -> usize {
        let produced = self.tally.produced();
        if produced == self.tally.expected() {
            return 0;
        }
        (end as u64).min(produced).min(RING_SIZE as u64) as usize
    }

    fn window(&self) -> usize {
        RING_SIZE
    }

    fn expected_len(&self) -> u64 {
        self.tally.expected()
    }

    fn produced_total(&self) -> u64 {
        self.tally.produced()
    }
}
