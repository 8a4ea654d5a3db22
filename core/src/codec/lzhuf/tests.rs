use super::*;
use crate::codec::Status;
use core::mem::size_of;

/// A deterministic xorshift, for inputs without `std`.
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

/// Decodes with `decoder` in pieces of at most `inp` input bytes and `outp` bytes of room;
/// returns (produced bytes, consumed).
fn pieces(
    decoder: &mut LzhufDecoder,
    packed: &[u8],
    out: &mut [u8],
    inp: usize,
    outp: usize,
) -> Result<(usize, usize), DecodeError> {
    let (mut consumed, mut produced) = (0usize, 0usize);
    loop {
        let in_end = consumed.saturating_add(inp).min(packed.len());
        let out_end = produced.saturating_add(outp).min(out.len());
        let ended = in_end == packed.len();
        let p = decoder.decode(
            &packed[consumed..in_end],
            &mut out[produced..out_end],
            ended,
        )?;
        consumed += p.consumed;
        produced += p.produced;
        match p.status {
            Status::Done => return Ok((produced, consumed)),
            Status::NeedInput => assert_eq!(consumed, in_end),
            Status::OutputFull => assert_eq!(produced, out_end),
        }
    }
}

/// The sizes the module docs state; a change must update them.
#[test]
fn state_size_is_as_documented() {
    assert_eq!(size_of::<tree::Tree>(), 5648);
    assert_eq!(size_of::<tree::Tree<deep::DeepTop>>(), 8528);
    assert_eq!(size_of::<LzhufDecoder>(), 9792);
    assert!(size_of::<LzhufDecoder>() <= 10 * 1024);
    assert_eq!(size_of::<InPlaceDecoder>(), 8592);
    assert_eq!(size_of::<crate::codec::InPlaceUnpacker>(), 9616);
}

/// The initial tree gives the match of length 60 (symbol 313) the code 11000101; position
/// 4095 (distance 4096) is 11111111 then 111111. Copying 60 bytes from 4096 back at the
/// start reads ring slots 4036..=4095 before anything is written there: the engine's
/// prefill makes them 0x20 (LZHUF.C's would give zeros).
const FROM_UNWRITTEN_SLOTS: [u8; 3] = [0b1100_0101, 0b1111_1111, 0b1111_1100];

#[test]
fn slots_never_written_read_as_the_engine_prefill() {
    let mut out = [0u8; 60];
    assert_eq!(decode_into(&FROM_UNWRITTEN_SLOTS, None, &mut out), Ok(3));
    assert_eq!(out, [0x20; 60]);
    // The streaming decoder reads them from its ring, one byte at a time too.
    let mut out = [0u8; 60];
    let mut d = LzhufDecoder::new(60, None);
    assert_eq!(
        pieces(&mut d, &FROM_UNWRITTEN_SLOTS, &mut out, 1, 1),
        Ok((60, 3))
    );
    assert_eq!(out, [0x20; 60]);
}

#[test]
fn in_place_reads_the_prefill_before_the_stream_and_its_buffer_after() {
    use crate::codec::InPlace;
    // The 60 prefill bytes into a buffer of 70 (at 0), then, given 10 bytes said to be
    // decoded where 4096 are needed, a refusal that is not kept.
    let mut d = InPlaceDecoder::new(60, None);
    let mut buf = [0u8; 70];
    let p = d.decode(&FROM_UNWRITTEN_SLOTS, &mut buf, 0, true).unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (3, 60, Status::Done));
    assert_eq!(buf[..60], [0x20; 60]);
    assert_eq!(buf[60..], [0; 10], "nothing written past the size");
    assert_eq!(d.retain(60, &[]), 0, "no window once done");
    let p = d.decode(&[], &mut buf, 0, true).unwrap();
    assert_eq!(
        (p.produced, p.status),
        (0, Status::Done),
        "done, whatever the buffer"
    );

    let mut d = InPlaceDecoder::new(10_000, None);
    let mut buf = [0u8; 100];
    // More bytes before the room than were decoded, or past the buffer.
    for at in [1, 101] {
        assert_eq!(
            d.decode(&FROM_UNWRITTEN_SLOTS, &mut buf, at, false),
            Err(DecodeError::HistoryMismatch {
                given: at as u64,
                needed: 0,
                produced: 0
            })
        );
    }
    let p = d.decode(&FROM_UNWRITTEN_SLOTS, &mut buf, 0, false).unwrap();
    assert_eq!(
        (p.consumed, p.produced, p.status),
        (3, 60, Status::NeedInput)
    );
    assert_eq!(d.retain(60, &[]), 60, "all of them, fewer than a window");
    assert_eq!(d.retain(70, &[]), 60, "no more than were decoded");
    // Fewer than were decoded, while fewer than a window: refused.
    assert_eq!(
        d.decode(&[], &mut buf, 59, true),
        Err(DecodeError::HistoryMismatch {
            given: 59,
            needed: 60,
            produced: 60
        })
    );
    // The stream ends there: a truncation, kept whatever the buffer.
    let e = DecodeError::Truncated {
        produced: 60,
        expected: 10_000,
    };
    assert_eq!(d.decode(&[], &mut buf, 60, true), Err(e));
    assert_eq!(d.decode(&[], &mut buf, 0, true), Err(e));
    assert_eq!(d.produced_total(), 60);
}

#[test]
fn positions_shift_their_extra_bits_in() {
    use super::tables::{D_LEN, P_CODE, P_LEN};
    // First byte 0x2F: upper bits 1, two extra bits (10). Shifted in, the low 6 bits are
    // those of 0x2F << 2 | 2 = 0xBE: 0x3E. OR-ed into the unshifted byte they would be 0x2F.
    let bits = 0x2F_u64 << 56 | 0b10 << 54;
    assert_eq!(fast::position(bits, 0x2F, 2), 1 << 6 | 0x3E);
    // Every position, written as the encoder writes it, reads back.
    for p in 0..RING_SIZE {
        let len = u32::from(P_LEN[p >> 6]);
        let code = u64::from(P_CODE[p >> 6]) >> (8 - len);
        let bits = code << (64 - len) | ((p & 0x3F) as u64) << (64 - len - 6);
        let i = (bits >> 56) as usize;
        let extra = u32::from(D_LEN[i]) - 2;
        assert_eq!(extra + 8, len + 6, "position {p}");
        assert_eq!(fast::position(bits, i, extra), p, "position {p}");
    }
}

#[test]
fn output_stops_at_the_size_inside_a_match_and_uses_only_its_bits() {
    // The same match cut at 7 bytes: the position's bits are used all the same.
    let mut out = [0u8; 7];
    assert_eq!(decode_into(&FROM_UNWRITTEN_SLOTS, None, &mut out), Ok(3));
    // Trailing bytes are not consumed.
    let mut input = FROM_UNWRITTEN_SLOTS.to_vec();
    input.extend_from_slice(b"trailing");
    let mut d = LzhufDecoder::new(7, None);
    let mut big = [0u8; 100];
    let p = d.decode(&input, &mut big, false).unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (3, 7, Status::Done));
    assert_eq!(big[..7], [0x20; 7]);
    assert_eq!(big[7..], [0; 93], "nothing written past the size");
    // Done again, with nothing more.
    let p = d.decode(&input[3..], &mut big, true).unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (0, 0, Status::Done));
}

#[test]
fn empty_entry_is_done_at_once() {
    let mut d = LzhufDecoder::new(0, Some(0x1234));
    let p = d.decode(b"xyz", &mut [0u8; 4], true).unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (0, 0, Status::Done));
    assert_eq!(decode_into(b"", None, &mut []), Ok(0));
}

#[test]
fn truncated_streams_fail_and_stay_failed() {
    // Cut after the symbol: the position's bits are missing.
    let mut out = [0u8; 60];
    assert_eq!(
        decode_into(&FROM_UNWRITTEN_SLOTS[..1], None, &mut out),
        Err(DecodeError::Truncated {
            produced: 0,
            expected: 60
        })
    );
    let mut d = LzhufDecoder::new(61, None);
    let mut room = [0u8; 100];
    let e = d
        .decode(&FROM_UNWRITTEN_SLOTS, &mut room, true)
        .unwrap_err();
    assert_eq!(
        e,
        DecodeError::Truncated {
            produced: 60,
            expected: 61
        }
    );
    assert_eq!(d.decode(&[0; 10], &mut room, false), Err(e));
    assert_eq!(d.produced_total(), 60);
}

#[test]
fn a_missing_bit_is_needed_input_not_truncation_until_the_end() {
    let mut d = LzhufDecoder::new(60, None);
    let mut out = [0u8; 60];
    let p = d
        .decode(&FROM_UNWRITTEN_SLOTS[..2], &mut out, false)
        .unwrap();
    assert_eq!(
        (p.consumed, p.produced, p.status),
        (2, 0, Status::NeedInput)
    );
    let p = d
        .decode(&FROM_UNWRITTEN_SLOTS[2..], &mut out, false)
        .unwrap();
    assert_eq!((p.consumed, p.produced, p.status), (1, 60, Status::Done));
}

#[test]
fn random_input_never_panics_or_overruns() {
    let mut rng = Rng(0x5EED_1234_5678_9ABC);
    let mut input = [0u8; 300];
    let mut out = [0u8; 2000];
    for case in 0..300 {
        for b in input.iter_mut() {
            *b = rng.next() as u8;
        }
        let n_in = rng.below(input.len() + 1);
        let n_out = rng.below(out.len());
        let key = (case % 2 == 0).then_some(rng.next() as u16);
        let one_shot = decode_into(&input[..n_in], key, &mut out[..n_out]);
        let mut d = LzhufDecoder::new(n_out as u64, key);
        let mut streamed = [0u8; 2000];
        let (inp, outp) = (1 + rng.below(40), 1 + rng.below(100));
        let chunked = pieces(&mut d, &input[..n_in], &mut streamed[..n_out], inp, outp);
        match (one_shot, chunked) {
            (Ok(c), Ok((p, c2))) => {
                assert_eq!((p, c2), (n_out, c), "case {case}");
                assert_eq!(out[..n_out], streamed[..n_out], "case {case}");
            }
            (Err(e), Err(e2)) => {
                assert!(matches!(e, DecodeError::Truncated { .. }), "case {case}");
                assert_eq!(e, e2, "case {case}");
            }
            (a, b) => panic!("case {case}: one-shot {a:?}, streamed {b:?}"),
        }
    }
}

#[cfg(feature = "alloc")]
mod with_alloc {
    use super::*;
    use crate::codec::XorStream;
    use alloc::vec;
    use alloc::vec::Vec;

    fn sample(rng: &mut Rng, len: usize) -> Vec<u8> {
        // Words from a small vocabulary and some noise: matches of every kind.
        const WORDS: [&[u8]; 8] = [
            b"the ",
            b"LZHUF ",
            b"adaptive ",
            b"Huffman ",
            b"ring ",
            b"\x00\x00\x00",
            b"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz ",
            b"\n",
        ];
        let mut data = Vec::with_capacity(len + 80);
        while data.len() < len {
            match rng.below(10) {
                0 => data.push(rng.next() as u8),
                _ => data.extend_from_slice(WORDS[rng.below(WORDS.len())]),
            }
        }
        data.truncate(len);
        data
    }

    #[test]
    fn round_trips_one_shot_and_in_pieces() {
        let mut rng = Rng(42);
        for len in [
            0, 1, 2, 3, 59, 60, 61, 100, 4035, 4036, 4097, 20_000, 70_000,
        ] {
            let data = sample(&mut rng, len);
            let packed = encode(&data);
            let mut out = vec![0u8; len];
            assert_eq!(
                decode_into(&packed, None, &mut out),
                Ok(packed.len()),
                "len {len}"
            );
            assert_eq!(out, data, "len {len}");
            for (inp, outp) in [(1, 1), (3, 7), (4096, 16 * 1024), (usize::MAX, 61)] {
                if len > 20_000 && inp < 4 {
                    continue;
                }
                let mut d = LzhufDecoder::new(len as u64, None);
                let mut got = vec![0u8; len];
                assert_eq!(
                    pieces(&mut d, &packed, &mut got, inp, outp),
                    Ok((len, packed.len())),
                    "len {len} pieces {inp}/{outp}"
                );
                assert_eq!(got, data, "len {len} pieces {inp}/{outp}");
            }
        }
    }

    #[test]
    fn xor_keyed_streams_round_trip() {
        let mut rng = Rng(7);
        let data = sample(&mut rng, 30_000);
        for key in [0x0000, 0x0001, 0xABBA, 0xFFFF] {
            let mut packed = encode(&data);
            XorStream::new(key).apply(&mut packed);
            let mut out = vec![0u8; data.len()];
            assert_eq!(decode_into(&packed, Some(key), &mut out), Ok(packed.len()));
            assert_eq!(out, data, "key {key:#06x}");
            for (inp, outp) in [(1, 1), (5, 100), (700, 3000), (4096, 16 * 1024)] {
                let mut d = LzhufDecoder::new(data.len() as u64, Some(key));
                let mut got = vec![0u8; data.len()];
                assert_eq!(
                    pieces(&mut d, &packed, &mut got, inp, outp),
                    Ok((data.len(), packed.len()))
                );
                assert_eq!(got, data, "key {key:#06x} pieces {inp}/{outp}");
            }
        }
    }

    #[test]
    fn every_prefix_of_a_stream_is_truncated_and_the_whole_needs_no_more() {
        let mut rng = Rng(9);
        let data = sample(&mut rng, 3000);
        let packed = encode(&data);
        let mut out = vec![0u8; data.len()];
        for cut in 0..packed.len() {
            match decode_into(&packed[..cut], None, &mut out) {
                Err(DecodeError::Truncated { produced, expected }) => {
                    assert!(produced < expected && expected == data.len() as u64);
                    assert_eq!(out[..produced as usize], data[..produced as usize]);
                }
                other => panic!("cut {cut}: {other:?}"),
            }
        }
        // Fed without the end flag, the exact stream completes: no byte past it is asked for.
        let mut d = LzhufDecoder::new(data.len() as u64, None);
        let p = d.decode(&packed, &mut out, false).unwrap();
        assert_eq!((p.consumed, p.status), (packed.len(), Status::Done));
    }

    #[test]
    fn in_place_needs_a_whole_ring_once_a_ring_is_decoded() {
        use crate::codec::InPlace;
        let mut rng = Rng(11);
        let data = sample(&mut rng, 12_000);
        let packed = encode(&data);
        let mut d = InPlaceDecoder::new(data.len() as u64, None);
        let mut buf = vec![0u8; 5000];
        let p = d.decode(&packed, &mut buf, 0, true).unwrap();
        assert_eq!((p.produced, p.status), (5000, Status::OutputFull));
        assert_eq!(buf, data[..5000]);
        let mut pos = p.consumed;
        assert_eq!(d.retain(5000, &packed[pos..]), RING_SIZE, "a ring, not all");
        // One byte short of a ring: refused, and not kept.
        assert_eq!(
            d.decode(&packed[pos..], &mut buf, RING_SIZE - 1, true),
            Err(DecodeError::HistoryMismatch {
                given: RING_SIZE as u64 - 1,
                needed: RING_SIZE as u16,
                produced: 5000
            })
        );
        let mut at = d.slide(&mut buf, 5000, &packed[pos..]);
        assert_eq!(at, RING_SIZE);
        let mut got = data[..5000].to_vec();
        loop {
            if at == buf.len() {
                at = d.slide(&mut buf, at, &packed[pos..]);
            }
            let p = d.decode(&packed[pos..], &mut buf, at, true).unwrap();
            got.extend_from_slice(&buf[at..at + p.produced]);
            (pos, at) = (pos + p.consumed, at + p.produced);
            if p.status == Status::Done {
                break;
            }
        }
        assert_eq!((got, pos), (data, packed.len()));
    }
}
