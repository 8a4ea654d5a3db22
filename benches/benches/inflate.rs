//! Deflate decoding speed (raw streams at zlib levels 1, 6 and 9, made by miniz_oxide):
//! ngi one-shot and streaming (64 KiB input chunks, 32 KiB output room per call) beside
//! miniz_oxide's one-shot core. Read the ratios within one run. (flate2 with zlib-rs and
//! libdeflater are not in this bench yet.)

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
use ngi_core::codec::inflate::{self, InflateDecoder};
use ngi_tests::corpus;
use std::hint::black_box;

const IN_CHUNK: usize = 64 * 1024;
const OUT_CHUNK: usize = 32 * 1024;

fn miniz(packed: &[u8], out: &mut [u8]) -> usize {
    let mut state = Box::new(DecompressorOxide::new());
    let flags = inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    decompress(&mut state, packed, out, 0, flags).2
}

fn inflate_bench(c: &mut Criterion) {
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("text", corpus::text(300 * 1024)[..300 * 1024].to_vec()),
        ("binary", corpus::binary(400 * 1024)),
    ];
    for (name, data) in &inputs {
        for level in [1u8, 6, 9] {
            let mut group = c.benchmark_group(format!("inflate/{name}/level{level}"));
            group.throughput(Throughput::Bytes(data.len() as u64));
            let packed = miniz_oxide::deflate::compress_to_vec(data, level);
            let mut out = vec![0u8; data.len()];
            let n = data.len() as u64;
            group.bench_function(BenchmarkId::new("miniz_oxide", "one-shot"), |b| {
                b.iter(|| miniz(black_box(&packed), &mut out))
            });
            group.bench_function(BenchmarkId::new("ngi", "one-shot"), |b| {
                b.iter(|| inflate::decode_into(black_box(&packed), &mut out).expect("valid"))
            });
            group.bench_function(BenchmarkId::new("ngi", "streaming"), |b| {
                b.iter(|| {
                    ngi_benches::stream(
                        &mut InflateDecoder::new(n),
                        black_box(&packed),
                        &mut out,
                        IN_CHUNK,
                        OUT_CHUNK,
                    )
                })
            });
            assert!(&out == data);
            group.finish();
        }
    }
}

criterion_group!(benches, inflate_bench);
criterion_main!(benches);
