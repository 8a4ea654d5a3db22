//! Inputs shared by the ngi benches: large archives built deterministically.

use ngi_core::Method;
use ngi_core::codec::inflate::InPlaceDecoder;
use ngi_core::codec::{Decoder, InPlace, Status};
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

/// Streams `packed` through the in-place decoder `d` (an [`InPlaceDecoder`] or LZHUF's)
/// with `in_chunk` bytes of input and `out_chunk` bytes of room per call, in `buf` (at
/// least a window and `out_chunk` long), sliding the window when the room runs out; each
/// call's bytes are handed to `sink` where they are (as a writer would write them on).
/// Returns the bytes produced. Panics on a decoding error.
pub fn stream_in_place<D: InPlace>(
    mut d: D,
    packed: &[u8],
    buf: &mut [u8],
    in_chunk: usize,
    out_chunk: usize,
    mut sink: impl FnMut(&[u8]),
) -> usize {
    let (mut pos, mut at, mut produced) = (0, 0, 0);
    loop {
        if buf.len() - at < out_chunk {
            at = d.slide(buf, at, &packed[pos..]);
        }
        let end = (pos + in_chunk).min(packed.len());
        let room_end = at + out_chunk;
        let p = d
            .decode(
                &packed[pos..end],
                &mut buf[..room_end],
                at,
                end == packed.len(),
            )
            .expect("valid stream");
        sink(&buf[at..at + p.produced]);
        pos += p.consumed;
        at += p.produced;
        produced += p.produced;
        if p.status == Status::Done {
            return produced;
        }
    }
}

/// [`stream_in_place`] of a Deflate stream with each call's bytes copied into `out` (the
/// exact-size output), for the benches that check it.
pub fn stream_in_place_into(
    packed: &[u8],
    out: &mut [u8],
    buf: &mut [u8],
    in_chunk: usize,
    out_chunk: usize,
) -> usize {
    let mut at = 0;
    let d = InPlaceDecoder::new(out.len() as u64);
    stream_in_place(d, packed, buf, in_chunk, out_chunk, |b| {
        out[at..at + b.len()].copy_from_slice(b);
        at += b.len();
    })
}

/// Exactly `len` bytes of the file at `path`: its first `len` bytes, or the whole file
/// repeated when it is shorter. Panics, naming the file, when it cannot be read or is empty.
pub fn file_bytes(path: &str, len: usize) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| {
        panic!("bench input {path} is missing ({e}); it ships with Debian's essential packages")
    });
    assert!(!bytes.is_empty(), "bench input {path} is empty");
    bytes.into_iter().cycle().take(len).collect()
}

/// Source code mixed with prose: the Perl modules of `perl-base` (essential on Debian),
/// every `.pm` below `/usr/lib/<multiarch triplet>/perl-base` in sorted path order,
/// concatenated and cut (or repeated) to `len` bytes. Panics, naming the folder, when
/// none is found.
pub fn perl_modules(len: usize) -> Vec<u8> {
    let mut roots: Vec<_> = std::fs::read_dir("/usr/lib")
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path().join("perl-base")))
        .filter(|p| p.is_dir())
        .collect();
    roots.sort();
    let root = roots
        .into_iter()
        .next()
        .expect("bench input /usr/lib/*/perl-base (Debian's perl-base package) is missing");
    let mut files = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("readable perl-base folder")
            .flatten()
        {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "pm") {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut out = Vec::new();
    for path in files {
        out.extend(std::fs::read(&path).expect("readable perl module"));
    }
    assert!(!out.is_empty(), "no .pm file below {}", root.display());
    out.into_iter().cycle().take(len).collect()
}
