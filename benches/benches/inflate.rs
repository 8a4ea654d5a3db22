//! Deflate decoding speed. Per input and per zlib level 1, 6 and 9, one raw Deflate stream
//! (made by `miniz_oxide::deflate::compress_to_vec`) is inflated by:
//!
//! - `miniz_oxide/one-shot`: miniz_oxide's core `decompress` into the exact-size output
//!   (non-wrapping output buffer), the yardstick of the ratios;
//! - `miniz_oxide/streaming`: the same core fed 64 KiB input chunks
//!   (`TINFL_FLAG_HAS_MORE_INPUT` while input remains), writing into a 32 KiB wrapping
//!   buffer, each produced piece copied into the final output;
//! - `zlib-rs/one-shot`: flate2's `Decompress` (raw Deflate) with the zlib-rs backend,
//!   `FlushDecompress::Finish` into the exact-size output;
//! - `libdeflate/one-shot`: libdeflater's `deflate_decompress` into the exact-size output;
//! - `ngi/one-shot`: `inflate::decode_into` into the exact-size output;
//! - `ngi-round1/one-shot`: the same function as it was after the first speed round
//!   (commit fbbfea1, frozen in `benches/round1`), so the gain of this round is a ratio
//!   from one run;
//! - `ngi/streaming`: `InflateDecoder` fed 64 KiB of input and 32 KiB of output room per
//!   call;
//! - `ngi/in-place`: `InPlaceDecoder` fed 64 KiB of input per call into a buffer of a window
//!   and 32 KiB of room, each call's bytes copied into the final output (as the
//!   miniz_oxide streaming row copies its own; `benches/examples/paired.rs` times it
//!   without the copy, its bytes read where they are).
//!
//! Every decoder builds its state inside the timed loop. After each benchmark the output
//! buffer is compared with the input (and then cleared), so a wrong decoder fails the bench.
//! The inputs: `text` (300 KiB of licence texts), `binary` (400 KiB of /bin/bash), `perl`
//! (300 KiB of perl-base's modules: code mixed with prose) and `gz` (256 KiB of dpkg's
//! gzipped changelog: already compressed, so miniz_oxide emits stored blocks at levels 6 and
//! 9 and those rows time block copying). `benches/report.py` turns criterion's results into
//! the table of BENCHMARKS.md. Read the ratios within one run.

use criterion::measurement::WallTime;
use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, Throughput, criterion_group, criterion_main,
};
use miniz_oxide::inflate::TINFLStatus;
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

/// miniz_oxide's core as a streaming decoder: `IN_CHUNK` bytes of input per call and the
/// `ring` (a power of two, at least the 32 KiB window) as its wrapping output buffer; each
/// piece it writes is copied to `out`. Returns the bytes produced.
fn miniz_streaming(packed: &[u8], ring: &mut [u8], out: &mut [u8]) -> usize {
    let mut state = Box::new(DecompressorOxide::new());
    let mask = ring.len() - 1;
    let (mut pos, mut ring_pos, mut produced) = (0, 0, 0);
    loop {
        let end = (pos + IN_CHUNK).min(packed.len());
        let flags = if end < packed.len() {
            inflate_flags::TINFL_FLAG_HAS_MORE_INPUT
        } else {
            0
        };
        let (status, consumed, written) =
            decompress(&mut state, &packed[pos..end], ring, ring_pos, flags);
        out[produced..produced + written].copy_from_slice(&ring[ring_pos..ring_pos + written]);
        pos += consumed;
        produced += written;
        ring_pos = (ring_pos + written) & mask;
        match status {
            TINFLStatus::Done => return produced,
            TINFLStatus::NeedsMoreInput | TINFLStatus::HasMoreOutput => {}
            other => panic!("miniz_oxide streaming failed: {other:?}"),
        }
    }
}

/// flate2 (zlib-rs backend) in one call into the exact-size output.
fn zlib_rs(packed: &[u8], out: &mut [u8]) -> usize {
    let mut state = flate2::Decompress::new(false);
    let status = state
        .decompress(packed, out, flate2::FlushDecompress::Finish)
        .expect("valid stream");
    assert_eq!(status, flate2::Status::StreamEnd);
    state.total_out() as usize
}

/// libdeflate in one call into the exact-size output.
fn libdeflate(packed: &[u8], out: &mut [u8]) -> usize {
    libdeflater::Decompressor::new()
        .deflate_decompress(packed, out)
        .expect("valid stream")
}

/// Benchmarks `decode` (which inflates its first argument into its second and returns the
/// bytes produced) as `decoder`/`mode` in `group`. If the benchmark ran (a filter may skip
/// it), panics unless the timed calls produced exactly `data`; then clears `out`, so the next
/// decoder cannot pass on a previous one's output.
fn run(
    group: &mut BenchmarkGroup<'_, WallTime>,
    (decoder, mode): (&str, &str),
    packed: &[u8],
    data: &[u8],
    out: &mut [u8],
    mut decode: impl FnMut(&[u8], &mut [u8]) -> usize,
) {
    let mut produced = None;
    group.bench_function(BenchmarkId::new(decoder, mode), |b| {
        b.iter(|| {
            let n = decode(black_box(packed), out);
            produced = Some(n);
            n
        })
    });
    if let Some(n) = produced {
        assert_eq!(n, data.len(), "{decoder} {mode}: wrong output length");
        assert!(
            out == data,
            "{decoder} {mode}: output differs from the input"
        );
        out.fill(0);
    }
}

fn inflate_bench(c: &mut Criterion) {
    let inputs: Vec<(&str, Vec<u8>)> = vec![
        ("text", corpus::text(300 * 1024)[..300 * 1024].to_vec()),
        ("binary", corpus::binary(400 * 1024)),
        ("perl", ngi_benches::perl_modules(300 * 1024)),
        ("gz", corpus::gzipped(256 * 1024)),
    ];
    let mut ring = vec![0u8; OUT_CHUNK];
    let mut in_place = vec![0u8; inflate::WINDOW_SIZE + OUT_CHUNK];
    for (name, data) in &inputs {
        for level in [1u8, 6, 9] {
            let mut group = c.benchmark_group(format!("inflate/{name}/level{level}"));
            group.throughput(Throughput::Bytes(data.len() as u64));
            let packed = miniz_oxide::deflate::compress_to_vec(data, level);
            let mut out = vec![0u8; data.len()];
            let n = data.len() as u64;
            let g = &mut group;
            run(
                g,
                ("miniz_oxide", "one-shot"),
                &packed,
                data,
                &mut out,
                miniz,
            );
            run(
                g,
                ("miniz_oxide", "streaming"),
                &packed,
                data,
                &mut out,
                |p, o| miniz_streaming(p, &mut ring, o),
            );
            run(g, ("zlib-rs", "one-shot"), &packed, data, &mut out, zlib_rs);
            run(
                g,
                ("libdeflate", "one-shot"),
                &packed,
                data,
                &mut out,
                libdeflate,
            );
            run(g, ("ngi", "one-shot"), &packed, data, &mut out, |p, o| {
                // `decode_into` returns the input used; success means `o` is full.
                let used = inflate::decode_into(p, o).expect("valid stream");
                assert_eq!(used, p.len(), "ngi one-shot: stream end misplaced");
                o.len()
            });
            run(
                g,
                ("ngi-round1", "one-shot"),
                &packed,
                data,
                &mut out,
                |p, o| {
                    let used = ngi_round1::codec::inflate::decode_into(p, o).expect("valid stream");
                    assert_eq!(used, p.len(), "ngi-round1 one-shot: stream end misplaced");
                    o.len()
                },
            );
            run(g, ("ngi", "streaming"), &packed, data, &mut out, |p, o| {
                ngi_benches::stream(&mut InflateDecoder::new(n), p, o, IN_CHUNK, OUT_CHUNK)
            });
            run(g, ("ngi", "in-place"), &packed, data, &mut out, |p, o| {
                ngi_benches::stream_in_place_into(p, o, &mut in_place, IN_CHUNK, OUT_CHUNK)
            });
            group.finish();
        }
    }
}

criterion_group!(benches, inflate_bench);
criterion_main!(benches);
