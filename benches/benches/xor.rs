//! The XOR keystream: ngi's table-driven cipher beside the per-byte loop of SPEC 2.3 (the
//! engine's shape) and a plain memory copy, the speed it aims at.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ngi_core::codec::xor::XorStream;
use std::hint::black_box;

fn per_byte(key: u16, data: &mut [u8]) {
    let (mut lo, mut hi) = (key as u8, (key >> 8) as u8);
    for b in data {
        lo = hi ^ (lo << 1);
        *b ^= lo;
        hi = lo ^ (hi >> 1);
    }
}

fn xor(c: &mut Criterion) {
    let mut group = c.benchmark_group("xor");
    for size in [4096usize, 1 << 20] {
        let src: Vec<u8> = (0..size).map(|i| (i * 31) as u8).collect();
        let mut dst = vec![0u8; size];
        group.throughput(Throughput::Bytes(size as u64));
        group.bench_function(BenchmarkId::new("ngi_apply_copy", size), |b| {
            b.iter(|| XorStream::new(black_box(0xABBA)).apply_copy(&src, &mut dst))
        });
        group.bench_function(BenchmarkId::new("ngi_apply_in_place", size), |b| {
            b.iter(|| XorStream::new(black_box(0xABBA)).apply(&mut dst))
        });
        group.bench_function(BenchmarkId::new("per_byte_reference", size), |b| {
            b.iter(|| per_byte(black_box(0xABBA), &mut dst))
        });
        group.bench_function(BenchmarkId::new("memcpy", size), |b| {
            b.iter(|| dst.copy_from_slice(black_box(&src)))
        });
    }
    group.finish();
}

criterion_group!(benches, xor);
criterion_main!(benches);
