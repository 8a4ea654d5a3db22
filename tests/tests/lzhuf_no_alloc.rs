//! No allocation while decoding LZHUF: a counting global allocator watches every decoder
//! entry point (one-shot, streaming in any pieces, keyed, truncated) on real streams.

use ngi_core::codec::lzhuf::{self, LzhufDecoder, RING_SIZE};
use ngi_core::codec::{InPlace, Status, XorStream};
use ngi_core::error::DecodeError;
use ngi_tests::alloc_count::{Counting, allocations_in, stream};
use ngi_tests::corpus;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn decoding_allocates_nothing() {
    // Everything that may allocate is made before the counter is armed.
    let inputs = [
        corpus::text(120 * 1024)[..120 * 1024].to_vec(),
        corpus::binary(100 * 1024),
        vec![0u8; 30_000],
    ];
    let streams: Vec<Vec<u8>> = inputs.iter().map(|d| lzhuf::encode(d)).collect();
    let key = 0xABBA;
    let keyed: Vec<Vec<u8>> = streams
        .iter()
        .map(|s| {
            let mut s = s.clone();
            XorStream::new(key).apply(&mut s);
            s
        })
        .collect();
    let mut out = vec![0u8; 120 * 1024];
    let mut decoder = Box::new(LzhufDecoder::new(0, None));
    let mut in_place = Box::new(lzhuf::InPlaceDecoder::new(0, None));
    // A window and 1000 bytes of room: the in-place form slides it many times.
    let mut buf = vec![0u8; RING_SIZE + 1000];
    let mut results = Vec::with_capacity(64);

    let count = allocations_in(|| {
        for ((data, packed), xored) in inputs.iter().zip(&streams).zip(&keyed) {
            let out = &mut out[..data.len()];
            results.push(lzhuf::decode_into(packed, None, out).map(|_| out[..] == data[..]));
            results.push(lzhuf::decode_into(xored, Some(key), out).map(|_| out[..] == data[..]));
            for (inp, outp) in [
                (1, 1),
                (7, 300),
                (4096, 16 * 1024),
                (usize::MAX, usize::MAX),
            ] {
                *decoder = LzhufDecoder::new(data.len() as u64, None);
                results.push(
                    stream(&mut *decoder, packed, out, inp, outp).map(|_| out[..] == data[..]),
                );
                *decoder = LzhufDecoder::new(data.len() as u64, Some(key));
                results.push(
                    stream(&mut *decoder, xored, out, inp, outp).map(|_| out[..] == data[..]),
                );
            }
            // In place, keyed, 4 KiB of input per call, each call's bytes checked where
            // they are.
            *in_place = lzhuf::InPlaceDecoder::new(data.len() as u64, Some(key));
            let (mut at, mut pos, mut same) = (0, 0, true);
            results.push(loop {
                if at == buf.len() {
                    at = in_place.slide(&mut buf, at, &xored[pos..]);
                }
                let end = (pos + 4096).min(xored.len());
                let done = in_place.produced_total() as usize;
                match in_place.decode(&xored[pos..end], &mut buf, at, end == xored.len()) {
                    Err(e) => break Err(e),
                    Ok(p) => {
                        same &= buf[at..at + p.produced] == data[done..done + p.produced];
                        (pos, at) = (pos + p.consumed, at + p.produced);
                        if p.status == Status::Done {
                            break Ok(same);
                        }
                    }
                }
            });
            // A truncated stream: the error path allocates nothing either.
            *decoder = LzhufDecoder::new(data.len() as u64, None);
            let cut = &packed[..packed.len() / 2];
            results.push(match stream(&mut *decoder, cut, out, 100, 1000) {
                Err(DecodeError::Truncated { .. }) => Ok(true),
                other => other.map(|_| false),
            });
        }
    });
    assert_eq!(count, 0, "decoding allocated {count} times");
    assert_eq!(results.len(), 3 * 12);
    assert!(results.iter().all(|r| *r == Ok(true)), "{results:?}");
}

#[test]
fn the_counter_sees_allocations() {
    let count = allocations_in(|| drop(std::hint::black_box(vec![1u8; 100])));
    assert!(count >= 1, "the counting allocator counts nothing");
}
