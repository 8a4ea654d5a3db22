//! LZSS and LZHUF decoding speed, one-shot and streaming (4 KiB input chunks, 16 KiB of
//! output room per call; LZHUF also in place, its buffer a window and 16 KiB of room, each
//! call's bytes copied into the output so that they are checked), beside miniz_oxide
//! inflating the same files (raw Deflate, level 6) as a yardstick, and LZHUF one-shot as
//! it was after the first speed round (`lzhuf-round1`, commit fbbfea1 frozen in
//! `benches/round1`). Read the ratios within one run.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
use ngi_core::codec::lzhuf::{self, LzhufDecoder};
use ngi_core::codec::lzss::{self, LzssDecoder};
use ngi_tests::corpus;
use std::hint::black_box;

const IN_CHUNK: usize = 4096;
const OUT_CHUNK: usize = 16 * 1024;

fn inflate(packed: &[u8], out: &mut [u8]) -> usize {
    let mut state = Box::new(DecompressorOxide::new());
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    let (_, _, produced) = decompress(&mut state, packed, out, 0, flags);
    produced
}

fn lz(c: &mut Criterion) {
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("text", corpus::text(300 * 1024)[..300 * 1024].to_vec()),
        ("binary", corpus::binary(400 * 1024)),
    ];
    for (name, data) in &inputs {
        let mut group = c.benchmark_group(format!("lz/{name}"));
        group.throughput(Throughput::Bytes(data.len() as u64));
        let mut out = vec![0u8; data.len()];
        let n = data.len() as u64;

        let deflated = miniz_oxide::deflate::compress_to_vec(data, 6);
        assert_eq!(inflate(&deflated, &mut out), data.len());
        group.bench_function(BenchmarkId::new("miniz_oxide", "one-shot"), |b| {
            b.iter(|| inflate(black_box(&deflated), &mut out))
        });

        let packed = lzss::encode(data);
        group.bench_function(BenchmarkId::new("lzss", "one-shot"), |b| {
            b.iter(|| lzss::decode_into(black_box(&packed), None, &mut out).expect("valid"))
        });
        group.bench_function(BenchmarkId::new("lzss", "streaming"), |b| {
            b.iter(|| {
                ngi_benches::stream(
                    &mut LzssDecoder::new(n, None),
                    black_box(&packed),
                    &mut out,
                    IN_CHUNK,
                    OUT_CHUNK,
                )
            })
        });
        assert_eq!(&out, data);

        let packed = lzhuf::encode(data);
        group.bench_function(BenchmarkId::new("lzhuf", "one-shot"), |b| {
            b.iter(|| lzhuf::decode_into(black_box(&packed), None, &mut out).expect("valid"))
        });
        group.bench_function(BenchmarkId::new("lzhuf-round1", "one-shot"), |b| {
            b.iter(|| {
                ngi_round1::codec::lzhuf::decode_into(black_box(&packed), None, &mut out)
                    .expect("valid")
            })
        });
        assert_eq!(&out, data);
        group.bench_function(BenchmarkId::new("lzhuf", "streaming"), |b| {
            b.iter(|| {
                ngi_benches::stream(
                    &mut LzhufDecoder::new(n, None),
                    black_box(&packed),
                    &mut out,
                    IN_CHUNK,
                    OUT_CHUNK,
                )
            })
        });
        assert_eq!(&out, data);
        out.fill(0);
        let mut buf = vec![0u8; lzhuf::RING_SIZE + OUT_CHUNK];
        group.bench_function(BenchmarkId::new("lzhuf", "in-place"), |b| {
            b.iter(|| {
                let mut at = 0;
                let d = lzhuf::InPlaceDecoder::new(n, None);
                ngi_benches::stream_in_place(
                    d,
                    black_box(&packed),
                    &mut buf,
                    IN_CHUNK,
                    OUT_CHUNK,
                    |b| {
                        out[at..at + b.len()].copy_from_slice(b);
                        at += b.len();
                    },
                )
            })
        });
        assert_eq!(&out, data);
        group.finish();
    }
}

criterion_group!(benches, lz);
criterion_main!(benches);
