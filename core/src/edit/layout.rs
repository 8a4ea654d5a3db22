//! Where each payload of an edited archive goes: the rules both editors share.
//!
//! The data region of the source is cut into *blocks* at every offset where an original
//! payload starts (removed ones included); a block runs to the next start and so holds
//! one payload and whatever follows it up to the next (padding, a gap, bytes nobody
//! names). A block some kept payload reaches is *live* and is copied as it is, so a
//! payload that was not touched keeps its bytes and the bytes around it. A block no kept
//! payload reaches is *dead* and dropped; a payload that replaces one whose blocks are all
//! dead takes its place, so a size change shifts the later payloads (SPEC 1.8) instead of
//! leaving a hole. Everything else new goes after the old data, in entry order.
//!
//! Overlapping payloads stay correct: a block two payloads share lives while either is
//! kept, and a replacement of a shared payload is appended rather than written over bytes
//! another entry still uses.

use alloc::vec;
use alloc::vec::Vec;
use core::ops::Range;

/// One entry's payload, as the layout sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Slot {
    /// An original payload, kept: its range in the source, inside the region.
    Kept { start: u64, len: u64 },
    /// A payload of `len` new bytes; `was` is the original range it replaces, if that
    /// range lay inside the region.
    New { len: u64, was: Option<(u64, u64)> },
    /// Left where the record says (no payload the layout can move: its range is outside
    /// the region).
    Fixed,
}

impl Slot {
    /// The payload's length (0 for a fixed one, which the layout does not place).
    pub(crate) fn len(&self) -> u64 {
        match *self {
            Slot::Kept { len, .. } | Slot::New { len, .. } => len,
            Slot::Fixed => 0,
        }
    }
}

/// What to write for the region, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Event {
    /// Source bytes, as they are.
    Copy { offset: u64, len: u64 },
    /// The new bytes of slot `.0`.
    New(usize),
    /// Zero padding.
    Zeros(u64),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout {
    pub(crate) events: Vec<Event>,
    /// Each slot's output offset (`None` for [`Slot::Fixed`]).
    pub(crate) offsets: Vec<Option<u64>>,
    /// Output offset just past the region.
    pub(crate) end: u64,
}

/// Lays out the region `region` of the source at output offset `out_start`. `starts`
/// holds the start of every original payload inside the region, kept, replaced or
/// removed, in any order; each new payload is followed by zero padding up to a multiple
/// of `align` (counted from the start of the output; 1 for none).
pub(crate) fn lay_out(
    region: Range<u64>,
    out_start: u64,
    starts: &[u64],
    slots: &[Slot],
    align: u64,
) -> Layout {
    let mut starts: Vec<u64> = starts
        .iter()
        .copied()
        .filter(|s| region.contains(s) || *s == region.end)
        .collect();
    starts.sort_unstable();
    starts.dedup();
    let blocks = starts.len();
    let block_end = |k: usize| starts.get(k + 1).copied().unwrap_or(region.end);
    // The last block starting at or before `x`; `x` is always some start.
    let block_of = |x: u64| starts.partition_point(|&s| s <= x).saturating_sub(1);
    // The blocks `[start, start + len)` reaches: the one it starts in, then every block
    // that starts before its end.
    let reach = |start: u64, len: u64| {
        let first = block_of(start);
        let last = starts
            .partition_point(|&s| s < start.saturating_add(len))
            .saturating_sub(1)
            .max(first);
        first..last + 1
    };
    let live = covered(blocks, slots, reach, false);
    let crossed = covered(blocks, slots, reach, true);

    // Replacements that take the place of the payload they replace: after the block they
    // replace (dead, so in its place), or, for one that replaces an empty payload (which
    // cut no block), before the block that starts where it stood, or after the one it lay
    // in, unless a kept payload runs across that place (it would be cut in two). An empty
    // payload's replacement was appended after all the data, out of the entries' order,
    // and shifted nothing.
    let mut in_place: Vec<Vec<usize>> = vec![Vec::new(); blocks];
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); blocks];
    let mut placed = vec![false; slots.len()];
    for (i, slot) in slots.iter().enumerate() {
        if let Slot::New {
            was: Some((start, len)),
            ..
        } = *slot
        {
            if len == 0 {
                // At the region's end, or before every block: appended, in entry order.
                let at = match starts.binary_search(&start) {
                    _ if start == region.end => None,
                    Ok(k) if !crossed[k] => before.get_mut(k),
                    // Inside block `k - 1`: after it, where block `k` starts.
                    Err(k) if k > 0 && !crossed[k] => in_place.get_mut(k - 1),
                    _ => None,
                };
                if let Some(at) = at {
                    at.push(i);
                    placed[i] = true;
                }
                continue;
            }
            let blocks = reach(start, len);
            if !blocks.is_empty() && live.get(blocks.clone()).is_some_and(|b| !b.contains(&true)) {
                in_place[blocks.start].push(i);
                placed[i] = true;
            }
        }
    }

    let mut layout = Layout {
        events: Vec::new(),
        offsets: vec![None; slots.len()],
        end: out_start,
    };
    let lead_end = starts.first().copied().unwrap_or(region.end);
    layout.copy(region.start, lead_end.saturating_sub(region.start));
    let mut shift = vec![0i128; blocks];
    // Where each block's bytes start in the output (a dead block: where they would have),
    // and where what took its place ends.
    let mut block_out = vec![0u64; blocks];
    let mut block_after = vec![0u64; blocks];
    for k in 0..blocks {
        for &i in &before[k] {
            layout.place(i, slots, align);
        }
        block_out[k] = layout.end;
        if live[k] {
            shift[k] = i128::from(layout.end) - i128::from(starts[k]);
            layout.copy(starts[k], block_end(k) - starts[k]);
        }
        for &i in &in_place[k] {
            layout.place(i, slots, align);
        }
        block_after[k] = layout.end;
    }
    let appended: Vec<usize> = (0..slots.len())
        .filter(|&i| !placed[i] && matches!(slots[i], Slot::New { .. }))
        .collect();
    for &i in &appended {
        layout.place(i, slots, align);
    }
    for (i, slot) in slots.iter().enumerate() {
        let Slot::Kept { start, len } = *slot else {
            continue;
        };
        let k = block_of(start);
        let leading = starts.first().is_none_or(|&first| start < first);
        let among = |news: &[usize], also: &[usize], base: u64| {
            i128::from(empty_among(
                i,
                news.iter().chain(also),
                &layout.offsets,
                base,
            ))
        };
        let at_block_start = starts.get(k) == Some(&start);
        let moved = match live.get(k) {
            // At the end of the data, an empty payload stays there, among the new ones
            // appended. It went to the start of a replaced last payload, and in front of
            // an earlier empty entry's replacement.
            _ if len == 0 && start == region.end => among(&appended, &[], layout.end),
            // Before every block: the leading gap, copied first as it is.
            _ if leading => i128::from(start) - i128::from(region.start) + i128::from(out_start),
            Some(true) if len == 0 && at_block_start => among(&before[k], &[], block_out[k]),
            Some(true) => i128::from(start) + shift.get(k).copied().unwrap_or(0),
            // An empty payload in bytes that were cut: among what took their place.
            _ if len == 0 => {
                let ahead = if at_block_start { &before[k][..] } else { &[] };
                let base = block_after.get(k).copied().unwrap_or(layout.end);
                among(ahead, &in_place[k], base)
            }
            _ => i128::from(start) + shift.get(k).copied().unwrap_or(0),
        };
        layout.offsets[i] = u64::try_from(moved).ok();
    }
    layout
}

/// Which of the `blocks` blocks a kept payload of `slots` reaches (`reach` gives the
/// blocks a range reaches): those are copied, the others dropped. With `across`, which
/// block boundaries (`k`: where block `k` starts; `blocks`: the region's end) a kept
/// payload runs across, reaching the blocks on both sides: nothing may be put there.
fn covered(
    blocks: usize,
    slots: &[Slot],
    reach: impl Fn(u64, u64) -> Range<usize>,
    across: bool,
) -> Vec<bool> {
    let mut cover = vec![0i64; blocks + 2];
    for slot in slots {
        // An empty payload holds no byte, so it keeps no block alive.
        if let Slot::Kept { start, len } = *slot
            && len > 0
        {
            let blocks = reach(start, len);
            cover[blocks.start + usize::from(across)] += 1;
            cover[blocks.end] -= 1;
        }
    }
    let mut running = 0;
    (0..blocks + usize::from(across))
        .map(|k| {
            running += cover[k];
            running > 0
        })
        .collect()
}

/// Where the empty payload of slot `i` goes among the new payloads `news` placed where
/// it stood (in placement order): after those of earlier entries, before those of later
/// ones, as a writer lays entries out in their order; at `base` when none is later.
fn empty_among<'a>(
    i: usize,
    mut news: impl Iterator<Item = &'a usize>,
    offsets: &[Option<u64>],
    base: u64,
) -> u64 {
    news.find(|&&new| new > i)
        .and_then(|&new| offsets.get(new).copied().flatten())
        .unwrap_or(base)
}

impl Layout {
    fn copy(&mut self, offset: u64, len: u64) {
        if len == 0 {
            return;
        }
        // Saturating: a region near u64::MAX (a caller's `file_len`) cannot wrap; the
        // formats refuse such a total when they convert offsets to 32 bits.
        self.end = self.end.saturating_add(len);
        if let Some(Event::Copy {
            offset: last,
            len: last_len,
        }) = self.events.last_mut()
        {
            if last.checked_add(*last_len) == Some(offset) {
                *last_len += len;
                return;
            }
        }
        self.events.push(Event::Copy { offset, len });
    }

    fn place(&mut self, i: usize, slots: &[Slot], align: u64) {
        let Some(Slot::New { len, .. }) = slots.get(i).copied() else {
            return;
        };
        self.offsets[i] = Some(self.end);
        self.events.push(Event::New(i));
        self.end = self.end.saturating_add(len);
        // The engine's padding is the payload's size rounded up, not its end's position:
        // `padding = ((size + 7) & ~7) - size` (the source document of SPEC 1.8, whose
        // "to the next multiple of 8" leaves open which). The two differ only after a
        // data region that ends unaligned, which no engine-written archive has.
        let pad = len
            .checked_next_multiple_of(align.max(1))
            .map_or(0, |rounded| rounded - len);
        if pad > 0 {
            self.events.push(Event::Zeros(pad));
            self.end = self.end.saturating_add(pad);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(len: u64, was: Option<(u64, u64)>) -> Slot {
        Slot::New { len, was }
    }

    #[test]
    fn untouched_region_is_one_copy() {
        let slots = [
            Slot::Kept { start: 16, len: 5 },
            Slot::Kept { start: 24, len: 8 },
        ];
        let l = lay_out(16..40, 16, &[16, 24], &slots, 8);
        assert_eq!(
            l.events,
            [Event::Copy {
                offset: 16,
                len: 24
            }]
        );
        assert_eq!(l.offsets, [Some(16), Some(24)]);
        assert_eq!(l.end, 40);
    }

    #[test]
    fn a_replacement_takes_the_old_place_and_shifts_the_rest() {
        // 16: a (5 + 3 padding), 24: b (8), 32: c (1 + 7)
        let slots = [
            new(12, Some((16, 5))),
            Slot::Kept { start: 24, len: 8 },
            Slot::Kept { start: 32, len: 1 },
            new(3, None),
        ];
        let l = lay_out(16..40, 16, &[16, 24, 32], &slots, 8);
        assert_eq!(
            l.events,
            [
                Event::New(0),
                Event::Zeros(4),
                Event::Copy {
                    offset: 24,
                    len: 16
                },
                Event::New(3),
                Event::Zeros(5),
            ]
        );
        assert_eq!(l.offsets, [Some(16), Some(32), Some(40), Some(48)]);
        assert_eq!(l.end, 56);
    }

    #[test]
    fn a_removed_payload_is_cut_and_a_leading_gap_kept() {
        let slots = [Slot::Kept { start: 40, len: 2 }];
        let l = lay_out(16..48, 16, &[24, 40], &slots, 8);
        assert_eq!(
            l.events,
            [
                Event::Copy { offset: 16, len: 8 },
                Event::Copy { offset: 40, len: 8 }
            ]
        );
        assert_eq!(l.offsets, [Some(24)]);
    }

    #[test]
    fn shared_bytes_stay_while_anyone_keeps_them() {
        // b lies inside a; replacing a must not overwrite b's bytes.
        let slots = [new(4, Some((16, 16))), Slot::Kept { start: 24, len: 4 }];
        let l = lay_out(16..32, 16, &[16, 24], &slots, 8);
        assert_eq!(
            l.events,
            [
                Event::Copy { offset: 24, len: 8 },
                Event::New(0),
                Event::Zeros(4)
            ]
        );
        assert_eq!(l.offsets, [Some(24), Some(16)]);
        // Kept a reaches b's block, so replacing b appends it.
        let slots = [Slot::Kept { start: 16, len: 16 }, new(4, Some((24, 4)))];
        let l = lay_out(16..32, 16, &[16, 24], &slots, 8);
        assert_eq!(l.offsets, [Some(16), Some(32)]);
    }

    /// An empty payload after one replaced by as many bytes stays after it (it moved to
    /// the replacement's start), and an empty payload's replacement takes its place and
    /// shifts what follows (it was appended after everything, out of order).
    #[test]
    fn empty_payloads_keep_their_place_around_replacements() {
        let slots = [new(5, Some((16, 5))), Slot::Kept { start: 24, len: 0 }];
        let l = lay_out(16..24, 16, &[16], &slots, 8);
        assert_eq!(l.events, [Event::New(0), Event::Zeros(3)]);
        assert_eq!(l.offsets, [Some(16), Some(24)]);
        // At the start of a replaced payload, it stays before the replacement.
        let slots = [Slot::Kept { start: 16, len: 0 }, new(9, Some((16, 5)))];
        let l = lay_out(16..24, 16, &[16], &slots, 8);
        assert_eq!(l.offsets, [Some(16), Some(16)]);

        let slots = [new(13, Some((16, 0))), Slot::Kept { start: 16, len: 8 }];
        let l = lay_out(16..24, 16, &[16], &slots, 8);
        assert_eq!(
            l.events,
            [
                Event::New(0),
                Event::Zeros(3),
                Event::Copy { offset: 16, len: 8 }
            ]
        );
        assert_eq!(l.offsets, [Some(16), Some(32)]);
        assert_eq!(l.end, 40);
        // Not where a kept payload runs across (it was cut in two: the fuzzer's find).
        let slots = [Slot::Kept { start: 16, len: 16 }, new(5, Some((24, 0)))];
        let l = lay_out(16..40, 16, &[16, 24], &slots, 8);
        assert_eq!(l.offsets, [Some(16), Some(40)]);
        // After a payload (in its padding, or at the region's end): after that block.
        let slots = [Slot::Kept { start: 16, len: 5 }, new(2, Some((24, 0)))];
        let l = lay_out(16..24, 16, &[16], &slots, 8);
        assert_eq!(l.offsets, [Some(16), Some(24)]);
        assert_eq!(l.end, 32);
    }

    #[test]
    fn zero_length_payloads_and_fixed_slots() {
        let slots = [
            Slot::Kept { start: 16, len: 0 },
            Slot::Fixed,
            Slot::Kept { start: 16, len: 3 },
            Slot::Kept { start: 24, len: 0 },
        ];
        let l = lay_out(16..24, 32, &[16, 24, 999], &slots, 8);
        assert_eq!(l.events, [Event::Copy { offset: 16, len: 8 }]);
        assert_eq!(l.offsets, [Some(32), None, Some(32), Some(40)]);
    }
}
