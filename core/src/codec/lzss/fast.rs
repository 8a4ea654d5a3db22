//! The fast loops: whole groups at a time, with no suspension, no per-byte edge checks
//! and, in the wide loop, no branch on the literal/match flag.
//!
//! # Preconditions (stated once, checked once per group)
//! A group is a control byte and 8 units of at most 2 bytes (17 bytes) producing at most
//! 8 × 18 = 144 bytes. A loop starts a group only with at least [`FAST_OUT`] bytes of
//! output room and, for the wide loop, [`FAST_IN`] input bytes (the exact loop: the group's
//! 17), so a group it starts always completes: no loop ever saves a half-read unit, and a
//! loop that ran returns with the flags used up.
//!
//! # The wide loop: each unit, the same moves
//! A literal and a match both become "move 16 + 2 bytes from a source to `out[o..]`, then
//! advance by 1 or by the length": the source is the input for a literal and the output
//! `dist` bytes back for a match (or, in the first 4096 bytes of a streaming call, the ring
//! when the match starts before the call's output), picked rather than branched on, since
//! the flag is what a branch predictor cannot guess. What the move writes past the unit's
//! real end is scratch, overwritten by the next unit. The only branch left is for the
//! matches it cannot do: runs (sources less than 18 bytes back) and, in the one-shot form,
//! sources before the output (the prefill).
//!
//! # The scratch is never left behind
//! The wide loop's last unit may leave up to 17 bytes of scratch past the position it
//! returns. [`FAST_IN`] keeps at least 23 input bytes for what follows it: the exact loop
//! (which writes exactly the bytes of each unit) and the careful path. 23 bytes decode to
//! at least 20 (three groups of literals at worst), so before the call returns the scratch
//! has been overwritten with the real bytes, or the output slice is full (every byte of it
//! written), or the call fails (the error contract promises only the bytes produced). So
//! a successful call never changes the caller's bytes past the `produced` it reports.
//!
//! # The ring in the streaming form
//! The ring holds the 4096 bytes before the call's output. The careful path and the loops
//! write the call's first 18 bytes through to it (as a classic ring decoder writes every
//! byte), so a match that starts before the output and runs into it reads correct bytes
//! from the ring too. The other bytes reach the ring at the end of the call.

use super::{MAX_MATCH, MIN_MATCH, PREFILL, RING_SIZE, Window};

/// Input the wide loop wants at a group's start: the group (17 bytes), the 18-byte literal
/// load of its last unit (reaching to 33), and 23 bytes left for the loops after it.
pub(super) const FAST_IN: usize = 17 + 23;
/// Input the exact loop wants at a group's start: the group.
pub(super) const EXACT_IN: usize = 17;
/// Output a whole group may produce: 8 matches of the longest length. The 18-byte moves
/// stay inside it too (a unit starts at most 7 × 18 = 126 bytes into the group).
pub(super) const FAST_OUT: usize = 8 * MAX_MATCH;
/// Packed bytes decrypted ahead into a stack buffer by the fast path of method 0x60.
pub(super) const XOR_BLOCK: usize = 512;
/// The width of the unit move's main part.
const WIDE: usize = 16;

/// Whether one of the loops here can run a group: a whole group fits.
#[inline(always)]
pub(super) fn fits(input_left: usize, out_left: usize) -> bool {
    input_left >= EXACT_IN && out_left >= FAST_OUT
}

/// The ring offset and length a match's two bytes name (SPEC 3.1: `hi` is `OOOO LLLL`).
#[inline(always)]
pub(super) fn unit(lo: u8, hi: u8) -> (usize, usize) {
    let offset = usize::from(lo) | (usize::from(hi) & 0xF0) << 4;
    (offset, usize::from(hi & 0x0F) + MIN_MATCH)
}

/// The 18 bytes a unit moves, as a 16-byte and a 2-byte word.
#[derive(Clone, Copy)]
struct Move(u128, u16);

impl Move {
    #[inline(always)]
    fn load(bytes: &[u8; MAX_MATCH]) -> Move {
        let (head, tail) = bytes.split_at(WIDE);
        let mut h = [0u8; WIDE];
        let mut t = [0u8; 2];
        h.copy_from_slice(head);
        t.copy_from_slice(tail);
        Move(u128::from_le_bytes(h), u16::from_le_bytes(t))
    }

    #[inline(always)]
    fn store(self, bytes: &mut [u8; MAX_MATCH]) {
        let (head, tail) = bytes.split_at_mut(WIDE);
        head.copy_from_slice(&self.0.to_le_bytes());
        tail.copy_from_slice(&self.1.to_le_bytes());
    }
}

/// The 18 bytes of `from` at `at`, if there are as many.
#[inline(always)]
fn chunk(from: &[u8], at: usize) -> Option<&[u8; MAX_MATCH]> {
    from.get(at..)?.first_chunk()
}

/// Decodes whole groups from `input[*ip..]` into `out[*op..]`: the wide loop while it may
/// run, then the exact loop while a group fits. `flags` may hold the rest of a control
/// byte on entry; a loop that ran returns with them used up. `to_end` says `input` is the
/// whole input left (not a block of it): only then does the exact loop take the tail,
/// after which no scratch is left past `*op` by the time the call returns (module docs).
pub(super) fn groups(
    input: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    flags: &mut u16,
    window: &mut Window<'_>,
    to_end: bool,
) {
    if window.ring.is_some() {
        // Until 4096 bytes are out, matches may reach back into the ring.
        wide::<true>(input, ip, out, op, flags, window);
    } else {
        // The one-shot form's first 18 bytes: a literal cannot pose as a match 18 back.
        exact(input, ip, out, op, flags, window, MAX_MATCH);
    }
    wide::<false>(input, ip, out, op, flags, window);
    if to_end {
        exact(input, ip, out, op, flags, window, usize::MAX);
    }
}

/// The wide loop. With `RING` it runs while `out[..o]` is shorter than the window, reads a
/// match whose source starts before the output from the ring (as cheaply as one from the
/// output: the source is picked, not branched on), and writes the call's first 18 bytes
/// through to the ring. Without, it runs from `o >= 18` on (a literal is read as a match
/// 18 back) and a source before the output (only the prefill, in the one-shot form) takes
/// the exact path.
#[inline(always)]
fn wide<const RING: bool>(
    input: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    flags: &mut u16,
    window: &mut Window<'_>,
) {
    let (mut i, mut o, mut f) = (*ip, *op, *flags);
    let base = window.base;
    while input.len() - i >= FAST_IN
        && out.len() - o >= FAST_OUT
        && if RING { o < RING_SIZE } else { o >= MAX_MATCH }
    {
        // One group; the loop condition holds for all of it, so the input is read through
        // a fixed window with no further checks.
        let Some(group) = input.get(i..).and_then(<[u8]>::first_chunk::<FAST_IN>) else {
            break;
        };
        // The group's offsets stay below 16 (1 + 2 * 7 at most) at each unit's start.
        let mut k = 0;
        if f <= 1 {
            f = u16::from(group[0]) | 0x100;
            k = 1;
        }
        while f > 1 {
            let literal = usize::from(f & 1);
            let Some(lit) = group[k & 15..].first_chunk::<MAX_MATCH>() else {
                break;
            };
            // Decode the unit as a match whatever it is. A literal then acts as a match
            // 18 bytes back (valid, and discarded), so that no test below depends on the
            // flag: the one branch left is taken only by the rare matches the 18-byte move
            // cannot do.
            let (offset, len) = unit(lit[0], lit[1]);
            let dist = distance(base, o, offset);
            let dist = if literal == 1 { MAX_MATCH } else { dist };
            let advance = if literal == 1 { 1 } else { len };
            let exact = if RING {
                // Runs. (A source straddling the start of the output reads the ring, which
                // holds the output's first 18 bytes: they were written through.)
                dist < MAX_MATCH
            } else {
                // Runs, and sources before the output (`MAX_MATCH <= dist <= o` is fine).
                dist.wrapping_sub(MAX_MATCH) > o - MAX_MATCH
            };
            if exact {
                if literal == 1 {
                    out[o] = lit[0];
                } else {
                    copy_exact(out, o, dist, window);
                }
            } else {
                let before = RING && dist > o;
                // None of these can fail under the loop condition; if one did, the
                // careful path would go on from this very unit.
                let Some(src) = chunk(out, if before { 0 } else { o - dist }) else {
                    break;
                };
                let mut unit = Move::load(src);
                if RING {
                    let Some(old) = window.ring_bytes().and_then(|r| chunk(r, offset)) else {
                        break;
                    };
                    unit = if before { Move::load(old) } else { unit };
                }
                let unit = if literal == 1 { Move::load(lit) } else { unit };
                let Some(dst) = out.get_mut(o..).and_then(<[u8]>::first_chunk_mut) else {
                    break;
                };
                unit.store(dst);
            }
            if RING && o < MAX_MATCH {
                window.write_through(out, o, advance);
            }
            o += advance;
            k += 2 - literal;
            f >>= 1;
        }
        i += k;
        if f > 1 {
            break;
        }
    }
    (*ip, *op, *flags) = (i, o, f);
}

/// The exact loop, for the last groups of the input (and the first 18 bytes of the
/// one-shot form), until `o` reaches `until`: the same units, each written exactly (a
/// literal as one byte, a match as its `len` bytes), so that it leaves no scratch and
/// needs only the group's own bytes. It overwrites what scratch the wide loop left.
fn exact(
    input: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    flags: &mut u16,
    window: &mut Window<'_>,
    until: usize,
) {
    let (mut i, mut o, mut f) = (*ip, *op, *flags);
    while fits(input.len() - i, out.len() - o) && o < until {
        if f <= 1 {
            f = u16::from(input[i]) | 0x100;
            i += 1;
        }
        while f > 1 {
            let advance = if f & 1 == 1 {
                out[o] = input[i];
                i += 1;
                1
            } else {
                let (offset, len) = unit(input[i], input[i + 1]);
                i += 2;
                window.copy_match::<MAX_MATCH>(out, o, distance(window.base, o, offset), len);
                len
            };
            if o < MAX_MATCH {
                window.write_through(out, o, advance);
            }
            o += advance;
            f >>= 1;
        }
    }
    (*ip, *op, *flags) = (i, o, f);
}

/// How far back, `1..=4096` bytes, ring position `offset` was last written, seen from
/// output position `at` of a call whose output starts at ring position `base` (`offset`
/// equal to the write position means 4096: the byte is read before it is overwritten).
#[inline(always)]
pub(super) fn distance(base: usize, at: usize, offset: usize) -> usize {
    ((base + at).wrapping_sub(offset + 1) & (RING_SIZE - 1)) + 1
}

/// The matches the 18-byte move cannot do: a source less than 18 bytes back (runs), or
/// one before this call's output (the prefill of the one-shot form; in the streaming form
/// only runs come here). Writes 18 bytes like the move, as a byte-by-byte copy would.
/// (Its own copy rather than [`copy::within`](crate::codec::copy::within): always the
/// move's 18 bytes, so each case is a few fixed-size moves the compiler unrolls.)
#[inline(never)]
fn copy_exact(out: &mut [u8], at: usize, dist: usize, window: &Window<'_>) {
    if dist <= at {
        if dist == 1 {
            let byte = out[at - 1];
            out[at..at + MAX_MATCH].fill(byte);
        } else if dist >= 8 {
            // Chunks of 8 whose sources are written before they are read.
            for chunk in [0, 8, MAX_MATCH - 8] {
                let mut bytes = [0u8; 8];
                bytes.copy_from_slice(&out[at + chunk - dist..at + chunk - dist + 8]);
                out[at + chunk..at + chunk + 8].copy_from_slice(&bytes);
            }
        } else {
            let span = &mut out[at - dist..at + MAX_MATCH];
            for k in 0..MAX_MATCH {
                span[dist + k] = span[k];
            }
        }
        return;
    }
    let from = (window.base + at).wrapping_sub(dist) & (RING_SIZE - 1);
    if dist - at >= MAX_MATCH {
        // All 18 before the output: one move from the ring (mirrored past its end).
        let dst = &mut out[at..at + MAX_MATCH];
        match window.ring_bytes() {
            Some(ring) => dst.copy_from_slice(&ring[from..from + MAX_MATCH]),
            None => dst.fill(PREFILL),
        }
    } else {
        window.copy_match::<MAX_MATCH>(out, at, dist, MAX_MATCH);
    }
}
