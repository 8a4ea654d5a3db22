//! Inputs shared by the ngi benches: large archives built deterministically.

use ngi_core::Method;
use ngi_core::codec::{Decoder, Status};
use ngi_core::nres::{NewEntry, Writer};
use ngi_core::rsli::{Builder, MAX_ENTRIES};

/// A deterministic name generator (xorshift), so runs compare like with like.
#[derive(Debug, Clone)]
pub struct Names(u64);

impl Names {
    pub fn new(seed: u64) -> Self {
        Names(seed | 1)
    }

    /// A name of 4 to `max - 1` upper-case letters, digits and underscores.
    pub fn next(&mut self, max: usize) -> Vec<u8> {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        let len = 4 + (x % (max as u64 - 3)) as usize;
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
        (0..len)
            .map(|i| alphabet[((x >> (i * 5 % 60)) % 37) as usize])
            .collect()
    }
}

/// An NRes of `count` one-byte entries with random names.
pub fn nres_with(count: usize) -> Vec<u8> {
    let mut names = Names::new(count as u64);
    let mut w = Writer::new();
    for _ in 0..count {
        let name = names.next(20);
        w.add(
            NewEntry {
                name: &name,
                ..NewEntry::default()
            },
            b"x",
        )
        .expect("valid entry");
    }
    w.finish()
}

/// An RsLi of `count` (at most 32 767) stored entries without 0xABBA, so that opening it
/// computes the engine's permutation.
pub fn rsli_with(count: usize) -> Vec<u8> {
    let mut names = Names::new(count as u64 + 7);
    let mut b = Builder::new();
    b.presorted(false).seed(0x1234);
    for _ in 0..count.min(MAX_ENTRIES) {
        let name = names.next(12);
        b.add(&name, Method::Stored, b"x").expect("valid entry");
    }
    b.build().expect("library builds")
}

/// Streams `packed` through `decoder` with `in_chunk` bytes of input and `out_chunk` bytes
/// of output room per call; returns the bytes produced. Panics on a decoding error (the
/// benches feed valid streams only).
pub fn stream(
    decoder: &mut dyn Decoder,
    packed: &[u8],
    out: &mut [u8],
    in_chunk: usize,
    out_chunk: usize,
) -> usize {
    let (mut pos, mut produced) = (0, 0);
    loop {
        let end = (pos + in_chunk).min(packed.len());
        let room_end = (produced + out_chunk).min(out.len());
        let p = decoder
            .decode(
                &packed[pos..end],
                &mut out[produced..room_end],
                end == packed.len(),
            )
            .expect("valid stream");
        pos += p.consumed;
        produced += p.produced;
        if p.status == Status::Done {
            return produced;
        }
    }
}
