//! The RsLi XOR stream cipher (SPEC 2.3) and the method-0x20 decoder built on it.
//!
//! The cipher's state is two bytes; each step is
//! `lo = hi ^ (lo << 1); out = lo; hi = lo ^ (hi >> 1)`. Every operation is a shift or an
//! XOR, so the step is a *linear* map over the 16 state bits (GF(2)^16): the keystream of a
//! state is the XOR of the keystreams of its low and high byte taken separately. That lets
//! us precompute, per state byte, the next 32 keystream bytes and the state 32 steps on,
//! and run the cipher 32 bytes per table step instead of one dependent step per byte. The
//! tables are built by `const fn` from the per-byte step itself, and a test checks them
//! against the plain per-byte loop for all 65 536 keys.

use super::tally::{Stop, Tally};
use super::{DecodeError, Decoder, Progress};

/// One step of SPEC 2.3: returns the new state and the keystream byte.
const fn step(lo: u8, hi: u8) -> (u8, u8) {
    let lo = hi ^ (lo << 1);
    let hi = lo ^ (hi >> 1);
    (lo, hi)
}

/// Bytes of keystream produced by one table step.
const BLOCK: usize = 32;
const WORDS: usize = BLOCK / 8;

/// Keystream tables: `KEYSTREAM[w][half][x]` is keystream bytes `8w..8w+8` (as a little-
/// endian `u64`) of the state whose `half` byte (0 = `lo`, 1 = `hi`) is `x` and whose other
/// byte is zero.
static KEYSTREAM: [[[u64; 256]; 2]; WORDS] = build_keystream();
/// `ADVANCE[half][x]` is the state (`lo | hi << 8`) `BLOCK` steps after the state whose
/// `half` byte is `x` and whose other byte is zero.
static ADVANCE: [[u16; 256]; 2] = build_advance();

const fn seed_state(half: usize, x: usize) -> (u8, u8) {
    if half == 0 {
        (x as u8, 0)
    } else {
        (0, x as u8)
    }
}

const fn build_keystream() -> [[[u64; 256]; 2]; WORDS] {
    let mut table = [[[0u64; 256]; 2]; WORDS];
    let mut half = 0;
    while half < 2 {
        let mut x = 0;
        while x < 256 {
            let (mut lo, mut hi) = seed_state(half, x);
            let mut i = 0;
            while i < BLOCK {
                (lo, hi) = step(lo, hi);
                table[i / 8][half][x] |= (lo as u64) << (8 * (i % 8));
                i += 1;
            }
            x += 1;
        }
        half += 1;
    }
    table
}

const fn build_advance() -> [[u16; 256]; 2] {
    let mut table = [[0u16; 256]; 2];
    let mut half = 0;
    while half < 2 {
        let mut x = 0;
        while x < 256 {
            let (mut lo, mut hi) = seed_state(half, x);
            let mut i = 0;
            while i < BLOCK {
                (lo, hi) = step(lo, hi);
                i += 1;
            }
            table[half][x] = lo as u16 | (hi as u16) << 8;
            x += 1;
        }
        half += 1;
    }
    table
}

/// The XOR keystream of SPEC 2.3, resumable at any byte.
///
/// Encryption and decryption are the same operation. The state is 2 bytes; the shared
/// lookup tables (17 KiB, `static`) are computed at compile time.
///
/// ```
/// use ngi_core::codec::xor::XorStream;
///
/// let mut data = *b"hello, Parkan";
/// XorStream::new(0x1234).apply(&mut data);
/// assert_ne!(&data, b"hello, Parkan");
/// XorStream::new(0x1234).apply(&mut data);
/// assert_eq!(&data, b"hello, Parkan");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct XorStream {
    lo: u8,
    hi: u8,
}

impl XorStream {
    /// A keystream keyed by `key`: `lo = key & 0xFF`, `hi = key >> 8`.
    pub const fn new(key: u16) -> Self {
        XorStream {
            lo: key as u8,
            hi: (key >> 8) as u8,
        }
    }

    /// The current state as `lo | hi << 8` (a stream built from it continues this one).
    pub const fn state(&self) -> u16 {
        self.lo as u16 | (self.hi as u16) << 8
    }

    /// The next keystream byte, one step of SPEC 2.3 exactly as written.
    #[inline]
    pub fn next_byte(&mut self) -> u8 {
        (self.lo, self.hi) = step(self.lo, self.hi);
        self.lo
    }

    /// The next `BLOCK` keystream bytes, as little-endian words, in one table step.
    #[inline(always)]
    fn next_block(&mut self) -> [u64; WORDS] {
        let (lo, hi) = (self.lo as usize, self.hi as usize);
        let words = core::array::from_fn(|w| KEYSTREAM[w][0][lo] ^ KEYSTREAM[w][1][hi]);
        let next = ADVANCE[0][lo] ^ ADVANCE[1][hi];
        (self.lo, self.hi) = (next as u8, (next >> 8) as u8);
        words
    }

    /// XORs `data` with the keystream in place.
    pub fn apply(&mut self, data: &mut [u8]) {
        let mut blocks = data.chunks_exact_mut(BLOCK);
        for block in &mut blocks {
            let keys = self.next_block();
            for (chunk, key) in block.chunks_exact_mut(8).zip(keys) {
                let word = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8])) ^ key;
                chunk.copy_from_slice(&word.to_le_bytes());
            }
        }
        for byte in blocks.into_remainder() {
            *byte ^= self.next_byte();
        }
    }

    /// Writes `src` XOR keystream into `dst`, for `min(src.len(), dst.len())` bytes, and
    /// returns that count. This is the copy a decoder needs.
    ///
    /// It copies, then XORs the copy in place while it is still in cache: measured in
    /// `benches/benches/xor.rs`, that beats a fused read-XOR-write loop, whose two
    /// iterators the compiler does not merge.
    pub fn apply_copy(&mut self, src: &[u8], dst: &mut [u8]) -> usize {
        let n = src.len().min(dst.len());
        let (src, dst) = (&src[..n], &mut dst[..n]);
        dst.copy_from_slice(src);
        self.apply(dst);
        n
    }
}

/// Decoder of method 0x20 (XOR only): produces exactly `unpacked_size` bytes, each packed
/// byte XORed with the keystream of the entry's key (SPEC 2.7: the engine XORs exactly
/// `unpacked_size` bytes). State: 32 bytes.
#[derive(Clone)]
pub struct XorDecoder {
    inner: CopyDecoder,
}

impl XorDecoder {
    /// A decoder for an entry of `unpacked_size` bytes whose data key is `key` (size, then
    /// key: the order of every decoder's constructor).
    pub const fn new(unpacked_size: u64, key: u16) -> Self {
        XorDecoder {
            inner: CopyDecoder::new(Some(XorStream::new(key)), unpacked_size),
        }
    }
}

impl Decoder for XorDecoder {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        self.inner.decode(input, output, input_ended)
    }

    fn expected_len(&self) -> u64 {
        self.inner.tally.expected()
    }

    fn produced_total(&self) -> u64 {
        self.inner.tally.produced()
    }
}

/// Decoder of method 0x00 (stored): copies exactly `unpacked_size` bytes. State: 32 bytes.
#[derive(Clone)]
pub struct StoredDecoder {
    inner: CopyDecoder,
}

impl StoredDecoder {
    /// A decoder for a stored entry of `unpacked_size` bytes.
    pub const fn new(unpacked_size: u64) -> Self {
        StoredDecoder {
            inner: CopyDecoder::new(None, unpacked_size),
        }
    }
}

impl Decoder for StoredDecoder {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        self.inner.decode(input, output, input_ended)
    }

    fn expected_len(&self) -> u64 {
        self.inner.tally.expected()
    }

    fn produced_total(&self) -> u64 {
        self.inner.tally.produced()
    }
}

/// The shared body of the stored and XOR decoders: a bounded copy, optionally keyed.
#[derive(Debug, Clone)]
struct CopyDecoder {
    xor: Option<XorStream>,
    tally: Tally,
}

impl CopyDecoder {
    const fn new(xor: Option<XorStream>, expected: u64) -> Self {
        CopyDecoder {
            xor,
            tally: Tally::new(expected),
        }
    }

    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let output = self.tally.begin(output)?;
        let n = input.len().min(output.len());
        let (src, dst) = (&input[..n], &mut output[..n]);
        match &mut self.xor {
            Some(xor) => {
                xor.apply_copy(src, dst);
            }
            None => dst.copy_from_slice(src),
        }
        let stop = if n == output.len() {
            Stop::OutputFull
        } else {
            Stop::InputEmpty
        };
        self.tally.settle(n, n, stop, input_ended)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(key: u16, out: &mut [u8]) {
        let (mut lo, mut hi) = (key as u8, (key >> 8) as u8);
        for b in out {
            // On a u8 the shift itself drops bit 7: that is SPEC 2.3's `& 0xFF`.
            lo = hi ^ (lo << 1);
            *b ^= lo;
            hi = lo ^ (hi >> 1);
        }
    }

    #[test]
    fn every_key_matches_the_per_byte_reference() {
        for key in 0..=u16::MAX {
            let mut want = [0u8; 67];
            reference(key, &mut want);
            let mut got = [0u8; 67];
            XorStream::new(key).apply(&mut got);
            assert_eq!(got, want, "key {key:#06x}");
        }
    }

    #[test]
    fn long_streams_match_and_resume_anywhere() {
        for key in [0x0000, 0x0001, 0x8000, 0xABBA, 0xFFFF, 0x1234] {
            let src: [u8; 5000] = core::array::from_fn(|i| (i * 7 + 3) as u8);
            let mut want = src;
            reference(key, &mut want);
            let mut whole = [0u8; 5000];
            assert_eq!(XorStream::new(key).apply_copy(&src, &mut whole), 5000);
            assert_eq!(whole, want, "key {key:#06x}");
            // Uneven pieces, crossing block boundaries at every phase.
            let mut pieces = src;
            let mut stream = XorStream::new(key);
            let (mut start, mut len) = (0, 0);
            while start < pieces.len() {
                let end = (start + len % 41).min(pieces.len());
                stream.apply(&mut pieces[start..end]);
                (start, len) = (end, len + 1);
            }
            assert_eq!(pieces, want, "key {key:#06x}");
        }
    }

    #[test]
    fn key_zero_is_the_identity() {
        let mut data = [0x5Au8; 100];
        XorStream::new(0).apply(&mut data);
        assert_eq!(data, [0x5A; 100]);
    }
}
