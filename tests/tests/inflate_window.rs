//! The streaming inflater's window after stored blocks. A call that ends inside a stored
//! block leaves out of its window the bytes that the stored blocks it can already see
//! ahead will push more than 32 KiB back before any match can come; these streams put
//! matches at exactly the distances that reach the oldest bytes it must still keep, and
//! decode them with input and output split every way that changes what a call sees ahead.

use ngi_core::codec::inflate::{self, InPlaceDecoder, InflateDecoder, WINDOW_SIZE};
use ngi_core::codec::{Decoder, InPlace, Status};
use ngi_tests::deflate_bits::{Bits, stored_run_then_far_matches};

/// The streams, with their output: stored runs of several lengths (as zlib cuts
/// incompressible data, and around 32 KiB exactly), then a Huffman block reaching back
/// into them; some with a Huffman block before the run, so that it starts inside a byte;
/// one that ends with stored blocks only.
fn streams() -> Vec<(String, Vec<u8>, Vec<u8>)> {
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
        let name = format!("stored run {:?} then matches", &run[..run.len().min(4)]);
        let seed = 0x5709ED + k as u64;
        let (mut b, mut data) = (Bits::default(), Vec::new());
        stored_run_then_far_matches(&mut b, &mut data, run, seed);
        out.push((name.clone(), b.done(), data));
        // The same after a fixed block of "ab" and a match of 40 at distance 2.
        let mut b = Bits::default();
        b.put(0, 1).put(1, 2);
        b.fixed(b'a' as u32)
            .fixed(b'b' as u32)
            .fixed_match(40, 2)
            .fixed(256);
        let mut data = b"ab".repeat(21);
        stored_run_then_far_matches(&mut b, &mut data, run, seed);
        out.push((format!("{name}, after a fixed block"), b.done(), data));
    }
    let mut b = Bits::default();
    b.put(0, 1).put(1, 2);
    b.fixed(b'a' as u32).fixed_match(10, 1).fixed(256);
    let mut data = b"a".repeat(11);
    let mut rng = ngi_tests::corpus::Rng::new(7);
    for (len, last) in [(31745, false), (31745, false), (5, false), (7, true)] {
        b.stored_header(len, last);
        for _ in 0..len {
            let c = rng.next_u64() as u8;
            b.put(c as u32, 8);
            data.push(c);
        }
    }
    out.push(("stored blocks to the end".to_string(), b.done(), data));
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

/// The same through the in-place form: a buffer of a window and `room` bytes, slid when
/// full (keeping less than a window where the stored bytes seen ahead allow it), each
/// call given what is left of the buffer and `in_chunk` bytes of input. Returns the
/// output and how many slides kept less than a window.
fn streamed_in_place(packed: &[u8], size: usize, in_chunk: usize, room: usize) -> (Vec<u8>, usize) {
    let mut d = InPlaceDecoder::new(size as u64);
    let mut buf = vec![0u8; WINDOW_SIZE + room];
    let mut out = Vec::with_capacity(size);
    let (mut pos, mut at, mut short) = (0, 0, 0);
    loop {
        if at == buf.len() {
            at = d.slide(&mut buf, at, &packed[pos..]);
            short += (at < WINDOW_SIZE) as usize;
        }
        let end = (pos + in_chunk).min(packed.len());
        let p = d
            .decode(&packed[pos..end], &mut buf, at, end == packed.len())
            .unwrap_or_else(|e| panic!("in {in_chunk}, room {room}: {e}"));
        out.extend_from_slice(&buf[at..at + p.produced]);
        pos += p.consumed;
        at += p.produced;
        if p.status == Status::Done {
            return (out, short);
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
    // Slides that kept less than a window, over the in-place runs: the look ahead must
    // be taken at all.
    let mut short = 0;
    for (name, packed, data) in streams() {
        let packed = &packed;
        let mut one = vec![0u8; data.len()];
        assert_eq!(
            inflate::decode_into(packed, &mut one),
            Ok(packed.len()),
            "{name}"
        );
        assert!(one == data, "{name}: one-shot output differs");
        for &oc in &out_chunks {
            for &ic in &in_chunks {
                // One-byte output calls with the whole input ahead are the slow case here;
                // the small input chunks with them say nothing the others do not.
                if oc == 1 && ic < 65536 {
                    continue;
                }
                let got = streamed(packed, data.len(), ic, oc);
                let bad = got.iter().zip(&data).position(|(a, b)| a != b);
                assert_eq!(bad, None, "{name}: in {ic}, out {oc}: first wrong byte");
                if oc > 1 && oc < 70000 {
                    let (got, s) = streamed_in_place(packed, data.len(), ic, oc);
                    short += s;
                    let bad = got.iter().zip(&data).position(|(a, b)| a != b);
                    assert_eq!(
                        bad, None,
                        "{name}: in place, in {ic}, room {oc}: first wrong byte"
                    );
                }
            }
        }
    }
    assert!(short > 100, "only {short} slides kept less than a window");
}

/// The in-place form refuses, before decoding anything and without keeping the failure,
/// bytes before the room that cannot be the window: more than it produced, fewer than a
/// window of them, or past the buffer.
#[test]
fn in_place_history_must_be_the_window() {
    use ngi_core::error::DecodeError;
    let mut data = ngi_tests::corpus::text(100_000);
    data.truncate(100_000);
    let packed = miniz_oxide::deflate::compress_to_vec(&data, 6);
    let n = data.len() as u64;
    let mismatch = |given, needed, produced| {
        Err(DecodeError::HistoryMismatch {
            given,
            needed,
            produced,
        })
    };
    let mut d = InPlaceDecoder::new(n);
    let mut buf = vec![0u8; WINDOW_SIZE + 20_000];
    assert_eq!(d.decode(&packed, &mut buf, 1, false), mismatch(1, 0, 0));
    assert_eq!(
        d.decode(&packed, &mut buf[..10], 11, false),
        mismatch(11, 0, 0)
    );
    // 40 000 bytes in: a window is needed, and no more than were produced.
    let p = d.decode(&packed, &mut buf[..40_000], 0, false).unwrap();
    assert_eq!((p.produced, p.status), (40_000, Status::OutputFull));
    let pos = p.consumed;
    assert_eq!(
        d.decode(&packed[pos..], &mut buf, 32_767, false),
        mismatch(32_767, 32_768, 40_000)
    );
    assert_eq!(
        d.decode(&packed[pos..], &mut vec![0u8; 50_000], 40_001, false),
        mismatch(40_001, 32_768, 40_000)
    );
    // Each mistake in words of its own (one sentence said all three).
    let said = |buf: &mut [u8], at| {
        d.clone()
            .decode(&packed[pos..], buf, at, false)
            .unwrap_err()
            .to_string()
    };
    let fewer = said(&mut buf, 32_767);
    assert!(
        fewer.contains("32767 bytes given before the output room, fewer than the last 32768"),
        "{fewer}"
    );
    let more = said(&mut vec![0u8; 50_000], 40_001);
    assert!(
        more.contains("more than the 40000 decoded so far"),
        "{more}"
    );
    let past = said(&mut buf[..35_000], 36_000);
    assert!(
        past.contains("starts at 36000, past the end of the buffer"),
        "{past}"
    );
    let first = InPlaceDecoder::new(n)
        .decode(&packed, &mut buf, 1, false)
        .unwrap_err()
        .to_string();
    assert!(first.contains("nothing is decoded yet"), "{first}");
    // Refused calls leave the decoder as it was: slid, it decodes on to the end.
    let mut out = buf[..40_000].to_vec();
    let at = d.slide(&mut buf, 40_000, &packed[pos..]);
    assert_eq!(
        (at, &buf[..at]),
        (WINDOW_SIZE, &out[40_000 - WINDOW_SIZE..])
    );
    let p = d.decode(&packed[pos..], &mut [], 0, true);
    assert_eq!(p, mismatch(0, 32_768, 40_000));
    let mut big = vec![0u8; WINDOW_SIZE + 60_000];
    big[..at].copy_from_slice(&buf[..at]);
    let p = d.decode(&packed[pos..], &mut big, at, true).unwrap();
    assert_eq!((p.produced, p.status), (60_000, Status::Done));
    out.extend_from_slice(&big[at..at + p.produced]);
    assert!(out == data);
    // After the end nothing is kept.
    assert_eq!(d.slide(&mut big, at + p.produced, &[]), 0);
}

/// `slide` given an `end` past the bytes produced counts only those, and moves those
/// (not the bytes before the `end` given): the decoding goes on right.
#[test]
fn a_slide_past_the_bytes_produced_keeps_them() {
    let mut data = ngi_tests::corpus::text(3_000);
    data.truncate(3_000);
    let packed = miniz_oxide::deflate::compress_to_vec(&data, 6);
    let mut d = InPlaceDecoder::new(data.len() as u64);
    let mut buf = vec![0xEEu8; 100_000];
    // The input cut short halfway.
    let p = d
        .decode(&packed[..packed.len() / 2], &mut buf, 0, false)
        .unwrap();
    assert_eq!(p.status, Status::NeedInput);
    let n = p.produced;
    assert!(n > 0 && n < 3_000, "{n} bytes");
    let rest = &packed[p.consumed..];
    let len = buf.len();
    let at = d.slide(&mut buf, len, rest);
    assert_eq!(at, n);
    assert_eq!(
        &buf[..n],
        &data[..n],
        "the bytes produced stay at the front"
    );
    let q = d.decode(rest, &mut buf, at, true).unwrap();
    assert_eq!(q.status, Status::Done);
    assert!(
        buf[..at + q.produced] == data[..],
        "decoded on from the slide"
    );
}

/// A buffer no longer than the window it must keep fills once, and then a slide keeps it
/// whole: `slide` returning the buffer's length is the documented sign that no call can
/// decode into it (a loop that slides and calls again would spin). The decoder goes on
/// in a larger buffer, from the bytes kept. Deflate and LZHUF, in buffers of 1, 4 and a
/// window's bytes.
#[test]
fn in_place_a_slide_that_keeps_the_whole_buffer_says_it_is_too_small() {
    use ngi_core::Method;
    use ngi_core::codec::{InPlaceUnpacker, PackOptions, pack};
    let data = ngi_tests::corpus::text(200_000);
    for (method, window) in [(Method::Deflate, WINDOW_SIZE), (Method::Lzhuf, 4096)] {
        let packed = pack(method, 0, &data, &PackOptions::default()).unwrap();
        for len in [1, 4, window] {
            let shown = format!("{method:?} in {len} bytes");
            let mut d = InPlaceUnpacker::new(method, data.len() as u64, 0).unwrap();
            let mut buf = vec![0u8; len];
            let p = d.decode(&packed, &mut buf, 0, true).unwrap();
            assert_eq!((p.produced, p.status), (len, Status::OutputFull), "{shown}");
            let mut pos = p.consumed;
            let mut out = buf.clone();
            let at = d.slide(&mut buf, len, &packed[pos..]);
            assert_eq!(at, len, "{shown}: the slide keeps the whole buffer");
            let p = d.decode(&packed[pos..], &mut buf, at, true).unwrap();
            assert_eq!((p.consumed, p.produced), (0, 0), "{shown}: no progress");
            // On in a buffer of a window and some room, from the bytes kept.
            let keep = d.retain(at, &packed[pos..]);
            let mut big = vec![0u8; window + 1000];
            big[..keep].copy_from_slice(&buf[at - keep..at]);
            let mut at = keep;
            loop {
                if at == big.len() {
                    at = d.slide(&mut big, at, &packed[pos..]);
                    assert!(at < big.len(), "{shown}: a window and some room stays open");
                }
                let p = d.decode(&packed[pos..], &mut big, at, true).unwrap();
                out.extend_from_slice(&big[at..at + p.produced]);
                (pos, at) = (pos + p.consumed, at + p.produced);
                if p.status == Status::Done {
                    break;
                }
            }
            assert!(out == data, "{shown}: other bytes");
        }
    }
}

/// Deflate's `retain` keeps no more than were decoded, whatever `end` says (as LZHUF's
/// does: "no more than were decoded"), and no more than `end`.
#[test]
fn inflate_retain_keeps_no_more_than_were_decoded() {
    use ngi_core::codec::{PackOptions, pack};
    let data = vec![b'a'; 64];
    let packed = pack(ngi_core::Method::Deflate, 0, &data, &PackOptions::default()).unwrap();
    let mut d = InPlaceDecoder::new(data.len() as u64);
    let mut first = [0u8; 10];
    let p = d.decode(&packed, &mut first, 0, true).unwrap();
    assert_eq!(p.produced, 10);
    let rest = &packed[p.consumed..];
    assert_eq!(d.retain(6, rest), 6, "no more than end");
    assert_eq!(d.retain(70, rest), 10, "no more than were decoded");
}
