//! Deflate (method 0x100) on corrupt streams.
//!
//! * A catalogue of hand-made streams, one per fault RFC 1951 leaves a decoder to find
//!   (issue 4, point 2), each written bit by bit and asserted to fail with its exact
//!   [`InflateError`], one shot and in 1-byte pieces, and to stay failed.
//! * A differential test: thousands of random and bit-flipped streams, whose verdict
//!   (complete / corrupt / truncated), output and consumed count must equal zlib's (the
//!   system `python3`'s `zlib`, fed one byte at a time), and miniz_oxide's where it is a
//!   fair judge.

use ngi_core::codec::inflate::{self, CodeTable, InflateDecoder, InflateError};
use ngi_core::codec::{Decoder, Status};
use ngi_core::error::DecodeError;
use ngi_tests::chunked::{self, Pieces};
use ngi_tests::corpus::{self, Rng};
use std::path::PathBuf;
use std::process::Command;

/// Writes bits least significant first, as Deflate packs them.
#[derive(Default)]
struct Bits {
    bytes: Vec<u8>,
    n: usize,
}

impl Bits {
    fn put(&mut self, value: u32, count: usize) -> &mut Self {
        for k in 0..count {
            if self.n % 8 == 0 {
                self.bytes.push(0);
            }
            let bit = (value >> k) & 1;
            *self.bytes.last_mut().unwrap() |= (bit as u8) << (self.n % 8);
            self.n += 1;
        }
        self
    }

    /// A Huffman code, most significant bit first.
    fn code(&mut self, code: u32, len: usize) -> &mut Self {
        for k in (0..len).rev() {
            self.put((code >> k) & 1, 1);
        }
        self
    }

    fn align(&mut self) -> &mut Self {
        self.n = self.bytes.len() * 8;
        self
    }

    fn done(&self) -> Vec<u8> {
        self.bytes.clone()
    }
}

/// Fixed-code literal or length symbol.
fn fixed(b: &mut Bits, sym: u32) {
    match sym {
        0..=143 => b.code(0x30 + sym, 8),
        144..=255 => b.code(0x190 + sym - 144, 9),
        256..=279 => b.code(sym - 256, 7),
        _ => b.code(0xC0 + sym - 280, 8),
    };
}

/// The code-length code every dynamic header here uses: symbols 0-12 of 4 bits, 13-18 of
/// 5 (complete). Returns (code, len) of `sym`.
fn cl(sym: u32) -> (u32, usize) {
    if sym <= 12 {
        (sym, 4)
    } else {
        (26 + sym - 13, 5)
    }
}

/// A final dynamic block header with `hlit` + `hdist` code lengths written literally
/// (no repeats) from `lens`.
fn dynamic(hlit: usize, hdist: usize, lens: &[(usize, u32)]) -> Bits {
    let mut b = Bits::default();
    b.put(1, 1).put(2, 2);
    b.put((hlit - 257) as u32, 5)
        .put((hdist - 1) as u32, 5)
        .put(15, 4);
    const ORDER: [u32; 19] = [
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
    ];
    for s in ORDER {
        b.put(cl(s).1 as u32, 3);
    }
    let mut all = vec![0u32; hlit + hdist];
    for &(i, l) in lens {
        all[i] = l;
    }
    for l in all {
        let (c, n) = cl(l);
        b.code(c, n);
    }
    b
}

fn expect(packed: &[u8], size: usize, want: InflateError) {
    let mut out = vec![0u8; size];
    let one = inflate::decode_into(packed, &mut out);
    let Err(DecodeError::Inflate { error, offset }) = one else {
        panic!("{want:?}: one shot gave {one:?}");
    };
    assert_eq!(error, want);
    assert!(offset <= packed.len() as u64);
    let mut d = InflateDecoder::new(size as u64);
    let r = chunked::decode(&mut d, packed, size, Pieces::OneByte);
    assert_eq!(
        r.map(|x| x.1),
        Err(DecodeError::Inflate { error, offset }),
        "{want:?} in pieces"
    );
    let again = d.decode(packed, &mut out, true);
    assert_eq!(
        again,
        Err(DecodeError::Inflate { error, offset }),
        "stays failed"
    );
}

/// Literal 'a' (1 bit: 0), 256 (2 bits: 10), 257 = length 3 (2 bits: 11); distances 1 and
/// 2 (1 bit each).
const GOOD_LIT: [(usize, u32); 3] = [(97, 1), (256, 2), (257, 2)];

/// A final dynamic block: `hlit` literal/length lengths `lits`, `hdist` distance lengths
/// `dists`, then `body`.
fn block(
    lits: &[(usize, u32)],
    hdist: usize,
    dists: &[(usize, u32)],
    body: &dyn Fn(&mut Bits),
) -> Vec<u8> {
    let mut v: Vec<(usize, u32)> = lits.to_vec();
    v.extend(dists.iter().map(|&(i, l)| (258 + i, l)));
    let mut b = dynamic(258, hdist, &v);
    body(&mut b);
    b.done()
}

#[test]
fn catalogue_of_corrupt_streams() {
    use InflateError::*;
    let good_d = [(0, 1), (1, 1)];
    let eob = |b: &mut Bits| {
        b.code(0, 1).code(2, 2);
    };
    // The good block itself decodes: 'a', end.
    let mut out = [0u8; 1];
    let good = block(&GOOD_LIT, 2, &good_d, &eob);
    assert_eq!(inflate::decode_into(&good, &mut out), Ok(good.len()));
    assert_eq!(&out, b"a");
    // 'a', a match of 3 at distance 1 ('1' then '0'), end.
    let mut out = [0u8; 4];
    let m = block(&GOOD_LIT, 2, &good_d, &|b| {
        b.code(0, 1).code(3, 2).code(0, 1).code(2, 2);
    });
    assert_eq!(inflate::decode_into(&m, &mut out), Ok(m.len()));
    assert_eq!(&out, b"aaaa");

    expect(
        &Bits::default().put(1, 1).put(3, 2).done(),
        1,
        ReservedBlockType,
    );
    expect(
        &Bits::default()
            .put(1, 1)
            .put(0, 2)
            .align()
            .put(5, 16)
            .put(0x1234, 16)
            .done(),
        5,
        StoredLengthMismatch {
            len: 5,
            nlen: 0x1234,
        },
    );
    expect(
        &Bits::default()
            .put(1, 1)
            .put(2, 2)
            .put(30, 5)
            .put(0, 5)
            .put(0, 4)
            .done(),
        1,
        TooManyLengthCodes { hlit: 287 },
    );
    expect(
        &Bits::default()
            .put(1, 1)
            .put(2, 2)
            .put(0, 5)
            .put(30, 5)
            .put(0, 4)
            .done(),
        1,
        TooManyDistanceCodes { hdist: 31 },
    );
    let mut b = Bits::default();
    b.put(1, 1).put(2, 2).put(0, 5).put(0, 5).put(15, 4);
    for _ in 0..19 {
        b.put(1, 3);
    }
    expect(
        &b.done(),
        1,
        OversubscribedCode {
            table: CodeTable::CodeLengths,
        },
    );
    let b = Bits::default()
        .put(1, 1)
        .put(2, 2)
        .put(0, 5)
        .put(0, 5)
        .put(0, 4)
        .put(1, 3)
        .put(0, 9)
        .done();
    expect(
        &b,
        1,
        IncompleteCode {
            table: CodeTable::CodeLengths,
        },
    );

    expect(
        &block(&[(97, 1), (256, 1), (257, 1)], 2, &good_d, &eob),
        1,
        OversubscribedCode {
            table: CodeTable::Literals,
        },
    );
    expect(
        &block(&[(97, 2), (256, 2)], 2, &good_d, &eob),
        1,
        IncompleteCode {
            table: CodeTable::Literals,
        },
    );
    expect(
        &block(&GOOD_LIT, 3, &[(0, 1), (1, 1), (2, 1)], &eob),
        1,
        OversubscribedCode {
            table: CodeTable::Distances,
        },
    );
    expect(
        &block(&GOOD_LIT, 2, &[(0, 2), (1, 2)], &eob),
        1,
        IncompleteCode {
            table: CodeTable::Distances,
        },
    );
    expect(
        &block(&[(97, 1), (257, 1)], 2, &good_d, &eob),
        1,
        MissingEndOfBlock,
    );

    // zlib's exception: a single one-bit distance code is allowed; its other pattern is not.
    let single = block(&GOOD_LIT, 1, &[(0, 1)], &|b| {
        b.code(0, 1).code(3, 2).code(0, 1).code(2, 2);
    });
    let mut out = [0u8; 4];
    assert_eq!(inflate::decode_into(&single, &mut out), Ok(single.len()));
    let bad = block(&GOOD_LIT, 1, &[(0, 1)], &|b| {
        b.code(0, 1).code(3, 2).code(1, 1).code(2, 2);
    });
    expect(
        &bad,
        4,
        UnassignedCode {
            table: CodeTable::Distances,
        },
    );
    // No distance codes at all: allowed until a match needs one.
    let none = block(&GOOD_LIT, 1, &[], &eob);
    assert_eq!(inflate::decode_into(&none, &mut [0u8; 1]), Ok(none.len()));
    let none_used = block(&GOOD_LIT, 1, &[], &|b| {
        b.code(0, 1).code(3, 2).code(0, 1);
    });
    expect(
        &none_used,
        4,
        UnassignedCode {
            table: CodeTable::Distances,
        },
    );
    // A literal/length code of end-of-block alone (one bit): its other pattern is unassigned.
    let eob_only = block(&[(256, 1)], 1, &[], &|b| {
        b.code(1, 1);
    });
    expect(
        &eob_only,
        1,
        UnassignedCode {
            table: CodeTable::Literals,
        },
    );
    let eob_ok = block(&[(256, 1)], 1, &[], &|b| {
        b.code(0, 1);
    });
    assert_eq!(inflate::decode_into(&eob_ok, &mut []), Ok(eob_ok.len()));

    // Code-length repeats: 16 first; 18 x 138 twice runs past 258 + 2.
    let mut b = Bits::default();
    b.put(1, 1).put(2, 2).put(1, 5).put(1, 5).put(15, 4);
    for s in [
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
    ] {
        b.put(cl(s).1 as u32, 3);
    }
    let header = b.done();
    let mut b = Bits {
        bytes: header.clone(),
        n: b.n,
    };
    b.code(cl(16).0, cl(16).1).put(3, 2).put(0, 16);
    expect(&b.done(), 1, RepeatWithoutPrevious);
    let mut b2 = Bits::default();
    b2.put(1, 1).put(2, 2).put(1, 5).put(1, 5).put(15, 4);
    for s in [
        16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
    ] {
        b2.put(cl(s).1 as u32, 3);
    }
    b2.code(cl(18).0, cl(18).1)
        .put(127, 7)
        .code(cl(18).0, cl(18).1)
        .put(127, 7)
        .put(0, 16);
    expect(&b2.done(), 1, RepeatPastEnd);

    // Fixed blocks: symbols 286, 287, distances 30, 31, a distance before the output.
    for sym in [286, 287] {
        let mut b = Bits::default();
        b.put(1, 1).put(1, 2);
        fixed(&mut b, sym);
        b.put(0, 16);
        expect(&b.done(), 1, InvalidLengthSymbol { symbol: sym as u16 });
    }
    for dsym in [30, 31] {
        let mut b = Bits::default();
        b.put(1, 1).put(1, 2);
        fixed(&mut b, b'a' as u32);
        fixed(&mut b, 257);
        b.code(dsym, 5).put(0, 16);
        expect(
            &b.done(),
            4,
            InvalidDistanceSymbol {
                symbol: dsym as u16,
            },
        );
    }
    let mut b = Bits::default();
    b.put(1, 1).put(1, 2);
    fixed(&mut b, b'a' as u32);
    fixed(&mut b, 257);
    b.code(1, 5).put(0, 16);
    expect(
        &b.done(),
        4,
        DistanceTooFar {
            distance: 2,
            available: 1,
        },
    );
    let mut b = Bits::default();
    b.put(1, 1).put(1, 2);
    fixed(&mut b, 257);
    b.code(0, 5).put(0, 16);
    expect(
        &b.done(),
        3,
        DistanceTooFar {
            distance: 1,
            available: 0,
        },
    );

    // Sizes: "aa" into 1 byte; "a" into 2; a stored block longer than the size.
    let mut b = Bits::default();
    b.put(1, 1).put(1, 2);
    fixed(&mut b, b'a' as u32);
    fixed(&mut b, b'a' as u32);
    fixed(&mut b, 256);
    let aa = b.done();
    assert_eq!(inflate::decode_into(&aa, &mut [0u8; 2]), Ok(aa.len()));
    expect(&aa, 1, TooMuchOutput);
    expect(&aa, 3, EndBeforeSize);
    let stored = Bits::default()
        .put(1, 1)
        .put(0, 2)
        .align()
        .put(3, 16)
        .put(!3, 16)
        .put(0x636261, 24)
        .done();
    let mut out = [0u8; 3];
    assert_eq!(inflate::decode_into(&stored, &mut out), Ok(8));
    assert_eq!(&out, b"abc");
    expect(&stored, 2, TooMuchOutput);
    expect(&stored, 4, EndBeforeSize);
    // A non-final block then nothing: truncated.
    let mut b = Bits::default();
    b.put(0, 1).put(1, 2);
    fixed(&mut b, b'a' as u32);
    fixed(&mut b, 256);
    let open = b.done();
    assert_eq!(
        inflate::decode_into(&open, &mut [0u8; 1]),
        Err(DecodeError::Truncated {
            produced: 1,
            expected: 1
        })
    );
    let mut d = InflateDecoder::new(1);
    let p = d.decode(&open, &mut [0u8; 1], false).unwrap();
    assert_eq!(
        (p.consumed, p.produced, p.status),
        (open.len(), 1, Status::NeedInput)
    );
}

/// zlib's verdict on a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    /// The final block ended: the output and the bytes consumed.
    Complete(Vec<u8>, usize),
    /// zlib raised an error, after this much output.
    Corrupt(usize),
    /// The input ran out first, after this much output.
    Truncated(usize),
}

/// zlib's verdicts, from one Python run; the streams are fed one byte at a time so that
/// the output before an error is kept.
fn zlib_verdicts(streams: &[Vec<u8>]) -> Vec<Verdict> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let input = dir.join(format!("inflate-diff-{}-in", std::process::id()));
    let output = dir.join(format!("inflate-diff-{}-out", std::process::id()));
    let mut blob = Vec::new();
    for s in streams {
        blob.extend_from_slice(&(s.len() as u32).to_le_bytes());
        blob.extend_from_slice(s);
    }
    std::fs::write(&input, blob).unwrap();
    let script = r#"
import sys, zlib, struct
blob = open(sys.argv[1], 'rb').read()
res = bytearray()
p = 0
while p < len(blob):
    (n,) = struct.unpack_from('<I', blob, p); p += 4
    s = blob[p:p + n]; p += n
    d = zlib.decompressobj(-15)
    out = bytearray()
    verdict = 2
    used = 0
    try:
        for i in range(n):
            out += d.decompress(s[i:i + 1])
            used = i + 1 - len(d.unused_data)
            if d.eof:
                break
        if d.eof:
            verdict = 0
    except zlib.error:
        verdict = 1
    consumed = used if d.eof else 0
    res += struct.pack('<BII', verdict, consumed, len(out)) + out
open(sys.argv[2], 'wb').write(res)
"#;
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&input)
        .arg(&output)
        .status()
        .expect("python3 runs");
    assert!(status.success());
    let res = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&output);
    let mut v = Vec::new();
    let mut p = 0;
    while p < res.len() {
        let verdict = res[p];
        let consumed = u32::from_le_bytes(res[p + 1..p + 5].try_into().unwrap()) as usize;
        let n = u32::from_le_bytes(res[p + 5..p + 9].try_into().unwrap()) as usize;
        let out = res[p + 9..p + 9 + n].to_vec();
        p += 9 + n;
        v.push(match verdict {
            0 => Verdict::Complete(out, consumed),
            1 => Verdict::Corrupt(n),
            _ => Verdict::Truncated(n),
        });
    }
    assert_eq!(v.len(), streams.len());
    v
}

/// Random and bit-flipped streams.
fn streams() -> Vec<Vec<u8>> {
    let mut rng = Rng::new(0xDEF1A7E);
    let text = corpus::text(20_000);
    let bin = corpus::binary(20_000);
    let mut bases = Vec::new();
    for level in [0u8, 1, 4, 6, 9, 10] {
        for len in [0usize, 1, 30, 300, 3000, 12_000] {
            let at = rng.below(8000);
            bases.push(miniz_oxide::deflate::compress_to_vec(
                &text[at..at + len],
                level,
            ));
            bases.push(miniz_oxide::deflate::compress_to_vec(
                &bin[at..at + len],
                level,
            ));
        }
    }
    let mut v = bases.clone();
    for _ in 0..3000 {
        let mut s = bases[rng.below(bases.len())].clone();
        if s.is_empty() {
            continue;
        }
        for _ in 0..1 + rng.below(3) {
            // Flip near the header more often: that is where most of the checks are.
            let bit = if rng.below(2) == 0 {
                rng.below(s.len().min(40) * 8)
            } else {
                rng.below(s.len() * 8)
            };
            s[bit / 8] ^= 1 << (bit % 8);
        }
        v.push(s);
    }
    for _ in 0..1500 {
        let len = 1 + rng.below(300);
        let mut s = rng.bytes(len);
        // Mostly dynamic and fixed blocks.
        s[0] = (s[0] & !6) | [4u8, 2, 4, 0][rng.below(4)];
        v.push(s);
    }
    v
}

#[test]
fn random_and_flipped_streams_get_zlibs_verdict() {
    let streams = streams();
    let verdicts = zlib_verdicts(&streams);
    let (mut ok, mut bad, mut cut) = (0, 0, 0);
    let mut miniz_differs = 0;
    for (k, (s, v)) in streams.iter().zip(&verdicts).enumerate() {
        match v {
            Verdict::Complete(data, consumed) => {
                ok += 1;
                let mut out = vec![0u8; data.len()];
                assert_eq!(
                    inflate::decode_into(s, &mut out),
                    Ok(*consumed),
                    "stream {k}"
                );
                assert!(out == *data, "stream {k}");
                let mut d = InflateDecoder::new(data.len() as u64);
                let r = chunked::decode(&mut d, s, data.len(), Pieces::Random(k as u64, 50));
                assert_eq!(r, Ok((data.clone(), *consumed)), "stream {k} in pieces");
                // miniz_oxide, given the exact size, agrees on a complete stream.
                let mut m = vec![0u8; data.len()];
                match miniz_oxide::inflate::decompress_slice_iter_to_slice(
                    &mut m,
                    std::iter::once(&s[..]),
                    false,
                    true,
                ) {
                    Ok(n) if n == data.len() && m == *data => {}
                    _ => miniz_differs += 1,
                }
            }
            Verdict::Corrupt(n) | Verdict::Truncated(n) => {
                let size = n + (1 << 16);
                let mut out = vec![0u8; size];
                let r = inflate::decode_into(s, &mut out);
                if matches!(v, Verdict::Corrupt(_)) {
                    bad += 1;
                    assert!(
                        matches!(r, Err(DecodeError::Inflate { error, .. }) if error != InflateError::EndBeforeSize && error != InflateError::TooMuchOutput),
                        "stream {k}: zlib says corrupt after {n} bytes, we {r:?}"
                    );
                } else {
                    cut += 1;
                    assert!(
                        matches!(r, Err(DecodeError::Truncated { .. })),
                        "stream {k}: zlib says truncated after {n} bytes, we {r:?}"
                    );
                }
                // What zlib produced before, we produced too.
                let mut d = InflateDecoder::new(size as u64);
                let mut o2 = vec![0u8; size];
                let _ = d.decode(s, &mut o2, true);
                assert!(d.produced_total() >= *n as u64, "stream {k}");
            }
        }
    }
    eprintln!(
        "{ok} complete, {bad} corrupt, {cut} truncated; miniz_oxide differs on {miniz_differs} complete"
    );
    assert!(ok > 100 && bad > 1000 && cut > 50, "{ok} {bad} {cut}");
}
