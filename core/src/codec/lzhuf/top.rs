//! The top of the tree as a table: the fast loop's first [`TOP_BITS`] levels of descent in
//! one lookup instead of one dependent load per level.
//!
//! The tree changes after every symbol, but the top of it seldom does: its nodes hold the
//! largest counts, and a count that large rarely ties with its neighbour's, which is what
//! makes [`Tree::update`](super::tree::Tree) swap two subtrees. Over the inputs of
//! `benches/` (300 KiB of licence texts, 400 KiB of /bin/bash), the table had to be
//! rebuilt 1.7 (text) and 2.4 (binary) times per 1000 symbols. So it is rebuilt from the
//! live tree (63 nodes' worth of work) only when a swap or a rebuild of the tree has
//! touched a node whose `son` it read, and is otherwise exact: it holds the same descent
//! the bits would make node by node.
//!
//! Where its walk ends (at a leaf, or [`TOP_BITS`] levels down) the loop reads `son` of
//! that last node live, so a swap below the walked nodes, or of the very node it ends on,
//! changes nothing the table says. Five levels measured best (paired harness, against the
//! first round's decoder, text / binary): 3 levels 1.07 / 1.17, 4: 1.09 / 1.21, 5: 1.12 /
//! 1.25, 6: 1.09 / 1.17, 7: 0.80 / 0.88; past 5 the rebuilds grow faster than the levels
//! saved (a swap reaches a node less than 6 levels down 9 times per 1000 symbols, less
//! than 7 down 32 times).

use super::tree::{R, T};

/// The levels one lookup descends.
pub(super) const TOP_BITS: u32 = 5;
const ENTRIES: usize = 1 << TOP_BITS;
/// A node index in an entry: 10 bits (`T` = 627 < 1024).
const NODE_BITS: u32 = 10;
const NODE: u64 = (1 << NODE_BITS) - 1;
/// Where an entry keeps the levels it descended, above its [`TOP_BITS`] nodes.
const LEVELS_SHIFT: u32 = 61;
/// A heap slot under a leaf while building: no node is there.
const NONE: u16 = u16::MAX;

/// 344 bytes: the lookup and which nodes it read.
#[derive(Debug, Clone)]
pub(super) struct Top {
    /// For each value of the next [`TOP_BITS`] bits, the descent they make: the nodes it
    /// passes (the `c + bit` of `LZHUF.C`), 10 bits each, the last one in the lowest bits
    /// and the root's son highest, and the count of levels in the top 3 bits. The last
    /// node is the one whose `son` is read next; the update climbs back up from it.
    entry: [u64; ENTRIES],
    /// One bit per node: set for the nodes whose `son` the table was built from (the
    /// root and the internal nodes less than [`TOP_BITS`] levels down).
    read: [u64; T.div_ceil(64)],
    /// Whether a swap or a rebuild of the tree has moved a node in `read`.
    pub(super) stale: bool,
}

impl Top {
    /// A table to be built before its first use.
    pub(super) const fn new() -> Top {
        Top {
            entry: [0; ENTRIES],
            read: [0; T.div_ceil(64)],
            stale: true,
        }
    }

    /// Marks the table stale if the `son` of node `c` or `l`, the two a swap exchanges,
    /// was one it was built from.
    #[inline(always)]
    pub(super) fn swapped(&mut self, c: usize, l: usize) {
        let read = |n: usize| (self.read.get(n >> 6).copied().unwrap_or(0) >> (n & 63)) & 1;
        self.stale |= read(c) | read(l) != 0;
    }

    /// Builds the table from `son` (the tree's), breadth first from the root over the
    /// heap of prefixes: slot `1 << d | p` is where the `d` bits `p` lead.
    #[cold]
    #[inline(never)]
    pub(super) fn build(&mut self, son: &[u16; T]) {
        let mut node = [NONE; 2 * ENTRIES];
        // The nodes passed on the way to each slot, packed as in `entry`.
        let mut passed = [0u64; 2 * ENTRIES];
        self.read = [0; T.div_ceil(64)];
        node[1] = R as u16;
        for h in 1..2 * ENTRIES {
            let depth = h.ilog2();
            let at = node[h];
            if at == NONE {
                continue;
            }
            let first = son.get(usize::from(at)).map_or(T, |&s| usize::from(s));
            if depth == TOP_BITS || (first >= T && h > 1) {
                // The walk ends here, a leaf or TOP_BITS levels down: so does every
                // entry of this prefix.
                let prefix = h - (1 << depth);
                let shift = TOP_BITS - depth;
                let value = passed[h] | u64::from(depth) << LEVELS_SHIFT;
                self.entry[prefix << shift..(prefix + 1) << shift].fill(value);
                continue;
            }
            let at = usize::from(at);
            self.read[at >> 6] |= 1 << (at & 63);
            for bit in 0..2 {
                node[2 * h + bit] = (first + bit) as u16;
                passed[2 * h + bit] = passed[h] << NODE_BITS | (first + bit) as u64;
            }
        }
        self.stale = false;
    }

    /// The descent the next [`TOP_BITS`] bits `index` make: the nodes it passed (the last
    /// first, as [`passed`] gives them) and the number of levels.
    #[inline(always)]
    pub(super) fn descend(&self, index: usize) -> (u64, u32) {
        let e = self.entry[index % ENTRIES];
        (e, (e >> LEVELS_SHIFT) as u32)
    }
}

/// The last node of a descent [`Top::descend`] gave, and the rest of it: the same
/// descent one level shorter.
#[inline(always)]
pub(super) fn passed(descent: u64) -> (usize, u64) {
    ((descent & NODE) as usize, descent >> NODE_BITS)
}
