//! ngi-tokio against the core it drives. Per method (stored, XOR, LZSS, LZHUF, Deflate),
//! one RsLi entry of 1 MiB of text (`corpus::text`), decoded by:
//!
//! - `core/one-shot`: `codec::unpack_into` of the packed bytes in memory into the
//!   exact-size output: the yardstick of the ratios;
//! - `reader/file`: `Archive::open` (the file is in the page cache after the first
//!   iteration), `reader()` read to the end with 64 KiB reads, on a current-thread runtime:
//!   positional reads of 24 KiB, which the page cache answers in place (`preadv2` with
//!   `RWF_NOWAIT`);
//! - `reader/file-pool`: the same with every read on the blocking pool, one chunk ahead
//!   (`Archive::with_cached_reads_inline(false)`);
//! - `reader/memory`: the same from `Archive::from_bytes`;
//! - `stream-64k/file` and `stream-4k/file`: `stream()` with 64 KiB and 4 KiB chunks,
//!   counted (a consumer's use of them is its own cost; their bytes are checked once
//!   outside the timed loop).
//!
//! The archive is opened once, outside the timed loop; each iteration builds its reader
//! (the decoder state included) and the output is compared with the text after each
//! benchmark. `python3 benches/report_tokio.py` prints the table of BENCHMARKS.md (each
//! row's speed as a ratio to `core/one-shot`, from one run).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;
use ngi_core::Method;
use ngi_core::archive::Catalog;
use ngi_core::codec::unpack_into;
use ngi_core::rsli::Builder;
use ngi_tests::corpus;
use ngi_tokio::Archive;
use std::hint::black_box;
use tokio::io::AsyncReadExt;

const READ: usize = 64 * 1024;

async fn read_all(archive: &Archive, out: &mut [u8]) -> usize {
    let mut reader = archive.reader(0).expect("the entry");
    let mut filled = 0;
    loop {
        let end = (filled + READ).min(out.len());
        match reader.read(&mut out[filled..end]).await.expect("reads") {
            0 => return filled,
            n => filled += n,
        }
    }
}

/// Streams the entry in `chunk`-byte chunks; the timed loop only counts them (what a
/// consumer does with them is its own cost), `collect` keeps them for the check.
async fn stream_all(archive: &Archive, chunk: usize, collect: Option<&mut Vec<u8>>) -> usize {
    let mut stream = archive.stream(0).expect("the entry").with_chunk_len(chunk);
    let mut total = 0;
    let mut collect = collect;
    while let Some(bytes) = stream.next().await {
        let bytes = bytes.expect("streams");
        total += bytes.len();
        if let Some(out) = collect.as_deref_mut() {
            out.extend_from_slice(&bytes);
        }
        black_box(bytes);
    }
    total
}

fn tokio_bench(c: &mut Criterion) {
    let text = corpus::text(1 << 20)[..1 << 20].to_vec();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let dir = std::env::temp_dir();
    for method in [
        Method::Stored,
        Method::Xor,
        Method::Lzss,
        Method::Lzhuf,
        Method::Deflate,
    ] {
        let mut builder = Builder::new();
        builder.add(b"TEXT", method, &text).expect("entry");
        let bytes = builder.build().expect("builds");
        let path = dir.join(format!(
            "ngi-bench-tokio-{}-{}.rsli",
            std::process::id(),
            method.name()
        ));
        std::fs::write(&path, &bytes).expect("writable");
        let catalog = Catalog::open(&bytes, ngi_core::OpenOptions::DEFAULT).expect("opens");
        let packed = catalog.packed(0, &bytes).expect("packed").to_vec();
        let key = catalog.entry(0).expect("entry").key;
        let from_file = runtime.block_on(Archive::open(&path)).expect("opens");
        let pool = from_file.clone().with_cached_reads_inline(false);
        let in_memory = Archive::from_bytes(bytes.clone().into()).expect("opens");

        let mut group = c.benchmark_group(format!("tokio/{}", method.name()));
        group.throughput(Throughput::Bytes(text.len() as u64));
        let mut out = vec![0u8; text.len()];
        let check = |what: &str, out: &mut Vec<u8>| {
            assert!(*out == text, "{method} {what}: wrong bytes");
            out.fill(0);
        };
        group.bench_function(BenchmarkId::new("core", "one-shot"), |b| {
            b.iter(|| unpack_into(method, key, black_box(&packed), &mut out).expect("decodes"))
        });
        check("core", &mut out);
        for (how, archive) in [
            ("file", &from_file),
            ("file-pool", &pool),
            ("memory", &in_memory),
        ] {
            group.bench_function(BenchmarkId::new("reader", how), |b| {
                b.iter(|| runtime.block_on(read_all(archive, &mut out)))
            });
            check("reader", &mut out);
        }
        for (name, chunk) in [("stream-64k", 64 * 1024), ("stream-4k", 4 * 1024)] {
            group.bench_function(BenchmarkId::new(name, "file"), |b| {
                b.iter(|| runtime.block_on(stream_all(&from_file, chunk, None)))
            });
            let mut streamed = Vec::new();
            runtime.block_on(stream_all(&from_file, chunk, Some(&mut streamed)));
            check(name, &mut streamed);
        }
        group.finish();
        let _ = std::fs::remove_file(&path);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = tokio_bench
}
criterion_main!(benches);
