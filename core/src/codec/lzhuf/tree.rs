//! The adaptive Huffman tree of `LZHUF.C` (SPEC 3.2): 314 leaves, 627 nodes, frequencies
//! kept in non-decreasing node order (the sibling property), rebuilt with halved counts when
//! the root reaches `0x8000`.
//!
//! Node `n`'s children are the pair `son[n]`, `son[n] + 1`, or `n` is a leaf and `son[n]`
//! names its symbol. Two representation choices differ from `LZHUF.C`, neither of them
//! visible in the bits:
//! * a leaf is stored as `T + 2 * symbol` (not `T + symbol`), so the `prnt` slot after a
//!   leaf's is a spare one, and the "fix the parent of both sons" step of [`Tree::update`]
//!   and of the rebuild can write two slots unconditionally instead of branching on "is it
//!   a leaf";
//! * the update is `LZHUF.C`'s with its swap written as what it amounts to, and the fast
//!   path climbs the levels below the first swap along the path its descent recorded
//!   instead of through `prnt` (see [`Tree::update_path`]).

use super::top::{Lookup, Top};

/// Symbols: 256 literals and the 58 match lengths 3..=60 (`N_CHAR` of `LZHUF.C`).
pub(super) const N_CHAR: usize = 314;
/// Nodes (`T`).
pub(super) const T: usize = 2 * N_CHAR - 1;
/// The root (`R`).
pub(super) const R: usize = T - 1;
/// The root frequency that triggers a rebuild (`MAX_FREQ`).
const MAX_FREQ: u16 = 0x8000;
/// Nodes that are none of the tree's, [`pad`]`(0)` to `pad(PADS - 1)`: the fast loop
/// pads the fixed-length parts of a descent shorter than them with these, so that the
/// update counts a fixed number of nodes there, with no branch on the code's length.
/// Each has a count of its own (`freq[pad(k)]`, with a `0xFFFF` neighbour it never
/// reaches: a pad is counted at most once per symbol, and the counts are zeroed at every
/// rebuild, which the root, counted once per symbol, triggers within `MAX_FREQ`
/// symbols), so counting one never needs a swap, no scan reads it, and no chain of
/// counts through one memory slot forms (one slot for all, counted up to seven times a
/// symbol, would also overflow). As many as the deepest lookup's levels (each lookup
/// asserts it).
pub(super) const PADS: usize = 7;

/// The `k`th pad node.
#[inline(always)]
pub(super) const fn pad(k: usize) -> usize {
    T + 1 + 2 * k
}

/// Counts: the nodes', the `0xFFFF` sentinel at `T`, then each pad's and a `0xFFFF`.
const FREQ_LEN: usize = T + 1 + 2 * PADS;

/// The `son` value of the leaf of `symbol`.
#[inline(always)]
pub(super) const fn leaf(symbol: usize) -> usize {
    T + 2 * symbol
}

/// The symbol of a leaf's `son` value (`son >= T`).
#[inline(always)]
pub(super) const fn symbol(son: usize) -> usize {
    (son - T) >> 1
}

/// The tree: 5048 bytes of `u16` arrays and a lookup over its top levels (the 600-byte
/// [`Top`] unless said).
#[derive(Debug, Clone)]
pub(super) struct Tree<L = Top> {
    /// Node frequencies, non-decreasing with the node index; then `freq[T]`, a `0xFFFF`
    /// sentinel that ends the scans of [`Tree::update`] (which read eight counts at a
    /// time, up to `freq[T + 7]`, past it but never past a lane that differs), and the
    /// [`pad`] nodes' counts.
    pub(super) freq: [u16; FREQ_LEN],
    /// The first child of an internal node (`< T`), or [`leaf`] of the node's symbol.
    pub(super) son: [u16; T],
    /// The parent of node `n` at `prnt[n]`, of the leaf of symbol `s` at
    /// `prnt[leaf(s)]`; `prnt[leaf(s) + 1]` is a spare slot, written and never read.
    pub(super) prnt: [u16; T + 2 * N_CHAR],
    /// The fast loop's lookup over the top levels, told of every node a swap moves.
    pub(super) top: L,
}

/// A tree's arrays as `StartHuff` leaves them: `freq`, `son` and `prnt`.
type Start = ([u16; FREQ_LEN], [u16; T], [u16; T + 2 * N_CHAR]);

/// The counts past the nodes: `0xFFFF`, and each pad's zero before a `0xFFFF`.
const SENTINELS: [u16; FREQ_LEN] = {
    let mut freq = [0xFFFF; FREQ_LEN];
    let mut k = 0;
    while k < PADS {
        freq[pad(k)] = 0;
        k += 1;
    }
    freq
};

impl<L: Lookup> Tree<L> {
    /// `StartHuff`: every symbol with frequency 1, nodes paired in order; `top` a lookup
    /// to be built before its first use.
    pub(super) const fn new(top: L) -> Tree<L> {
        let (freq, son, prnt) = Self::START;
        Tree {
            freq,
            son,
            prnt,
            top,
        }
    }

    /// A tree of zero bytes around `top`: only for a state to be reset before use.
    pub(super) const fn zeroed(top: L) -> Tree<L> {
        Tree {
            freq: [0; FREQ_LEN],
            son: [0; T],
            prnt: [0; T + 2 * N_CHAR],
            top,
        }
    }

    /// [`new`](Tree::new)'s tree, written in place: each array is copied from its
    /// constant where it goes.
    pub(super) fn reset(&mut self, top: L) {
        let Tree {
            freq,
            son,
            prnt,
            top: lookup,
        } = self;
        *freq = Self::START_FREQ;
        *son = Self::START_SON;
        *prnt = Self::START_PRNT;
        *lookup = top;
    }

    const START_FREQ: [u16; FREQ_LEN] = Self::START.0;
    const START_SON: [u16; T] = Self::START.1;
    const START_PRNT: [u16; T + 2 * N_CHAR] = Self::START.2;

    const START: Start = {
        let mut freq = SENTINELS;
        let mut son = [0; T];
        let mut prnt = [0; T + 2 * N_CHAR];
        let mut i = 0;
        while i < N_CHAR {
            freq[i] = 1;
            son[i] = leaf(i) as u16;
            prnt[leaf(i)] = i as u16;
            i += 1;
        }
        let (mut i, mut j) = (0, N_CHAR);
        while j <= R {
            freq[j] = freq[i] + freq[i + 1];
            son[j] = i as u16;
            prnt[i] = j as u16;
            prnt[i + 1] = j as u16;
            i += 2;
            j += 1;
        }
        prnt[R] = 0;
        (freq, son, prnt)
    };

    /// Counts one more `symbol` (`LZHUF.C`'s `update`), rebuilding first if the root is
    /// at `MAX_FREQ`.
    #[inline]
    pub(super) fn update(&mut self, symbol: usize) {
        if self.freq[R] == MAX_FREQ {
            self.reconstruct();
        }
        self.update_from(usize::from(self.prnt[leaf(symbol)]));
    }

    /// [`update`](Tree::update) for a symbol whose code was just read: the descent went
    /// through the nodes of the lookup's entry `top`, if any, then through
    /// `path[levels..depth]` (indices taken mod 64, `levels` the entry's), down to the
    /// leaf's node.
    ///
    /// `LZHUF.C` climbs from the leaf through `prnt`, one dependent load per level. Until
    /// the first level that needs a swap, though, the climb goes exactly back up the
    /// descent's path, and the test for a swap at each level reads only values the levels
    /// below have not changed (a node's `c + 1` neighbour is never one of its descendants,
    /// which all sit at lower indices): so those levels are counted straight from the
    /// path, their loads independent of each other, and only from a level that needs a
    /// swap on does the walk go on as `LZHUF.C`'s. The tree comes out the same. The
    /// entry's nodes are always as many as the lookup's levels, the last of them [`pad`]
    /// nodes where the code ended sooner: counted like the others, they never need a
    /// swap.
    #[inline(always)]
    pub(super) fn update_path(
        &mut self,
        symbol: usize,
        top: Option<usize>,
        path: &[u16; 64],
        depth: usize,
    ) {
        if self.freq[R] == MAX_FREQ {
            // The rebuild moves every node: the path no longer holds.
            return self.update(symbol);
        }
        let levels = top.map_or(0, |index| self.top.descend(index).levels() as usize);
        let mut j = depth;
        let mut stop = None;
        while j > levels {
            j -= 1;
            let c = usize::from(path[j & 63]);
            if !count_alone(&mut self.freq, c) {
                stop = Some(c);
                break;
            }
        }
        if let (None, Some(index)) = (stop, top) {
            // A fixed count of nodes, the descent's padded with `pad` nodes.
            for &c in self.top.descend(index).nodes(L::BITS) {
                let c = usize::from(c);
                if !count_alone(&mut self.freq, c) {
                    stop = Some(c);
                    break;
                }
            }
        }
        if let Some(c) = stop {
            return self.update_from(c);
        }
        // The root: its neighbour is the sentinel, so it never swaps.
        self.freq[R] += 1;
    }

    /// `LZHUF.C`'s climb from node `c` to the root.
    ///
    /// `LZHUF.C` increments `freq[c]` to `k` and, if that breaks the order, finds the last
    /// node `l` with `freq[l] < k`, swaps the two frequencies and the two subtrees and goes
    /// on from `l`. Since the order held before the increment, every node `c + 1 ..= l` had
    /// exactly the old `freq[c]`: the swap leaves `freq[c]` as it was and gives `l` the new
    /// count. So this walk looks for the last node of `c`'s frequency, swaps the subtrees if
    /// that is not `c` itself, and increments that node only: the same tree, one store and
    /// one comparison fewer per level.
    fn update_from(&mut self, mut c: usize) {
        loop {
            // Always true (every node is below `T`): tested, it lets the reads of `freq`
            // here and in `last_of` go unchecked.
            if c >= T {
                break;
            }
            let f = self.freq[c];
            let l = self.last_of(c, f);
            self.freq[l] = f + 1;
            if l != c {
                self.swap(c, l);
            }
            c = usize::from(self.prnt[l]);
            // prnt[R] == 0, and node 0 is never a parent.
            if c == 0 {
                break;
            }
        }
    }

    /// The last node of the run of nodes from `c` on whose count is `f` (`freq[c]`).
    ///
    /// The counts are non-decreasing, so the run ends at the first greater count. Most
    /// often `c` is alone (no swap); otherwise the run is looked for eight counts at a
    /// time, as the lowest 16-bit lane of two words that differs from `f`. Runs that need
    /// a swap are of every length, and on binary data, with many rare symbols of equal
    /// counts, often long: one count per step cost a sixth of that row's instructions
    /// (callgrind, `benches/examples/callgrind.rs`), and four per step still ended on a
    /// branch the runs' varying length made mispredicted in two scans of five on binary
    /// (callgrind's branch simulation); eight per step end most in the first.
    #[inline(always)]
    fn last_of(&self, c: usize, f: u16) -> usize {
        if self.freq[c + 1] != f {
            return c;
        }
        let lanes = u128::from(f) * 0x0001_0001_0001_0001_0001_0001_0001_0001;
        let mut l = c + 1;
        loop {
            // Two words of four counts (each read as one load), the first lowest.
            let word = |at: usize| {
                self.freq[at..at + 4]
                    .iter()
                    .rev()
                    .fold(0u64, |w, &n| w << 16 | u64::from(n))
            };
            let w = u128::from(word(l + 5)) << 64 | u128::from(word(l + 1));
            let differ = w ^ lanes;
            if differ != 0 {
                return l + (differ.trailing_zeros() / 16) as usize;
            }
            l += 8;
        }
    }

    /// Exchanges the subtrees under nodes `c` and `l`, fixing the parents of their sons.
    #[inline(always)]
    fn swap(&mut self, c: usize, l: usize) {
        let i = usize::from(self.son[c]);
        let j = usize::from(self.son[l]);
        self.top.swapped(c, l, i >= T && j >= T);
        self.son[c] = j as u16;
        self.son[l] = i as u16;
        // For a leaf the second store goes to its spare slot. Each pair is stored under
        // one bounds test (`son` values are always below `prnt.len() - 1`).
        for (first, parent) in [(i, l), (j, c)] {
            if let Some(pair) = self.prnt.get_mut(first..first + 2) {
                pair.fill(parent as u16);
            }
        }
    }

    /// `reconst`: the leaves gathered at the front in node order with halved (rounded up)
    /// counts, then the internal nodes rebuilt by inserting each pair sum after the last
    /// node not greater than it. `LZHUF.C` writes the insertion as a backward scan and a
    /// `memmove` of `2 * (j - k)` bytes, right for its 16-bit `int`s (ports that keep those
    /// bytes with 32-bit `int`s move only half and corrupt the tree).
    ///
    /// That is O(T²), about 4 % of all the instructions of decoding text; this builds the
    /// same order in one merge. The pairs are taken from the front,
    /// two nodes at a time, so their sums come in non-decreasing order, and each goes after
    /// every node not greater than it: so the finished order is the leaves and the sums,
    /// each already sorted, merged with a leaf first where a leaf and a sum are equal (every
    /// leaf was there before any sum), and sums in the order they were made. A pair's two
    /// nodes are always ahead of where the merge has got to when the pair is summed, which
    /// is all the merge needs to know of them.
    #[cold]
    #[inline(never)]
    pub(super) fn reconstruct(&mut self) {
        self.top.invalidate();
        // The pads' counts back to zero (and the sentinels as they always are).
        self.freq[T..].copy_from_slice(&SENTINELS[T..]);
        let mut leaf_freq = [0u16; N_CHAR];
        let mut leaf_son = [0u16; N_CHAR];
        let leaves = (0..T).filter(|&i| usize::from(self.son[i]) >= T);
        for (n, i) in leaves.take(N_CHAR).enumerate() {
            leaf_freq[n] = self.freq[i].div_ceil(2);
            leaf_son[n] = self.son[i];
        }
        // The counts of the sums made so far; sum `n`'s first son is node `2 * n`.
        let mut sum_freq = [0u16; N_CHAR - 1];
        let (mut next_leaf, mut next_sum, mut made) = (0, 0, 0);
        for at in 0..T {
            if at >= 2 && at % 2 == 0 && made < N_CHAR - 1 {
                // Nodes `at - 2` and `at - 1` are placed: their sum is the next one made.
                sum_freq[made] = self.freq[at - 2] + self.freq[at - 1];
                made += 1;
            }
            let leaf_first = next_leaf < N_CHAR
                && (next_sum == made || leaf_freq[next_leaf] <= sum_freq[next_sum]);
            if leaf_first {
                self.freq[at] = leaf_freq[next_leaf];
                self.son[at] = leaf_son[next_leaf];
                next_leaf += 1;
            } else {
                self.freq[at] = sum_freq[next_sum % (N_CHAR - 1)];
                self.son[at] = (2 * next_sum) as u16;
                next_sum += 1;
            }
        }
        for i in 0..T {
            let k = usize::from(self.son[i]);
            self.prnt[k] = i as u16;
            self.prnt[k + 1] = i as u16;
        }
    }

    #[cfg(any(feature = "alloc", test))]
    /// The code of `symbol` (`EncodeChar`'s walk from the leaf to the root): its bit count
    /// and its bits, the first to send in the highest of them. At most 64 bits: the tree's
    /// depth is bounded by the counts (a node `d` levels down holds at most about
    /// `0x8000 / 1.618^d`), far below that.
    pub(super) fn code(&self, symbol: usize) -> (u32, u64) {
        let (mut len, mut bits) = (0u32, 0u64);
        let mut k = usize::from(self.prnt[leaf(symbol)]);
        loop {
            // An odd node is the second son: bit 1.
            bits |= ((k & 1) as u64) << (len & 63);
            len += 1;
            k = usize::from(self.prnt[k]);
            if k == R {
                break;
            }
        }
        (len, bits)
    }
}

/// Counts node `c` of the descent's path one more, unless the count would break the
/// order (its neighbour holds the same count): then `false`, and nothing is changed.
#[inline(always)]
fn count_alone(freq: &mut [u16; FREQ_LEN], c: usize) -> bool {
    // One bounds test for the pair, where indexing each would make two.
    if c + 1 >= freq.len() {
        return false;
    }
    let f = freq[c];
    if freq[c + 1] == f {
        return false;
    }
    freq[c] = f + 1;
    true
}

#[cfg(test)]
mod tests {
    use super::super::deep::DeepTop;
    use super::super::top::{Top, build_by_prefix};
    use super::*;

    /// `LZHUF.C`'s tree as written: `T + symbol` leaves, the increment-then-swap update,
    /// and the rebuild with whole-element shifts. `half_move` reproduces the 32-bit-`int`
    /// port bug: the shifts move only half the elements.
    struct Reference {
        freq: [u32; T + 1],
        son: [usize; T],
        prnt: [usize; T + N_CHAR],
        half_move: bool,
    }

    impl Reference {
        fn new(half_move: bool) -> Self {
            let mut r = Reference {
                freq: [0; T + 1],
                son: [0; T],
                prnt: [0; T + N_CHAR],
                half_move,
            };
            for i in 0..N_CHAR {
                r.freq[i] = 1;
                r.son[i] = i + T;
                r.prnt[i + T] = i;
            }
            let (mut i, mut j) = (0, N_CHAR);
            while j <= R {
                r.freq[j] = r.freq[i] + r.freq[i + 1];
                r.son[j] = i;
                r.prnt[i] = j;
                r.prnt[i + 1] = j;
                i += 2;
                j += 1;
            }
            r.freq[T] = 0xFFFF;
            r.prnt[R] = 0;
            r
        }

        fn reconst(&mut self) {
            let mut j = 0;
            for i in 0..T {
                if self.son[i] >= T {
                    self.freq[j] = self.freq[i].div_ceil(2);
                    self.son[j] = self.son[i];
                    j += 1;
                }
            }
            let mut i = 0;
            let mut j = N_CHAR;
            while j < T {
                let f = self.freq[i] + self.freq[i + 1];
                self.freq[j] = f;
                let mut k = j - 1;
                while f < self.freq[k] {
                    k -= 1;
                }
                k += 1;
                let moved = if self.half_move {
                    (j - k).div_ceil(2)
                } else {
                    j - k
                };
                self.freq.copy_within(k..k + moved, k + 1);
                self.freq[k] = f;
                self.son.copy_within(k..k + moved, k + 1);
                self.son[k] = i;
                i += 2;
                j += 1;
            }
            for i in 0..T {
                let k = self.son[i];
                if k >= T {
                    self.prnt[k] = i;
                } else {
                    self.prnt[k] = i;
                    self.prnt[k + 1] = i;
                }
            }
        }

        fn update(&mut self, c: usize) {
            if self.freq[R] == u32::from(MAX_FREQ) {
                self.reconst();
            }
            let mut c = self.prnt[c + T];
            loop {
                self.freq[c] += 1;
                let k = self.freq[c];
                let mut l = c + 1;
                if k > self.freq[l] {
                    l += 1;
                    while k > self.freq[l] {
                        l += 1;
                    }
                    l -= 1;
                    self.freq[c] = self.freq[l];
                    self.freq[l] = k;
                    let i = self.son[c];
                    self.prnt[i] = l;
                    if i < T {
                        self.prnt[i + 1] = l;
                    }
                    let j = self.son[l];
                    self.son[l] = i;
                    self.prnt[j] = c;
                    if j < T {
                        self.prnt[j + 1] = c;
                    }
                    self.son[c] = j;
                    c = l;
                }
                c = self.prnt[c];
                if c == 0 {
                    break;
                }
            }
        }

        fn same_as<L>(&self, tree: &Tree<L>) -> bool {
            (0..=T).all(|n| self.freq[n] == u32::from(tree.freq[n]))
                && (0..T).all(|n| {
                    let s = self.son[n];
                    let ours = usize::from(tree.son[n]);
                    if s >= T {
                        ours == leaf(s - T)
                    } else {
                        ours == s
                    }
                })
        }
    }

    /// Symbols skewed like real data (many literals, a few frequent ones, some lengths).
    fn symbols(seed: u64, count: usize) -> impl Iterator<Item = usize> {
        let mut x = seed | 1;
        (0..count).map(move |_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            match x % 8 {
                0..=3 => (x >> 8) as usize % 16 + 97,
                4 | 5 => (x >> 8) as usize % N_CHAR,
                _ => 256 + (x >> 8) as usize % 6,
            }
        })
    }

    /// The fast loop's update of `tree` for symbol `s`, along the path its code leads
    /// down, the first levels from the top lookup if `through_top`, as the loop takes
    /// them, checking what the lookup says on the way.
    fn update_as_the_fast_loop<L: Lookup>(ours: &mut Tree<L>, s: usize, through_top: bool) {
        let top_bits = L::BITS;
        let (len, bits) = ours.code(s);
        let mut top = None;
        let mut levels = 0;
        let mut c = usize::from(ours.son[R]);
        if through_top {
            if ours.top.stale() {
                ours.top.refresh(&ours.son);
            }
            let index = if len >= top_bits {
                bits >> (len - top_bits)
            } else {
                bits << (top_bits - len)
            } as usize;
            let descent = ours.top.descend(index);
            levels = descent.levels();
            let nodes = descent.nodes(top_bits);
            assert_eq!(nodes.len(), top_bits as usize);
            assert!((1..=top_bits).contains(&levels));
            assert_eq!(descent.last(), usize::from(nodes[0]));
            for (k, &node) in nodes.iter().enumerate().skip(levels as usize) {
                assert_eq!(usize::from(node), pad(k));
            }
            for d in 0..levels as usize {
                let want = c + ((bits >> (len - 1 - d as u32)) & 1) as usize;
                let node = usize::from(nodes[levels as usize - 1 - d]);
                assert_eq!(node, want, "level {d}");
                c = usize::from(ours.son[want]);
            }
            top = Some(index);
        }
        let mut path = [0u16; 64];
        for d in levels..len {
            let p = c + ((bits >> (len - 1 - d)) & 1) as usize;
            path[d as usize] = p as u16;
            c = usize::from(ours.son[p]);
        }
        assert_eq!(c, leaf(s));
        ours.update_path(s, top, &path, len as usize);
    }

    #[test]
    fn the_top_lookups_are_built_as_the_walk_by_prefix_built_them() {
        // Trees of every shape the updates make, rebuilds included, and a one-symbol run
        // whose codes of 1 or 2 bits end most walks above the lookup's depth.
        let one = |n: usize| if n % 40 == 0 { 300 } else { 97 };
        let runs: [&mut dyn Iterator<Item = usize>; 3] = [
            &mut symbols(7, 200_000),
            &mut symbols(11, 50_000).map(|s| s % 40),
            &mut (0..50_000).map(one),
        ];
        for run in runs {
            let mut tree = Tree::new(DeepTop::new());
            for (n, s) in run.enumerate() {
                tree.update(s);
                // The deep lookup kept up in parts after one to three symbols' swaps (the
                // fast loop keeps it up after each).
                if n % 3 == 0 {
                    tree.top.refresh(&tree.son);
                }
                if n % 97 == 0 {
                    tree.top.refresh(&tree.son);
                    let want = build_by_prefix(&tree.son, DeepTop::BITS);
                    let kept = tree.top.snapshot(&tree.son);
                    assert_eq!(kept, want, "deep, kept up, after symbol {n}");
                    let mut whole = DeepTop::new();
                    whole.refresh(&tree.son);
                    assert_eq!(whole.snapshot(&tree.son), want, "deep, after symbol {n}");
                    let mut top = Top::new();
                    top.build(&tree.son);
                    let want = build_by_prefix(&tree.son, Top::BITS);
                    assert_eq!(top.snapshot(), want, "after symbol {n}");
                }
            }
        }
    }

    #[test]
    fn a_run_of_one_symbol_through_the_top_lookup_matches_lzhuf_c() {
        one_symbol_run(Tree::new(Top::new()));
        one_symbol_run(Tree::new(DeepTop::new()));
    }

    fn one_symbol_run<L: Lookup>(mut ours: Tree<L>) {
        // Codes of 1 or 2 bits: 3 or 4 of the lookup's 5 slots (5 or 6 of the deep one's
        // 7) are pads, counted on every symbol, for 32 K symbols before the first rebuild
        // and 16 K between the next ones. (One pad slot for all would overflow its count
        // in the first stretch.)
        let mut reference = Reference::new(false);
        for n in 0..120_000 {
            let s = match n % 40 {
                0 => 300,
                1 | 2 => 98,
                _ => 97,
            };
            update_as_the_fast_loop(&mut ours, s, true);
            reference.update(s);
            if n % 64 == 0 || ours.freq[R] < 0x4200 {
                assert!(reference.same_as(&ours), "trees differ after symbol {n}");
            }
        }
        assert!(reference.same_as(&ours));
        assert!(ours.code(97).0 <= 2);
    }

    #[test]
    fn update_and_rebuild_match_lzhuf_c_through_many_rebuilds() {
        many_rebuilds(Tree::new(Top::new()));
        many_rebuilds(Tree::new(DeepTop::new()));
    }

    fn many_rebuilds<L: Lookup>(mut ours: Tree<L>) {
        let mut reference = Reference::new(false);
        assert!(reference.same_as(&ours));
        let mut rebuilds = 0;
        for (n, s) in symbols(7, 200_000).enumerate() {
            if ours.freq[R] == MAX_FREQ {
                rebuilds += 1;
            }
            if n % 3 == 0 {
                ours.update(s);
            } else {
                // The fast path's update, along the path the symbol's code leads down:
                // every other time its first levels from the top table, as the fast
                // loop takes them.
                update_as_the_fast_loop(&mut ours, s, n % 3 == 2);
            }
            reference.update(s);
            // Once apart, trees stay apart: a look every 64 symbols and at every rebuild
            // keeps the test quick in debug builds.
            if n % 64 == 0 || ours.freq[R] < 0x4200 {
                assert!(reference.same_as(&ours), "trees differ after symbol {n}");
            }
            if n % 997 == 0 {
                // Every symbol's code from the leaf walk descends back to that leaf.
                for sym in [0, 32, 97, 255, 256, 313] {
                    let (len, bits) = ours.code(sym);
                    let mut c = usize::from(ours.son[R]);
                    for d in (0..len).rev() {
                        assert!(c < T);
                        c = usize::from(ours.son[c + ((bits >> d) & 1) as usize]);
                    }
                    assert_eq!(c, leaf(sym));
                }
            }
        }
        assert!(rebuilds >= 5, "only {rebuilds} rebuilds");
    }

    #[test]
    fn the_half_move_port_bug_changes_the_tree_after_the_first_rebuild() {
        let mut right = Reference::new(false);
        let mut wrong = Reference::new(true);
        let mut first_difference = None;
        for (n, s) in symbols(11, 40_000).enumerate() {
            right.update(s);
            wrong.update(s);
            if first_difference.is_none() && (right.freq != wrong.freq || right.son != wrong.son) {
                first_difference = Some(n);
            }
        }
        // The first rebuild comes when the root reaches 0x8000, about 32 K symbols in.
        let n = first_difference.expect("the bug went unnoticed");
        assert!(n > 32_000, "differed at {n}");
    }
}
