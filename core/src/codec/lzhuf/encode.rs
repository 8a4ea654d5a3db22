//! The encoder: `LZHUF.C`'s `Encode` — its binary-tree match search over the ring, its
//! symbol coder and its bit packing — without the 4-byte length header (an RsLi entry
//! keeps the size in its table).

use alloc::vec;
use alloc::vec::Vec;

use super::tables::{P_CODE, P_LEN};
use super::tree::Tree;
use super::{MASK, MAX_MATCH as F, PREFILL, RING_SIZE as N};

/// Matches must be longer than this (`THRESHOLD`).
const THRESHOLD: usize = 2;
/// "No node" in the match trees (`NIL`).
const NIL: u16 = N as u16;

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
pub fn encode(data: &[u8]) -> Vec<u8> {
    if data.is_empty() {
        return Vec::new();
    }
    let mut encoder = Encoder::new();
    encoder.run(data);
    encoder.bits.finish()
}

/// Bits packed most significant first (`Putcode`, `EncodeEnd`).
struct BitWriter {
    out: Vec<u8>,
    /// Pending bits, at the top of the word.
    acc: u64,
    n: u32,
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
            self.out.push((self.acc >> 56) as u8);
            self.acc <<= 8;
            self.n -= 8;
        }
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
    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push((self.acc >> 56) as u8);
        }
        self.out
    }
}

/// `LZHUF.C`'s globals.
struct Encoder {
    /// The ring, plus a copy of its first `F - 1` bytes after it so that a string starting
    /// near the end can be compared without wrapping (`text_buf`).
    text: Vec<u8>,
    /// The match trees: 256 roots at `N + 1 + byte`, `NIL` for none (`lson`, `rson`,
    /// `dad`).
    lson: Vec<u16>,
    rson: Vec<u16>,
    dad: Vec<u16>,
    match_position: usize,
    match_length: usize,
    tree: Tree,
    bits: BitWriter,
}

impl Encoder {
    fn new() -> Encoder {
        Encoder {
            text: vec![0; N + F - 1],
            lson: vec![NIL; N + 1],
            rson: vec![NIL; N + 257],
            dad: vec![NIL; N + 1],
            match_position: 0,
            match_length: 0,
            tree: Tree::new(),
            bits: BitWriter {
                out: Vec::new(),
                acc: 0,
                n: 0,
            },
        }
    }

    /// `Encode`'s loop.
    fn run(&mut self, data: &[u8]) {
        let mut input = data.iter().copied();
        let (mut s, mut r) = (0, N - F);
        // LZHUF.C's prefill: spaces before the first position; the lookahead after it is
        // the data (its zero-initialised tail is never matched beyond the data's end).
        self.text[..r].fill(PREFILL);
        let mut len = 0;
        while len < F {
            let Some(c) = input.next() else { break };
            self.text[r + len] = c;
            len += 1;
        }
        for i in 1..=F {
            self.insert_node(r - i);
        }
        self.insert_node(r);
        loop {
            if self.match_length > len {
                self.match_length = len;
            }
            if self.match_length <= THRESHOLD {
                self.match_length = 1;
                self.encode_char(usize::from(self.text[r]));
            } else {
                self.encode_char(255 - THRESHOLD + self.match_length);
                self.encode_position(self.match_position);
            }
            let last_match_length = self.match_length;
            let mut i = 0;
            while i < last_match_length {
                let Some(c) = input.next() else { break };
                self.delete_node(s);
                self.text[s] = c;
                if s < F - 1 {
                    self.text[s + N] = c;
                }
                s = (s + 1) & MASK;
                r = (r + 1) & MASK;
                self.insert_node(r);
                i += 1;
            }
            while i < last_match_length {
                i += 1;
                self.delete_node(s);
                s = (s + 1) & MASK;
                r = (r + 1) & MASK;
                len -= 1;
                if len > 0 {
                    self.insert_node(r);
                }
            }
            if len == 0 {
                break;
            }
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

    /// `InsertNode`: adds the string at `r` to its tree, finding on the way the longest
    /// earlier match (`match_length`, `match_position` = distance - 1; the nearest among
    /// equally long ones), and replaces an older node with the same `F` bytes.
    fn insert_node(&mut self, r: usize) {
        let mut cmp: i32 = 1;
        let mut p = N + 1 + usize::from(self.text[r]);
        self.rson[r] = NIL;
        self.lson[r] = NIL;
        self.match_length = 0;
        loop {
            let next = if cmp >= 0 {
                &mut self.rson[p]
            } else {
                &mut self.lson[p]
            };
            if *next == NIL {
                *next = r as u16;
                self.dad[r] = p as u16;
                return;
            }
            p = usize::from(*next);
            // `for (i = 1; i < F; i++) if ((cmp = key[i] - text_buf[p + i]) != 0) break;`
            let (key, old) = (&self.text[r + 1..r + F], &self.text[p + 1..p + F]);
            let i = match key.iter().zip(old).position(|(a, b)| a != b) {
                Some(k) => {
                    cmp = i32::from(key[k]) - i32::from(old[k]);
                    k + 1
                }
                None => {
                    cmp = 0;
                    F
                }
            };
            if i > THRESHOLD {
                let position = ((r + N - p) & MASK) - 1;
                if i > self.match_length {
                    self.match_position = position;
                    self.match_length = i;
                    if i >= F {
                        break;
                    }
                }
                if i == self.match_length && position < self.match_position {
                    self.match_position = position;
                }
            }
        }
        // The string at p equals the new one over all F bytes: r takes p's place.
        let (dp, lp, rp) = (self.dad[p], self.lson[p], self.rson[p]);
        self.dad[r] = dp;
        self.lson[r] = lp;
        self.rson[r] = rp;
        self.dad[usize::from(lp)] = r as u16;
        self.dad[usize::from(rp)] = r as u16;
        let dp = usize::from(dp);
        if usize::from(self.rson[dp]) == p {
            self.rson[dp] = r as u16;
        } else {
            self.lson[dp] = r as u16;
        }
        self.dad[p] = NIL;
    }

    /// `DeleteNode`: removes the string at `p` from its tree, if it is in one.
    fn delete_node(&mut self, p: usize) {
        if self.dad[p] == NIL {
            return;
        }
        let q = if self.rson[p] == NIL {
            self.lson[p]
        } else if self.lson[p] == NIL {
            self.rson[p]
        } else {
            let mut q = self.lson[p];
            if self.rson[usize::from(q)] != NIL {
                while self.rson[usize::from(q)] != NIL {
                    q = self.rson[usize::from(q)];
                }
                let qi = usize::from(q);
                let dq = usize::from(self.dad[qi]);
                self.rson[dq] = self.lson[qi];
                self.dad[usize::from(self.lson[qi])] = dq as u16;
                self.lson[qi] = self.lson[p];
                self.dad[usize::from(self.lson[p])] = q;
            }
            let qi = usize::from(q);
            self.rson[qi] = self.rson[p];
            self.dad[usize::from(self.rson[p])] = q;
            q
        };
        let dp = usize::from(self.dad[p]);
        self.dad[usize::from(q)] = dp as u16;
        if usize::from(self.rson[dp]) == p {
            self.rson[dp] = q;
        } else {
            self.lson[dp] = q;
        }
        self.dad[p] = NIL;
    }
}
