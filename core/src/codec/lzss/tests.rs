//! Unit tests of the LZSS decoder against a literal transcription of SPEC 3.1, on crafted
//! and random streams, whole and in pieces. (Conformance against `pylzss`, a port of
//! `LZSS.C`, lives in `tests/tests/lzss_conformance.rs`.)

use super::*;
use crate::codec::Status;

/// SPEC 3.1 exactly as written, with the ring: the reference the fast and careful paths
/// are checked against. Returns (consumed, produced) like `decode_into`, never failing.
fn spec_decode(packed: &[u8], key: Option<u16>, out: &mut [u8]) -> (usize, usize) {
    let mut ring = [0x20u8; 4096];
    let mut r = 0xFEE;
    let mut xor = key.map(XorStream::new);
    let (mut ip, mut op) = (0, 0);
    let mut next = |ip: &mut usize| -> Option<u8> {
        let b = *packed.get(*ip)?;
        *ip += 1;
        Some(b ^ xor.as_mut().map_or(0, XorStream::next_byte))
    };
    'stream: while op < out.len() {
        let Some(control) = next(&mut ip) else { break };
        for bit in 0..8 {
            if op == out.len() {
                break 'stream;
            }
            if control >> bit & 1 == 1 {
                let Some(c) = next(&mut ip) else {
                    break 'stream;
                };
                out[op] = c;
                op += 1;
                ring[r] = c;
                r = (r + 1) & 0xFFF;
            } else {
                let Some(lo) = next(&mut ip) else {
                    break 'stream;
                };
                let Some(hi) = next(&mut ip) else {
                    break 'stream;
                };
                let offset = usize::from(lo) | (usize::from(hi) & 0xF0) << 4;
                for j in 0..usize::from(hi & 0x0F) + 3 {
                    if op == out.len() {
                        break 'stream;
                    }
                    let c = ring[(offset + j) & 0xFFF];
                    out[op] = c;
                    op += 1;
                    ring[r] = c;
                    r = (r + 1) & 0xFFF;
                }
            }
        }
    }
    (ip, op)
}

/// A deterministic xorshift, for random streams without dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A valid-looking stream of `units` random units with short offsets mostly (so that the
/// copies hit recent output, the ring and the prefill), and long copies often.
fn random_stream(rng: &mut Rng, buf: &mut [u8]) -> usize {
    let mut n = 0;
    while n + 17 <= buf.len() {
        let control = rng.next() as u8;
        buf[n] = control;
        n += 1;
        for bit in 0..8 {
            if control >> bit & 1 == 1 {
                buf[n] = b"abcd "[rng.below(5)];
                n += 1;
            } else {
                let offset = match rng.below(4) {
                    0 => rng.below(4096),
                    1 => 0xFEE + rng.below(18),
                    _ => rng.below(64),
                };
                buf[n] = offset as u8;
                buf[n + 1] = ((offset >> 4) & 0xF0) as u8 | rng.below(16) as u8;
                n += 2;
            }
        }
    }
    n
}

/// Decodes with `LzssDecoder`, pieces of input and output room drawn by `sizes`, into
/// `out`; returns the result of the last call, the bytes consumed and produced.
fn streamed(
    packed: &[u8],
    key: Option<u16>,
    out: &mut [u8],
    mut sizes: impl FnMut() -> (usize, usize),
) -> (Result<Status, DecodeError>, usize, usize) {
    let mut d = LzssDecoder::new(out.len() as u64, key);
    let (mut ip, mut op) = (0usize, 0usize);
    loop {
        let (a, b) = sizes();
        let in_end = ip.saturating_add(a).min(packed.len());
        let out_end = op.saturating_add(b).min(out.len());
        let ended = in_end == packed.len();
        match d.decode(&packed[ip..in_end], &mut out[op..out_end], ended) {
            Err(e) => {
                assert_eq!(d.decode(&[], &mut [0u8; 4], true), Err(e), "stays failed");
                // The failing call still wrote what it decoded before running dry.
                return (Err(e), ip, d.produced_total() as usize);
            }
            Ok(p) => {
                ip += p.consumed;
                op += p.produced;
                assert_eq!(d.produced_total(), op as u64);
                match p.status {
                    Status::Done => return (Ok(Status::Done), ip, op),
                    Status::OutputFull => assert_eq!(op, out_end, "OutputFull with room left"),
                    Status::NeedInput => assert!(!ended && ip == in_end),
                }
                assert!(p.consumed + p.produced > 0 || (in_end == ip && out_end == op));
            }
        }
    }
}

#[test]
fn state_size_is_as_documented() {
    assert!(
        core::mem::size_of::<LzssDecoder>() <= 4608,
        "at most 4.5 KiB"
    );
    #[cfg(target_pointer_width = "64")]
    assert_eq!(core::mem::size_of::<LzssDecoder>(), 4152);
}

#[test]
fn overlapping_copy_and_prefill() {
    // Literal 'a', then an 18-byte copy of ring slot 0xFEE (where 'a' went): "a" * 19.
    let mut out = [0u8; 19];
    assert_eq!(
        decode_into(&[0b01, b'a', 0xEE, 0xFF], None, &mut out),
        Ok(4)
    );
    assert_eq!(out, [b'a'; 19]);
    // A copy from slot 0 (prefill), a copy from 0xFF8..0xFFB before anything is written
    // there (the engine's prefill: 0x20; LZSS.C would give zeros), and a copy that starts
    // at the write position itself (distance 4096: the byte is read before it is written).
    let packed = [0b1000, 0x00, 0x02, 0xF8, 0xF1, 0xF7, 0xF2, b'Z'];
    let mut out = [0u8; 5 + 4 + 5 + 1];
    assert_eq!(decode_into(&packed, None, &mut out), Ok(packed.len()));
    assert_eq!(&out, b"              Z");
    let mut want = [0u8; 15];
    assert_eq!(spec_decode(&packed, None, &mut want), (8, 15));
    assert_eq!(out, want);
}

#[test]
fn stops_exactly_at_the_expected_size() {
    // Mid-match: 5 of an 18-byte copy; mid-control-byte: the second unit is never read.
    let packed = [0b0000_0000, 0xEE, 0xFF, 0x00, 0x0F];
    let mut out = [0xAAu8; 5];
    assert_eq!(decode_into(&packed, None, &mut out), Ok(3));
    assert_eq!(out, [0x20; 5]);
    // The streaming decoder does not touch output room past the expected size.
    let mut d = LzssDecoder::new(5, None);
    let mut room = [0xAAu8; 40];
    let p = d.decode(&packed, &mut room, true).unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (3, 5, Status::Done));
    assert_eq!(room[..5], [0x20; 5]);
    assert!(room[5..].iter().all(|&b| b == 0xAA));
    // Done is final: more calls consume and produce nothing.
    let p = d.decode(&packed[3..], &mut room, true).unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (0, 0, Status::Done));
    // An empty entry needs no input at all.
    assert_eq!(decode_into(&[], None, &mut []), Ok(0));
    let p = LzssDecoder::new(0, Some(7))
        .decode(b"xyz", &mut [], true)
        .unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (0, 0, Status::Done));
}

#[test]
fn truncation_is_typed_and_final() {
    // Literal, then a match cut between its two bytes.
    let packed = [0b01, b'q', 0x00];
    let mut out = [0u8; 10];
    assert_eq!(
        decode_into(&packed, None, &mut out),
        Err(DecodeError::Truncated {
            produced: 1,
            expected: 10
        })
    );
    let mut d = LzssDecoder::new(10, None);
    let p = d.decode(&packed, &mut out, false).unwrap();
    assert_eq!(
        (p.consumed, p.produced, p.status),
        (3, 1, Status::NeedInput)
    );
    let e = d.decode(&[], &mut out, true).unwrap_err();
    assert_eq!(
        e,
        DecodeError::Truncated {
            produced: 1,
            expected: 10
        }
    );
    assert_eq!(d.decode(&[0x0F], &mut out, false), Err(e));
    // No output room takes precedence over the end of the input.
    let mut d = LzssDecoder::new(10, None);
    let p = d.decode(&[], &mut [], true).unwrap();
    assert_eq!(p.status, Status::OutputFull);
}

#[test]
fn random_streams_match_the_spec_in_any_pieces() {
    const MAX_OUT: usize = 24_000;
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut buf = [0u8; 9000];
    let (mut want, mut one, mut out) = ([0u8; MAX_OUT], [0u8; MAX_OUT], [0u8; MAX_OUT]);
    for case in 0..240 {
        let len = 17 + rng.below(buf.len() - 17);
        let n = random_stream(&mut rng, &mut buf[..len]);
        // Sometimes cut it short (truncated); the entry may also end early.
        let cut = if rng.below(3) == 0 {
            rng.below(n.min(40))
        } else {
            0
        };
        let packed = &buf[..n - cut];
        let expected = rng.below(MAX_OUT);
        let key = [None, Some(rng.next() as u16)][case % 2];
        let (want_in, want_out) = spec_decode(packed, key, &mut want[..expected]);
        let got = decode_into(packed, key, &mut one[..expected]);
        if want_out == expected {
            assert_eq!(got, Ok(want_in), "case {case}");
        } else {
            let err = DecodeError::Truncated {
                produced: want_out as u64,
                expected: expected as u64,
            };
            assert_eq!(got, Err(err), "case {case}");
        }
        assert_eq!(one[..want_out], want[..want_out], "case {case}");
        // Whole; 1-byte pieces (short entries only: this is a debug build); random pieces
        // small and large, so that the fast loops start and stop at every kind of edge.
        for (pieces, max) in [(0, usize::MAX), (1, 1), (2, 300), (3, 6000)] {
            if pieces == 1 && expected > 3000 {
                continue;
            }
            out.fill(0xA5);
            let mut r = Rng(rng.next() | 1);
            let sizes = || match max {
                usize::MAX => (max, max),
                _ => (1 + r.below(max), 1 + r.below(max)),
            };
            let (res, ip, op) = streamed(packed, key, &mut out[..expected], sizes);
            assert_eq!(op, want_out, "case {case} pieces {pieces}");
            assert_eq!(out[..op], want[..op], "case {case} pieces {pieces}");
            match res {
                Ok(_) => assert_eq!(ip, want_in, "case {case} pieces {pieces}"),
                Err(e) => assert_eq!(got, Err(e), "case {case} pieces {pieces}"),
            }
        }
    }
}

#[cfg(feature = "alloc")]
#[test]
fn encoded_text_resumes_at_every_split() {
    let text = include_bytes!("../lzss.rs");
    let data = &text[..2500];
    let packed = encode(data);
    let mut whole = [0u8; 2500];
    assert_eq!(decode_into(&packed, None, &mut whole), Ok(packed.len()));
    assert_eq!(&whole[..], data);
    // Every input split, with all output room; every output split, with all input.
    for cut in 0..=packed.len() {
        let mut out = [0u8; 2500];
        let mut d = LzssDecoder::new(2500, None);
        let a = d.decode(&packed[..cut], &mut out, false).unwrap();
        assert_eq!(a.consumed, cut);
        let b = d
            .decode(&packed[cut..], &mut out[a.produced..], true)
            .unwrap();
        assert_eq!(
            (b.status, a.consumed + b.consumed),
            (Status::Done, packed.len())
        );
        assert_eq!(out, whole, "input split at {cut}");
    }
    for cut in 0..=2500 {
        let mut out = [0u8; 2500];
        let mut d = LzssDecoder::new(2500, None);
        let a = d.decode(&packed, &mut out[..cut], true).unwrap();
        assert_eq!(a.produced, cut);
        let b = d
            .decode(&packed[a.consumed..], &mut out[cut..], true)
            .unwrap();
        assert_eq!(
            (b.status, a.consumed + b.consumed),
            (Status::Done, packed.len())
        );
        assert_eq!(out, whole, "output split at {cut}");
    }
}

#[cfg(feature = "alloc")]
#[test]
fn encoder_round_trips_edge_inputs() {
    let mut rng = Rng(77);
    let mut data = [0u8; 10_000];
    for (i, b) in data.iter_mut().enumerate() {
        *b = match i / 2000 {
            0 => b' ',
            1 => (rng.next() % 3) as u8,
            2 => rng.next() as u8,
            3 => 0,
            _ => b"ab "[i % 3],
        };
    }
    for len in [0, 1, 2, 3, 17, 18, 19, 35, 36, 4095, 4096, 4097, 10_000] {
        for start in [0, 1999, 3999, 5999, 7999] {
            let src = &data[start.min(10_000 - len)..][..len];
            let packed = encode(src);
            let mut out = [0u8; 10_000];
            assert_eq!(
                decode_into(&packed, None, &mut out[..len]),
                Ok(packed.len())
            );
            assert_eq!(&out[..len], src, "len {len} start {start}");
        }
    }
}
