//! The top of the tree as a table: the fast loop's first [`TOP_BITS`] levels of descent in
//! one lookup instead of one dependent load per level. This is the streaming decoder's;
//! the one-shot one has a deeper table kept up in parts ([`DeepTop`](super::deep::DeepTop)),
//! and both answer to [`Lookup`].
//!
//! The tree changes after every symbol, but the top of it seldom does: its nodes hold the
//! largest counts, and a count that large rarely ties with its neighbour's, which is what
//! makes [`Tree::update`](super::tree::Tree) swap two subtrees. Over the inputs of
//! `benches/` (300 KiB of licence texts, 400 KiB of /bin/bash), the table had to be
//! rebuilt 252 times in 73 209 symbols (text) and 359 times in 147 684 (binary), 3.4 and
//! 2.4 per 1000 (callgrind's call counts). So it is rebuilt from the
//! live tree (63 nodes' worth of work) only when a swap or a rebuild of the tree has
//! touched a node whose `son` it read, and is otherwise exact: it holds the same descent
//! the bits would make node by node.
//!
//! Where its walk ends (at a leaf, or [`TOP_BITS`] levels down) the loop reads `son` of
//! that last node live, so a swap below the walked nodes, or of the very node it ends on,
//! changes nothing the table says. Five levels measured best (paired harness, against the
//! first round's decoder, text / binary, with the entries of 10-bit nodes packed in a
//! `u64` they had then): 3 levels 1.07 / 1.17, 4: 1.09 / 1.21, 5: 1.12 /
//! 1.25, 6: 1.09 / 1.17, 7: 0.80 / 0.88; past 5 the rebuilds grow faster than the levels
//! saved (a swap reaches a node less than 6 levels down 9 times per 1000 symbols, less
//! than 7 down 32 times).

use super::tree::{PADS, R, T, pad};

/// What the tree and the fast loop ask of a lookup over the top of the tree: [`Top`]
/// for the streaming decoder, [`DeepTop`](super::deep::DeepTop) for the one-shot one.
pub(super) trait Lookup: Clone + core::fmt::Debug {
    /// The levels one lookup descends.
    const BITS: u32;
    /// Whether a swap or a rebuild has moved a node the lookup read.
    fn stale(&self) -> bool;
    /// Makes the lookup exact again for the tree whose `son` this is.
    fn refresh(&mut self, son: &[u16; T]);
    /// The tree was rebuilt: every node may have moved.
    fn invalidate(&mut self);
    /// Nodes `c` and `l` exchange their `son` (two leaves' if `leaves`).
    fn swapped(&mut self, c: usize, l: usize, leaves: bool);
    /// The descent the next [`BITS`](Lookup::BITS) bits `index` make. Read in place: a
    /// copy of the entry, read back a slot at a time, puts a store and its forwarding on
    /// the path from one symbol's bits to the next's.
    fn descend(&self, index: usize) -> &Descent;
}

/// The levels one lookup of [`Top`] descends.
const TOP_BITS: u32 = 5;
const ENTRIES: usize = 1 << TOP_BITS;
/// Where a [`Descent`] keeps the levels it descended, after its nodes.
const LEVELS: usize = 7;
const _: () = assert!(LEVELS >= PADS && PADS >= TOP_BITS as usize);

/// One entry of the lookup: the nodes a descent passes (the `c + bit` of `LZHUF.C`), the
/// last one first and the root's son last, then in slot [`LEVELS`] how many. Each node
/// in a slot of its own, where the loop takes it with one load: packed 10 bits to a node
/// in a `u64`, each cost a shift and a mask, 4 % of all the instructions of text.
#[derive(Debug, Clone, Copy)]
pub(super) struct Descent([u16; 8]);

impl Descent {
    /// An entry to be filled before its first use.
    pub(super) const EMPTY: Descent = Descent([0; 8]);

    /// The entry of heap position `h`, `bits` levels down, whose walk ended `levels`
    /// down, `node(p)` giving the node at position `p` (see [`Top::build`]).
    #[inline(always)]
    pub(super) fn of(h: usize, bits: u32, levels: usize, node: impl Fn(usize) -> u16) -> Descent {
        // Slot `j` holds the node `levels - j` levels down, then the pads: chosen by a
        // mask, as a branch on `j < levels` was mispredicted as often as levels vary.
        let mut slots = [0u16; 8];
        for (j, slot) in slots.iter_mut().enumerate().take(bits as usize) {
            let keep = u16::from(j < levels).wrapping_neg();
            let passed = node(h >> ((bits as usize + j).wrapping_sub(levels) % 8));
            *slot = (passed & keep) | (pad(j) as u16 & !keep);
        }
        slots[LEVELS] = levels as u16;
        Descent(slots)
    }

    /// The last node passed: the one whose `son` is read next.
    #[inline(always)]
    pub(super) fn last(&self) -> usize {
        usize::from(self.0[0])
    }

    /// The levels descended (1 to the lookup's `BITS`).
    #[inline(always)]
    pub(super) fn levels(&self) -> u32 {
        u32::from(self.0[LEVELS])
    }

    /// The nodes passed, the last first (the order the update climbs them in), then
    /// [`pad`] nodes up to the lookup's `bits`. A fixed count: the update's loop over
    /// them, ended by the number of levels, mispredicted its end as often as the codes'
    /// lengths vary (a sixth of all the mispredictions on text, callgrind's branch
    /// simulation).
    #[inline(always)]
    pub(super) fn nodes(&self, bits: u32) -> &[u16] {
        self.0.get(..bits as usize).unwrap_or_default()
    }
}

/// 600 bytes: the lookup and which nodes it read.
#[derive(Debug, Clone)]
pub(super) struct Top {
    /// For each value of the next [`TOP_BITS`] bits, the descent they make.
    entry: [Descent; ENTRIES],
    /// One bit per node: set for the nodes whose `son` the table was built from (the
    /// root and the internal nodes less than [`TOP_BITS`] levels down).
    read: [u64; T.div_ceil(64)],
    /// Whether a swap or a rebuild of the tree has moved a node in `read`.
    stale: bool,
}

impl Top {
    /// A table to be built before its first use.
    pub(super) const fn new() -> Top {
        Top {
            entry: [Descent::EMPTY; ENTRIES],
            read: [0; T.div_ceil(64)],
            stale: true,
        }
    }

    /// A table of zero bytes, not stale: only for a state to be reset before use (see
    /// `LzhufDecoder::ZEROED`), which puts [`new`](Top::new)'s in its place.
    pub(super) const fn zeroed() -> Top {
        Top {
            entry: [Descent::EMPTY; ENTRIES],
            read: [0; T.div_ceil(64)],
            stale: false,
        }
    }

    /// Builds the table from `son` (the tree's), breadth first from the root over the
    /// heap of prefixes: slot `1 << d | p` is where the `d` bits `p` lead, and `ends` the
    /// level where that walk ended (at a leaf), [`TOP_BITS`] for one that did not. A
    /// prefix past a leaf keeps the leaf's node and level, so every slot is filled the
    /// same way, with selects and masks and no branch on the tree's shape. The build it
    /// replaced (kept in the tests as the check of this one) branched on whether a slot
    /// was reached and whether its walk ended, and kept each slot's nodes in a `u128`:
    /// callgrind's branch simulation counted 24 mispredictions a build on text, now 5,
    /// and 3 300 instructions, now 2 800 (a twentieth of text's mispredictions then).
    #[cold]
    #[inline(never)]
    pub(super) fn build(&mut self, son: &[u16; T]) {
        const OPEN: u8 = TOP_BITS as u8;
        let mut node = [0u16; 2 * ENTRIES];
        let mut ends = [OPEN; 2 * ENTRIES];
        self.read = [0; T.div_ceil(64)];
        node[1] = R as u16;
        for h in 1..ENTRIES {
            let at = usize::from(node[h]);
            let below = fill_below(h, at, ends[h], OPEN, son);
            self.read[(at / 64).min(T / 64)] |= u64::from(!below.ended) << (at % 64);
            node[2 * h] = below.to as u16;
            node[2 * h + 1] = (below.to + usize::from(!below.ended)) as u16;
            ends[2 * h] = below.end;
            ends[2 * h + 1] = below.end;
        }
        for p in 0..ENTRIES {
            let h = ENTRIES + p;
            self.entry[p] = Descent::of(h, TOP_BITS, usize::from(ends[h]), |q| node[q]);
        }
        self.stale = false;
    }

    #[cfg(test)]
    /// The entries and the nodes read, to compare with another build.
    pub(super) fn snapshot(&self) -> Snapshot {
        snapshot(&self.entry, self.read)
    }
}

impl Lookup for Top {
    const BITS: u32 = TOP_BITS;

    #[inline(always)]
    fn stale(&self) -> bool {
        self.stale
    }

    fn refresh(&mut self, son: &[u16; T]) {
        self.build(son);
    }

    fn invalidate(&mut self) {
        self.stale = true;
    }

    /// Marks the table stale if the `son` of node `c` or `l`, the two a swap exchanges,
    /// was one it was built from (never a leaf's parent, so never when `leaves`).
    #[inline(always)]
    fn swapped(&mut self, c: usize, l: usize, _leaves: bool) {
        let read = |n: usize| (self.read.get(n >> 6).copied().unwrap_or(0) >> (n & 63)) & 1;
        self.stale |= read(c) | read(l) != 0;
    }

    #[inline(always)]
    fn descend(&self, index: usize) -> &Descent {
        &self.entry[index % ENTRIES]
    }
}

/// What a position of the heap of prefixes passes to the two under it.
pub(super) struct Below {
    /// Where the walk is: the first son of the node at the position, or that node again
    /// if the walk ended there or above.
    pub(super) to: usize,
    /// Whether the walk ended at the position or above it.
    pub(super) ended: bool,
    /// The level where the walk ended, or `open` (the table's depth) if it did not.
    pub(super) end: u8,
}

/// The step of a build breadth first over the heap of prefixes, from position `h`, which
/// holds node `at` and whose walk ended at level `ends` (`open` if it did not): a prefix
/// past a leaf keeps the leaf's node and level, so every position is filled the same
/// way, with selects and no branch on the tree's shape.
#[inline(always)]
pub(super) fn fill_below(h: usize, at: usize, ends: u8, open: u8, son: &[u16; T]) -> Below {
    let first = usize::from(son[at.min(T - 1)]);
    // The root's son is never a leaf; any other node's is where its walk ends.
    let leaf = first >= T && h > 1;
    let reached = ends == open;
    let ended = !reached || leaf;
    let end = if reached && leaf {
        h.ilog2() as u8
    } else {
        ends
    };
    Below {
        to: if ended { at } else { first },
        ended,
        end,
    }
}

#[cfg(test)]
/// A table's entries (up to 128, the rest zero) and the nodes it read.
pub(super) type Snapshot = ([[u16; 8]; 128], [u64; T.div_ceil(64)]);

#[cfg(test)]
/// The [`Snapshot`] of a table of `entries` that read the nodes `read`.
pub(super) fn snapshot(entries: &[Descent], read: [u64; T.div_ceil(64)]) -> Snapshot {
    let mut slots = [[0u16; 8]; 128];
    for (to, from) in slots.iter_mut().zip(entries) {
        *to = from.0;
    }
    (slots, read)
}

#[cfg(test)]
/// The first table's build, by walks over the prefixes, kept to check the others against:
/// the entries of a `bits`-level table for the tree whose `son` this is, and the nodes
/// whose `son` they read.
pub(super) fn build_by_prefix(son: &[u16; T], bits: u32) -> Snapshot {
    let entries: usize = 1 << bits;
    let mut table = [[0u16; 8]; 128];
    let mut read = [0u64; T.div_ceil(64)];
    let mut node = [u16::MAX; 256];
    let mut passed = [0u128; 256];
    node[1] = R as u16;
    for h in 1..2 * entries {
        let depth = h.ilog2();
        let at = node[h];
        if at == u16::MAX {
            continue;
        }
        let first = son.get(usize::from(at)).map_or(T, |&s| usize::from(s));
        if depth == bits || (first >= T && h > 1) {
            let prefix = h - (1 << depth);
            let shift = bits - depth;
            let pads = (depth..bits).fold(0, |v, k| v | (pad(k as usize) as u128) << (16 * k));
            let value = passed[h] | pads | u128::from(depth) << (16 * LEVELS);
            let value = core::array::from_fn(|k| (value >> (16 * k)) as u16);
            table[prefix << shift..(prefix + 1) << shift].fill(value);
            continue;
        }
        let at = usize::from(at);
        read[at >> 6] |= 1 << (at & 63);
        for bit in 0..2 {
            node[2 * h + bit] = (first + bit) as u16;
            passed[2 * h + bit] = passed[h] << 16 | (first + bit) as u128;
        }
    }
    (table, read)
}
