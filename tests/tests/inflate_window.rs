//! The streaming inflater's window after stored blocks. A call that ends inside a stored
//! block leaves out of its window the bytes that the stored blocks it can already see
//! ahead will push more than 32 KiB back before any match can come; these streams put
//! matches at exactly the distances that reach the oldest bytes it must still keep, and
//! decode them with input and output split every way that changes what a call sees ahead.

use ngi_core::codec::inflate::{self, InflateDecoder};
use ngi_core::codec::{Decoder, Status};
use ngi_tests::corpus::Rng;

/// Writes bits least significant first, as Deflate packs them.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    n: usize,
}

impl Bits {
    fn put(&mut self, value: u32, count: usize) {
        for k in 0..count {
            if self.n % 8 == 0 {
                self.bytes.push(0);
            }
            *self.bytes.last_mut().unwrap() |= (((value >> k) & 1) as u8) << (self.n % 8);
            self.n += 1;
        }
    }

    /// A Huffman code, most significant bit first.
    fn code(&mut self, code: u32, len: usize) {
        for k in (0..len).rev() {
            self.put((code >> k) & 1, 1);
        }
    }

    fn align(&mut self) {
        self.n = self.bytes.len() * 8;
    }
}

/// A stream under construction with the bytes it decodes to.
#[derive(Default)]
struct Stream {
    bits: Bits,
    data: Vec<u8>,
}

impl Stream {
    fn stored(&mut self, rng: &mut Rng, len: usize, last: bool) {
        self.bits.put(last as u32, 1);
        self.bits.put(0, 2);
        self.bits.align();
        self.bits.put(len as u32, 16);
        self.bits.put(!len as u32 & 0xFFFF, 16);
        for _ in 0..len {
            let c = rng.next_u64() as u8;
            self.bits.put(c as u32, 8);
            self.data.push(c);
        }
    }

    /// A fixed-code block of `(length, distance)` matches (distance 0: a literal).
    fn fixed(&mut self, symbols: &[(usize, usize)], last: bool) {
        self.bits.put(last as u32, 1);
        self.bits.put(1, 2);
        for &(len, dist) in symbols {
            if dist == 0 {
                self.symbol(len as u32);
                self.data.push(len as u8);
                continue;
            }
            let (code, base, extra) = length_code(len);
            self.symbol(code);
            self.bits.put((len - base) as u32, extra);
            let (code, base, extra) = distance_code(dist);
            self.bits.code(code, 5);
            self.bits.put((dist - base) as u32, extra);
            for _ in 0..len {
                self.data.push(self.data[self.data.len() - dist]);
            }
        }
        self.symbol(256);
    }

    fn symbol(&mut self, sym: u32) {
        match sym {
            0..=143 => self.bits.code(0x30 + sym, 8),
            144..=255 => self.bits.code(0x190 + sym - 144, 9),
            256..=279 => self.bits.code(sym - 256, 7),
            _ => self.bits.code(0xC0 + sym - 280, 8),
        }
    }
}

/// Deflate's length codes (257..=285): (code, base, extra bits).
fn length_code(len: usize) -> (u32, usize, usize) {
    let mut base = 3;
    for i in 0..28 {
        let extra = if i < 8 { 0 } else { (i - 4) / 4 };
        if len < base + (1 << extra) {
            return (257 + i as u32, base, extra);
        }
        base += 1 << extra;
    }
    assert_eq!(len, 258);
    (285, 258, 0)
}

/// Deflate's distance codes (0..=29): (code, base, extra bits).
fn distance_code(dist: usize) -> (u32, usize, usize) {
    let mut base = 1;
    for i in 0..30 {
        let extra = if i < 4 { 0 } else { (i - 2) / 2 };
        if dist < base + (1 << extra) {
            return (i as u32, base, extra);
        }
        base += 1 << extra;
    }
    panic!("distance {dist}")
}

/// Matches that read every byte from 32 768 back to a little short of it, then the
/// nearest ones, of the shortest and the longest lengths.
fn reaching_back() -> Vec<(usize, usize)> {
    let mut s = Vec::new();
    for d in [
        32768, 32767, 32766, 32765, 32700, 32000, 30000, 20000, 4096, 300, 16, 3, 1,
    ] {
        s.push((3, d));
        s.push((258, d));
        s.push((b'x' as usize, 0));
    }
    s
}

/// The streams: stored runs of several lengths (as zlib cuts incompressible data, and
/// around 32 KiB exactly), then a Huffman block reaching back into them; one stream also
/// has a Huffman block before its stored run, one ends with stored blocks only.
fn streams() -> Vec<(String, Stream)> {
    let mut rng = Rng::new(0x5709ED);
    let runs: [&[usize]; 8] = [
        &[31745, 31745, 31745, 8184],
        &[32768, 1],
        &[32767, 1, 0, 2],
        &[65535, 65535],
        &[1000, 0, 0, 31768],
        &[40000, 10, 20, 30],
        &[100; 400],
        &[0, 32769],
    ];
    let mut out = Vec::new();
    for (k, run) in runs.iter().enumerate() {
        let mut s = Stream::default();
        if k % 2 == 1 {
            // A Huffman block first, so the stored run starts inside a byte.
            s.fixed(&[(b'a' as usize, 0), (b'b' as usize, 0), (40, 2)], false);
        }
        for &len in *run {
            s.stored(&mut rng, len, false);
        }
        s.fixed(&reaching_back(), true);
        out.push((
            format!(
                "stored run {run:?} then matches",
                run = &run[..run.len().min(4)]
            ),
            s,
        ));
    }
    let mut s = Stream::default();
    s.fixed(&[(b'a' as usize, 0), (10, 1)], false);
    for len in [31745, 31745, 5] {
        s.stored(&mut rng, len, false);
    }
    s.stored(&mut rng, 7, true);
    out.push(("stored blocks to the end".to_string(), s));
    out
}

/// Decodes `packed` with `in_chunk` bytes of input and `out_chunk` bytes of output room per
/// call (the unconsumed input is given again, as the contract asks).
fn streamed(packed: &[u8], size: usize, in_chunk: usize, out_chunk: usize) -> Vec<u8> {
    let mut d = InflateDecoder::new(size as u64);
    let mut out = vec![0u8; size];
    let (mut pos, mut produced) = (0, 0);
    loop {
        let end = (pos + in_chunk).min(packed.len());
        let room = (produced + out_chunk).min(size);
        let p = d
            .decode(
                &packed[pos..end],
                &mut out[produced..room],
                end == packed.len(),
            )
            .unwrap_or_else(|e| panic!("in {in_chunk}, out {out_chunk}: {e}"));
        pos += p.consumed;
        produced += p.produced;
        if p.status == Status::Done {
            return out;
        }
    }
}

#[test]
fn matches_reach_stored_bytes_whatever_the_calls_see_ahead() {
    let out_chunks = [
        1,
        7,
        1000,
        4096,
        31745,
        32767,
        32768,
        32769,
        65536,
        usize::MAX / 2,
    ];
    let in_chunks = [5, 4096, 40000, 65536, 70000, usize::MAX / 2];
    for (name, s) in streams() {
        let packed = &s.bits.bytes;
        let mut one = vec![0u8; s.data.len()];
        assert_eq!(
            inflate::decode_into(packed, &mut one),
            Ok(packed.len()),
            "{name}"
        );
        assert!(one == s.data, "{name}: one-shot output differs");
        for &oc in &out_chunks {
            for &ic in &in_chunks {
                // One-byte output calls with the whole input ahead are the slow case here;
                // the small input chunks with them say nothing the others do not.
                if oc == 1 && ic < 65536 {
                    continue;
                }
                let got = streamed(packed, s.data.len(), ic, oc);
                let bad = got.iter().zip(&s.data).position(|(a, b)| a != b);
                assert_eq!(bad, None, "{name}: in {ic}, out {oc}: first wrong byte");
            }
        }
    }
}
