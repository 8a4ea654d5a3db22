//! LZSS (methods 0x40 and 0x60) against a reference nobody on the team wrote: `pylzss`
//! 0.3.9, a port of Okumura's `LZSS.C` (see `ngi_tests::pylzss`; the interpreter comes from
//! `NGI_PYTHON`, and these tests fail, never pass, without it).
//!
//! On every corpus sample: pylzss's stream decodes to the original with our decoder, one
//! shot and in pieces of every kind; our encoder's stream equals pylzss's byte for byte,
//! and pylzss decodes it to the original; XOR-keyed streams decode; truncated streams fail
//! with exactly the bytes pylzss gets from them; trailing bytes are left unconsumed; random
//! input never panics; and a crafted stream shows the engine's full `0x20` prefill.

use ngi_core::codec::lzss::{self, LzssDecoder};
use ngi_core::codec::{Decoder, Status, XorStream};
use ngi_core::error::DecodeError;
use ngi_tests::chunked::{self, Pieces};
use ngi_tests::corpus::{self, Rng};
use ngi_tests::pylzss::{self, Op};
use std::sync::LazyLock;

/// One corpus sample and what the reference and our encoder make of it.
struct Case {
    name: String,
    data: Vec<u8>,
    /// `lzss.compress(data)`.
    reference: Vec<u8>,
    /// `lzss::encode(data)`.
    ours: Vec<u8>,
    /// `lzss.decompress(ours)`.
    ours_decoded_by_pylzss: Vec<u8>,
    /// `(k, lzss.decompress(reference[..k]))` for a few cut points `k`.
    cuts: Vec<(usize, Vec<u8>)>,
}

/// The corpus, plus short inputs around the encoder's edges (`F = 18`, the first 35 bytes).
fn samples() -> Vec<(String, Vec<u8>)> {
    let mut samples: Vec<_> = corpus::corpus()
        .into_iter()
        .map(|s| (s.name, s.data))
        .collect();
    let text = corpus::text(4096);
    for len in [4, 5, 17, 18, 19, 35, 36, 100] {
        samples.push((format!("text-{len}"), text[..len].to_vec()));
    }
    samples.push(("spaces-40".into(), vec![b' '; 40]));
    samples.push(("abab-50".into(), b"ab".repeat(25)));
    samples
}

/// Cut points of a stream of `len` bytes: the first bytes, around a third and a half, the
/// last bytes (inside the last unit), and a few random ones.
fn cut_points(len: usize, rng: &mut Rng) -> Vec<usize> {
    let mut cuts = vec![0, 1, 2, 3, len / 3, len / 2, len.saturating_sub(3)];
    cuts.extend([len.saturating_sub(2), len.saturating_sub(1)]);
    cuts.extend((0..3).map(|_| rng.below(len.max(1))));
    cuts.retain(|&k| k < len);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// Everything the reference is asked, in two Python runs for the whole corpus.
static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| {
    let samples = samples();
    let ours: Vec<Vec<u8>> = samples.iter().map(|(_, data)| lzss::encode(data)).collect();
    let mut jobs: Vec<(Op, &[u8])> = Vec::new();
    for ((_, data), ours) in samples.iter().zip(&ours) {
        jobs.push((Op::Compress, data));
        jobs.push((Op::Decompress, ours));
    }
    let mut first = pylzss::run(&jobs).into_iter();
    let mut rng = Rng::new(0x1989);
    let mut cases = Vec::new();
    for ((name, data), ours) in samples.into_iter().zip(ours) {
        let reference = first.next().expect("a stream");
        let ours_decoded_by_pylzss = first.next().expect("a decoding");
        let cuts = cut_points(reference.len(), &mut rng)
            .into_iter()
            .map(|k| (k, Vec::new()));
        cases.push(Case {
            name,
            data,
            reference,
            ours,
            ours_decoded_by_pylzss,
            cuts: cuts.collect(),
        });
    }
    let prefixes: Vec<&[u8]> = cases
        .iter()
        .flat_map(|c| c.cuts.iter().map(|&(k, _)| &c.reference[..k]))
        .collect();
    let mut second = pylzss::decompress_all(&prefixes).into_iter();
    for case in &mut cases {
        for (_, decoded) in &mut case.cuts {
            *decoded = second.next().expect("a decoding");
        }
    }
    cases
});

fn cases() -> &'static [Case] {
    &CASES
}

/// A 64 KiB prefix of the big samples, whole samples otherwise: what 1-byte pieces decode
/// (the stream is the whole one; the entry just ends sooner).
fn one_byte_len(case: &Case) -> usize {
    case.data.len().min(64 * 1024)
}

/// The reference stream XORed with the keystream of `key` (method 0x60's packed bytes).
fn keyed(stream: &[u8], key: u16) -> Vec<u8> {
    let mut packed = stream.to_vec();
    XorStream::new(key).apply(&mut packed);
    packed
}

#[test]
fn pylzss_streams_decode_one_shot() {
    for case in cases() {
        let mut out = vec![0xA5; case.data.len()];
        let consumed = lzss::decode_into(&case.reference, None, &mut out);
        assert_eq!(consumed, Ok(case.reference.len()), "{}", case.name);
        assert!(out == case.data, "{}: wrong bytes", case.name);
        let mut d = LzssDecoder::new(case.data.len() as u64, None);
        let (out, consumed) =
            chunked::decode(&mut d, &case.reference, case.data.len(), Pieces::Whole)
                .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        assert_eq!(consumed, case.reference.len(), "{}", case.name);
        assert!(
            out == case.data,
            "{}: wrong bytes streamed whole",
            case.name
        );
    }
}

#[test]
fn pylzss_streams_decode_in_any_pieces() {
    for case in cases() {
        let n = case.data.len();
        for (seed, max) in [(1, 7), (2, 100), (3, 1000), (4, 5000), (5, 20_000)] {
            let mut d = LzssDecoder::new(n as u64, None);
            let (out, consumed) =
                chunked::decode(&mut d, &case.reference, n, Pieces::Random(seed, max))
                    .unwrap_or_else(|e| panic!("{} pieces {max}: {e}", case.name));
            assert_eq!(consumed, case.reference.len(), "{} pieces {max}", case.name);
            assert!(
                out == case.data,
                "{}: wrong bytes in pieces of {max}",
                case.name
            );
        }
        // One byte of input and one of output per call; the entry ends after 64 KiB at
        // most, so the stream is left mid-way, where the one-shot form leaves it too.
        let m = one_byte_len(case);
        let mut d = LzssDecoder::new(m as u64, None);
        let (out, consumed) = chunked::decode(&mut d, &case.reference, m, Pieces::OneByte)
            .unwrap_or_else(|e| panic!("{} 1-byte pieces: {e}", case.name));
        assert!(
            out == case.data[..m],
            "{}: wrong bytes in 1-byte pieces",
            case.name
        );
        let mut whole = vec![0; m];
        assert_eq!(
            lzss::decode_into(&case.reference, None, &mut whole),
            Ok(consumed)
        );
    }
}

#[test]
fn our_encoder_equals_pylzss_byte_for_byte() {
    for case in cases() {
        if case.ours != case.reference {
            let at = case
                .ours
                .iter()
                .zip(&case.reference)
                .position(|(a, b)| a != b);
            panic!(
                "{}: our stream ({} bytes) differs from pylzss's ({} bytes) at {at:?}",
                case.name,
                case.ours.len(),
                case.reference.len()
            );
        }
    }
}

#[test]
fn pylzss_decodes_our_encoder() {
    for case in cases() {
        assert!(
            case.ours_decoded_by_pylzss == case.data,
            "{}: pylzss decodes our stream to {} bytes, not the original {}",
            case.name,
            case.ours_decoded_by_pylzss.len(),
            case.data.len()
        );
    }
}

#[test]
fn xor_keyed_streams_decode() {
    let mut rng = Rng::new(0x60);
    for case in cases() {
        let n = case.data.len();
        for key in [0x0000, 0x0001, 0xABBA, 0xFFFF, rng.next_u64() as u16] {
            let packed = keyed(&case.reference, key);
            let mut out = vec![0; n];
            assert_eq!(
                lzss::decode_into(&packed, Some(key), &mut out),
                Ok(packed.len())
            );
            assert!(
                out == case.data,
                "{} key {key:#06x}: wrong bytes",
                case.name
            );
            for pieces in [Pieces::Whole, Pieces::Random(u64::from(key), 3000)] {
                let mut d = LzssDecoder::new(n as u64, Some(key));
                let (out, consumed) = chunked::decode(&mut d, &packed, n, pieces)
                    .unwrap_or_else(|e| panic!("{} key {key:#06x} {pieces:?}: {e}", case.name));
                assert_eq!(
                    consumed,
                    packed.len(),
                    "{} key {key:#06x} {pieces:?}",
                    case.name
                );
                assert!(
                    out == case.data,
                    "{} key {key:#06x} {pieces:?}: wrong bytes",
                    case.name
                );
            }
        }
        // 1-byte pieces keep the keystream in step with every byte consumed.
        let m = one_byte_len(case).min(16 * 1024);
        let packed = keyed(&case.reference, 0xBEEF);
        let mut d = LzssDecoder::new(m as u64, Some(0xBEEF));
        let (out, _) = chunked::decode(&mut d, &packed, m, Pieces::OneByte)
            .unwrap_or_else(|e| panic!("{} keyed, 1-byte pieces: {e}", case.name));
        assert!(
            out == case.data[..m],
            "{}: wrong bytes keyed in 1-byte pieces",
            case.name
        );
    }
}

#[test]
fn truncated_streams_fail_with_what_pylzss_decodes() {
    for case in cases() {
        let n = case.data.len();
        for (k, decoded) in &case.cuts {
            let want = DecodeError::Truncated {
                produced: decoded.len() as u64,
                expected: n as u64,
            };
            assert!(decoded.len() < n && *decoded == case.data[..decoded.len()]);
            let cut = &case.reference[..*k];
            let mut out = vec![0; n];
            assert_eq!(
                lzss::decode_into(cut, None, &mut out),
                Err(want),
                "{} cut at {k}",
                case.name
            );
            assert!(
                out[..decoded.len()] == decoded[..],
                "{} cut at {k}",
                case.name
            );
            // Streamed into room larger than the entry: nothing past it is touched.
            let mut d = LzssDecoder::new(n as u64, None);
            let mut room = vec![0xA5; n + 64];
            assert_eq!(
                d.decode(cut, &mut room, true),
                Err(want),
                "{} cut at {k}",
                case.name
            );
            assert!(
                room[..decoded.len()] == decoded[..],
                "{} cut at {k}",
                case.name
            );
            assert!(
                room[n..].iter().all(|&b| b == 0xA5),
                "{} cut at {k}: wrote past the entry",
                case.name
            );
            assert_eq!(
                d.decode(&[0; 32], &mut room, true),
                Err(want),
                "a failed decoder stays failed"
            );
            let mut d = LzssDecoder::new(n as u64, None);
            let pieces = Pieces::Random(*k as u64, 500);
            assert_eq!(
                chunked::decode(&mut d, cut, n, pieces).err(),
                Some(want),
                "{} cut at {k}",
                case.name
            );
            let packed = keyed(cut, 0x1234);
            let mut d = LzssDecoder::new(n as u64, Some(0x1234));
            assert_eq!(
                chunked::decode(&mut d, &packed, n, pieces).err(),
                Some(want),
                "{} cut at {k}",
                case.name
            );
        }
    }
}

#[test]
fn trailing_bytes_are_not_consumed_nor_written() {
    let mut rng = Rng::new(77);
    for case in cases() {
        let n = case.data.len();
        let mut packed = case.reference.clone();
        packed.extend(rng.bytes(100));
        let mut out = vec![0; n];
        assert_eq!(
            lzss::decode_into(&packed, None, &mut out),
            Ok(case.reference.len()),
            "{}",
            case.name
        );
        assert!(out == case.data, "{}", case.name);
        for pieces in [Pieces::Whole, Pieces::Random(9, 300)] {
            let mut d = LzssDecoder::new(n as u64, None);
            let (out, consumed) =
                chunked::decode(&mut d, &packed, n, pieces).expect("complete stream");
            assert_eq!(consumed, case.reference.len(), "{} {pieces:?}", case.name);
            assert!(out == case.data, "{} {pieces:?}", case.name);
        }
        // Room past the entry stays untouched, and Done is final.
        let mut d = LzssDecoder::new(n as u64, None);
        let mut room = vec![0xA5; n + 64];
        let p = d.decode(&packed, &mut room, true).expect("complete stream");
        assert_eq!(
            (p.consumed, p.produced, p.status),
            (case.reference.len(), n, Status::Done)
        );
        assert!(
            room[..n] == case.data[..] && room[n..].iter().all(|&b| b == 0xA5),
            "{}",
            case.name
        );
        let p = d
            .decode(&packed[p.consumed..], &mut room, true)
            .expect("done");
        assert_eq!((p.consumed, p.produced, p.status), (0, 0, Status::Done));
    }
}

#[test]
fn random_input_never_panics_and_both_forms_agree() {
    let mut rng = Rng::new(0xBAD);
    for case in 0..3000 {
        let len = rng.below(2000);
        let packed = rng.bytes(len);
        let n = rng.below(10_000);
        let key = (case % 3 == 0).then(|| rng.next_u64() as u16);
        let mut one = vec![0; n];
        let whole = lzss::decode_into(&packed, key, &mut one);
        let mut d = LzssDecoder::new(n as u64, key);
        let pieces = Pieces::Random(rng.next_u64(), [1, 20, 400, 5000][case % 4]);
        match (whole, chunked::decode(&mut d, &packed, n, pieces)) {
            (Ok(consumed), Ok((out, streamed))) => {
                assert_eq!(consumed, streamed, "case {case}");
                assert!(out == one, "case {case}");
            }
            (Err(DecodeError::Truncated { produced, expected }), Err(e)) => {
                assert_eq!(
                    e,
                    DecodeError::Truncated { produced, expected },
                    "case {case}"
                );
                assert!(produced < n as u64 && expected == n as u64, "case {case}");
                assert_eq!(d.produced_total(), produced, "case {case}");
            }
            (a, b) => panic!(
                "case {case}: one-shot {a:?}, streamed {:?}",
                b.map(|(_, c)| c)
            ),
        }
    }
}

#[test]
fn crafted_stream_reads_the_engine_prefill() {
    // Control 0: matches only. (0xEE, 0xFF): 18 bytes from ring slot 0xFEE, the first write
    // position, each read just before it is written (a distance of 4096): the 18 slots
    // LZSS.C leaves at zero. Then 18 from 0xFFE: the last two just written, then slots
    // 0x000.. of the prefill.
    let packed = [0x00, 0xEE, 0xFF, 0xFE, 0xFF];
    let mut out = [0u8; 36];
    assert_eq!(lzss::decode_into(&packed, None, &mut out), Ok(5));
    assert_eq!(
        out, [0x20; 36],
        "the engine prefills all 4096 ring bytes with 0x20"
    );
    let mut d = LzssDecoder::new(36, None);
    let (streamed, _) = chunked::decode(&mut d, &packed, 36, Pieces::OneByte).unwrap();
    assert_eq!(streamed, out);
    // Slots pylzss (like LZSS.C) prefills too, 0x000..0xFED, read the same by both: a copy
    // of 18 from 0x000 and one of 18 from 0xFDC (the last 18 it prefills).
    let agreed = [0x00, 0x00, 0x0F, 0xDC, 0xFF];
    let mut out = [0u8; 36];
    assert_eq!(lzss::decode_into(&agreed, None, &mut out), Ok(5));
    let reference = pylzss::decompress_all(&[&agreed]).remove(0);
    assert_eq!(
        reference, out,
        "pylzss reads the slots it prefills as 0x20 too"
    );
    assert_eq!(out, [0x20; 36]);
}
