//! The lookup search both formats share: the engine's binary search over a sort
//! permutation stored inside the entries (SPEC 1.6, 2.5).

use core::cmp::Ordering;

/// The classic midpoint binary search the engine runs over the slots `0..len` of a sort
/// permutation: `lo = 0, hi = len - 1` inclusive, `mid = (lo + hi) / 2`, return on
/// equality, else `hi = mid - 1` or `lo = mid + 1`.
///
/// `probe(slot)` returns the entry index stored in that slot and how the query compares
/// with that entry's name. Among entries with equal names the one probed first wins: the
/// search goes to the slot nearest the middle of the remaining range, so with a run of
/// equal names it is decided by where the run lies, not by entry order (SPEC 1.6; the
/// sources name the search "classic" without code, and this is that classic form).
pub(crate) fn midpoint_search(
    len: usize,
    mut probe: impl FnMut(usize) -> (usize, Ordering),
) -> Option<usize> {
    let (mut lo, mut hi) = (0usize, len);
    // `hi` is exclusive here so that no arithmetic can underflow; `mid` is the same
    // `(lo + hi_inclusive) / 2` as the engine's, since hi_inclusive = hi - 1.
    while lo < hi {
        let mid = lo + (hi - 1 - lo) / 2;
        let (target, order) = probe(mid);
        match order {
            Ordering::Equal => return Some(target),
            Ordering::Less => hi = mid,
            Ordering::Greater => lo = mid + 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probes_the_engine_midpoints() {
        // 10 slots, query greater than everything: mids 4, 7, 8, 9 (inclusive-hi form).
        let mut probed = [usize::MAX; 8];
        let mut n = 0;
        let found = midpoint_search(10, |slot| {
            probed[n] = slot;
            n += 1;
            (slot, Ordering::Greater)
        });
        assert_eq!(found, None);
        assert_eq!(&probed[..n], &[4, 7, 8, 9]);
        // Query less than everything: mids 4, 1, 0.
        n = 0;
        midpoint_search(10, |slot| {
            probed[n] = slot;
            n += 1;
            (slot, Ordering::Less)
        });
        assert_eq!(&probed[..n], &[4, 1, 0]);
        assert_eq!(midpoint_search(0, |_| unreachable!()), None);
    }
}
