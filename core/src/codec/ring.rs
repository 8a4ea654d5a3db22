//! The ring window of the LZ decoders (LZSS, LZHUF) and of Deflate's: the bytes a match
//! may reach back to, kept between calls, and the view one call has of them.
//!
//! Every windowed decoder here decodes straight into the caller's output, so the output
//! *is* the window for matches within the call; only a match reaching back before the
//! call's first byte reads the ring, which is refreshed once per call from the bytes the
//! call produced ([`Ring::remember`]). What differs between the codecs is a parameter:
//! the ring's size, how many of its first bytes are mirrored past its end (so that word
//! copies read through the wrap without a test: 18 for LZSS's 18-byte unit moves, 272 for
//! Deflate's 16-byte words, none for LZHUF), the position the stream starts at (a
//! codec's `base`) and the byte that stands for "never written" (LZSS and LZHUF read the
//! engine's `0x20` prefill there; Deflate refuses such matches before reading).

use super::copy;

/// A ring of `LEN - MIRROR` bytes (a power of two), its first `MIRROR` bytes repeated
/// after its end so that any `MIRROR` bytes from any position read without wrapping,
/// every byte `FILL` until written.
///
/// `LEN` is the whole array (stable Rust cannot size an array by `SIZE + MIRROR`); the
/// ring's size is [`Ring::SIZE`].
#[derive(Debug, Clone)]
pub(crate) struct Ring<const LEN: usize, const MIRROR: usize, const FILL: u8> {
    bytes: [u8; LEN],
}

impl<const LEN: usize, const MIRROR: usize, const FILL: u8> Ring<LEN, MIRROR, FILL> {
    /// Bytes in the ring.
    pub(crate) const SIZE: usize = LEN - MIRROR;
    /// Masks a position into the ring.
    pub(crate) const MASK: usize = Self::SIZE - 1;
    /// Checked at compile time wherever a ring is built.
    const SHAPE: () = assert!(Self::SIZE.is_power_of_two() && MIRROR <= Self::SIZE);

    /// A ring never written: every byte (mirror included) `FILL`.
    pub(crate) const fn new() -> Self {
        let () = Self::SHAPE;
        Ring { bytes: [FILL; LEN] }
    }

    /// A ring of zero bytes, whatever `FILL`: only for a state to be reset before use
    /// (see `InflateDecoder::ZEROED`).
    pub(crate) const fn zeroed() -> Self {
        let () = Self::SHAPE;
        Ring { bytes: [0; LEN] }
    }

    /// Every byte `FILL` again, as [`new`](Ring::new) makes it, written in place.
    pub(crate) fn reset(&mut self) {
        self.bytes.fill(FILL);
    }

    /// The ring and its mirror, for loops that read it by whole words.
    #[inline(always)]
    pub(crate) fn bytes(&self) -> &[u8; LEN] {
        &self.bytes
    }

    /// Stores the bytes one call produced at their ring positions, the first at `at`
    /// (only the last [`SIZE`](Ring::SIZE) can matter), and refreshes the mirror.
    pub(crate) fn remember(&mut self, produced: &[u8], at: usize) {
        let keep = produced.len().min(Self::SIZE);
        let tail = &produced[produced.len() - keep..];
        let start = (at + produced.len() - keep) & Self::MASK;
        let first = keep.min(Self::SIZE - start);
        self.bytes[start..start + first].copy_from_slice(&tail[..first]);
        self.bytes[..keep - first].copy_from_slice(&tail[first..]);
        let (ring, mirror) = self.bytes.split_at_mut(Self::SIZE);
        mirror.copy_from_slice(&ring[..MIRROR]);
    }

    /// Fills `dst` (at most [`SIZE`](Ring::SIZE) bytes) with the ring's bytes from
    /// position `from` on, wrapping.
    #[inline(always)]
    fn read(&self, dst: &mut [u8], from: usize) {
        let first = dst.len().min(Self::SIZE - from);
        let (a, b) = dst.split_at_mut(first);
        a.copy_from_slice(&self.bytes[from..from + first]);
        b.copy_from_slice(&self.bytes[..b.len()]);
    }
}

/// What one call sees of the bytes before its output: the ring as it was when the call
/// started (`None` for a one-shot decode, whose output starts with the stream, so that
/// everything before it reads as `FILL`, a ring never written), and the ring position of
/// the output's first byte.
#[derive(Debug)]
pub(crate) struct Window<'a, const LEN: usize, const MIRROR: usize, const FILL: u8> {
    pub(crate) ring: Option<&'a mut Ring<LEN, MIRROR, FILL>>,
    /// The ring position of the first byte of the call's output.
    pub(crate) base: usize,
}

impl<'a, const LEN: usize, const MIRROR: usize, const FILL: u8> Window<'a, LEN, MIRROR, FILL> {
    /// The view of a call whose output starts at ring position `base`.
    #[inline(always)]
    pub(crate) fn new(ring: Option<&'a mut Ring<LEN, MIRROR, FILL>>, base: usize) -> Self {
        Window { ring, base }
    }

    /// The ring and its mirror, if the call has one.
    #[inline(always)]
    pub(crate) fn ring_bytes(&self) -> Option<&[u8; LEN]> {
        self.ring.as_deref().map(Ring::bytes)
    }

    /// Fills `dst` with the bytes before the call from ring position `from` on (wrapping),
    /// or with `FILL` when there is no ring. Out of line: only matches reaching back
    /// before the call's output come here, and the hot loops stay smaller without it.
    #[inline(never)]
    pub(crate) fn copy_old(&self, dst: &mut [u8], from: usize) {
        match self.ring.as_deref() {
            None => dst.fill(FILL),
            Some(ring) => ring.read(dst, from),
        }
    }

    /// Copies `len` bytes from `dist` back (`1..=SIZE`) to `out[at..at + len]`, one byte
    /// at a time in effect (overlap repeats the pattern): the part of the source before
    /// the call's output from the ring, the rest from `out`. `MAX` is the format's
    /// longest match (see [`copy::within`]).
    #[inline(always)]
    pub(crate) fn copy_match<const MAX: usize>(
        &self,
        out: &mut [u8],
        at: usize,
        dist: usize,
        len: usize,
    ) {
        if dist <= at {
            copy::within::<MAX>(out, at, dist, len);
        } else {
            let old = (dist - at).min(len);
            let from = (self.base + at).wrapping_sub(dist) & Ring::<LEN, MIRROR, FILL>::MASK;
            self.copy_old(&mut out[at..at + old], from);
            if old < len {
                copy::within::<MAX>(out, at + old, dist, len - old);
            }
        }
    }

    /// Writes `out[at..at + n]` through to the ring (and its mirror), at its ring
    /// positions, while `at` is within the call's first `MIRROR` bytes: as a classic ring
    /// decoder writes every byte, each replacing the one a whole ring back, which no match
    /// can reach any more. A loop that reads `MIRROR`-byte words from the ring needs it:
    /// a word starting just before the call's output runs into those bytes. The rest reach
    /// the ring at the end of the call ([`Ring::remember`]).
    pub(crate) fn write_through(&mut self, out: &[u8], at: usize, n: usize) {
        if at >= MIRROR {
            return;
        }
        let Some(ring) = self.ring.as_deref_mut() else {
            return;
        };
        for (k, &byte) in out[at..at + n].iter().enumerate() {
            let pos = (self.base + at + k) & Ring::<LEN, MIRROR, FILL>::MASK;
            ring.bytes[pos] = byte;
            if pos < MIRROR {
                ring.bytes[Ring::<LEN, MIRROR, FILL>::SIZE + pos] = byte;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remember_wraps_and_keeps_the_mirror() {
        let mut ring = Ring::<20, 4, b'.'>::new();
        ring.remember(b"abcdef", 13);
        assert_eq!(ring.bytes(), b"def..........abcdef.");
        // More than a ring: only the last 16 bytes are kept, each at its position.
        let long: [u8; 40] = core::array::from_fn(|i| b'A' + i as u8);
        ring.remember(&long, 0);
        for (i, &b) in long[24..].iter().enumerate() {
            assert_eq!(ring.bytes()[(24 + i) & 15], b);
        }
        assert_eq!(ring.bytes()[16..], ring.bytes()[..4]);
    }

    #[test]
    fn a_match_reads_the_ring_then_the_output() {
        let mut ring = Ring::<8, 0, b' '>::new();
        ring.remember(b"wxyz", 4);
        let window = Window::new(Some(&mut ring), 0);
        let mut out = *b"ab??????";
        // From 4 back at position 2: ring bytes y, z, then a, b, and the pattern again.
        window.copy_match::<6>(&mut out, 2, 4, 6);
        assert_eq!(&out, b"abyzabyz");
        let prefill = Window::<8, 0, b' '>::new(None, 0);
        let mut out = *b"a???";
        prefill.copy_match::<3>(&mut out, 1, 2, 3);
        assert_eq!(&out, b"a a ");
    }
}
