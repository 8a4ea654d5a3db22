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

/// Symbols: 256 literals and the 58 match lengths 3..=60 (`N_CHAR` of `LZHUF.C`).
pub(super) const N_CHAR: usize = 314;
/// Nodes (`T`).
pub(super) const T: usize = 2 * N_CHAR - 1;
/// The root (`R`).
pub(super) const R: usize = T - 1;
/// The root frequency that triggers a rebuild (`MAX_FREQ`).
const MAX_FREQ: u16 = 0x8000;

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

/// The tree: 5020 bytes of `u16` arrays.
#[derive(Debug, Clone)]
pub(super) struct Tree {
    /// Node frequencies, non-decreasing with the node index; `freq[T]` is a `0xFFFF`
    /// sentinel that ends the scans of [`Tree::update`].
    pub(super) freq: [u16; T + 1],
    /// The first child of an internal node (`< T`), or [`leaf`] of the node's symbol.
    pub(super) son: [u16; T],
    /// The parent of node `n` at `prnt[n]`, of the leaf of symbol `s` at
    /// `prnt[leaf(s)]`; `prnt[leaf(s) + 1]` is a spare slot, written and never read.
    pub(super) prnt: [u16; T + 2 * N_CHAR],
}

impl Tree {
    /// `StartHuff`: every symbol with frequency 1, nodes paired in order.
    pub(super) const fn new() -> Tree {
        let mut tree = Tree {
            freq: [0; T + 1],
            son: [0; T],
            prnt: [0; T + 2 * N_CHAR],
        };
        let mut i = 0;
        while i < N_CHAR {
            tree.freq[i] = 1;
            tree.son[i] = leaf(i) as u16;
            tree.prnt[leaf(i)] = i as u16;
            i += 1;
        }
        let (mut i, mut j) = (0, N_CHAR);
        while j <= R {
            tree.freq[j] = tree.freq[i] + tree.freq[i + 1];
            tree.son[j] = i as u16;
            tree.prnt[i] = j as u16;
            tree.prnt[i + 1] = j as u16;
            i += 2;
            j += 1;
        }
        tree.freq[T] = 0xFFFF;
        tree.prnt[R] = 0;
        tree
    }

    /// Counts one more `symbol` (`LZHUF.C`'s `update`), rebuilding first if the root is
    /// at `MAX_FREQ`.
    #[inline]
    pub(super) fn update(&mut self, symbol: usize) {
        if self.freq[R] == MAX_FREQ {
            self.reconstruct();
        }
        self.update_from(usize::from(self.prnt[leaf(symbol)]));
    }

    /// [`update`](Tree::update) for a symbol whose code was just read: `path[..depth]`
    /// are the nodes the descent went through, from the root's son down to the leaf's node
    /// (indices taken mod 64).
    ///
    /// `LZHUF.C` climbs from the leaf through `prnt`, one dependent load per level. Until
    /// the first level that needs a swap, though, the climb goes exactly back up the
    /// descent's path, and the test for a swap at each level reads only values the levels
    /// below have not changed (a node's `c + 1` neighbour is never one of its descendants,
    /// which all sit at lower indices): so those levels are counted straight from the
    /// path, their loads independent of each other, and only from a level that needs a
    /// swap on does the walk go on as `LZHUF.C`'s. The tree comes out the same.
    #[inline(always)]
    pub(super) fn update_path(&mut self, symbol: usize, path: &[u16; 64], depth: usize) {
        if self.freq[R] == MAX_FREQ {
            // The rebuild moves every node: the path no longer holds.
            return self.update(symbol);
        }
        let mut j = depth;
        while j > 0 {
            j -= 1;
            let c = usize::from(path[j & 63]);
            let f = self.freq[c];
            if self.freq[c + 1] == f {
                return self.update_from(c);
            }
            self.freq[c] = f + 1;
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
            let f = self.freq[c];
            let mut l = c;
            // Ends at the root at the latest: freq[T] is the sentinel and the root's count
            // stays below it.
            while self.freq[l + 1] == f {
                l += 1;
            }
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

    /// Exchanges the subtrees under nodes `c` and `l`, fixing the parents of their sons.
    #[inline(always)]
    fn swap(&mut self, c: usize, l: usize) {
        let i = usize::from(self.son[c]);
        let j = usize::from(self.son[l]);
        self.son[c] = j as u16;
        self.son[l] = i as u16;
        // For a leaf the second store goes to its spare slot.
        self.prnt[i] = l as u16;
        self.prnt[i + 1] = l as u16;
        self.prnt[j] = c as u16;
        self.prnt[j + 1] = c as u16;
    }

    /// `reconst`: the leaves gathered at the front in node order with halved (rounded up)
    /// counts, then the internal nodes rebuilt by inserting each pair sum after the last
    /// node not greater than it. The insertion shifts whole elements: `LZHUF.C` writes the
    /// shift as a `memmove` of `2 * (j - k)` bytes, right for its 16-bit `int`s, and ports
    /// that keep those bytes with 32-bit `int`s move only half and corrupt the tree.
    #[cold]
    #[inline(never)]
    pub(super) fn reconstruct(&mut self) {
        let mut j = 0;
        for i in 0..T {
            if usize::from(self.son[i]) >= T {
                self.freq[j] = self.freq[i].div_ceil(2);
                self.son[j] = self.son[i];
                j += 1;
            }
        }
        let mut i = 0;
        for j in N_CHAR..T {
            let f = self.freq[i] + self.freq[i + 1];
            let mut k = j - 1;
            // Stops at i + 1 at the latest, since freq[i + 1] <= f.
            while f < self.freq[k] {
                k -= 1;
            }
            k += 1;
            self.freq.copy_within(k..j, k + 1);
            self.freq[k] = f;
            self.son.copy_within(k..j, k + 1);
            self.son[k] = i as u16;
            i += 2;
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
