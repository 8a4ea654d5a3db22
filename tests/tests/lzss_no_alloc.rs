//! No allocation while decoding LZSS (methods 0x40 and 0x60): a counting global allocator
//! watches every decoder entry point (one-shot, streaming in pieces from 1 byte to the
//! whole stream, keyed, truncated, trailing bytes) on real streams.

use ngi_core::codec::XorStream;
use ngi_core::codec::lzss::{self, LzssDecoder};
use ngi_core::error::DecodeError;
use ngi_tests::alloc_count::{Counting, allocations_in, stream};
use ngi_tests::corpus;
use std::hint::black_box;

#[global_allocator]
static GLOBAL: Counting = Counting;

#[test]
fn the_counter_sees_allocations() {
    let count = allocations_in(|| drop(black_box(vec![1u8; 100])));
    assert!(count >= 1, "the counting allocator counts nothing");
}

#[test]
fn decoding_allocates_nothing() {
    // Everything that may allocate is made before the counter is armed.
    let inputs = [
        corpus::text(150 * 1024)[..150 * 1024].to_vec(),
        corpus::binary(100 * 1024),
        vec![0u8; 20_000],
        b"a".to_vec(),
        Vec::new(),
    ];
    let key = 0x6060;
    let streams: Vec<Vec<u8>> = inputs.iter().map(|d| lzss::encode(d)).collect();
    let keyed: Vec<Vec<u8>> = streams
        .iter()
        .map(|s| {
            let mut s = s.clone();
            XorStream::new(key).apply(&mut s);
            s
        })
        .collect();
    let trailing: Vec<Vec<u8>> = streams
        .iter()
        .map(|s| [&s[..], &[0xEE; 40]].concat())
        .collect();
    let mut out = vec![0u8; 150 * 1024];
    let mut results: Vec<bool> = Vec::with_capacity(256);

    let count = allocations_in(|| {
        for (((data, packed), xored), extra) in
            inputs.iter().zip(&streams).zip(&keyed).zip(&trailing)
        {
            let n = data.len();
            let out = &mut out[..n];
            let whole = Ok(packed.len());
            results.push(lzss::decode_into(packed, None, out) == whole && out[..] == data[..]);
            results.push(lzss::decode_into(xored, Some(key), out) == whole && out[..] == data[..]);
            results.push(lzss::decode_into(extra, None, out) == whole && out[..] == data[..]);
            // The decoder on the stack, as a host without an allocator would keep it.
            for (inp, outp) in [
                (1, 1),
                (7, 300),
                (4096, 16 * 1024),
                (usize::MAX, usize::MAX),
            ] {
                let done = Ok((packed.len(), n));
                let mut decoder = LzssDecoder::new(n as u64, None);
                results.push(
                    stream(&mut decoder, packed, out, inp, outp) == done && out[..] == data[..],
                );
                let mut decoder = LzssDecoder::new(n as u64, Some(key));
                results.push(
                    stream(&mut decoder, xored, out, inp, outp) == done && out[..] == data[..],
                );
                let mut decoder = LzssDecoder::new(n as u64, None);
                results.push(
                    stream(&mut decoder, extra, out, inp, outp) == done && out[..] == data[..],
                );
            }
            // Truncated: the error paths allocate nothing either.
            let cut = &packed[..packed.len() / 2];
            let truncated =
                |r: Result<_, DecodeError>| matches!(r, Err(DecodeError::Truncated { .. }));
            results.push(n < 2 || truncated(lzss::decode_into(cut, None, out).map(|_| (0, 0))));
            let mut decoder = LzssDecoder::new(n as u64, None);
            results.push(n < 2 || truncated(stream(&mut decoder, cut, out, 100, 1000)));
        }
    });
    assert_eq!(count, 0, "decoding allocated {count} times");
    assert_eq!(results.len(), 5 * (3 + 4 * 3 + 2));
    let failed: Vec<usize> = (0..results.len()).filter(|&i| !results[i]).collect();
    assert!(failed.is_empty(), "wrong results at {failed:?}");
}
