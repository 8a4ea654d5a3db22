//! ngi-tokio's memory per open reader: 1000 readers of one entry open at once, each
//! having read one byte, from a file and from memory, for each method; the heap they
//! hold, counted by a global allocator over every thread (the blocking pool's included),
//! divided by 1000 must stay within the bounds (64 KiB for LZSS/LZHUF, 112 KiB for
//! Deflate), whatever the entry's size. Dropping them (some with a read on the blocking
//! pool) gives it all back. Run with `--nocapture` for the figures (BENCHMARKS.md, the
//! crate's docs).
//!
//! One test in this binary, so that no other test's allocations are counted.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use ngi_core::Method;
use ngi_core::rsli::Builder;
use ngi_tests::corpus;
use ngi_tests::tokio_io::TempFile;
use ngi_tokio::Archive;
use tokio::io::AsyncReadExt;

/// Bytes held on the heap by the whole process.
static HELD: AtomicI64 = AtomicI64::new(0);

struct Global;

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counting is one atomic add.
unsafe impl GlobalAlloc for Global {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        HELD.fetch_add(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        HELD.fetch_add(new_size as i64 - layout.size() as i64, Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size() as i64, Ordering::Relaxed);
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Global = Global;

const READERS: usize = 1000;

fn held() -> i64 {
    HELD.load(Ordering::Relaxed)
}

/// Waits (bounded, 30 s) for the heap to come back to `baseline` within `slack` bytes:
/// what the blocking pool still finishes is freed when it does (on a loaded machine, a
/// read queued there took more than the 3 s this waited before).
async fn settles_to(baseline: i64, slack: i64) -> i64 {
    for _ in 0..3000 {
        if held() - baseline <= slack {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    held() - baseline
}

#[test]
fn memory_per_open_reader_is_bounded_and_given_back() {
    // One big entry per method: 1 MiB of text (the per-reader cost must not depend on it).
    let text = corpus::text(1 << 20);
    let methods = [
        Method::Stored,
        Method::Lzss,
        Method::Lzhuf,
        Method::XorLzss,
        Method::Deflate,
    ];
    let mut builder = Builder::new();
    for method in methods {
        builder
            .add(method.name().to_uppercase().as_bytes(), method, &text)
            .unwrap();
    }
    let bytes = builder.build().unwrap();
    let file = TempFile::new("memory", &bytes);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut report = Vec::new();
    runtime.block_on(async {
        let from_file = Archive::open(&file.0).await.unwrap();
        let pool = from_file.clone().with_cached_reads_inline(false);
        let in_memory = Archive::from_bytes(bytes.clone().into()).unwrap();
        let archives = [
            ("file", &from_file),
            ("pool", &pool),
            ("memory", &in_memory),
        ];
        for (how, archive) in archives {
            for method in methods {
                let i = archive.find(method.name().as_bytes()).unwrap();
                // Warm up: the blocking pool's thread and the runtime's lazy parts.
                archive.read(i).await.unwrap();
                let baseline = held();
                let mut readers = Vec::with_capacity(READERS);
                let vec_bytes = (READERS * std::mem::size_of::<ngi_tokio::EntryReader>()) as i64;
                for _ in 0..READERS {
                    let mut r = archive.reader(i).unwrap();
                    let mut one = [0u8; 1];
                    r.read_exact(&mut one).await.unwrap();
                    assert_eq!(one[0], text[0]);
                    readers.push(r);
                }
                let per_reader = (held() - baseline) / READERS as i64;
                let heap_per_reader = (held() - baseline - vec_bytes) / READERS as i64;
                report.push(format!(
                    "{how:6} {:9}: {per_reader:6} bytes per open reader ({heap_per_reader} on \
                     the heap, {} inline)",
                    method.name(),
                    std::mem::size_of::<ngi_tokio::EntryReader>()
                ));
                let bound = match method {
                    Method::Deflate => 112 * 1024,
                    _ => 64 * 1024,
                };
                assert!(
                    per_reader <= bound,
                    "{how} {method}: {per_reader} bytes per reader"
                );
                // Half of them with a read started and abandoned: their reads are on the
                // blocking pool when they are dropped.
                for r in readers.iter_mut().step_by(2) {
                    let mut buf = vec![0u8; 100_000];
                    let _ = futures::FutureExt::now_or_never(r.read(&mut buf));
                }
                drop(readers);
                let left = settles_to(baseline, 16 * 1024).await;
                assert!(
                    left <= 16 * 1024,
                    "{how} {method}: {left} bytes not given back"
                );
            }
        }
    });
    // A stream's chunk holds its length, not the doubling `BytesMut` grows by: a chunk of
    // 3 MiB held 4 MiB (one of 129 MiB, 256 MiB).
    runtime.block_on(async {
        use futures::StreamExt;
        const CHUNK: usize = 3 << 20;
        let mut builder = Builder::new();
        builder
            .add(b"BIG.RAW", Method::Stored, &corpus::text(CHUNK + 5))
            .unwrap();
        let archive = Archive::from_bytes(builder.build().unwrap().into()).unwrap();
        let baseline = held();
        let mut stream = archive.stream(0).unwrap().with_chunk_len(CHUNK);
        let chunk = stream.next().await.unwrap().unwrap();
        assert_eq!(chunk.len(), CHUNK);
        let held_by_chunk = held() - baseline;
        report.push(format!("a {CHUNK}-byte chunk: {held_by_chunk} bytes held"));
        assert!(
            held_by_chunk <= CHUNK as i64 + (256 << 10),
            "a {CHUNK}-byte chunk held {held_by_chunk} bytes"
        );
    });
    for line in &report {
        eprintln!("{line}");
    }
}
