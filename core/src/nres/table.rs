//! What the `sort_index` fields of a directory amount to as a lookup table (SPEC 1.5–1.6).

use core::cmp::Ordering;
use core::fmt;

use super::entry::{Entry, record_at};
use super::name::compare_names;
use crate::lookup::midpoint_search;

/// How usable the `sort_index` fields are as the lookup permutation of SPEC 1.5, and so
/// how [`Archive::find`](super::Archive::find) searches.
///
/// Slot `i` is entry `i`'s `sort_index`: the index of the `i`-th entry in name order.
///
/// ```
/// use ngi_core::nres::{Archive, LookupTable};
///
/// let mut header = [0u8; 16];
/// header[..4].copy_from_slice(b"NRes");
/// header[4..8].copy_from_slice(&0x100u32.to_le_bytes());
/// header[12..].copy_from_slice(&16u32.to_le_bytes());
/// assert_eq!(Archive::open(&header)?.lookup_table(), LookupTable::Canonical);
/// # Ok::<(), ngi_core::nres::NresError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LookupTable {
    /// Every `sort_index` is in range and the slots are strictly ascending by (folded name,
    /// entry index): exactly what the canonical writer produces, and necessarily a
    /// permutation. Lookup is the binary search.
    Canonical,
    /// Every `sort_index` is in range and the slots are non-decreasing by folded name, but
    /// some equal names are not in entry-index order (or one entry fills two slots, so the
    /// table is no permutation). Lookup is the binary search, as in the engine, which may
    /// then miss an entry no slot names.
    Sorted,
    /// Every `sort_index` is in range, but slot `slot` names a greater name than slot
    /// `slot + 1` (the first such slot). Lookup is the linear scan, as SPEC 1.6 allows a
    /// strict reader for a permutation that is not sorted. One that is no permutation
    /// (an entry in two slots) gets the scan too, where the engine keeps its binary search
    /// and may miss entries the scan finds: telling the two apart needs memory this
    /// allocation-free classification does not take (`ngi verify` reports both).
    Unsorted {
        /// The first slot whose name is greater than the next slot's.
        slot: u32,
    },
    /// Entry `entry` (the first such entry) has a `sort_index` at or past the entry count,
    /// which makes the table unusable (SPEC 1.6). Lookup is the linear scan.
    OutOfRange {
        /// The first entry whose `sort_index` is out of range.
        entry: u32,
        /// Its `sort_index`.
        sort_index: u32,
    },
}

impl LookupTable {
    /// Whether lookup runs the engine's binary search (otherwise the linear scan).
    pub fn is_searchable(&self) -> bool {
        matches!(self, LookupTable::Canonical | LookupTable::Sorted)
    }
}

impl fmt::Display for LookupTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LookupTable::Canonical => f.write_str("canonical"),
            LookupTable::Sorted => f.write_str("sorted, but equal names out of entry order"),
            LookupTable::Unsorted { slot } => write!(
                f,
                "unsorted: slot {slot} names a greater name than slot {}",
                u64::from(slot) + 1
            ),
            LookupTable::OutOfRange { entry, sort_index } => write!(
                f,
                "unusable: entry {entry} has sort_index {sort_index}, past the entry count"
            ),
        }
    }
}

/// Classifies the table of a directory in one pass, without allocating.
pub(super) fn classify(directory: &[u8]) -> LookupTable {
    let count = directory.len() / super::ENTRY_LEN;
    classify_by(
        count,
        |slot| record_at(directory, slot).map_or(u32::MAX, |r| Entry::parse(0, r).sort_index),
        |index| {
            // Only the name is wanted; the index it is parsed under does not matter.
            record_at(directory, index).map(|record| Entry::parse(0, record).name())
        },
    )
}

/// Classifies a lookup table of `count` entries given each slot's `sort_index` and each
/// entry's name (`None` past the end), in one pass and without allocating: the one
/// classification [`Archive`](super::Archive) and the format-agnostic catalog share.
///
/// Only adjacent slots are compared. That suffices for `Canonical` to imply a permutation:
/// the (name, index) pairs strictly increase along the slots, so no two slots are equal,
/// and `n` distinct values in `0..n` are all of them.
pub(crate) fn classify_by<'n>(
    count: usize,
    sort_index: impl Fn(usize) -> u32,
    name: impl Fn(usize) -> Option<&'n [u8]>,
) -> LookupTable {
    let mut verdict = LookupTable::Canonical;
    let mut previous: Option<(u32, u32, &[u8])> = None;
    for (slot, at) in (0u32..).zip(0..count) {
        let target = sort_index(at);
        let Some(name) = usize::try_from(target).ok().and_then(&name) else {
            return LookupTable::OutOfRange {
                entry: slot,
                sort_index: target,
            };
        };
        if let LookupTable::Unsorted { .. } = verdict {
            // Settled, unless a later slot is out of range: that outranks it (SPEC 1.6).
            continue;
        }
        if let Some((previous_slot, previous_target, previous_name)) = previous {
            match compare_names(previous_name, name) {
                Ordering::Greater => {
                    verdict = LookupTable::Unsorted {
                        slot: previous_slot,
                    }
                }
                Ordering::Equal if previous_target >= target => verdict = LookupTable::Sorted,
                _ => {}
            }
        }
        previous = Some((slot, target, name));
    }
    verdict
}

/// The engine's lookup (SPEC 1.6) over `count` entries given each slot's `sort_index` and
/// each entry's name: the binary search when `table` is searchable, else the linear scan
/// in entry order. `query` is the C string to look for.
pub(crate) fn find_by<'n>(
    count: usize,
    table: LookupTable,
    sort_index: impl Fn(usize) -> u32,
    name: impl Fn(usize) -> Option<&'n [u8]>,
    query: &[u8],
) -> Option<usize> {
    if !table.is_searchable() {
        return (0..count).find(|&i| name(i).is_some_and(|n| compare_names(query, n).is_eq()));
    }
    midpoint_search(count, |slot| {
        let target = usize::try_from(sort_index(slot)).unwrap_or(usize::MAX);
        match name(target) {
            Some(entry) => (target, compare_names(query, entry)),
            // Not reached: the search only runs over tables whose slots are all in range.
            None => (target, Ordering::Less),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nres::testutil::{canonical_sort, directory};

    fn table(names: &[&[u8]], sort: &[u32]) -> LookupTable {
        classify(&directory(names, sort))
    }

    #[test]
    fn empty_and_single() {
        assert_eq!(classify(&[]), LookupTable::Canonical);
        assert_eq!(table(&[b"x"], &[0]), LookupTable::Canonical);
        assert_eq!(
            table(&[b"x"], &[1]),
            LookupTable::OutOfRange {
                entry: 0,
                sort_index: 1
            }
        );
    }

    #[test]
    fn canonical_is_the_stable_order() {
        let names: &[&[u8]] = &[b"b", b"DUP", b"A_", b"dup", b"ab", b"Dup"];
        let sort = canonical_sort(names);
        assert_eq!(sort, [2, 4, 0, 1, 3, 5]);
        assert_eq!(table(names, &sort), LookupTable::Canonical);
    }

    #[test]
    fn ties_out_of_index_order_are_sorted() {
        let names: &[&[u8]] = &[b"dup", b"DUP", b"a"];
        assert_eq!(table(names, &[2, 0, 1]), LookupTable::Canonical);
        assert_eq!(table(names, &[2, 1, 0]), LookupTable::Sorted);
        // One entry in two slots: names still non-decreasing, but no permutation.
        assert_eq!(table(names, &[2, 0, 0]), LookupTable::Sorted);
        assert_eq!(table(&[b"a", b"b"], &[0, 0]), LookupTable::Sorted);
    }

    #[test]
    fn upper_case_folding_order_is_unsorted() {
        // "AB" before "A_" is the order upper-case folding would give.
        assert_eq!(
            table(&[b"AB", b"A_"], &[0, 1]),
            LookupTable::Unsorted { slot: 0 }
        );
        assert_eq!(table(&[b"AB", b"A_"], &[1, 0]), LookupTable::Canonical);
    }

    #[test]
    fn first_unsorted_slot_is_reported() {
        let names: &[&[u8]] = &[b"a", b"b", b"c", b"d"];
        assert_eq!(
            table(names, &[0, 2, 1, 3]),
            LookupTable::Unsorted { slot: 1 }
        );
        assert_eq!(
            table(names, &[3, 2, 1, 0]),
            LookupTable::Unsorted { slot: 0 }
        );
        assert_eq!(
            table(names, &[0, 1, 3, 2]),
            LookupTable::Unsorted { slot: 2 }
        );
    }

    #[test]
    fn out_of_range_outranks_unsorted() {
        let names: &[&[u8]] = &[b"a", b"b", b"c"];
        assert_eq!(
            table(names, &[1, 0, 7]),
            LookupTable::OutOfRange {
                entry: 2,
                sort_index: 7
            }
        );
        assert_eq!(
            table(names, &[0, u32::MAX, 3]),
            LookupTable::OutOfRange {
                entry: 1,
                sort_index: u32::MAX
            }
        );
    }

    #[test]
    fn display() {
        extern crate std;
        use std::string::ToString;
        assert_eq!(
            LookupTable::Unsorted { slot: u32::MAX }.to_string(),
            "unsorted: slot 4294967295 names a greater name than slot 4294967296"
        );
        assert!(LookupTable::Sorted.is_searchable());
        assert!(!LookupTable::Unsorted { slot: 0 }.is_searchable());
    }
}
