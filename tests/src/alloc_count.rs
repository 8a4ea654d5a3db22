//! A counting global allocator for the no-allocation tests of the codecs (allocations
//! counted, and the peak of bytes held; allocations above a size refused, as where
//! memory is short), and a streaming loop that allocates nothing itself. A test binary installs it with
//! `#[global_allocator] static GLOBAL: Counting = Counting;`.
//!
//! It needs `unsafe impl GlobalAlloc`: this module alone is allowed `unsafe_code`, for the
//! few lines forwarding to `System` (ngi-core forbids unsafe code outright).
#![allow(unsafe_code)]

use ngi_core::codec::{Decoder, Status};
use ngi_core::error::DecodeError;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// Counts the allocations of the thread that armed it (the test harness's threads allocate
/// as they please).
#[derive(Debug)]
pub struct Counting;

thread_local! {
    /// `None` when disarmed; else the allocations counted so far. A const-initialised
    /// `Cell` of a `Copy` type: reading it never allocates.
    static COUNT: Cell<Option<usize>> = const { Cell::new(None) };
    /// `None` when disarmed; else the bytes held (allocated minus freed, which may go
    /// below zero when memory from before arming is freed) and the most held at once.
    static BYTES: Cell<Option<(i64, i64)>> = const { Cell::new(None) };
    /// `None` when disarmed; else the largest allocation granted.
    static CAP: Cell<Option<usize>> = const { Cell::new(None) };
}

/// Whether an allocation of `bytes` is refused (a null pointer, as where memory is short).
fn refused(bytes: usize) -> bool {
    CAP.try_with(|c| c.get().is_some_and(|cap| bytes > cap))
        .unwrap_or(false)
}

fn note() {
    // `try_with`: the allocator may be called while the thread's locals are torn down.
    let _ = COUNT.try_with(|c| c.set(c.get().map(|n| n + 1)));
}

fn held(delta: i64) {
    let _ = BYTES.try_with(|c| {
        c.set(c.get().map(|(now, peak)| {
            let now = now.saturating_add(delta);
            (now, peak.max(now))
        }))
    });
}

fn size(bytes: usize) -> i64 {
    i64::try_from(bytes).unwrap_or(i64::MAX)
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract, or returns null, which the contract allows for any failed
// allocation (a failed `realloc` leaves the old block as it was); counting and the cap
// touch only const-initialised thread-local `Cell`s.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return std::ptr::null_mut();
        }
        note();
        held(size(layout.size()));
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if refused(layout.size()) {
            return std::ptr::null_mut();
        }
        note();
        held(size(layout.size()));
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if refused(new_size) {
            return std::ptr::null_mut();
        }
        note();
        held(size(new_size) - size(layout.size()));
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        held(-size(layout.size()));
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `f` and returns how many allocations it made on this thread (0 when [`Counting`]
/// is not the global allocator: each test binary checks it counts, first).
pub fn allocations_in(f: impl FnOnce()) -> usize {
    COUNT.with(|c| c.set(Some(0)));
    f();
    COUNT.with(|c| c.replace(None)).unwrap_or(0)
}

/// What [`usage_in`] measured: allocations made, and the most bytes held at once above
/// what was held when it started (requested sizes, as the allocator was asked for them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Usage {
    /// Calls to `alloc`, `alloc_zeroed` and `realloc`.
    pub allocations: usize,
    /// The peak of bytes held.
    pub peak_bytes: u64,
}

/// Runs `f` and measures its allocations on this thread, counts and peak bytes (zeros
/// when [`Counting`] is not the global allocator).
pub fn usage_in(f: impl FnOnce()) -> Usage {
    BYTES.with(|c| c.set(Some((0, 0))));
    let allocations = allocations_in(f);
    let (_, peak) = BYTES.with(|c| c.replace(None)).unwrap_or((0, 0));
    Usage {
        allocations,
        peak_bytes: u64::try_from(peak).unwrap_or(0),
    }
}

/// Runs `f` with every allocation of more than `cap` bytes on this thread refused (the
/// allocator returns null, as where memory is short; an infallible allocation then ends
/// the process, a fallible one reports it).
pub fn refusing_above<T>(cap: usize, f: impl FnOnce() -> T) -> T {
    CAP.with(|c| c.set(Some(cap)));
    let out = f();
    CAP.with(|c| c.set(None));
    out
}

/// Streams `packed` through `decoder` with input pieces of `inp` bytes and `outp` bytes of
/// room per call, allocating nothing itself. Returns (consumed, produced).
pub fn stream(
    decoder: &mut dyn Decoder,
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
