//! `ngi_tokio::Archive::read` grows its buffer as bytes arrive, not on the size the file
//! claims, and grows it geometrically: it reserved room before every 32 KiB read, which
//! reallocated the buffer 4 064 times for a 128 MiB entry (each a copy of the whole
//! buffer with an allocator that cannot grow a block in place: two minutes for that
//! entry). Counted by a global allocator: the large reallocations, and the peak heap of a
//! read of an entry whose packed bytes end long before the size it claims.
//!
//! One test in this binary, so that no other test's allocations are counted.
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

use ngi_core::Method;
use ngi_core::rsli::Builder;
use ngi_tests::tokio_io::TempFile;
use ngi_tokio::Archive;

/// Bytes held on the heap by the whole process, and the most held since the last reset.
static HELD: AtomicI64 = AtomicI64::new(0);
static PEAK: AtomicI64 = AtomicI64::new(0);
/// Reallocations of blocks of 1 MiB or more.
static LARGE_REALLOCS: AtomicUsize = AtomicUsize::new(0);

struct Global;

fn add(bytes: i64) {
    let now = HELD.fetch_add(bytes, Ordering::Relaxed) + bytes;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; the counting is atomic adds.
unsafe impl GlobalAlloc for Global {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as i64);
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        add(layout.size() as i64);
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.size() >= 1 << 20 {
            LARGE_REALLOCS.fetch_add(1, Ordering::Relaxed);
        }
        add(new_size as i64 - layout.size() as i64);
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

fn reset() {
    PEAK.store(HELD.load(Ordering::Relaxed), Ordering::Relaxed);
    LARGE_REALLOCS.store(0, Ordering::Relaxed);
}

/// An RsLi library of one LZSS entry of 1 MiB whose table claims 200 MiB.
fn lying_library() -> Vec<u8> {
    let plain: Vec<u8> = (0..1u32 << 20).map(|i| (i % 251) as u8).collect();
    let mut builder = Builder::new();
    builder.add(b"LIAR", Method::Lzss, &plain).unwrap();
    let mut bytes = builder.build().unwrap();
    ngi_tests::hostile::patch_rsli(&mut bytes, |_, e| e.unpacked_size = 200 << 20);
    bytes
}

#[test]
fn read_grows_its_buffer_by_doubling_and_on_what_arrives() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    const SIZE: usize = 64 << 20;
    let data: Vec<u8> = (0..SIZE).map(|i| (i * 7 % 253) as u8).collect();
    let mut builder = Builder::new();
    builder.add(b"BIG", Method::Stored, &data).unwrap();
    builder.add(b"PACKED", Method::Lzss, &data).unwrap();
    let bytes = builder.build().unwrap();
    let file = TempFile::new("read-whole", &bytes);
    runtime.block_on(async {
        let from_file = Archive::open(&file.0).await.unwrap();
        let from_memory = Archive::from_bytes(bytes.into()).unwrap();
        for (what, archive) in [("file", from_file), ("memory", from_memory)] {
            for index in [0, 1] {
                reset();
                let got = archive.read(index).await.unwrap();
                let reallocs = LARGE_REALLOCS.load(Ordering::Relaxed);
                assert!(got == data, "{what}, entry {index}: bytes");
                assert_eq!(got.capacity(), SIZE, "{what}, entry {index}");
                // 1 MiB doubled to 64 MiB: 6 growths (4 064 before the fix).
                assert!(
                    reallocs <= 8,
                    "{what}, entry {index}: {reallocs} reallocations"
                );
            }
        }

        // A file that claims 200 MiB and holds the packed bytes of 1 MiB: the buffer
        // grows with what decodes, not with the claim.
        let archive = Archive::from_bytes(lying_library().into()).unwrap();
        reset();
        let base = HELD.load(Ordering::Relaxed);
        let e = archive.read(0).await.unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof, "{e}");
        let peak = PEAK.load(Ordering::Relaxed) - base;
        assert!(peak < 4 << 20, "peak {peak} bytes for a claim of 200 MiB");
    });
}
