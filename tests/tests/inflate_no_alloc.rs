//! No allocation while decoding Deflate (method 0x100): a counting global allocator
//! watches every decoder entry point (one-shot, streaming in pieces from 1 byte to the
//! whole stream, truncated, trailing bytes) on real streams from `miniz_oxide`.
//!
//! The allocator needs `unsafe impl GlobalAlloc`; this test target is allowed `unsafe_code`
//! for these few lines forwarding to `System` (the workspace forbids it everywhere else).
#![allow(unsafe_code)]

use ngi_core::codec::inflate::{self, InflateDecoder};
use ngi_core::codec::{Decoder, Status};
use ngi_core::error::DecodeError;
use ngi_tests::corpus;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::hint::black_box;

/// Counts the allocations of the thread that armed it (the test harness's threads allocate
/// as they please).
struct Counting;

thread_local! {
    /// `None` when disarmed; else the allocations counted so far. A const-initialised
    /// `Cell` of a `Copy` type: reading it never allocates.
    static COUNT: Cell<Option<usize>> = const { Cell::new(None) };
}

fn note() {
    // `try_with`: the allocator may be called while the thread's locals are torn down.
    let _ = COUNT.try_with(|c| c.set(c.get().map(|n| n + 1)));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting touches only a const-initialised thread-local `Cell`.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Runs `f` and returns how many allocations it made on this thread.
fn allocations_in(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(Some(0)));
    f();
    COUNT.with(|c| c.replace(None)).unwrap_or(0)
}

/// Streams `packed` through `decoder` with input pieces of `inp` bytes and `outp` bytes of
/// room per call, allocating nothing itself. Returns (consumed, produced) or the error.
fn stream(
    decoder: &mut InflateDecoder,
    packed: &[u8],
    out: &mut [u8],
    inp: usize,
    outp: usize,
) -> Result<(usize, usize), DecodeError> {
    let (mut c, mut p) = (0, 0);
    loop {
        let ie = (c + inp).min(packed.len());
        let oe = (p + outp).min(out.len());
        let r = decoder.decode(&packed[c..ie], &mut out[p..oe], ie == packed.len())?;
        c += r.consumed;
        p += r.produced;
        if r.status == Status::Done {
            return Ok((c, p));
        }
    }
}

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
                        stream(&mut decoder, &packed, &mut out, i, o),
                        Ok((n, data.len()))
                    );
                }
                *decoder = InflateDecoder::new(data.len() as u64);
                let _ = black_box(stream(&mut decoder, &packed[..n / 2], &mut out, 100, 100));
            });
            assert_eq!(count, 0, "{} level {level}", sample.name);
            assert!(out == *data, "{}", sample.name);
        }
    }
}
