//! The encoder: `LZHUF.C`'s `Encode` — its binary-tree match search over the ring (the
//! shared port in [`match_tree`], `F = 60`, the nearest of the
//! longest matches), its symbol coder and its bit packing — without the 4-byte length
//! header (an RsLi entry keeps the size in its table).

use alloc::collections::TryReserveError;
use alloc::vec::Vec;

use super::MAX_MATCH as F;
use super::tables::{P_CODE, P_LEN};
use super::top::Top;
use super::tree::Tree;
use crate::codec::match_tree::{self, THRESHOLD, Unit};

/// Encodes `data` as an LZHUF stream, as `LZHUF.C`'s `Encode` writes it after its length
/// header: the same matches (longest first, the nearest among equally long ones), the
/// same codes, the last byte padded with zero bits. An empty input gives an empty stream.
///
/// One difference, for inputs no real file makes: `LZHUF.C` builds a code in a 16-bit
/// word, so a code longer than 16 bits (possible only with counts shaped like the
/// Fibonacci numbers) loses its first bits there; here every code is written whole.
///
/// ```
/// use ngi_core::codec::lzhuf;
///
/// let data = b"abracadabra, abracadabra, abracadabra";
/// let packed = lzhuf::encode(data);
/// let mut out = [0u8; 37];
/// assert_eq!(lzhuf::decode_into(&packed, None, &mut out), Ok(packed.len()));
/// assert_eq!(&out, data);
/// ```
///
/// # Time
///
/// Linear in `data.len()`, but with a constant the data chooses: each position is
/// inserted into the binary search trees `LZHUF.C` took from `LZSS.C`, over the last
/// 4096 bytes, which have no depth bound (a bound would change the matches, and so the
/// bytes). Ordinary data packs at about 10 MB/s (1 MiB of text, or of an x86-64
/// executable, on the virtual machine this project is tested on); input crafted so that
/// thousands of window positions share long prefixes takes up to about a hundred times
/// longer (seconds per MB), as `LZHUF.C` itself does. Bound the input, or the time,
/// when packing data from untrusted hands.
///
/// # Memory
///
/// Where there is no memory for the stream, the process aborts, as a `Vec` that cannot
/// grow does; [`pack`](crate::codec::pack) says so as an error instead.
pub fn encode(data: &[u8]) -> Vec<u8> {
    match encoded(data) {
        Ok(stream) => stream,
        // As a `Vec` that cannot grow does: the process ends, saying how much it asked.
        Err((_, asked)) => alloc::alloc::handle_alloc_error(
            core::alloc::Layout::array::<u8>(asked).unwrap_or(core::alloc::Layout::new::<u8>()),
        ),
    }
}

/// [`encode`], the stream grown without aborting where memory is short.
pub(crate) fn try_encode(data: &[u8]) -> Result<Vec<u8>, TryReserveError> {
    encoded(data).map_err(|(e, _)| e)
}

/// The stream, or why it could not grow and the capacity it asked for.
fn encoded(data: &[u8]) -> Result<Vec<u8>, (TryReserveError, usize)> {
    if data.is_empty() {
        return Ok(Vec::new());
    }
    let mut encoder = Encoder::new();
    match_tree::parse::<F, true>(data, |unit| match unit {
        Unit::Literal(byte) => encoder.encode_char(usize::from(byte)),
        Unit::Match { dist, len, .. } => {
            encoder.encode_char(255 - THRESHOLD + len);
            // `LZHUF.C`'s `match_position` is the distance less one.
            encoder.encode_position(dist - 1);
        }
    });
    encoder.bits.finish()
}

/// Bits packed most significant first (`Putcode`, `EncodeEnd`).
struct BitWriter {
    out: Vec<u8>,
    /// Pending bits, at the top of the word.
    acc: u64,
    n: u32,
    /// The stream could not grow (to the capacity given): the bytes after are dropped,
    /// and `finish` says so.
    short: Option<(TryReserveError, usize)>,
}

impl BitWriter {
    /// Appends the low `len` bits of `value` (`len <= 32`).
    #[inline]
    fn put(&mut self, len: u32, value: u64) {
        if len == 0 {
            return;
        }
        self.acc |= (value & ((1 << len) - 1)) << (64 - len - self.n);
        self.n += len;
        while self.n >= 8 {
            self.push((self.acc >> 56) as u8);
            self.acc <<= 8;
            self.n -= 8;
        }
    }

    /// Appends a byte, growing the stream fallibly (the encoder's loop knows no errors:
    /// a failure is kept for `finish`).
    #[inline]
    fn push(&mut self, byte: u8) {
        if self.out.len() == self.out.capacity() {
            if self.short.is_some() {
                return;
            }
            let more = self.out.capacity().max(4096);
            if let Err(e) = self.out.try_reserve(more) {
                self.short = Some((e, self.out.capacity().saturating_add(more)));
                return;
            }
        }
        self.out.push(byte);
    }

    /// Appends a code of any length (its first bit the highest of `len`).
    fn put_long(&mut self, len: u32, value: u64) {
        let mut left = len;
        while left > 32 {
            left -= 32;
            self.put(32, value >> left);
        }
        self.put(left, value);
    }

    /// The stream, its last byte padded with zero bits.
    fn finish(mut self) -> Result<Vec<u8>, (TryReserveError, usize)> {
        if self.n > 0 {
            self.push((self.acc >> 56) as u8);
        }
        match self.short {
            Some(e) => Err(e),
            None => Ok(self.out),
        }
    }
}

/// `LZHUF.C`'s coder state: the adaptive Huffman tree and the bits written.
struct Encoder {
    tree: Tree,
    bits: BitWriter,
}

impl Encoder {
    fn new() -> Encoder {
        Encoder {
            tree: Tree::new(Top::new()),
            bits: BitWriter {
                out: Vec::new(),
                acc: 0,
                n: 0,
                short: None,
            },
        }
    }

    /// `EncodeChar`: the symbol's code, then the tree counts it.
    fn encode_char(&mut self, c: usize) {
        let (len, code) = self.tree.code(c);
        self.bits.put_long(len, code);
        self.tree.update(c);
    }

    /// `EncodePosition`: the upper 6 bits through `p_len`/`p_code`, the lower 6 plainly.
    fn encode_position(&mut self, c: usize) {
        let upper = (c >> 6) & 0x3F;
        let len = u32::from(P_LEN[upper]);
        self.bits.put(len, u64::from(P_CODE[upper]) >> (8 - len));
        self.bits.put(6, (c & 0x3F) as u64);
    }
}
