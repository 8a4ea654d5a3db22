//! Canonical Huffman decoding tables: a primary table indexed by the next `root` bits of
//! the stream (LSB first, so by the bit-reversed code), with second-level tables for
//! longer codes, laid out after it as zlib's `inflate_table` does.
//!
//! An entry is a `u32` laid out so that the fast loop needs one shift per code and one
//! sign or bit test per decision:
//! * bits 0-7: the bits the entry consumes: the code length plus, for a match length or
//!   distance, its extra bits, so one shift takes both; never more than 28, so bits 6-7
//!   are clear and the fast loop may shift by the whole entry (counts are taken mod 64);
//! * bits 8-11: the code length alone (where the extra bits start), or for a [`LINK`] the
//!   index bits of its second-level table;
//! * bits 12-15: the kind: 0 for a match length or distance base, else [`EXCEPTIONAL`]
//!   with [`LINK`], [`EOB`], [`BAD`] (a symbol the format does not allow: 286, 287,
//!   distances 30, 31) or [`HOLE`] (a pattern no code is assigned to, only in the incomplete
//!   codes zlib allows);
//! * bits 16-30: the value: a literal byte or code-length symbol, a length or distance
//!   base, a bad symbol, the offset of a second-level table;
//! * bit 31: [`LITERAL`] (literal bytes and code-length symbols).
//!
//! Second-level entries hold the whole code length, so a code is consumed the same way
//! whichever level it came from.

use super::{CodeTable, InflateError};

pub(super) const LITERAL: u32 = 1 << 31;
pub(super) const EXCEPTIONAL: u32 = 1 << 15;
const KIND: u32 = 0xF << 12;
pub(super) const LINK: u32 = EXCEPTIONAL | 1 << 12;
pub(super) const EOB: u32 = EXCEPTIONAL | 2 << 12;
pub(super) const BAD: u32 = EXCEPTIONAL | 3 << 12;
pub(super) const HOLE: u32 = EXCEPTIONAL | 4 << 12;

/// The kind bits of an entry (0 for a length or distance base).
#[inline(always)]
pub(super) const fn kind(e: u32) -> u32 {
    e & KIND
}

/// Bits the entry consumes (code and extra bits).
#[inline(always)]
pub(super) const fn consumed(e: u32) -> u32 {
    e & 0xFF
}

/// The code length alone.
#[inline(always)]
pub(super) const fn code_len(e: u32) -> u32 {
    (e >> 8) & 0xF
}

#[inline(always)]
pub(super) const fn value(e: u32) -> u32 {
    (e >> 16) & 0x7FFF
}

/// The base plus the extra bits of a length or distance entry, read from `bits` as they
/// were before the entry was consumed.
#[inline(always)]
pub(super) const fn with_extra(e: u32, bits: u64) -> u32 {
    let all = bits & ((1u64 << consumed(e)) - 1);
    value(e) + (all >> code_len(e)) as u32
}

/// [`with_extra`] for a length or distance entry (kind bits clear, not a literal), without
/// masking its fields: shift counts are taken mod 64, and the consumed count (under 64)
/// and the code length are the low bits of `e` and `e >> 8`.
#[inline(always)]
pub(super) const fn match_extra(e: u32, bits: u64) -> u32 {
    let all = bits & (1u64.wrapping_shl(e) - 1);
    (e >> 16) + all.wrapping_shr(e >> 8) as u32
}

/// Primary index bits of the literal/length table.
pub(super) const LIT_ROOT: u32 = 10;
/// Primary index bits of the distance table.
pub(super) const DIST_ROOT: u32 = 8;
/// Index bits of the code-length table (its longest code has 7 bits).
pub(super) const CL_ROOT: u32 = 7;
/// Entries of the literal/length table. zlib's `enough 286 10 15` bounds a complete
/// code's tables at 1332 entries; the builder checks the bound anyway.
pub(super) const LIT_SIZE: usize = 1536;
/// Entries of the distance table (also holds the code-length table while lengths are read);
/// `enough 30 8 15` is well under it.
pub(super) const DIST_SIZE: usize = 768;

const LEN_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
const LEN_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

#[inline(always)]
const fn entry(value: u32, kind: u32, code_len: u32, extra: u32) -> u32 {
    (value << 16) | kind | (code_len << 8) | (code_len + extra)
}

/// The entry a symbol of `table` decodes to.
fn symbol_entry(table: CodeTable, sym: usize, bits: u32) -> u32 {
    match table {
        CodeTable::CodeLengths => entry(sym as u32, LITERAL, bits, 0),
        CodeTable::Literals => match sym {
            0..=255 => entry(sym as u32, LITERAL, bits, 0),
            256 => entry(0, EOB, bits, 0),
            257..=285 => {
                let i = sym - 257;
                entry(LEN_BASE[i] as u32, 0, bits, LEN_EXTRA[i] as u32)
            }
            _ => entry(sym as u32, BAD, bits, 0),
        },
        CodeTable::Distances => match sym {
            0..=29 => entry(DIST_BASE[sym] as u32, 0, bits, DIST_EXTRA[sym] as u32),
            _ => entry(sym as u32, BAD, bits, 0),
        },
    }
}

/// Where the second-level entry a [`LINK`] leads to is, for the stream bits `bits`
/// (the link's primary index bits included).
#[inline(always)]
pub(super) fn link_index(e: u32, root: u32, bits: u64) -> usize {
    value(e) as usize + ((bits >> root) as usize & ((1usize << code_len(e)) - 1))
}

/// Looks up the next code in `table` (primary index bits `root`) from the low bits of `bits`.
#[inline(always)]
pub(super) fn lookup(table: &[u32], root: u32, bits: u64) -> u32 {
    let e = table[(bits as usize) & ((1usize << root) - 1)];
    if kind(e) != LINK {
        return e;
    }
    table[link_index(e, root, bits)]
}

#[inline(always)]
fn reverse(code: u32, len: u32) -> u32 {
    code.reverse_bits() >> (32 - len)
}

/// Builds the decoding table of the code whose lengths are `lens` (0 = unused symbol).
///
/// Over-subscribed codes are rejected; incomplete ones too, except (as zlib) for the
/// literal/length and distance tables when at most one code of one bit is used: the
/// unassigned pattern then decodes to a [`HOLE`].
pub(super) fn build(
    lens: &[u8],
    out: &mut [u32],
    root: u32,
    table: CodeTable,
) -> Result<(), InflateError> {
    let mut count = [0u16; 16];
    for &l in lens {
        count[l as usize & 15] += 1;
    }
    count[0] = 0;
    let max = (1..16).rev().find(|&l| count[l] != 0).unwrap_or(0);
    let mut left: i32 = 1;
    for &c in &count[1..] {
        left = (left << 1) - c as i32;
        if left < 0 {
            return Err(InflateError::OversubscribedCode { table });
        }
    }
    if left > 0 && (table == CodeTable::CodeLengths || max > 1) {
        return Err(InflateError::IncompleteCode { table });
    }
    let root_size = 1usize << root;
    out[..root_size].fill(entry(0, HOLE, 1, 0));
    // Symbols in canonical order: by length, then by symbol.
    let mut offs = [0u16; 16];
    for l in 1..15 {
        offs[l + 1] = offs[l] + count[l];
    }
    let mut sorted = [0u16; 320];
    for (sym, &l) in lens.iter().enumerate() {
        if l != 0 {
            sorted[offs[l as usize] as usize] = sym as u16;
            offs[l as usize] += 1;
        }
    }
    let n: usize = count.iter().map(|&c| c as usize).sum();
    let mut remaining = count;
    let mut code: u32 = 0;
    let mut len: u32 = 0;
    let mut next_free = root_size;
    let mut cur_prefix = u32::MAX;
    let mut sub_off = 0usize;
    let mut sub_bits = 0u32;
    for &sym in &sorted[..n] {
        let l = lens[sym as usize] as u32;
        code = if len == 0 { 0 } else { (code + 1) << (l - len) };
        len = l;
        let e = symbol_entry(table, sym as usize, l);
        if l <= root {
            let rev = reverse(code, l) as usize;
            let step = 1usize << l;
            let mut i = rev;
            while i < root_size {
                out[i] = e;
                i += step;
            }
        } else {
            let drop = l - root;
            let prefix = reverse(code >> drop, root);
            if prefix != cur_prefix {
                let mut curr = drop;
                let mut avail: i32 = 1 << curr;
                while curr + root < max as u32 {
                    avail -= remaining[(curr + root) as usize] as i32;
                    if avail <= 0 {
                        break;
                    }
                    curr += 1;
                    avail <<= 1;
                }
                let size = 1usize << curr;
                if next_free + size > out.len() {
                    return Err(InflateError::OversubscribedCode { table });
                }
                sub_off = next_free;
                sub_bits = curr;
                next_free += size;
                out[prefix as usize] = entry(sub_off as u32, LINK, sub_bits, root - sub_bits);
                cur_prefix = prefix;
            }
            let low = (reverse(code, l) >> root) as usize;
            let step = 1usize << drop;
            let mut i = low;
            while i < (1usize << sub_bits) {
                out[sub_off + i] = e;
                i += step;
            }
        }
        remaining[l as usize] -= 1;
    }
    Ok(())
}
