//! No allocation while decoding LZHUF: a counting global allocator watches every decoder
//! entry point (one-shot, streaming in any pieces, keyed, truncated) on real streams.
//!
//! The allocator needs `unsafe impl GlobalAlloc`; this test target is the one place of the
//! workspace allowed `unsafe_code`, and only for these few lines forwarding to `System`.
#![allow(unsafe_code)]

use ngi_core::codec::lzhuf::{self, LzhufDecoder};
use ngi_core::codec::{Decoder, Status, XorStream};
use ngi_core::error::DecodeError;
use ngi_tests::corpus;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Counts the allocations made by threads that armed it (the test harness's own threads
/// allocate as they please).
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static ARMED: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if ARMED.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::SeqCst);
    }
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting touches only an atomic and a const thread-local.
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
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    ARMED.with(|a| a.set(true));
    f();
    ARMED.with(|a| a.set(false));
    ALLOCATIONS.load(Ordering::SeqCst) - before
}

/// Streams `packed` through `decoder` with input pieces of `inp` and room of `outp` bytes,
/// allocating nothing itself.
fn stream(
    decoder: &mut LzhufDecoder,
    packed: &[u8],
    out: &mut [u8],
    inp: usize,
    outp: usize,
) -> Result<usize, DecodeError> {
    let (mut pos, mut produced) = (0usize, 0usize);
    loop {
        let end = pos.saturating_add(inp).min(packed.len());
        let room = produced.saturating_add(outp).min(out.len());
        let p = decoder.decode(
            &packed[pos..end],
            &mut out[produced..room],
            end == packed.len(),
        )?;
        pos += p.consumed;
        produced += p.produced;
        if p.status == Status::Done {
            return Ok(produced);
        }
    }
}

#[test]
fn decoding_allocates_nothing() {
    // Everything that may allocate is made before the counter is armed.
    let inputs = [
        corpus::text(120 * 1024)[..120 * 1024].to_vec(),
        corpus::binary(100 * 1024),
        vec![0u8; 30_000],
    ];
    let streams: Vec<Vec<u8>> = inputs.iter().map(|d| lzhuf::encode(d)).collect();
    let key = 0xABBA;
    let keyed: Vec<Vec<u8>> = streams
        .iter()
        .map(|s| {
            let mut s = s.clone();
            XorStream::new(key).apply(&mut s);
            s
        })
        .collect();
    let mut out = vec![0u8; 120 * 1024];
    let mut decoder = Box::new(LzhufDecoder::new(0, None));
    let mut results = Vec::with_capacity(64);

    let count = allocations_in(|| {
        for ((data, packed), xored) in inputs.iter().zip(&streams).zip(&keyed) {
            let out = &mut out[..data.len()];
            results.push(lzhuf::decode_into(packed, None, out).map(|_| out[..] == data[..]));
            results.push(lzhuf::decode_into(xored, Some(key), out).map(|_| out[..] == data[..]));
            for (inp, outp) in [
                (1, 1),
                (7, 300),
                (4096, 16 * 1024),
                (usize::MAX, usize::MAX),
            ] {
                *decoder = LzhufDecoder::new(data.len() as u64, None);
                results.push(
                    stream(&mut decoder, packed, out, inp, outp).map(|_| out[..] == data[..]),
                );
                *decoder = LzhufDecoder::new(data.len() as u64, Some(key));
                results
                    .push(stream(&mut decoder, xored, out, inp, outp).map(|_| out[..] == data[..]));
            }
            // A truncated stream: the error path allocates nothing either.
            *decoder = LzhufDecoder::new(data.len() as u64, None);
            let cut = &packed[..packed.len() / 2];
            results.push(match stream(&mut decoder, cut, out, 100, 1000) {
                Err(DecodeError::Truncated { .. }) => Ok(true),
                other => other.map(|_| false),
            });
        }
    });
    assert_eq!(count, 0, "decoding allocated {count} times");
    assert_eq!(results.len(), 3 * 11);
    assert!(results.iter().all(|r| *r == Ok(true)), "{results:?}");
}
