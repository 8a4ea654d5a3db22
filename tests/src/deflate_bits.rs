//! A writer of hand-made raw Deflate streams (RFC 1951), for the tests and fuzz seeds that
//! need streams no encoder makes on purpose: corrupt ones, and valid ones with matches at
//! chosen distances. Bits go least significant first, Huffman codes most significant
//! first, as the format packs them.

/// A bit stream under construction.
#[derive(Debug, Clone, Default)]
pub struct Bits {
    bytes: Vec<u8>,
    n: usize,
}

impl Bits {
    /// The low `count` bits of `value`.
    pub fn put(&mut self, value: u32, count: usize) -> &mut Self {
        for k in 0..count {
            if self.n % 8 == 0 {
                self.bytes.push(0);
            }
            *self.bytes.last_mut().expect("pushed") |= (((value >> k) & 1) as u8) << (self.n % 8);
            self.n += 1;
        }
        self
    }

    /// A Huffman code of `len` bits, most significant bit first.
    pub fn code(&mut self, code: u32, len: usize) -> &mut Self {
        for k in (0..len).rev() {
            self.put((code >> k) & 1, 1);
        }
        self
    }

    /// Skips to the next byte boundary.
    pub fn align(&mut self) -> &mut Self {
        self.n = self.bytes.len() * 8;
        self
    }

    /// A literal/length symbol of the fixed code.
    pub fn fixed(&mut self, sym: u32) -> &mut Self {
        match sym {
            0..=143 => self.code(0x30 + sym, 8),
            144..=255 => self.code(0x190 + sym - 144, 9),
            256..=279 => self.code(sym - 256, 7),
            _ => self.code(0xC0 + sym - 280, 8),
        }
    }

    /// A match of the fixed code: its length and distance codes with their extra bits.
    pub fn fixed_match(&mut self, len: usize, dist: usize) -> &mut Self {
        let (code, base, extra) = length_code(len);
        self.fixed(code).put((len - base) as u32, extra);
        let (code, base, extra) = distance_code(dist);
        self.code(code, 5).put((dist - base) as u32, extra)
    }

    /// A stored block's header, `LEN` and `NLEN` (its bytes follow with `put`).
    pub fn stored_header(&mut self, len: usize, last: bool) -> &mut Self {
        self.put(last as u32, 1).put(0, 2).align();
        self.put(len as u32, 16).put(!len as u32 & 0xFFFF, 16)
    }

    /// The bytes written so far.
    pub fn done(&self) -> Vec<u8> {
        self.bytes.clone()
    }
}

/// Deflate's length codes (257..=285) for `len` (3..=258): (code, base, extra bits).
pub fn length_code(len: usize) -> (u32, usize, usize) {
    let mut base = 3;
    for i in 0..28 {
        let extra = if i < 8 { 0 } else { (i - 4) / 4 };
        if len < base + (1 << extra) {
            return (257 + i as u32, base, extra);
        }
        base += 1 << extra;
    }
    assert_eq!(len, 258, "no length code for {len}");
    (285, 258, 0)
}

/// Deflate's distance codes (0..=29) for `dist` (1..=32 768): (code, base, extra bits).
pub fn distance_code(dist: usize) -> (u32, usize, usize) {
    let mut base = 1;
    for i in 0..30 {
        let extra = if i < 4 { 0 } else { (i - 2) / 2 };
        if dist < base + (1 << extra) {
            return (i as u32, base, extra);
        }
        base += 1 << extra;
    }
    panic!("no distance code for {dist}")
}

/// Appends to `b` (whose output is `data`) stored blocks of the lengths `run` (random
/// bytes from `seed`), then a final fixed block of matches that read the oldest bytes the
/// window must keep (from 32 768 back) and nearer ones, with literals between; `data`
/// gains their output. The output before the fixed block must be at least 32 768 bytes.
pub fn stored_run_then_far_matches(b: &mut Bits, data: &mut Vec<u8>, run: &[usize], seed: u64) {
    let mut rng = crate::corpus::Rng::new(seed);
    for &len in run {
        b.stored_header(len, false);
        for _ in 0..len {
            let c = rng.next_u64() as u8;
            b.put(c as u32, 8);
            data.push(c);
        }
    }
    b.put(1, 1).put(1, 2);
    for d in [
        32768, 32767, 32766, 32765, 32700, 32000, 30000, 20000, 4096, 300, 16, 3, 1,
    ] {
        for len in [3, 258] {
            b.fixed_match(len, d);
            for _ in 0..len {
                data.push(data[data.len() - d]);
            }
        }
        b.fixed(b'x' as u32);
        data.push(b'x');
    }
    b.fixed(256);
}
