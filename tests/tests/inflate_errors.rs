//! Deflate (method 0x100) on corrupt streams.
//!
//! * A catalogue of hand-made streams, one per fault RFC 1951 leaves a decoder to find
//!   (issue 4, point 2), each written bit by bit and asserted to fail with its exact
//!   [`InflateError`], one shot and in 1-byte pieces, and to stay failed.
//! * A differential test (issue 4): about 8 900 streams (miniz_oxide's and zlib-rs's at
//!   every level, with sync and full flushes, hand-made stored and fixed blocks; those
//!   with bytes after them, cut, or with bits flipped; random bytes), on each of which
//!   ngi's verdict (complete / corrupt / truncated), its output (all of it, or all it
//!   produced before the fault or the end of the input, byte for byte) and its consumed
//!   count must equal zlib-rs's (through flate2), in one call and in random pieces, and
//!   Python zlib's verdict must agree; miniz_oxide's disagreements are counted.
//! * A fault's offset: the same whatever the pieces, and the last byte zlib needed.
//! * The one difference from zlib's verdicts known, pinned: an empty code-length code.

use ngi_core::codec::inflate::{self, CodeTable, InflateDecoder, InflateError, WINDOW_SIZE};
use ngi_core::codec::{Decoder, Status};
use ngi_core::error::DecodeError;
use ngi_tests::chunked::{self, Pieces};
use ngi_tests::corpus::{self, Rng};
use ngi_tests::deflate_bits::{Bits, distance_code, length_code};
use ngi_tests::verdict::Verdict;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    let mut b = b.clone();
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
        b.fixed(sym);
        b.put(0, 16);
        expect(&b.done(), 1, InvalidLengthSymbol { symbol: sym as u16 });
    }
    for dsym in [30, 31] {
        let mut b = Bits::default();
        b.put(1, 1).put(1, 2);
        b.fixed(b'a' as u32);
        b.fixed(257);
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
    b.fixed(b'a' as u32);
    b.fixed(257);
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
    b.fixed(257);
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
    b.fixed(b'a' as u32);
    b.fixed(b'a' as u32);
    b.fixed(256);
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
    b.fixed(b'a' as u32);
    b.fixed(256);
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

/// How two verdicts differ, for a message.
fn difference(ours: &Verdict, theirs: &Verdict) -> String {
    let (a, b) = (ours.output(), theirs.output());
    let at = a.iter().zip(b).position(|(x, y)| x != y);
    let bytes = match at {
        Some(i) => format!(
            "outputs differ first at byte {i}: {:#04x} vs {:#04x}",
            a[i], b[i]
        ),
        None if a.len() == b.len() => "outputs equal".to_string(),
        None => format!(
            "one output is a prefix of the other ({} vs {})",
            a.len(),
            b.len()
        ),
    };
    format!("{ours:?} vs {theirs:?}; {bytes}")
}

fn hex(s: &[u8]) -> String {
    let shown: String = s.iter().take(256).map(|b| format!("{b:02x}")).collect();
    if s.len() > 256 {
        format!("{shown}... ({} bytes)", s.len())
    } else {
        shown
    }
}

/// zlib-rs's verdict (through flate2, raw Deflate), the input fed `step` bytes per call.
///
/// The output buffer is always larger than what is left to produce (it is doubled
/// whenever a call fills it), so a call stops only at the stream's end, at a fault or when
/// the input runs out. zlib writes straight into the caller's buffer, and flate2 adds what
/// a call wrote to `total_out` before it turns the return code into an error, so
/// `out[..total_out]` is everything inflated before the fault, fed whole (`step` = the
/// length) or a byte at a time (the test asserts both agree).
fn zlib_rs(s: &[u8], step: usize) -> Verdict {
    zlib_rs_and_total_in(s, step).0
}

/// The same, and zlib-rs's `total_in` at the end: on a fault, the bytes it needed to find
/// it (it reads a byte only when the bits at hand do not suffice, drops a code's bits
/// before judging it, and gives back whole bytes it read ahead).
fn zlib_rs_and_total_in(s: &[u8], step: usize) -> (Verdict, u64) {
    use flate2::{Decompress, FlushDecompress, Status};
    let mut d = Decompress::new(false);
    let mut out = vec![0u8; 2 * s.len() + 4096];
    loop {
        let (i, o) = (d.total_in() as usize, d.total_out() as usize);
        if o == out.len() {
            out.resize(2 * out.len(), 0);
        }
        let end = s.len().min(i + step);
        let r = d.decompress(&s[i..end], &mut out[o..], FlushDecompress::None);
        let (i2, o2) = (d.total_in() as usize, d.total_out() as usize);
        match r {
            Err(_) => {
                out.truncate(o2);
                return (Verdict::Corrupt(out), i2 as u64);
            }
            Ok(Status::StreamEnd) => {
                out.truncate(o2);
                return (Verdict::Complete(out, i2), i2 as u64);
            }
            Ok(_) if i2 == s.len() && o2 < out.len() => {
                out.truncate(o2);
                return (Verdict::Truncated(out), i2 as u64);
            }
            Ok(_) => assert!(i2 > i || o2 > o, "zlib-rs makes no progress"),
        }
    }
}

/// miniz_oxide's verdict: the whole input, into a flat buffer of `cap` bytes (more than
/// zlib-rs produced); its output on a fault is what it wrote before.
fn miniz(s: &[u8], cap: usize) -> Verdict {
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
    let mut r = Box::<DecompressorOxide>::default();
    let mut out = vec![0u8; cap];
    let (status, used, n) = decompress(
        &mut r,
        s,
        &mut out,
        0,
        inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
    );
    out.truncate(n);
    match status {
        TINFLStatus::Done => Verdict::Complete(out, used),
        TINFLStatus::FailedCannotMakeProgress | TINFLStatus::NeedsMoreInput => {
            Verdict::Truncated(out)
        }
        _ => Verdict::Corrupt(out),
    }
}

/// How a decode by ngi ended (`Ok`: `Done`, with the input consumed), and the
/// `produced_total` bytes it wrote.
type NgiRun = (Result<usize, DecodeError>, Vec<u8>);

/// One [`InflateDecoder::decode`] call with the whole input and `size` bytes of room (and
/// of expected size). The decoder writes straight into the caller's output and counts what
/// it wrote in `produced_total` even when the call fails (`run` adds the output position
/// to `produced` before `finish` reports the fault), so `out[..produced_total]` is the
/// output before the fault.
fn one_call(s: &[u8], size: usize) -> NgiRun {
    let mut d = InflateDecoder::new(size as u64);
    let mut out = vec![0u8; size];
    let end = match d.decode(s, &mut out, true) {
        Ok(p) if p.status == Status::Done => Ok(p.consumed),
        Ok(p) => panic!("{:?} with the input ended", p.status),
        Err(e) => Err(e),
    };
    out.truncate(d.produced_total() as usize);
    (end, out)
}

/// The same with random pieces of input and of output room (1 to 64 bytes each, drawn
/// from `seed`); the bytes the failing call wrote count, as above.
fn in_pieces(s: &[u8], size: usize, seed: u64) -> NgiRun {
    pieces(
        &mut InflateDecoder::new(size as u64),
        s,
        size,
        Rng::new(seed),
    )
}

/// The same through the in-place form (the window in the decoder's buffer, here a
/// window and 1 to 400 bytes of room, so that long streams slide it often).
fn in_place_pieces(s: &[u8], size: usize, seed: u64) -> NgiRun {
    let mut rng = Rng::new(seed ^ 0x1951);
    let room = 1 + rng.below(400);
    pieces(
        &mut chunked::InPlaceDriver::inflate(size as u64, room),
        s,
        size,
        rng,
    )
}

/// `d` fed `s` in pieces of input and room of 1 to 64 bytes drawn from `rng`, into
/// `size` bytes.
fn pieces(d: &mut dyn Decoder, s: &[u8], size: usize, mut rng: Rng) -> NgiRun {
    let mut out = vec![0u8; size];
    let (mut i, mut o) = (0usize, 0usize);
    let end = loop {
        let ie = i + (s.len() - i).min(1 + rng.below(64));
        let oe = o + (size - o).min(1 + rng.below(64));
        match d.decode(&s[i..ie], &mut out[o..oe], ie == s.len()) {
            Ok(p) => {
                assert!(p.consumed > 0 || p.produced > 0 || (ie == i && oe == o));
                i += p.consumed;
                o += p.produced;
                assert_eq!(d.produced_total(), o as u64);
                if p.status == Status::Done {
                    break Ok(i);
                }
            }
            Err(e) => break Err(e),
        }
    };
    out.truncate(d.produced_total() as usize);
    (end, out)
}

/// ngi's verdict, from `decode` with `cap` bytes of room and size (64 KiB more than
/// zlib-rs produced, so that ngi can only run out of room by going on past zlib-rs), and
/// how that decode ended. A complete stream, shorter than `cap`, fails with
/// `EndBeforeSize` after its n bytes; it is decoded again with size n, which must end in
/// `Done` with the same output, for the consumed count.
fn ngi(
    s: &[u8],
    cap: usize,
    decode: &dyn Fn(&[u8], usize) -> NgiRun,
) -> (Verdict, Result<usize, DecodeError>) {
    let (end, out) = decode(s, cap);
    let verdict = match end {
        Ok(consumed) => Verdict::Complete(out, consumed),
        Err(DecodeError::Inflate {
            error: InflateError::EndBeforeSize,
            ..
        }) => match decode(s, out.len()) {
            (Ok(consumed), exact) if exact == out => Verdict::Complete(out, consumed),
            (again, _) => panic!(
                "EndBeforeSize after {} bytes, but with that size {again:?}; stream {}",
                out.len(),
                hex(s)
            ),
        },
        Err(DecodeError::Inflate {
            error: InflateError::TooMuchOutput,
            ..
        }) => panic!(
            "ngi goes on past {cap} bytes, 64 KiB more than zlib-rs produced; stream {}",
            hex(s)
        ),
        Err(DecodeError::Inflate { .. }) => Verdict::Corrupt(out),
        Err(DecodeError::Truncated { produced, expected }) => {
            assert_eq!((produced, expected), (out.len() as u64, cap as u64));
            Verdict::Truncated(out)
        }
        Err(e) => panic!("not an inflate error: {e:?}"),
    };
    (verdict, end)
}

/// A decode's end with the fault's offset zeroed, to compare faults alone.
fn without_offset<T>(r: &Result<T, DecodeError>) -> Result<(), DecodeError> {
    match r {
        Ok(_) => Ok(()),
        Err(DecodeError::Inflate { error, .. }) => Err(DecodeError::Inflate {
            error: *error,
            offset: 0,
        }),
        Err(e) => Err(*e),
    }
}

/// Python zlib's verdicts (the system `python3`), from one run. A stream is fed whole;
/// one that raises is fed again a byte at a time, to keep the output of the calls before
/// the one that raised. That output can still fall short of zlib's: Python drops the
/// output of the call that raises, which one byte of input can end a literal or a match
/// in. So only its verdict, and its output and consumed count on a complete stream, are
/// asserted equal; its partial output must be a prefix of zlib-rs's.
fn python_verdicts(streams: &[Vec<u8>]) -> Vec<Verdict> {
    // Tests run on several threads and more than one asks for verdicts: each call gets
    // files of its own.
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, Ordering::Relaxed);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let stem = format!("inflate-diff-{}-{call}", std::process::id());
    let input = dir.join(format!("{stem}-in"));
    let output = dir.join(format!("{stem}-out"));
    let mut blob = Vec::new();
    for s in streams {
        blob.extend_from_slice(&(s.len() as u32).to_le_bytes());
        blob.extend_from_slice(s);
    }
    std::fs::write(&input, blob).unwrap();
    let script = r#"
import sys, zlib, struct
def run(s, step):
    d = zlib.decompressobj(-15)
    out = bytearray()
    fed = 0
    try:
        for i in range(0, len(s), step):
            out += d.decompress(s[i:i + step])
            fed = min(len(s), i + step)
            if d.eof:
                return 0, fed - len(d.unused_data), out
    except zlib.error:
        return 1, 0, out
    return 2, 0, out
blob = open(sys.argv[1], 'rb').read()
res = bytearray()
p = 0
while p < len(blob):
    (n,) = struct.unpack_from('<I', blob, p); p += 4
    s = blob[p:p + n]; p += n
    v = run(s, max(n, 1))
    if v[0] == 1:
        v = run(s, 1)
    res += struct.pack('<BII', v[0], v[1], len(v[2])) + v[2]
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
            1 => Verdict::Corrupt(out),
            _ => Verdict::Truncated(out),
        });
    }
    assert_eq!(v.len(), streams.len());
    v
}

/// A valid stream of `blocks` blocks, stored or fixed at random, the last final: stored
/// blocks of 0 to 2000 random bytes at any bit position, fixed blocks of text literals and
/// matches of every length and of distances up to the window.
fn stored_and_fixed(rng: &mut Rng, text: &[u8], blocks: usize) -> Vec<u8> {
    let mut b = Bits::default();
    let mut data: Vec<u8> = Vec::new();
    for k in 0..blocks {
        let last = (k + 1 == blocks) as u32;
        if rng.below(2) == 0 {
            b.put(last, 1).put(0, 2).align();
            let len = [0, 1, 2, rng.below(300), rng.below(2000)][rng.below(5)];
            b.put(len as u32, 16).put(!len as u32 & 0xFFFF, 16);
            for _ in 0..len {
                let c = rng.next_u64() as u8;
                b.put(c as u32, 8);
                data.push(c);
            }
        } else {
            b.put(last, 1).put(1, 2);
            for _ in 0..rng.below(300) {
                if !data.is_empty() && rng.below(3) == 0 {
                    let dist = 1 + rng.below(data.len().min(WINDOW_SIZE));
                    let len = 3 + rng.below(256);
                    let (code, base, extra) = length_code(len);
                    b.fixed(code);
                    b.put((len - base) as u32, extra);
                    let (code, base, extra) = distance_code(dist);
                    b.code(code, 5).put((dist - base) as u32, extra);
                    for _ in 0..len {
                        data.push(data[data.len() - dist]);
                    }
                } else {
                    let c = text[rng.below(text.len())];
                    b.fixed(c as u32);
                    data.push(c);
                }
            }
            b.fixed(256);
        }
    }
    let s = b.done();
    let mut out = vec![0u8; data.len()];
    assert_eq!(inflate::decode_into(&s, &mut out), Ok(s.len()));
    assert!(out == data);
    s
}

/// zlib-rs's deflate of `data` at `level`, in `pieces` pieces, each ended with `flush`
/// (a sync flush adds an empty stored block, a full flush also forgets the window).
fn zlib_rs_deflate(
    data: &[u8],
    level: u32,
    pieces: usize,
    flush: flate2::FlushCompress,
) -> Vec<u8> {
    use flate2::{Compress, Compression, FlushCompress, Status};
    let mut c = Compress::new(Compression::new(level), false);
    let mut out = Vec::new();
    let size = data.len().div_ceil(pieces).max(1);
    for piece in data.chunks(size) {
        let mut rest = piece;
        loop {
            out.reserve(4096);
            let before = c.total_in();
            c.compress_vec(rest, &mut out, flush).unwrap();
            rest = &rest[(c.total_in() - before) as usize..];
            if rest.is_empty() && out.len() < out.capacity() {
                break;
            }
        }
    }
    loop {
        out.reserve(4096);
        if c.compress_vec(&[], &mut out, FlushCompress::Finish)
            .unwrap()
            == Status::StreamEnd
        {
            return out;
        }
    }
}

/// The streams of the differential test, each with where it comes from.
fn streams() -> Vec<(&'static str, Vec<u8>)> {
    use flate2::FlushCompress;
    let mut rng = Rng::new(0xDEF1A7E);
    let text = corpus::text(20_000);
    let bin = corpus::binary(20_000);
    let mut valid: Vec<(&'static str, Vec<u8>)> = Vec::new();
    for level in [0u8, 1, 4, 6, 9, 10] {
        for len in [0usize, 1, 30, 300, 3000, 12_000] {
            let at = rng.below(8000);
            for src in [&text, &bin] {
                let s = miniz_oxide::deflate::compress_to_vec(&src[at..at + len], level);
                valid.push(("miniz_oxide", s));
            }
        }
    }
    for level in 0..=9 {
        for len in [0usize, 1, 30, 300, 3000, 12_000] {
            let at = rng.below(8000);
            for src in [&text, &bin] {
                let data = &src[at..at + len];
                valid.push((
                    "zlib-rs",
                    zlib_rs_deflate(data, level, 1, FlushCompress::None),
                ));
            }
        }
        let at = rng.below(8000);
        let data = &text[at..at + 6000];
        let sync = zlib_rs_deflate(data, level, 7, FlushCompress::Sync);
        valid.push(("zlib-rs, flushed", sync));
        let full = zlib_rs_deflate(data, level, 5, FlushCompress::Full);
        valid.push(("zlib-rs, flushed", full));
    }
    for _ in 0..60 {
        let blocks = 1 + rng.below(6);
        valid.push(("stored+fixed", stored_and_fixed(&mut rng, &text, blocks)));
    }
    let mut v = valid.clone();
    // Valid streams with bytes after them: not consumed.
    for _ in 0..100 {
        let (_, s) = &valid[rng.below(valid.len())];
        let mut s = s.clone();
        let n = 1 + rng.below(20);
        s.extend(rng.bytes(n));
        v.push(("valid + trailing bytes", s));
    }
    // Cut at a random point (sometimes in the first bytes, where the headers are).
    for _ in 0..1000 {
        let (_, s) = &valid[rng.below(valid.len())];
        if s.is_empty() {
            continue;
        }
        let at = if rng.below(2) == 0 {
            rng.below(s.len().min(40))
        } else {
            rng.below(s.len())
        };
        v.push(("valid, cut", s[..at].to_vec()));
    }
    // One to three bits flipped, near the start more often: that is where most of the
    // checks are; some also cut.
    for _ in 0..6000 {
        let (origin, s) = &valid[rng.below(valid.len())];
        let mut s = s.clone();
        if s.is_empty() {
            continue;
        }
        for _ in 0..1 + rng.below(3) {
            let bit = if rng.below(2) == 0 {
                rng.below(s.len().min(40) * 8)
            } else {
                rng.below(s.len() * 8)
            };
            s[bit / 8] ^= 1 << (bit % 8);
        }
        if rng.below(8) == 0 {
            s.truncate(rng.below(s.len() + 1));
            v.push(("flipped and cut", s));
        } else {
            v.push((
                match *origin {
                    "miniz_oxide" => "miniz_oxide, flipped",
                    "stored+fixed" => "stored+fixed, flipped",
                    _ => "zlib-rs, flipped",
                },
                s,
            ));
        }
    }
    for _ in 0..1500 {
        let len = 1 + rng.below(300);
        let mut s = rng.bytes(len);
        // Mostly dynamic and fixed blocks.
        s[0] = (s[0] & !6) | [4u8, 2, 4, 0][rng.below(4)];
        v.push(("random", s));
    }
    v
}

/// Issue 4: on every stream, ngi's verdict (complete / corrupt / truncated), its output
/// (all of it, or all before the fault or the end of the input, byte for byte) and its
/// consumed count equal zlib-rs's; Python zlib's verdict agrees; miniz_oxide's
/// disagreements are counted, not failed on. ngi is run four ways: one call, random
/// pieces, and on complete streams `decode_into` and random pieces with the exact size.
#[test]
fn random_and_flipped_streams_get_zlibs_verdict() {
    let streams = streams();
    let plain: Vec<Vec<u8>> = streams.iter().map(|(_, s)| s.clone()).collect();
    let python = python_verdicts(&plain);
    let mut mismatches: Vec<(usize, String)> = Vec::new();
    let mut counts: std::collections::BTreeMap<&str, [usize; 3]> = Default::default();
    let mut total = [0usize; 3];
    let (mut miniz_differs, mut miniz_examples) = (0, Vec::new());
    let mut python_short = 0;
    for (k, ((origin, s), py)) in streams.iter().zip(&python).enumerate() {
        let zr = zlib_rs(s, s.len().max(1));
        counts.entry(origin).or_default()[zr.kind()] += 1;
        total[zr.kind()] += 1;
        let mut fail = |what: String| {
            mismatches.push((
                s.len(),
                format!("stream {k} ({origin}), {what}; stream {}", hex(s)),
            ))
        };

        // The references agree among themselves.
        if zr.kind() != 0 {
            let bytewise = zlib_rs(s, 1);
            assert_eq!(bytewise, zr, "stream {k}: zlib-rs fed byte by byte");
        }
        let python_agrees = match (py, &zr) {
            (Verdict::Complete(..), _) => py == &zr,
            (Verdict::Corrupt(o), Verdict::Corrupt(z))
            | (Verdict::Truncated(o), Verdict::Truncated(z)) => {
                python_short += (o.len() < z.len()) as usize;
                z.starts_with(o)
            }
            _ => false,
        };
        assert!(
            python_agrees,
            "stream {k}: python {py:?}, zlib-rs {zr:?}; {}",
            hex(s)
        );
        let cap = zr.output().len() + (1 << 16);
        let m = miniz(s, cap);
        if m != zr {
            miniz_differs += 1;
            if miniz_examples.len() < 3 {
                miniz_examples.push(format!(
                    "stream {k} ({origin}): miniz_oxide {}; stream {}",
                    difference(&m, &zr),
                    hex(s)
                ));
            }
        }

        // ngi, in one call and in pieces.
        let (one, one_end) = ngi(s, cap, &one_call);
        if one != zr {
            fail(format!("one call: ngi {}", difference(&one, &zr)));
            continue;
        }
        let (pieces, pieces_end) = ngi(s, cap, &|s, n| in_pieces(s, n, k as u64));
        if pieces != zr {
            fail(format!("in pieces: ngi {}", difference(&pieces, &zr)));
            continue;
        }
        let (in_place, in_place_end) = ngi(s, cap, &|s, n| in_place_pieces(s, n, k as u64));
        if in_place != zr {
            fail(format!("in place: ngi {}", difference(&in_place, &zr)));
            continue;
        }
        // The same fault at the same offset as the window-keeping form.
        if in_place_end != pieces_end {
            fail(format!("in place: {in_place_end:?} vs {pieces_end:?}"));
            continue;
        }
        match &zr {
            Verdict::Complete(data, consumed) => {
                let mut out = vec![0u8; data.len()];
                let r = inflate::decode_into(s, &mut out);
                if r != Ok(*consumed) || out != *data {
                    fail(format!("decode_into, exact size: {r:?}"));
                    continue;
                }
                let mut d = InflateDecoder::new(data.len() as u64);
                let r = chunked::decode(&mut d, s, data.len(), Pieces::Random(k as u64, 50));
                if r != Ok((data.clone(), *consumed)) {
                    fail("in pieces, exact size: differs".to_string());
                }
            }
            _ => {
                // The one-shot form fails the same way (offsets: see the next test).
                let r = inflate::decode_into(s, &mut vec![0u8; cap]);
                if without_offset(&r) != without_offset(&one_end) {
                    fail(format!("decode_into: {r:?} vs {one_end:?}"));
                }
            }
        }
    }
    for (origin, c) in &counts {
        eprintln!(
            "{origin:>24}: {} complete, {} corrupt, {} truncated",
            c[0], c[1], c[2]
        );
    }
    eprintln!(
        "{} streams: {} complete, {} corrupt, {} truncated; Python's partial output shorter \
         on {python_short}; miniz_oxide differs from zlib-rs on {miniz_differs}",
        streams.len(),
        total[0],
        total[1],
        total[2],
    );
    for e in &miniz_examples {
        eprintln!("  {e}");
    }
    mismatches.sort();
    for (_, m) in mismatches.iter().take(20) {
        eprintln!("MISMATCH {m}");
    }
    assert!(
        mismatches.is_empty(),
        "{} streams where ngi differs from zlib-rs",
        mismatches.len()
    );
    assert!(
        total[0] > 300 && total[1] > 3000 && total[2] > 500,
        "{total:?}"
    );
}

/// A fault's offset is the byte holding the last bit read when it was found, whatever the
/// pieces (the [`Decoder`] contract: the same result at any byte boundaries): one call
/// (the fast loop, for long enough input), `decode_into` and random pieces (mostly the
/// careful state machine) report the same offset, and it is the last byte zlib-rs needed
/// to find the fault (its `total_in` then, less one: zlib reads a byte only when the bits
/// at hand do not suffice, drops a code's bits before judging it, and gives back the whole
/// bytes it read ahead).
#[test]
fn fault_offsets_do_not_depend_on_pieces() {
    let mut differ: Vec<(usize, String)> = Vec::new();
    // Fixed block: 'a', then a match of 3 at distance 2 (23 bits: the fault is in byte 2),
    // then 16 bytes of padding, so that one call takes the fast loop.
    let mut minimal = vec![0x4B, 0x04, 0x42];
    minimal.extend([0u8; 16]);
    let want = InflateError::DistanceTooFar {
        distance: 2,
        available: 1,
    };
    let mut d = InflateDecoder::new(4);
    let one = d.decode(&minimal, &mut [0u8; 4], true).map(|_| ());
    let mut d = InflateDecoder::new(4);
    let bytewise = chunked::decode(&mut d, &minimal, 4, Pieces::OneByte).map(|_| ());
    assert!(matches!(one, Err(DecodeError::Inflate { error, .. }) if error == want));
    let at_2 = Err(DecodeError::Inflate {
        error: want,
        offset: 2,
    });
    if one != at_2 || bytewise != at_2 {
        differ.push((
            minimal.len(),
            format!(
                "minimal stream {}: one call {one:?}, 1-byte pieces {bytewise:?}",
                hex(&minimal)
            ),
        ));
    }
    // [one call, pieces] x [offset = zlib-rs's total_in, offset = total_in - 1]
    let mut as_zlib = [[0usize; 2]; 2];
    let mut faults = 0;
    for (k, (origin, s)) in streams().iter().enumerate() {
        let (zr, total_in) = zlib_rs_and_total_in(s, s.len().max(1));
        if !matches!(zr, Verdict::Corrupt(_)) {
            continue;
        }
        let cap = zr.output().len() + (1 << 16);
        let (_, one) = ngi(s, cap, &one_call);
        let (_, pieces) = ngi(s, cap, &|s, n| in_pieces(s, n, k as u64));
        let into = inflate::decode_into(s, &mut vec![0u8; cap]);
        let offset = |r: &Result<usize, DecodeError>| match r {
            Err(DecodeError::Inflate { offset, .. }) => *offset,
            _ => panic!("stream {k}: zlib-rs says corrupt, ngi {r:?}"),
        };
        faults += 1;
        for (path, r) in [&one, &pieces].into_iter().enumerate() {
            as_zlib[path][0] += (offset(r) == total_in) as usize;
            as_zlib[path][1] += (offset(r) + 1 == total_in) as usize;
        }
        if one != pieces || into != one || offset(&one) + 1 != total_in {
            differ.push((
                s.len(),
                format!(
                    "stream {k} ({origin}): one call {one:?}, decode_into {into:?}, in pieces \
                     {pieces:?}, zlib-rs needed {total_in} bytes; stream {}",
                    hex(s)
                ),
            ));
        }
    }
    eprintln!(
        "{faults} corrupt streams; ngi's fault offset is zlib-rs's total_in at the fault (the \
         bytes zlib needed) on {} in one call and {} in pieces, one less (the byte holding \
         the last bit zlib needed) on {} and {}",
        as_zlib[0][0], as_zlib[1][0], as_zlib[0][1], as_zlib[1][1]
    );
    differ.sort();
    for (_, m) in differ.iter().take(12) {
        eprintln!("OFFSET DIFFERS: {m}");
    }
    assert!(
        differ.is_empty(),
        "{} streams whose fault offset depends on the pieces or is not the last byte zlib \
         needed",
        differ.len()
    );
}

/// A known difference from zlib, asserted so that it stays known: a dynamic header whose
/// code-length code has no code at all (its HCLEN lengths all 0). ngi rejects it there
/// (`IncompleteCode { CodeLengths }`, as RFC 1951 leaves it no code to decode). zlib's
/// `inflate_table` accepts an empty code ("no symbols, but wait for decoding to report
/// error"), its code-length loop then reads each of the HLIT + HDIST lengths as a 0 of one
/// bit without looking at the invalid-code mark, and it fails only after them, on the
/// missing end-of-block code. So on a stream cut within those 258 bits zlib says truncated
/// where ngi says corrupt; on a longer one both say corrupt (with no output either way).
#[test]
fn empty_code_length_code_zlib_reads_on() {
    // Final dynamic block, HLIT 257, HDIST 1, HCLEN 4, the four lengths 0: 29 bits, then
    // zeros; zlib needs 29 + 258 bits, 36 bytes, to find the fault.
    let streams: Vec<Vec<u8>> = (4..=44)
        .map(|len| {
            let mut s = vec![0x05, 0, 0, 0];
            s.resize(len, 0);
            s
        })
        .collect();
    let python = python_verdicts(&streams);
    for (s, py) in streams.iter().zip(&python) {
        let (zr, total_in) = zlib_rs_and_total_in(s, s.len());
        let zlib = if s.len() < 36 {
            Verdict::Truncated(vec![])
        } else {
            Verdict::Corrupt(vec![])
        };
        assert_eq!((&zr, py), (&zlib, &zlib), "{} bytes", s.len());
        if s.len() >= 36 {
            assert_eq!(total_in, 36);
        }
        let (ours, end) = ngi(s, 1 << 16, &one_call);
        assert_eq!(ours, Verdict::Corrupt(vec![]));
        let empty = InflateError::IncompleteCode {
            table: CodeTable::CodeLengths,
        };
        assert!(matches!(end, Err(DecodeError::Inflate { error, .. }) if error == empty));
    }
}
