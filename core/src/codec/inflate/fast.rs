//! The fast loop: whole symbols with the bit buffer in locals, no suspension, no per-byte
//! edge checks, entered only with enough input and output room that no symbol it starts
//! can run short (see [`Inflater::fast`]).
//!
//! # The bit buffer in the loop
//! `refill!` tops the buffer up to 56..=63 bits, branch-free, from one little-endian
//! 8-byte load. The bits above those held are either zero or the stream's own next bits,
//! so topping up never changes the bits a table lookup already used; two refills per
//! iteration stay inside [`FAST_IN`]. `take!` takes the bits of a table entry by shifting
//! and subtracting by the whole entry: its low byte, what it consumes, is under 64 (bits
//! 6-7 clear), and shift counts are taken mod 64. So in the loop only the low six bits of
//! `nbits` count the bits held, every use masks, and the path from one lookup to the next
//! has no masking step on it (a few percent of the loop's time); the loop's exit makes
//! the count exact again.
//!
//! # Why the loop is one function
//! The loop body stays in [`Inflater::fast`], its bit buffer and positions in plain locals
//! moved by two small macros, with only the match copy ([`copy_match`]) split off: it
//! takes its inputs by value, and the compiler keeps the loop's registers as they were
//! (the same callgrind counts, `benches/examples/callgrind.rs`). Every other cut measured
//! cost 2-5 % more instructions on some rows, through bounds checks the compiler could no
//! longer drop and values spilled to the stack: the bit buffer as a struct with methods,
//! the loop as a function of its own taking the locals by reference, even the exit's
//! few lines as a function returning them by value.

use super::error::{bad_dist, bad_lit};
use super::huffman::{
    DIST_ROOT, EOB, EXCEPTIONAL, LINK, LIT_ROOT, LITERAL, kind, link_index, match_extra,
};
use super::window::{WMASK, Window, WindowBytes};
use super::{FAST_IN, FAST_OUT, InflateError, Inflater, MAX_MATCH, STREAM_OUT, WINDOW_SIZE};
use crate::codec::copy;

impl Inflater {
    /// The fast loop: while at least [`FAST_IN`] bytes of input and [`FAST_OUT`] bytes of
    /// output room (streaming: [`STREAM_OUT`], and room for each match) are at hand, decodes
    /// whole symbols with the bit buffer in locals and copies matches in words. Leaves with
    /// the whole bytes it read ahead given back, in [`Phase::Symbols`](super::Phase) or, after an
    /// end-of-block, the next phase; the careful path finishes what is left near the
    /// buffers' ends.
    #[inline(never)]
    pub(super) fn fast<const STREAM: bool>(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        window: &Window<'_>,
        base: u64,
    ) -> Result<(), InflateError> {
        let (Some(in_end), Some(out_end)) = (
            input.len().checked_sub(FAST_IN),
            out.len()
                .checked_sub(if STREAM { STREAM_OUT } else { FAST_OUT }),
        ) else {
            return Ok(());
        };
        if *ip > in_end {
            return Ok(());
        }
        let ring: Option<&WindowBytes> = if STREAM { window.ring_bytes() } else { None };
        // How far before this call's output a match may reach: the bytes produced before
        // it, but never more than the window holds.
        let reach = base.min(WINDOW_SIZE as u64) as usize;
        let start_ip = *ip;
        let mut i = *ip;
        let mut o = *op;
        let mut bits = self.bits;
        let mut nbits = self.nbits;
        let lit = &self.lit;
        let dtab = &self.dist;
        const LMASK: u64 = (1 << LIT_ROOT) - 1;
        const DMASK: u64 = (1 << DIST_ROOT) - 1;
        let mut result = Ok(());
        let mut eob = false;
        // The bit buffer's two moves (see the module docs): top up, take an entry's bits.
        macro_rules! refill {
            () => {
                let word = u64::from_le_bytes(input[i..i + 8].try_into().unwrap_or([0; 8]));
                bits |= word.wrapping_shl(nbits);
                i += 7 - ((nbits >> 3) & 7) as usize;
                nbits |= 56;
            };
        }
        macro_rules! take {
            ($e:expr) => {
                bits = bits.wrapping_shr($e);
                nbits = nbits.wrapping_sub($e);
            };
        }
        // At the top of each iteration the buffer holds at least 48 bits and `e` is the
        // primary entry of the next code (looked up ahead so the load overlaps the
        // previous copy). Each iteration refills at most twice.
        refill!();
        let mut e = lit[(bits & LMASK) as usize];
        while i <= in_end && o <= out_end {
            if e & LITERAL != 0 {
                // Three literal codes (at most 45 bits) fit in what one refill gives.
                take!(e);
                out[o] = (e >> 16) as u8;
                e = lit[(bits & LMASK) as usize];
                if e & LITERAL != 0 {
                    take!(e);
                    out[o + 1] = (e >> 16) as u8;
                    e = lit[(bits & LMASK) as usize];
                    if e & LITERAL != 0 {
                        take!(e);
                        out[o + 2] = (e >> 16) as u8;
                        o += 3;
                        refill!();
                        e = lit[(bits & LMASK) as usize];
                        continue;
                    }
                    o += 2;
                } else {
                    o += 1;
                }
                // A match needs up to 48 bits: top up (`e` stays valid, see `refill`).
                refill!();
            }
            if e & EXCEPTIONAL != 0 {
                if kind(e) == LINK {
                    e = lit[link_index(e, LIT_ROOT, bits)];
                }
                if e & LITERAL != 0 {
                    take!(e);
                    out[o] = (e >> 16) as u8;
                    o += 1;
                    refill!();
                    e = lit[(bits & LMASK) as usize];
                    continue;
                }
                if kind(e) != 0 {
                    take!(e);
                    if kind(e) == EOB {
                        eob = true;
                    } else {
                        result = Err(bad_lit(e));
                    }
                    break;
                }
            }
            // A match: its length code and extra bits (at most 20), then the distance's
            // (at most 28).
            let mlen = match_extra(e, bits) as usize;
            // The room its word copies may write (see `STREAM_OUT`); without it the match
            // is left, untaken, to the careful path.
            if STREAM && o + span(mlen) > out.len() {
                break;
            }
            take!(e);
            let mut d = dtab[(bits & DMASK) as usize];
            if d & EXCEPTIONAL != 0 {
                if kind(d) == LINK {
                    d = dtab[link_index(d, DIST_ROOT, bits)];
                }
                if kind(d) != 0 {
                    take!(d);
                    result = Err(bad_dist(d));
                    break;
                }
            }
            let saved = bits;
            take!(d);
            let dist = match_extra(d, saved) as usize;
            refill!();
            e = lit[(bits & LMASK) as usize];
            if let Err(fault) = copy_match::<STREAM>(out, o, dist, mlen, ring, base, reach) {
                result = Err(fault);
                break;
            }
            o += mlen;
        }
        // Give back the whole bytes read ahead (all from this call's input), and count the
        // bits held exactly again.
        let mut nbits = nbits & 63;
        let back = ((nbits / 8) as usize).min(i - start_ip);
        i -= back;
        nbits -= back as u32 * 8;
        bits &= (1u64 << nbits) - 1;
        self.bits = bits;
        self.nbits = nbits;
        *ip = i;
        *op = o;
        result?;
        if eob {
            self.end_block(base + o as u64)?;
        }
        Ok(())
    }
}

/// The output room a match's word copies may write: its length rounded up to a whole
/// 16-byte word, and never less than 32 bytes. Most matches are shorter than 32 bytes,
/// and the first 32 are copied whatever the length: a loop that stops after the match's
/// last word ends on a branch that matches of varying lengths make mispredicted, which
/// cost more than the bytes (text and perl rows 5-10 % faster without it).
#[inline(always)]
const fn span(mlen: usize) -> usize {
    let words = (mlen + 15) & !15;
    if words > 32 { words } else { 32 }
}

/// Copies the match of `mlen` bytes from `dist` back to `out[o..]`, in words where it can:
/// up to 29 bytes of scratch past the match (see [`span`]), inside the room the loop keeps
/// ([`FAST_OUT`]) or checked (the match's `span`), overwritten by what follows. `ring` is
/// the window's bytes (streaming only), `base` the bytes of the stream before `out`,
/// `reach` how far before `out` a match may reach (`base`, at most a window).
#[inline(always)]
fn copy_match<const STREAM: bool>(
    out: &mut [u8],
    o: usize,
    dist: usize,
    mlen: usize,
    ring: Option<&WindowBytes>,
    base: u64,
    reach: usize,
) -> Result<(), InflateError> {
    let span = span(mlen);
    // Streaming, a match whose source lies wholly in the window (reading on through
    // its mirrored tail where it wraps), or wholly in this call's output and at
    // least its length rounded up to a word back (so no word reads bytes the match
    // itself writes), is copied in 16-byte words from a slice chosen by conditional
    // moves, not a branch: which place it is (about even odds early in a call) is
    // a branch no predictor learns. The test is one branch, nearly always taken;
    // `black_box` keeps the compiler from splitting its `|` into two branches, one
    // of which would follow those odds (measured 10 % slower).
    let back = dist.wrapping_sub(o);
    let from = (base.wrapping_sub(back as u64) as usize) & WMASK;
    let in_out = dist <= o;
    // Only streaming pays for the test (`fast` is built once per form).
    let select = STREAM
        && core::hint::black_box((in_out & (dist >= span)) | ((back >= mlen) & (back <= reach)));
    if let (true, Some(w)) = (select, ring) {
        let (done, rest) = out.split_at_mut(o);
        let src: &[u8] = if in_out { done } else { w };
        let at = if in_out { o - dist } else { from };
        let word = |rest: &mut [u8], k: usize| {
            let mut v = [0u8; 16];
            v.copy_from_slice(&src[at + k..at + k + 16]);
            rest[k..k + 16].copy_from_slice(&v);
        };
        // Two words whatever the length (see `span`), then the rest.
        word(rest, 0);
        word(rest, 16);
        let mut k = 32;
        while k < mlen {
            word(rest, k);
            k += 16;
        }
    } else if dist <= o {
        let src = o - dist;
        if dist >= 8 {
            // 8-byte words, each reading only bytes already final (8 or more back), four
            // of them whatever the length (see `span`). 16-byte words, tried for distances
            // of 16 and more, cost a branch on the distance that binary data mispredicts.
            let word = |out: &mut [u8], k: usize| {
                let mut w = [0u8; 8];
                w.copy_from_slice(&out[src + k..src + k + 8]);
                out[o + k..o + k + 8].copy_from_slice(&w);
            };
            // One bounds test for the four: the slice from the source to the last word's end.
            let head = &mut out[src..o + 32];
            for k in [0, 8, 16, 24] {
                let mut w = [0u8; 8];
                w.copy_from_slice(&head[k..k + 8]);
                head[dist + k..dist + k + 8].copy_from_slice(&w);
            }
            let mut k = 32;
            while k < mlen {
                word(out, k);
                k += 8;
            }
        } else if STREAM {
            // The streaming form keeps the exact copy: its room test would need 8 more
            // bytes for `copy_short`, and with it the streaming rows ran 2 % slower.
            copy::within::<MAX_MATCH>(out, o, dist, mlen);
        } else {
            copy_short(out, o, dist, mlen);
        }
    } else if STREAM && dist as u64 <= base + o as u64 {
        // Reaching back before this call's output, into the window (streaming only:
        // one-shot, `base` is 0 and nothing precedes the output): all the word path
        // above leaves is a source straddling the call's start, rare.
        copy_straddling(out, o, ring, base, dist, mlen);
    } else {
        let produced = base + o as u64;
        return Err(InflateError::DistanceTooFar {
            distance: dist as u16,
            available: produced as u16,
        });
    }
    Ok(())
}

/// Copies a match of `mlen` bytes from `dist` back, `1 <= dist < 8` and `dist <= o`: a
/// run of its source's first `dist` bytes. The run is spread over one 8-byte word, stored
/// every `STRIDE[dist]` bytes (the largest multiple of `dist` up to 8), so up to 7 bytes
/// of scratch past the match, inside the room the one-shot loop keeps ([`FAST_OUT`]).
/// Rare (3.5 % of the matches of /bin/bash, level 1), but it must not call: with the
/// `memset` and `memmove` calls of `copy::within` in the one-shot loop, the compiler kept
/// the loop's values on the stack across every match, a dozen loads and stores each.
#[inline(always)]
fn copy_short(out: &mut [u8], o: usize, dist: usize, mlen: usize) {
    const STRIDE: [usize; 8] = [8, 8, 8, 6, 8, 5, 6, 7];
    let mut w = [0u8; 8];
    w.copy_from_slice(&out[o - dist..o - dist + 8]);
    let s = (8 * dist as u32) & 63;
    let mut run = u64::from_le_bytes(w) & ((1u64 << s) - 1);
    run |= run << s;
    run |= run.checked_shl(2 * s).unwrap_or(0);
    run |= run.checked_shl(4 * s).unwrap_or(0);
    let stride = STRIDE[dist & 7];
    let word = run.to_le_bytes();
    let mut k = 0;
    while k < mlen {
        out[o + k..o + k + 8].copy_from_slice(&word);
        k += stride;
    }
}

/// The fast loop's copy of a match whose source straddles the start of the call's
/// output (`dist > at`, `dist <= base + at`): the part before it from `window` (`base`
/// bytes precede the output), the rest from `out`. The same copy as
/// [`Window::copy_match`](crate::codec::ring::Window::copy_match), kept here because its shape is the loop's: read inline
/// from the window's bytes, where the shared one reads out of line, it leaves the
/// registers of the one-shot loop as they were; through the shared one that loop runs 5 %
/// more instructions (callgrind, `benches/examples/callgrind.rs`).
#[inline(always)]
fn copy_straddling(
    out: &mut [u8],
    at: usize,
    window: Option<&WindowBytes>,
    base: u64,
    dist: usize,
    len: usize,
) {
    if dist <= at {
        copy::within::<MAX_MATCH>(out, at, dist, len);
        return;
    }
    let back = dist - at;
    let n = back.min(len);
    if let Some(w) = window {
        let from = ((base - back as u64) as usize) & WMASK;
        let first = n.min(WINDOW_SIZE - from);
        out[at..at + first].copy_from_slice(&w[from..from + first]);
        out[at + first..at + n].copy_from_slice(&w[..n - first]);
    }
    if len > n {
        copy::within::<MAX_MATCH>(out, at + n, dist, len - n);
    }
}
