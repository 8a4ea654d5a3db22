//! Putting an editor's entries in a new order, or removing many of them, in one step, for
//! both editors.
//!
//! Moving entries one at a time costs a shift of every entry between the two places, so
//! placing `n` new entries among `m` old ones that way takes `n × m` steps: a pack of
//! 100 000 new entries before 100 000 old ones spent seconds shifting. Applying the whole
//! permutation at once takes one pass; so does removing every unwanted entry at once.

use alloc::vec;

/// Why an order is not a permutation of the entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum OrderError {
    /// It lists `len` indices for `count` entries.
    Length { len: usize, count: usize },
    /// It lists an index past the last entry.
    NoSuchEntry { index: usize, count: usize },
    /// It lists this index a second time.
    Repeated { index: usize },
}

/// Puts `items` in the order `order` gives: item `k` afterwards is the one at index
/// `order[k]` before. Returns whether any item moved; on an error nothing has.
pub(crate) fn apply<T>(items: &mut [T], order: &[usize]) -> Result<bool, OrderError> {
    let count = items.len();
    if order.len() != count {
        return Err(OrderError::Length {
            len: order.len(),
            count,
        });
    }
    // `target[i]`: where the item now at `i` goes. `count` marks a place not yet given.
    let mut target = vec![count; count];
    for (k, &index) in order.iter().enumerate() {
        let slot = target
            .get_mut(index)
            .ok_or(OrderError::NoSuchEntry { index, count })?;
        if *slot != count {
            return Err(OrderError::Repeated { index });
        }
        *slot = k;
    }
    let moved = target.iter().enumerate().any(|(i, &k)| i != k);
    // Each swap puts one item in its final place, so the cycles take `count` swaps at
    // most. Every `target` value is a valid, distinct index after the checks above.
    for i in 0..count {
        loop {
            let k = target[i];
            if k == i {
                break;
            }
            items.swap(i, k);
            target.swap(i, k);
        }
    }
    Ok(moved)
}

/// Keeps the items whose index (before any removal) `keep` accepts, in one pass, for
/// both editors' `retain`; whether any went.
pub(crate) fn retain<T>(
    items: &mut alloc::vec::Vec<T>,
    mut keep: impl FnMut(usize) -> bool,
) -> bool {
    let before = items.len();
    let mut index = 0;
    items.retain(|_| {
        index += 1;
        keep(index - 1)
    });
    items.len() != before
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec::Vec;

    #[test]
    fn items_take_the_places_the_order_gives() {
        let mut items = ['a', 'b', 'c', 'd', 'e'];
        assert_eq!(apply(&mut items, &[3, 0, 4, 1, 2]), Ok(true));
        assert_eq!(items, ['d', 'a', 'e', 'b', 'c']);
        assert_eq!(apply(&mut items, &[0, 1, 2, 3, 4]), Ok(false));
        assert_eq!(items, ['d', 'a', 'e', 'b', 'c']);
        assert_eq!(apply::<u8>(&mut [], &[]), Ok(false));
    }

    #[test]
    fn every_permutation_of_five_agrees_with_picking_by_index() {
        let mut order = [0usize, 1, 2, 3, 4];
        let mut seen = 0;
        // Heap's algorithm, iteratively: all 120 orders.
        let mut c = [0usize; 5];
        let mut check = |order: &[usize]| {
            let before: Vec<u32> = (10..15).collect();
            let mut items = before.clone();
            apply(&mut items, order).unwrap();
            let want: Vec<u32> = order.iter().map(|&i| before[i]).collect();
            assert_eq!(items, want, "order {order:?}");
            seen += 1;
        };
        check(&order);
        let mut i = 1;
        while i < 5 {
            if c[i] < i {
                order.swap(if i % 2 == 0 { 0 } else { c[i] }, i);
                check(&order);
                c[i] += 1;
                i = 1;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
        assert_eq!(seen, 120);
    }

    #[test]
    fn an_order_that_is_no_permutation_moves_nothing() {
        let mut items = [1, 2, 3];
        assert_eq!(
            apply(&mut items, &[0, 1]),
            Err(OrderError::Length { len: 2, count: 3 })
        );
        assert_eq!(
            apply(&mut items, &[2, 1, 3]),
            Err(OrderError::NoSuchEntry { index: 3, count: 3 })
        );
        assert_eq!(
            apply(&mut items, &[2, 0, 2]),
            Err(OrderError::Repeated { index: 2 })
        );
        assert_eq!(items, [1, 2, 3]);
    }
}
