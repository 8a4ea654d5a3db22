//! No allocation while decoding LZSS (methods 0x40 and 0x60): a counting global allocator
//! watches every decoder entry point (one-shot, streaming in pieces from 1 byte to the
//! whole stream, keyed, truncated, trailing bytes) on real streams.
//!
//! The allocator needs `unsafe impl GlobalAlloc`; this test target is allowed `unsafe_code`
//! for these few lines forwarding to `System` (the workspace forbids it everywhere else).
#![allow(unsafe_code)]

use ngi_core::codec::lzss::{self, LzssDecoder};
use ngi_core::codec::{Decoder, Status, XorStream};
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
/// room per call, allocating nothing itself. Returns (consumed, produced).
fn stream(
    decoder: &mut LzssDecoder,
    packed: &[u8],
    out: &mut [u8],
    inp: usize,
    outp: usize,
) -> Result<(usize, usize), DecodeError> {
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
            return Ok((pos, produced));
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
    // Everything that may allocate is made before the counter is armed.
    let inputs = [
        corpus::text(150 * 1024)[..150 * 1024].to_vec(),
        corpus::binary(100 * 1024),
        vec![0u8; 20_000],
        b"a".to_vec(),
        Vec::new(),
    ];
    let key = 0x6060;
    let streams: Vec<Vec<u8>> = inputs.iter().map(|d| lzss::encode(d)).collect();
    let keyed: Vec<Vec<u8>> = streams
        .iter()
        .map(|s| {
            let mut s = s.clone();
            XorStream::new(key).apply(&mut s);
            s
        })
        .collect();
    let trailing: Vec<Vec<u8>> = streams
        .iter()
        .map(|s| [&s[..], &[0xEE; 40]].concat())
        .collect();
    let mut out = vec![0u8; 150 * 1024];
    let mut results: Vec<bool> = Vec::with_capacity(256);

    let count = allocations_in(|| {
        for (((data, packed), xored), extra) in
            inputs.iter().zip(&streams).zip(&keyed).zip(&trailing)
        {
            let n = data.len();
            let out = &mut out[..n];
            let whole = Ok(packed.len());
            results.push(lzss::decode_into(packed, None, out) == whole && out[..] == data[..]);
            results.push(lzss::decode_into(xored, Some(key), out) == whole && out[..] == data[..]);
            results.push(lzss::decode_into(extra, None, out) == whole && out[..] == data[..]);
            // The decoder on the stack, as a host without an allocator would keep it.
            for (inp, outp) in [
                (1, 1),
                (7, 300),
                (4096, 16 * 1024),
                (usize::MAX, usize::MAX),
            ] {
                let done = Ok((packed.len(), n));
                let mut decoder = LzssDecoder::new(n as u64, None);
                results.push(
                    stream(&mut decoder, packed, out, inp, outp) == done && out[..] == data[..],
                );
                let mut decoder = LzssDecoder::new(n as u64, Some(key));
                results.push(
                    stream(&mut decoder, xored, out, inp, outp) == done && out[..] == data[..],
                );
                let mut decoder = LzssDecoder::new(n as u64, None);
                results.push(
                    stream(&mut decoder, extra, out, inp, outp) == done && out[..] == data[..],
                );
            }
            // Truncated: the error paths allocate nothing either.
            let cut = &packed[..packed.len() / 2];
            let truncated =
                |r: Result<_, DecodeError>| matches!(r, Err(DecodeError::Truncated { .. }));
            results.push(n < 2 || truncated(lzss::decode_into(cut, None, out).map(|_| (0, 0))));
            let mut decoder = LzssDecoder::new(n as u64, None);
            results.push(n < 2 || truncated(stream(&mut decoder, cut, out, 100, 1000)));
        }
    });
    assert_eq!(count, 0, "decoding allocated {count} times");
    assert_eq!(results.len(), 5 * (3 + 4 * 3 + 2));
    let failed: Vec<usize> = (0..results.len()).filter(|&i| !results[i]).collect();
    assert!(failed.is_empty(), "wrong results at {failed:?}");
}
