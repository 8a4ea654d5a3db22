//! The engine's lookup permutation (SPEC 2.5), computed in O(n log n) without allocating.
//!
//! The engine bubble-sorts the entry indices by name with `strcmp`. A bubble sort only
//! swaps neighbours that are strictly out of order, so it is stable: the result is *the*
//! ordering by the pair (name, index). Any sort that compares whole pairs produces that
//! same ordering, stable or not, so a heapsort (in place, no buffer, no recursion) gives
//! the engine's result.

use super::Entry;
use core::cmp::Ordering;

/// The permutation values a `u16` `sort_index` can hold.
const MAX_SORTED: usize = u16::MAX as usize + 1;

/// Writes the engine's lookup permutation into `entries[i].sort_index`.
///
/// Let `P` be the entry indices sorted by name ([`Entry::name`], compared as `strcmp`
/// does: unsigned bytes, a prefix first), ties kept in index order. Then
/// `entries[i].sort_index = P[i]`: slot `i` holds the index of the `i`-th name in sorted
/// order. This is what the engine does for libraries without the `0xABBA` flag.
///
/// Runs in O(n log n) time, in place: the `sort_index` fields themselves are the array
/// being sorted. Only `sort_index` changes. A `u16` can name at most 65 536 entries, so
/// only the first 65 536 take part (a library holds at most 32 767).
///
/// ```
/// use ngi_core::rsli::{compute_permutation, Entry};
///
/// let mut entries = [Entry::default(); 4];
/// for (entry, name) in entries.iter_mut().zip([b"C", b"A", b"B", b"A"]) {
///     entry.name[..1].copy_from_slice(name);
/// }
/// compute_permutation(&mut entries);
/// let slots: Vec<u16> = entries.iter().map(|e| e.sort_index).collect();
/// assert_eq!(slots, [1, 3, 2, 0]); // "A"(1), "A"(3), "B"(2), "C"(0)
/// ```
pub fn compute_permutation(entries: &mut [Entry]) {
    permute(entries);
}

/// Decrypted entries held somewhere the engine's sort can work on them in place: a slice
/// of [`Entry`], or the RsLi entries of the format-agnostic catalog.
pub(crate) trait Table {
    /// How many entries there are.
    fn count(&self) -> usize;
    /// Entry `i`, if there is one.
    fn at(&self, i: usize) -> Option<&Entry>;
    /// Entry `i`, to change, if there is one.
    fn at_mut(&mut self, i: usize) -> Option<&mut Entry>;
}

impl Table for [Entry] {
    #[inline(always)]
    fn count(&self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(&self, i: usize) -> Option<&Entry> {
        self.get(i)
    }
    #[inline(always)]
    fn at_mut(&mut self, i: usize) -> Option<&mut Entry> {
        self.get_mut(i)
    }
}

/// [`compute_permutation`] over any [`Table`].
pub(crate) fn permute<T: Table + ?Sized>(entries: &mut T) {
    let n = entries.count().min(MAX_SORTED);
    for slot in 0..n {
        if let Some(entry) = entries.at_mut(slot) {
            // `slot < MAX_SORTED`, so it fits.
            entry.sort_index = slot as u16;
        }
    }
    for root in (0..n / 2).rev() {
        sift_down(entries, root, n);
    }
    for end in (1..n).rev() {
        swap_slots(entries, 0, end);
        sift_down(entries, 0, end);
    }
}

/// Restores the max-heap property below `root` within the slots `..end`.
// Inlined into `permute`, as it was before `permute` was generic: called as a function,
// the heap loop ran 3 % slower for the same instruction count (paired timing, 8 000
// entries).
#[inline(always)]
fn sift_down<T: Table + ?Sized>(entries: &mut T, mut root: usize, end: usize) {
    loop {
        // `root < end <= MAX_SORTED`: no overflow.
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && order(entries, child, child + 1) == Ordering::Less {
            child += 1;
        }
        if order(entries, root, child) != Ordering::Less {
            return;
        }
        swap_slots(entries, root, child);
        root = child;
    }
}

/// How the entry in slot `a` sorts against the entry in slot `b`: by name, then index.
#[inline(always)]
fn order<T: Table + ?Sized>(entries: &T, a: usize, b: usize) -> Ordering {
    sort_key(entries, a).cmp(&sort_key(entries, b))
}

/// The (name, index) pair of the entry named by slot `at`, as one integer that orders as
/// the pair does: the 12 name bytes big-endian, zeroed from the first NUL on, then the
/// index in the low 32 bits. NUL is the least byte, so a name that is a prefix of another
/// sorts first, exactly as `strcmp` orders them; one integer comparison replaces a byte
/// loop per comparison.
#[inline(always)]
fn sort_key<T: Table + ?Sized>(entries: &T, at: usize) -> u128 {
    let index = entries.at(at).map_or(0, |e| e.sort_index);
    let name = entries.at(usize::from(index)).map_or([0; 12], |e| e.name);
    let mut bytes = [0u8; 16];
    bytes[..12].copy_from_slice(&name);
    let word = u128::from_be_bytes(bytes);
    // 0x80 in exactly the zero bytes (no carries cross bytes: each byte's low 7 bits plus
    // 0x7F stays below 0x100). The low 4 padding bytes are zero, so there is always one.
    const LOW7: u128 = u128::from_be_bytes([0x7F; 16]);
    let zero_bytes = !(((word & LOW7) + LOW7) | word | LOW7);
    // The most significant zero byte is the first NUL of the name (or the padding): keep
    // only the bytes before it.
    let first_nul_top_bit = 127 - zero_bytes.leading_zeros();
    let keep = (!0u128).checked_shl(first_nul_top_bit + 1).unwrap_or(0);
    (word & keep) | u128::from(index)
}

#[inline(always)]
fn slot<T: Table + ?Sized>(entries: &T, at: usize) -> u16 {
    entries.at(at).map_or(0, |e| e.sort_index)
}

#[inline(always)]
fn swap_slots<T: Table + ?Sized>(entries: &mut T, a: usize, b: usize) {
    let (va, vb) = (slot(entries, a), slot(entries, b));
    if let Some(e) = entries.at_mut(a) {
        e.sort_index = vb;
    }
    if let Some(e) = entries.at_mut(b) {
        e.sort_index = va;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(names: &[&[u8]]) -> [Entry; 6] {
        let mut entries = [Entry::default(); 6];
        for (e, n) in entries.iter_mut().zip(names) {
            e.name[..n.len()].copy_from_slice(n);
        }
        entries
    }

    #[test]
    fn strcmp_order_unsigned_and_prefix_first() {
        let mut entries = named(&[b"\xE0", b"AB", b"A", b"", b"a", b"AB"]);
        compute_permutation(&mut entries);
        let slots = entries.map(|e| e.sort_index);
        // "", "A", "AB"(1), "AB"(5), "a", "\xE0": 0xE0 is above 'a' unsigned.
        assert_eq!(slots, [3, 2, 1, 5, 4, 0]);
    }

    #[test]
    fn reserved_bytes_and_stored_values_do_not_matter() {
        let mut a = named(&[b"ABCDEFGHIJKL", b"ABCDEFGHIJKL", b"B"]);
        a[0].reserved = *b"ZZZZ";
        a[0].sort_index = 9;
        a[1].file_sort_index = 9;
        compute_permutation(&mut a[..3]);
        assert_eq!(a.map(|e| e.sort_index)[..3], [0, 1, 2]);
        assert_eq!(a[1].file_sort_index, 9, "only sort_index changes");
    }

    #[test]
    fn empty_and_single() {
        compute_permutation(&mut []);
        let mut one = [Entry {
            sort_index: 77,
            ..Entry::default()
        }];
        compute_permutation(&mut one);
        assert_eq!(one[0].sort_index, 0);
    }
}
