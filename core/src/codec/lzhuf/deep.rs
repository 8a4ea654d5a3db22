//! A deeper lookup over the top of the tree, for the one-shot decoder: 7 levels in one
//! lookup where [`Top`](super::top::Top) takes 5, kept up to date in parts.
//!
//! Seven levels halve the walk after the lookup on text, whose codes are short, but the
//! table's nodes move more often: a swap reaches a node less than 7 levels down about 32
//! times per 1000 symbols (against 2.4-3.4 rebuilds per 1000 of the 5-level table), so a
//! whole rebuild each time (four times the work of the 5-level one) cost more than the
//! levels saved (0.80 / 0.88 of the first round's speed, text / binary). This table
//! keeps the heap of prefixes it was filled from and where each node sits in it, and
//! fills again only the subtree of the heap below a node a swap moved: most such swaps
//! are 5 or 6 levels down, where that is one or three positions and two or four entries.
//!
//! Unlike [`Top`](super::top::Top) it also follows the nodes where a walk ended at a leaf
//! above the last level: when a swap puts a subtree there, the entries under it go on
//! into it (left as they were, they end at the node and the loop walks the rest one level
//! at a time: slower than the 5-level table on both inputs). A swap of two leaves changes
//! no entry (the loop reads the last node's `son` live), so it is not followed.
//!
//! 3480 bytes against the 5-level table's 600: too much for the streaming decoder, held
//! to 10 KiB, but not for the one-shot one, whose tree is on the stack. Paired against the
//! 5-level table in the one-shot decoder: 1.11-1.14× on text, 0.99-1.02× on binary, where
//! the refills cost a tenth of the instructions (BENCHMARKS.md).

use super::top::{Descent, Lookup, fill_below};
use super::tree::{PADS, R, T};

/// The levels one lookup descends.
const BITS: u32 = 7;
const ENTRIES: usize = 1 << BITS;
/// `ends` of a position whose walk has not ended above it.
const OPEN: u8 = BITS as u8;

// Positions less than `BITS` levels down are below `ENTRIES`: one bit each of `dirty`, and
// a `u8` each in `at`.
const _: () = assert!(ENTRIES <= 128);
// Each level of an entry past the code's end is a pad of its own.
const _: () = assert!(BITS as usize <= PADS);

/// The lookup, the heap of prefixes it was filled from, and where each node sits in it.
#[derive(Debug, Clone)]
pub(super) struct DeepTop {
    /// For each value of the next [`BITS`] bits, the descent they make.
    entry: [Descent; ENTRIES],
    /// The heap of prefixes: position `1 << d | p` holds the node the `d` bits `p` lead to
    /// (the node a walk ended on, for a prefix past its end).
    node: [u16; 2 * ENTRIES],
    /// For each position, the level its walk ended at, or [`OPEN`].
    ends: [u8; 2 * ENTRIES],
    /// For each node, the position less than [`BITS`] levels down where a walk reached
    /// it, or 0: the nodes whose `son` the lookup read. Between a swap and the refill
    /// after it, a node's entry may still name the position it has left (inside a dirty
    /// subtree, so marking it is harmless); a refill forgets such entries.
    at: [u8; T],
    /// The positions whose subtree of the heap a swap has changed: bit `h` for position `h`.
    dirty: u128,
}

impl DeepTop {
    /// A table to be filled before its first use.
    pub(super) const fn new() -> DeepTop {
        let mut node = [0; 2 * ENTRIES];
        let mut ends = [0; 2 * ENTRIES];
        node[1] = R as u16;
        ends[1] = OPEN;
        DeepTop {
            entry: [Descent::EMPTY; ENTRIES],
            node,
            ends,
            at: [0; T],
            dirty: 1 << 1,
        }
    }

    /// Fills the subtree of the heap below position `h` (whose own node and level hold:
    /// they depend only on the nodes above it) and the entries under it.
    fn refill(&mut self, h: usize, son: &[u16; T]) {
        let depth = h.ilog2();
        let below = |k: u32| (h << (k - depth))..((h + 1) << (k - depth));
        // Forget where the subtree's nodes were: they may have moved out of it.
        for k in depth..BITS {
            for q in below(k) {
                let n = usize::from(self.node[q]).min(T - 1);
                // A select, not a branch: how a subtree's nodes move is anyone's guess.
                self.at[n] = if usize::from(self.at[n]) == q {
                    0
                } else {
                    self.at[n]
                };
            }
        }
        for k in depth..BITS {
            for q in below(k) {
                self.expand(q, son);
            }
        }
        for q in below(BITS) {
            self.entry[q % ENTRIES] =
                Descent::of(q, BITS, usize::from(self.ends[q]), |p| self.node[p]);
        }
    }

    /// Fills the two positions under `q` ([`fill_below`]) and notes where `q`'s node is.
    #[inline(always)]
    fn expand(&mut self, q: usize, son: &[u16; T]) {
        let at = usize::from(self.node[q]).min(T - 1);
        let open = self.ends[q] == OPEN;
        let below = fill_below(q, at, self.ends[q], OPEN, son);
        self.at[at] = if open { q as u8 } else { self.at[at] };
        self.node[2 * q] = below.to as u16;
        self.node[2 * q + 1] = (below.to + usize::from(!below.ended)) as u16;
        self.ends[2 * q] = below.end;
        self.ends[2 * q + 1] = below.end;
        self.dirty &= !1u128.wrapping_shl(q as u32);
    }

    #[cfg(test)]
    /// The entries and the nodes whose `son` they read, to compare with another build.
    pub(super) fn snapshot(&self, son: &[u16; T]) -> super::top::Snapshot {
        let mut read = [0u64; T.div_ceil(64)];
        for (n, &at) in self.at.iter().enumerate() {
            if at != 0 && usize::from(son[n]) < T {
                read[n >> 6] |= 1 << (n & 63);
            }
        }
        super::top::snapshot(&self.entry, read)
    }
}

impl Lookup for DeepTop {
    const BITS: u32 = BITS;

    #[inline(always)]
    fn stale(&self) -> bool {
        self.dirty != 0
    }

    /// Fills again every part a swap or a rebuild changed: the subtree of the heap below
    /// each dirty position, the highest first (an ancestor's position is the lower).
    #[cold]
    #[inline(never)]
    fn refresh(&mut self, son: &[u16; T]) {
        while self.dirty != 0 {
            let h = self.dirty.trailing_zeros() as usize;
            self.refill(h, son);
        }
    }

    fn invalidate(&mut self) {
        self.dirty |= 1 << 1;
    }

    #[inline(always)]
    fn swapped(&mut self, c: usize, l: usize, leaves: bool) {
        // A select, not a branch: as a branch, a twentieth of binary's mispredictions.
        let bit = |n: usize| {
            let h = self.at.get(n).copied().unwrap_or(0);
            let h = if leaves { 0 } else { h };
            1u128.wrapping_shl(u32::from(h)) & !1
        };
        self.dirty |= bit(c) | bit(l);
    }

    #[inline(always)]
    fn descend(&self, index: usize) -> &Descent {
        &self.entry[index % ENTRIES]
    }
}
