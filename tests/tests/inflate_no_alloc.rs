//! No allocation while decoding Deflate (method 0x100): a counting global allocator
//! watches every decoder entry point (one-shot, streaming in pieces from 1 byte to the
//! whole stream, truncated, trailing bytes) on real streams from `miniz_oxide`.

use ngi_core::codec::inflate::{self, InflateDecoder};

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
    for sample in corpus::corpus() {
        let data = &sample.data;
        for level in [0u8, 1, 6, 9] {
            let mut packed = miniz_oxide::deflate::compress_to_vec(data, level);
            let n = packed.len();
            packed.extend_from_slice(b"trailing");
            let mut out = vec![0u8; data.len()];
            let mut decoder = Box::new(InflateDecoder::new(data.len() as u64));
            let pieces: &[(usize, usize)] = if data.len() <= 70_000 {
                &[
                    (1, 1),
                    (7, 3),
                    (65536, 32768),
                    (usize::MAX / 4, usize::MAX / 4),
                ]
            } else {
                &[
                    (997, 1013),
                    (65536, 32768),
                    (usize::MAX / 4, usize::MAX / 4),
                ]
            };
            let count = allocations_in(|| {
                assert_eq!(inflate::decode_into(&packed, &mut out), Ok(n));
                let _ = black_box(inflate::decode_into(&packed[..n / 2], &mut out));
                for &(i, o) in pieces {
                    *decoder = InflateDecoder::new(data.len() as u64);
                    assert_eq!(
                        stream(&mut *decoder, &packed, &mut out, i, o),
                        Ok((n, data.len()))
                    );
                }
                *decoder = InflateDecoder::new(data.len() as u64);
                let _ = black_box(stream(&mut *decoder, &packed[..n / 2], &mut out, 100, 100));
            });
            assert_eq!(count, 0, "{} level {level}", sample.name);
            assert!(out == *data, "{}", sample.name);
        }
    }
}

/// The in-place form neither: every call and every slide, with buffers that slide every
/// few hundred bytes and every 64 KiB.
#[test]
fn in_place_decoding_allocates_nothing() {
    use ngi_core::Status;
    use ngi_core::codec::InPlace;
    use ngi_core::codec::inflate::{InPlaceDecoder, WINDOW_SIZE};
    for sample in corpus::corpus() {
        let data = &sample.data;
        for level in [0u8, 6] {
            let packed = miniz_oxide::deflate::compress_to_vec(data, level);
            let mut got = Vec::with_capacity(data.len());
            for room in [300, 64 << 10] {
                let mut buf = vec![0u8; WINDOW_SIZE + room];
                let mut decoder = Box::new(InPlaceDecoder::new(data.len() as u64));
                got.clear();
                let count = allocations_in(|| {
                    let (mut pos, mut at) = (0, 0);
                    loop {
                        if at == buf.len() {
                            at = decoder.slide(&mut buf, at, &packed[pos..]);
                        }
                        let end = (pos + 4096).min(packed.len());
                        let p = decoder
                            .decode(&packed[pos..end], &mut buf, at, end == packed.len())
                            .expect("valid stream");
                        got.extend_from_slice(&buf[at..at + p.produced]);
                        (pos, at) = (pos + p.consumed, at + p.produced);
                        if p.status == Status::Done {
                            break;
                        }
                    }
                });
                assert_eq!(count, 0, "{} level {level} room {room}", sample.name);
                assert!(got == *data, "{} level {level} room {room}", sample.name);
            }
        }
    }
}
