//! Opening large archives: no step may be quadratic (the engine's bubble sort is O(n²)).
//! Compare the times across sizes: 10× the entries should cost about 10× (times log n).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ngi_core::nres::Archive;
use ngi_core::rsli::{Entry, Library, OpenOptions};
use std::hint::black_box;

fn nres_open(c: &mut Criterion) {
    let mut group = c.benchmark_group("nres_open");
    for count in [1_000usize, 10_000, 100_000] {
        let file = ngi_benches::nres_with(count);
        let probe = Archive::open(&file).expect("opens");
        let name = probe.entry(count / 2).expect("entry").name().to_vec();
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(BenchmarkId::new("open", count), &file, |b, file| {
            b.iter(|| Archive::open(black_box(file)).expect("opens").len())
        });
        group.bench_with_input(BenchmarkId::new("open+find", count), &file, |b, file| {
            b.iter(|| Archive::open(black_box(file)).expect("opens").find(&name))
        });
    }
    group.finish();
}

fn rsli_open(c: &mut Criterion) {
    let mut group = c.benchmark_group("rsli_open");
    for count in [1_000usize, 8_000, 32_767] {
        let file = ngi_benches::rsli_with(count);
        let mut storage = vec![Entry::default(); count];
        group.throughput(Throughput::Elements(count as u64));
        group.bench_with_input(BenchmarkId::new("open_in", count), &file, |b, file| {
            b.iter(|| {
                Library::open_in(black_box(file), &mut storage, OpenOptions::default())
                    .expect("opens")
                    .len()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, nres_open, rsli_open);
criterion_main!(benches);
