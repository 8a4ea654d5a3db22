//! LZHUF (methods 0x80 and 0xA0) against references nobody on the team wrote: streams that
//! jlha's `-lh1-` encoder (Java) writes decode exactly with our decoder, and streams our
//! encoder writes extract exactly with Debian's `lhasa` (an LHA `-lh1-` member is a raw
//! LZHUF stream; lhasa prefills its whole ring with spaces, as the engine does). Then the
//! decoder contract on every conformance stream: chunking invariance, XOR keys, truncation,
//! trailing bytes, garbage.
//!
//! A missing reference tool fails the tests with the Debian package to install.

use ngi_core::Method;
use ngi_core::codec::lzhuf::{self, LzhufDecoder};
use ngi_core::codec::{Decoder, Status, XorStream};
use ngi_core::error::DecodeError;
use ngi_tests::chunked::{self, InPlaceDriver, Pieces};
use ngi_tests::corpus::{self, Rng, Sample};
use ngi_tests::{jlha, lha};
use std::path::Path;
use std::sync::OnceLock;

fn work() -> &'static Path {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
}

/// The corpus with each sample's stream from our encoder and from jlha's.
struct Streams {
    samples: Vec<Sample>,
    ours: Vec<Vec<u8>>,
    jlha: Vec<Vec<u8>>,
}

fn streams() -> &'static Streams {
    static STREAMS: OnceLock<Streams> = OnceLock::new();
    STREAMS.get_or_init(|| {
        let samples = corpus::corpus();
        let ours = samples.iter().map(|s| lzhuf::encode(&s.data)).collect();
        let inputs: Vec<(&str, &[u8])> = samples
            .iter()
            .map(|s| (s.name.as_str(), &s.data[..]))
            .collect();
        let jlha = jlha::encode_lh1(work(), &inputs);
        Streams {
            samples,
            ours,
            jlha,
        }
    })
}

/// Every (label, original, stream) pair: both encoders' streams of every sample.
fn every_stream() -> impl Iterator<Item = (String, &'static [u8], &'static [u8])> {
    let s = streams();
    s.samples.iter().enumerate().flat_map(move |(i, sample)| {
        [("ours", &s.ours[i]), ("jlha", &s.jlha[i])]
            .into_iter()
            .map(move |(by, packed)| {
                (
                    format!("{} by {by}", sample.name),
                    &sample.data[..],
                    &packed[..],
                )
            })
    })
}

/// The in-place decoder of `len` bytes (keyed with `key`), its buffer a window and `room`
/// bytes, behind the [`Decoder`] contract.
fn in_place(len: usize, key: Option<u16>, room: usize) -> InPlaceDriver {
    let method = if key.is_some() {
        Method::XorLzhuf
    } else {
        Method::Lzhuf
    };
    InPlaceDriver::new(method, len as u64, key.unwrap_or(0), room).expect("LZHUF decodes in place")
}

fn one_shot(packed: &[u8], key: Option<u16>, len: usize) -> Result<(Vec<u8>, usize), DecodeError> {
    let mut out = vec![0u8; len];
    lzhuf::decode_into(packed, key, &mut out).map(|used| (out, used))
}

#[test]
fn the_corpus_has_what_it_must() {
    let s = streams();
    let sizes: Vec<usize> = s.samples.iter().map(|s| s.data.len()).collect();
    for want in [0, 1, 4095, 4096, 4097] {
        assert!(sizes.contains(&want), "no sample of {want} bytes");
    }
    assert!(
        sizes.iter().any(|&n| n >= 300 * 1024),
        "no sample of several hundred KiB"
    );
}

#[test]
fn jlha_streams_decode_exactly() {
    let s = streams();
    for (sample, packed) in s.samples.iter().zip(&s.jlha) {
        let got = one_shot(packed, None, sample.data.len());
        let (out, used) = got.unwrap_or_else(|e| panic!("{}: {e}", sample.name));
        assert!(
            out == sample.data,
            "{}: jlha's stream decodes to other bytes",
            sample.name
        );
        assert_eq!(
            used,
            packed.len(),
            "{}: jlha's stream has bytes we did not use",
            sample.name
        );
    }
}

#[test]
fn our_streams_extract_exactly_with_lhasa() {
    let s = streams();
    for (sample, packed) in s.samples.iter().zip(&s.ours) {
        let name = format!("{}.bin", sample.name);
        let archive = lha::write_level0(name.as_bytes(), b"-lh1-", packed, &sample.data);
        let member = &lha::read_level0(&archive).unwrap()[0];
        assert_eq!(member.crc, lha::crc16(&sample.data));
        let extracted = lha::lhasa_extract(work(), &format!("ours-{}", sample.name), &archive);
        assert!(
            extracted == sample.data,
            "{}: lhasa extracts other bytes",
            sample.name
        );
    }
}

#[test]
fn our_streams_decode_exactly_with_ours() {
    let s = streams();
    for (sample, packed) in s.samples.iter().zip(&s.ours) {
        let (out, used) = one_shot(packed, None, sample.data.len()).expect(&sample.name);
        assert!(out == sample.data, "{}", sample.name);
        assert_eq!(used, packed.len(), "{}", sample.name);
        // Compresses what can be compressed.
        if sample.name.starts_with("text-300k") || sample.name.starts_with("zeros") {
            assert!(
                packed.len() < sample.data.len() / 2,
                "{}: {} bytes",
                sample.name,
                packed.len()
            );
        }
    }
}

/// The tree is rebuilt every time the root's count reaches 0x8000, about every 16 K
/// symbols after the first 32 K. Random bytes are nearly all literals, one symbol each:
/// random-200k makes about 200 K symbols, so a dozen rebuilds. lhasa rebuilds with whole-
/// element shifts (right); a decoder with the 32-bit-int half-move of some LZHUF.C ports
/// would corrupt everything after the first rebuild (the tree module's unit tests show the
/// trees part ways there). Our encoder and decoder and lhasa agree over all of it.
#[test]
fn many_tree_rebuilds_agree_with_lhasa() {
    let s = streams();
    for name in ["random-200k", "text-300k", "binary-400k"] {
        let i = s.samples.iter().position(|x| x.name == name).expect(name);
        let (data, packed) = (&s.samples[i].data, &s.ours[i]);
        if name.starts_with("random") {
            // Incompressible: nearly one symbol per byte, so > 6 * 32 K symbols.
            assert!(packed.len() > data.len() * 9 / 10 && data.len() > 6 * 32 * 1024);
        }
        let archive = lha::write_level0(b"rebuilds.bin", b"-lh1-", packed, data);
        assert!(lha::lhasa_extract(work(), &format!("rebuilds-{name}"), &archive) == *data);
        assert!(one_shot(packed, None, data.len()).unwrap().0 == *data);
        // Also jlha's stream through lhasa: the two references agree with each other.
        let archive = lha::write_level0(b"rebuilds.bin", b"-lh1-", &s.jlha[i], data);
        assert!(lha::lhasa_extract(work(), &format!("rebuilds-jlha-{name}"), &archive) == *data);
    }
}

/// The initial tree codes the match of length 60 (symbol 313) as 11000101; position 4095
/// (4096 back) is 11111111 111111. At the start that copies ring slots 4036..=4095, never
/// written: the engine's prefill (and lhasa's) makes them spaces, LZHUF.C's would give
/// zeros.
#[test]
fn copying_from_never_written_slots_gives_the_engine_prefill() {
    let crafted = [0b1100_0101, 0b1111_1111, 0b1111_1100];
    let spaces = [0x20u8; 60];
    assert_eq!(one_shot(&crafted, None, 60), Ok((spaces.to_vec(), 3)));
    for pieces in [Pieces::Whole, Pieces::OneByte] {
        let mut d = LzhufDecoder::new(60, None);
        assert_eq!(
            chunked::decode(&mut d, &crafted, 60, pieces),
            Ok((spaces.to_vec(), 3))
        );
        for room in [1, 59, 60] {
            assert_eq!(
                chunked::decode(&mut in_place(60, None, room), &crafted, 60, pieces),
                Ok((spaces.to_vec(), 3)),
                "in place, {room} bytes of room"
            );
        }
    }
    let archive = lha::write_level0(b"prefill.bin", b"-lh1-", &crafted, &spaces);
    assert_eq!(lha::lhasa_extract(work(), "prefill", &archive), spaces);
}

/// What the harness runs on a stream: the whole of small ones; for big ones one byte at a
/// time only over a 64 KiB prefix of the output (debug builds are slow).
fn piece_plans(len: usize) -> Vec<(Pieces, usize)> {
    let mut plans = vec![
        (Pieces::Whole, len),
        (Pieces::Random(1, 64), len),
        (Pieces::Random(2, 777), len),
        (Pieces::Random(3, 9000), len),
    ];
    plans.push((Pieces::OneByte, len.min(64 * 1024)));
    plans
}

#[test]
fn every_stream_decodes_the_same_in_any_pieces() {
    for (label, data, packed) in every_stream() {
        let (whole, used) = one_shot(packed, None, data.len()).expect(&label);
        for (pieces, len) in piece_plans(data.len()) {
            let mut d = LzhufDecoder::new(len as u64, None);
            let (out, consumed) = chunked::decode(&mut d, packed, len, pieces)
                .unwrap_or_else(|e| panic!("{label} {pieces:?}: {e}"));
            assert!(out[..] == whole[..len], "{label} {pieces:?}: other bytes");
            if len == data.len() {
                assert_eq!(consumed, used, "{label} {pieces:?}");
            }
            assert_eq!(d.produced_total(), len as u64);
        }
        // The in-place form, in the same plans, with buffers of a window and 1 byte (a
        // slide per byte), an odd room and more than the stream.
        for ((pieces, len), room) in piece_plans(data.len())
            .into_iter()
            .zip([70_000, 1, 777, 4096, 5])
        {
            let got = chunked::decode(&mut in_place(len, None, room), packed, len, pieces)
                .unwrap_or_else(|e| panic!("{label} {pieces:?}, in place {room}: {e}"));
            assert!(
                got.0[..] == whole[..len],
                "{label} {pieces:?}, in place {room}: other bytes"
            );
            if len == data.len() {
                assert_eq!(got.1, used, "{label} {pieces:?}, in place {room}");
            }
        }
    }
}

#[test]
fn xor_keyed_streams_decode_in_one_call_and_in_pieces() {
    let s = streams();
    let keys = [0x0000, 0x0001, 0x00FF, 0x1234, 0xABBA, 0xFFFF];
    for (i, sample) in s.samples.iter().enumerate() {
        for (by, stream) in [("ours", &s.ours[i]), ("jlha", &s.jlha[i])] {
            let key = keys[(i * 2 + by.len()) % keys.len()];
            let mut packed = stream.clone();
            XorStream::new(key).apply(&mut packed);
            let label = format!("{} by {by}, key {key:#06x}", sample.name);
            let (out, used) = one_shot(&packed, Some(key), sample.data.len()).expect(&label);
            assert!(out == sample.data, "{label}");
            assert_eq!(used, packed.len(), "{label}");
            for (pieces, len) in piece_plans(sample.data.len()) {
                let mut d = LzhufDecoder::new(len as u64, Some(key));
                let (got, _) = chunked::decode(&mut d, &packed, len, pieces)
                    .unwrap_or_else(|e| panic!("{label} {pieces:?}: {e}"));
                assert!(got[..] == sample.data[..len], "{label} {pieces:?}");
                let mut d = in_place(len, Some(key), 300);
                let (got, _) = chunked::decode(&mut d, &packed, len, pieces)
                    .unwrap_or_else(|e| panic!("{label} {pieces:?}, in place: {e}"));
                assert!(
                    got[..] == sample.data[..len],
                    "{label} {pieces:?}, in place"
                );
            }
        }
    }
}

#[test]
fn truncated_streams_are_typed_errors_and_never_write_past_the_size() {
    for (label, data, packed) in every_stream() {
        if data.is_empty() {
            continue;
        }
        let n = packed.len();
        for cut in [0, 1, n / 3, n / 2, n.saturating_sub(2), n - 1] {
            let expected = data.len() as u64;
            // One-shot.
            let mut out = vec![0u8; data.len()];
            match lzhuf::decode_into(&packed[..cut], None, &mut out) {
                Err(DecodeError::Truncated {
                    produced,
                    expected: e,
                }) => {
                    assert_eq!(e, expected, "{label} cut {cut}");
                    assert!(produced < e, "{label} cut {cut}");
                    assert!(out[..produced as usize] == data[..produced as usize]);
                }
                other => panic!("{label} cut {cut}: {other:?}"),
            }
            // Streamed into room larger than the entry: nothing is written past its size.
            let mut d = LzhufDecoder::new(expected, None);
            let mut room = vec![0xA5u8; data.len() + 100];
            let r = d.decode(&packed[..cut], &mut room, true);
            assert!(
                matches!(r, Err(DecodeError::Truncated { .. })),
                "{label} cut {cut}: {r:?}"
            );
            assert!(
                room[data.len()..].iter().all(|&b| b == 0xA5),
                "{label}: wrote past the size"
            );
            assert_eq!(
                d.decode(&packed[cut..], &mut room, true),
                r,
                "a failed decoder stays failed"
            );
            // Through the harness, in pieces.
            let mut d = LzhufDecoder::new(expected, None);
            let r = chunked::decode(
                &mut d,
                &packed[..cut],
                data.len(),
                Pieces::Random(cut as u64, 300),
            );
            assert!(
                matches!(r, Err(DecodeError::Truncated { .. })),
                "{label} cut {cut}"
            );
            // In place, the same error (the same count produced).
            let p = chunked::decode(
                &mut in_place(data.len(), None, 999),
                &packed[..cut],
                data.len(),
                Pieces::Random(cut as u64, 300),
            );
            assert_eq!(p, r, "{label} cut {cut}, in place");
        }
    }
}

#[test]
fn bytes_after_a_complete_stream_are_not_consumed() {
    let mut rng = Rng::new(77);
    for (label, data, packed) in every_stream() {
        let mut input = packed.to_vec();
        let extra = 1 + rng.below(40);
        input.extend_from_slice(&rng.bytes(extra));
        let (out, used) = one_shot(&input, None, data.len()).expect(&label);
        assert!(out == data, "{label}");
        assert_eq!(used, packed.len(), "{label}");
        let mut d = LzhufDecoder::new(data.len() as u64, None);
        let mut room = vec![0u8; data.len()];
        let p = d.decode(&input, &mut room, false).expect(&label);
        assert_eq!(
            (p.consumed, p.status),
            (packed.len(), Status::Done),
            "{label}"
        );
        let mut d = LzhufDecoder::new(data.len() as u64, None);
        let (_, consumed) =
            chunked::decode(&mut d, &input, data.len(), Pieces::Random(5, 50)).expect(&label);
        assert_eq!(consumed, packed.len(), "{label}");
    }
}

#[test]
fn random_garbage_never_panics() {
    let mut rng = Rng::new(0xBAD5EED);
    for case in 0..3000 {
        let n = rng.below(if case % 10 == 0 { 5000 } else { 200 });
        let input = rng.bytes(n);
        let len = rng.below(if case % 7 == 0 { 100_000 } else { 3000 });
        let key = (case % 3 == 0).then(|| rng.next_u64() as u16);
        let whole = one_shot(&input, key, len);
        let mut d = LzhufDecoder::new(len as u64, key);
        let pieces = Pieces::Random(case, 1 + rng.below(100));
        let streamed = chunked::decode(&mut d, &input, len, pieces);
        let room = 1 + rng.below(5000);
        let placed = chunked::decode(&mut in_place(len, key, room), &input, len, pieces);
        assert_eq!(placed, streamed, "case {case}: in place / streamed");
        match (&whole, &streamed) {
            (Ok((a, used)), Ok((b, consumed))) => {
                assert!(a == b && used == consumed, "case {case}");
            }
            (Err(DecodeError::Truncated { produced, expected }), Err(e)) => {
                assert_eq!(*expected, len as u64, "case {case}");
                assert!(produced < expected, "case {case}");
                assert_eq!(e, whole.as_ref().unwrap_err(), "case {case}");
            }
            _ => panic!("case {case}: one-shot {whole:?} / streamed {streamed:?}"),
        }
    }
}
