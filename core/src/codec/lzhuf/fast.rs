//! The fast loop: whole symbols at a time, with no suspension and no per-byte edge checks.
//!
//! Precondition, stated once by [`fits`]: at least [`FAST_IN`] input bytes and
//! [`FAST_OUT`] bytes of output room are left. It is checked once per batch of symbols,
//! as many as are sure to fit in what is left (each moves on by at most [`STEP_IN`]
//! bytes of input and [`MAX_MATCH`] of output). The bit buffer is a `u64`
//! refilled by one big-endian 8-byte load to at least 56 bits before each symbol; a code
//! takes at most about 23 bits (the tree's depth is bounded by its counts; a deeper code,
//! were there one, is handed to the careful path) and a position at most 14, so a symbol
//! needs at most two loads, 15 bytes. A symbol produces at most 60 bytes, and writes at
//! most [`FAST_OUT`] (a match's last 8-byte word runs past it). So a symbol entered under
//! the precondition always completes, and the loop never needs to save a half-read one.
//! Bytes of the output past what is reported produced may hold such scratch when a call
//! returns; decoding overwrites them when it gets there.
//!
//! The descent records the nodes it passes, so that the tree update climbs back along
//! them instead of chasing `prnt` ([`Tree::update_path`](super::tree::Tree::update_path)):
//! measured 5-10 % faster than `LZHUF.C`'s climb. The first levels of a code (5
//! streaming, 7 one-shot), nodes passed included, come from one lookup kept over the top
//! of the tree ([`Top`](super::top::Top), [`DeepTop`](super::deep::DeepTop)), made exact
//! again before a symbol when a swap has moved a node it read, and counted by the update
//! as a fixed five or seven (padded with nodes outside the tree):
//! a loop over as many levels as the code had there ended on a branch mispredicted as
//! often as code lengths vary.
//!
//! This loop is bound as much by mispredicted branches as by instructions: callgrind's
//! branch simulation (`--branch-sim=yes`) counts about 2 per symbol on text and 2.4 on
//! binary, where the code ends (in the lookup or after it, and where after it), whether a
//! level of the update needs a swap, and literal or match; what paid in the second speed
//! round is mostly what took branches away (BENCHMARKS.md).

use super::decode::Cursor;
use super::tables::{D_CODE, D_LEN};
use super::top::Lookup;
use super::tree::{T, symbol};
use super::{MAX_MATCH, MIN_MATCH, Window};

/// Input one symbol may need, with slack for the 8-byte loads: two of them, each after
/// moving on by at most 7 bytes.
pub(super) const FAST_IN: usize = 16;
/// Input one symbol may move on by: two loads of at most 7 bytes each.
const STEP_IN: usize = 14;
/// Output room one symbol may need: the longest match, rounded up to the 8-byte words
/// [`copy_match`] writes.
pub(super) const FAST_OUT: usize = MAX_MATCH.next_multiple_of(8);
/// Packed bytes decrypted ahead into a stack buffer by the fast path of method 0xA0.
pub(super) const XOR_BLOCK: usize = 512;

/// Whether a whole symbol is sure to fit in what is left of the input and the output.
#[inline(always)]
pub(super) fn fits(input_left: usize, out_left: usize) -> bool {
    input_left >= FAST_IN && out_left >= FAST_OUT
}

/// The position (0..=4095) whose first 8 bits `i` and `extra` more bits are at the top of
/// `bits`: the upper 6 bits from `D_CODE[i]`, the lower 6 those of `i` with the `extra`
/// bits shifted in from the right (SPEC 3.2), i.e. the low 6 of the top `8 + extra` bits.
#[inline(always)]
pub(super) fn position(bits: u64, i: usize, extra: u32) -> usize {
    let shifted = (bits >> (56 - extra)) as usize;
    usize::from(D_CODE[i & 0xFF]) << 6 | (shifted & 0x3F)
}

/// Tops the bit buffer up to at least 56 bits from `input[*ip..*ip + 8]` (which must
/// exist), moving `ip` past the whole bytes taken in. The bits below the valid ones are
/// either zero or the same bits again, so OR-ing the next load over them is exact.
#[inline(always)]
fn refill(bits: &mut u64, nbits: &mut u32, input: &[u8], ip: &mut usize) {
    let word: [u8; 8] = input[*ip..*ip + 8].try_into().unwrap_or([0; 8]);
    *bits |= u64::from_be_bytes(word) >> *nbits;
    *ip += ((63 - *nbits) >> 3) as usize;
    *nbits |= 56;
}

/// Decodes whole symbols from `input[*ip..]` into `out[*op..]` while [`fits`] holds. The
/// cursor is between symbols on entry and on return; on return it holds fewer than 8
/// bits, the whole bytes loaded ahead having been handed back (`ip` moved back over them).
pub(super) fn symbols<L: Lookup>(
    cursor: &mut Cursor<L>,
    input: &[u8],
    ip: &mut usize,
    out: &mut [u8],
    op: &mut usize,
    window: &Window<'_>,
) {
    debug_assert!(
        cursor.nbits < 8,
        "only part of a consumed byte is held between symbols"
    );
    let (mut i, mut o) = (*ip, *op);
    let (mut bits, mut nbits) = (cursor.bits, cursor.nbits);
    let tree = &mut cursor.tree;
    // Written before it is read, level by level, for each symbol.
    let mut path = [0u16; 64];
    'batches: loop {
        // Whole symbols sure to fit in what is left, tested once for all of them: each
        // takes at most [`STEP_IN`] input bytes and [`MAX_MATCH`] output bytes.
        let batch = match (input.len() - i).checked_sub(FAST_IN) {
            Some(spare_in) if fits(input.len() - i, out.len() - o) => {
                (spare_in / STEP_IN).min((out.len() - o - FAST_OUT) / MAX_MATCH) + 1
            }
            _ => break,
        };
        for _ in 0..batch {
            refill(&mut bits, &mut nbits, input, &mut i);
            let (held, held_n) = (bits, nbits);
            if tree.top.stale() {
                tree.top.refresh(&tree.son);
            }
            let index = (bits >> (64 - L::BITS)) as usize;
            let descent = tree.top.descend(index);
            let mut used = descent.levels();
            let mut c = usize::from(tree.son[descent.last()]);
            bits <<= used;
            while c < T {
                let node = c + (bits >> 63) as usize;
                path[used as usize & 63] = node as u16;
                c = usize::from(tree.son[node]);
                bits <<= 1;
                used += 1;
            }
            if used > nbits {
                // A code longer than the buffer: not in any real tree, but the careful path
                // can take it. Nothing has changed yet.
                (bits, nbits) = (held, held_n);
                break 'batches;
            }
            nbits -= used;
            let sym = symbol(c);
            tree.update_path(sym, Some(index), &path, used as usize);
            if sym < 256 {
                out[o] = sym as u8;
                o += 1;
                continue;
            }
            if nbits < 14 {
                refill(&mut bits, &mut nbits, input, &mut i);
            }
            let first = (bits >> 56) as usize;
            let extra = u32::from(D_LEN[first]) - 2;
            let dist = position(bits, first, extra) + 1;
            bits <<= 8 + extra;
            nbits -= 8 + extra;
            let len = sym - 256 + MIN_MATCH;
            copy_match(out, o, dist, len, window);
            o += len;
        }
    }
    // Hand back the whole bytes loaded but not used.
    i -= (nbits / 8) as usize;
    nbits %= 8;
    bits &= !(u64::MAX >> nbits);
    (cursor.bits, cursor.nbits) = (bits, nbits);
    (*ip, *op) = (i, o);
}

/// Copies the match of `len` bytes from `dist` back to `out[o..]`, where at least
/// [`FAST_OUT`] bytes of room are left. A source in this call's output 8 or more bytes
/// back is copied in 8-byte words, each reading only bytes already final, the first two
/// whatever the length, so up to 13 bytes of scratch past the match (overwritten by
/// what follows). Through `copy_within` every match paid a call to `memmove` and its size
/// dispatch, for matches of 6 bytes on average in text. Anything else goes through the
/// ring window's exact copy.
#[inline(always)]
fn copy_match(out: &mut [u8], o: usize, dist: usize, len: usize, window: &Window<'_>) {
    // The room test restates the loop's precondition, so that the words below are
    // stored without a bounds test each.
    if !(8..=o).contains(&dist) || out.len() - o < FAST_OUT {
        return window.copy_match::<MAX_MATCH>(out, o, dist, len);
    }
    // The first word from a source of `dist` (8 or more) bytes, into the room.
    let (done, room) = out.split_at_mut(o);
    if let (Some(from), Some(to)) = (done[o - dist..].first_chunk::<8>(), room.first_chunk_mut()) {
        *to = *from;
    }
    // The second word whatever the length too (a branch on lengths of 9 to 16, frequent
    // in text, is mispredicted more than it saves), then the rest: over one span from
    // the source to the end of the room, where a word may read bytes the words before
    // it wrote.
    let span = &mut out[o - dist..o + FAST_OUT];
    let mut k = 8;
    loop {
        let mut w = [0u8; 8];
        w.copy_from_slice(&span[k..k + 8]);
        span[dist + k..dist + k + 8].copy_from_slice(&w);
        k += 8;
        if k >= len {
            break;
        }
    }
}
