//! The fast loop: whole symbols at a time, with no suspension and no per-byte edge checks.
//!
//! Precondition, stated once and checked once per symbol by [`fits`]: at least [`FAST_IN`]
//! input bytes and [`FAST_OUT`] bytes of output room are left. The bit buffer is a `u64`
//! refilled by one big-endian 8-byte load to at least 56 bits before each symbol; a code
//! takes at most about 23 bits (the tree's depth is bounded by its counts; a deeper code,
//! were there one, is handed to the careful path) and a position at most 14, so a symbol
//! needs at most two loads, 15 bytes. A symbol produces at most 60 bytes. So a symbol
//! entered under the precondition always completes, and the loop never needs to save a
//! half-read one.
//!
//! The descent records the nodes it passes, so that the tree update climbs back along
//! them instead of chasing `prnt` ([`Tree::update_path`](super::tree::Tree::update_path)):
//! measured 5-10 % faster than `LZHUF.C`'s climb. The first [`TOP_BITS`] levels of a
//! code, nodes passed included, come from one lookup kept over the top of the tree
//! ([`Top`](super::top::Top)), rebuilt before a symbol when a swap has moved a node it
//! read.

use super::decode::Cursor;
use super::tables::{D_CODE, D_LEN};
use super::top::{TOP_BITS, passed};
use super::tree::{T, symbol};
use super::{MAX_MATCH, MIN_MATCH, Window};

/// Input one symbol may need, with slack for the 8-byte loads: two of them, each after
/// moving on by at most 7 bytes.
pub(super) const FAST_IN: usize = 16;
/// Output one symbol may produce: the longest match.
pub(super) const FAST_OUT: usize = MAX_MATCH;
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
pub(super) fn symbols(
    cursor: &mut Cursor,
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
    while fits(input.len() - i, out.len() - o) {
        refill(&mut bits, &mut nbits, input, &mut i);
        let (held, held_n) = (bits, nbits);
        if tree.top.stale {
            tree.top.build(&tree.son);
        }
        let index = (bits >> (64 - TOP_BITS)) as usize;
        let (descent, levels) = tree.top.descend(index);
        let mut used = levels;
        let mut c = usize::from(tree.son[passed(descent).0]);
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
            break;
        }
        nbits -= used;
        let sym = symbol(c);
        tree.update_path(sym, (descent, levels), &path, used as usize);
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
        window.copy_match::<MAX_MATCH>(out, o, dist, len);
        o += len;
    }
    // Hand back the whole bytes loaded but not used.
    i -= (nbits / 8) as usize;
    nbits %= 8;
    bits &= !(u64::MAX >> nbits);
    (cursor.bits, cursor.nbits) = (bits, nbits);
    (*ip, *op) = (i, o);
}
