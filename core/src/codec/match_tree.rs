//! The match finder and parse loop of Okumura's `LZSS.C` (1989), which Yoshizaki's
//! `LZHUF.C` (1988) took over: one binary search tree per first byte over the strings of
//! a 4096-byte ring (`InsertNode` / `DeleteNode`), and the loop of `Encode()` that slides
//! the ring and takes, at each position, the longest match the tree walk finds or a
//! literal. Both encoders (`lzss/encode.rs`, `lzhuf/encode.rs`) drive this one and code
//! its units their own way, so each stays byte for byte the C program it follows.
//!
//! What differs between the two is a parameter: `F`, the longest match (18 for LZSS, 60
//! for LZHUF), and `NEAREST`, the tie rule. `LZSS.C` keeps the first longest match the
//! walk meets; `LZHUF.C` also takes, among equally long ones (longer than `THRESHOLD`),
//! the nearest. Everything else is common: the ring of `N = 4096`, matches of at most
//! `THRESHOLD = 2` sent as literals, the prefill (`0x20` in the first `N - F` bytes, zero
//! in the rest, as the C programs' zero-initialised globals are), the trees' layout.
//!
//! Ported statement for statement, with two rewrites that do not change a choice: the
//! comparison loop finds the first differing byte with an iterator, and `LZHUF.C`'s
//! "`if (i > THRESHOLD)`" guard around the longest-match update serves `LZSS.C` too. A
//! match of up to `THRESHOLD` bytes becomes a literal whatever it was, and the first node
//! to reach the longest length is the same whether the shorter ones were counted on the
//! way or not; so `LZSS.C`'s output is unchanged, and its encoder runs 9-14 % fewer
//! instructions without those updates.
//!
//! The tree arrays use `u16` indices (`NIL = N = 4096` fits) and live on the heap, with
//! the ring: about 29 KiB per call.

use alloc::vec;
use alloc::vec::Vec;

/// Size of the ring (`N`).
const N: usize = 4096;
const MASK: usize = N - 1;
/// Matches must be longer than this to be sent as matches (`THRESHOLD`).
pub(crate) const THRESHOLD: usize = 2;
/// The byte the encoders' rings start with (`' '`), in the first `N - F` bytes.
const PREFILL: u8 = 0x20;
/// "Not used" / "no child"; also the index of a scratch slot in `dad` and `lson`.
const NIL: u16 = N as u16;

/// One step of the parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    /// The byte at the current position, sent as is.
    Literal(u8),
    /// `len` bytes (`THRESHOLD < len <= F`) repeated from `dist` back (`1..N`), which is
    /// ring position `offset` (`LZSS.C` sends the position, `LZHUF.C` `dist - 1`).
    Match {
        /// The ring position the match starts at.
        offset: usize,
        /// How far back that is.
        dist: usize,
        /// Its length.
        len: usize,
    },
}

/// Parses `data` as `Encode()` of `LZSS.C` (`F = 18`, `NEAREST = false`) or `LZHUF.C`
/// (`F = 60`, `NEAREST = true`) does, handing each unit to `emit` in order. Nothing is
/// emitted for empty data.
pub(crate) fn parse<const F: usize, const NEAREST: bool>(data: &[u8], mut emit: impl FnMut(Unit)) {
    let mut t = MatchTree::<F, NEAREST>::new();
    let mut input = data.iter().copied();
    let mut s = 0;
    let mut r = N - F;
    t.text[s..r].fill(PREFILL);
    let mut len = 0;
    while len < F {
        let Some(c) = input.next() else { break };
        t.text[r + len] = c;
        len += 1;
    }
    if len == 0 {
        return;
    }
    // The F strings of prefill before the text, then the text's first.
    for i in 1..=F {
        t.insert_node(r - i);
    }
    t.insert_node(r);
    loop {
        if t.match_length > len {
            t.match_length = len;
        }
        if t.match_length <= THRESHOLD {
            t.match_length = 1;
            emit(Unit::Literal(t.text[r]));
        } else {
            let offset = t.match_position;
            emit(Unit::Match {
                offset,
                dist: (r + N - offset) & MASK,
                len: t.match_length,
            });
        }
        let last_match_length = t.match_length;
        let mut i = 0;
        while i < last_match_length {
            let Some(c) = input.next() else { break };
            t.delete_node(s);
            t.text[s] = c;
            if s < F - 1 {
                t.text[s + N] = c;
            }
            s = (s + 1) & MASK;
            r = (r + 1) & MASK;
            t.insert_node(r);
            i += 1;
        }
        // After the end of the text: nothing to read, but the buffer may not be empty.
        while i < last_match_length {
            i += 1;
            t.delete_node(s);
            s = (s + 1) & MASK;
            r = (r + 1) & MASK;
            len -= 1;
            if len != 0 {
                t.insert_node(r);
            }
        }
        if len == 0 {
            break;
        }
    }
}

/// The C programs' globals: the ring (with `F - 1` bytes mirrored past its end for
/// comparing), the 256 binary search trees over its strings, and the last match found.
struct MatchTree<const F: usize, const NEAREST: bool> {
    text: Vec<u8>,
    /// Left children, `N + 1` (slot `N` is scratch for writes through `NIL`).
    lson: Vec<u16>,
    /// Right children; `rson[N + 1 + c]` is the root of the tree of strings starting `c`.
    rson: Vec<u16>,
    /// Parents, `N + 1` (slot `N` is scratch).
    dad: Vec<u16>,
    /// The ring position of the longest match found.
    match_position: usize,
    match_length: usize,
}

impl<const F: usize, const NEAREST: bool> MatchTree<F, NEAREST> {
    fn new() -> Self {
        MatchTree {
            text: vec![0u8; N + F - 1],
            lson: vec![NIL; N + 1],
            rson: vec![NIL; N + 257],
            dad: vec![NIL; N + 1],
            match_position: 0,
            match_length: 0,
        }
    }

    /// `InsertNode(r)`: inserts the string `text[r..r + F]` into its tree and leaves the
    /// longest match in `match_position` / `match_length`. On a match of length `F` the old
    /// node is replaced by the new one (it will be deleted sooner).
    fn insert_node(&mut self, r: usize) {
        let mut cmp: i32 = 1;
        let mut p = N + 1 + usize::from(self.text[r]);
        self.rson[r] = NIL;
        self.lson[r] = NIL;
        self.match_length = 0;
        loop {
            let next = if cmp >= 0 {
                &mut self.rson[p]
            } else {
                &mut self.lson[p]
            };
            if *next == NIL {
                *next = r as u16;
                self.dad[r] = p as u16;
                return;
            }
            p = usize::from(*next);
            // `for (i = 1; i < F; i++) if ((cmp = key[i] - text_buf[p + i]) != 0) break;`
            let (key, old) = (&self.text[r + 1..r + F], &self.text[p + 1..p + F]);
            let i = match key.iter().zip(old).position(|(a, b)| a != b) {
                Some(k) => {
                    cmp = i32::from(key[k]) - i32::from(old[k]);
                    k + 1
                }
                None => {
                    cmp = 0;
                    F
                }
            };
            // Only matches longer than `THRESHOLD` count (`LZHUF.C`; for `LZSS.C`, which
            // counts all, this changes no choice: see the module docs).
            if i <= THRESHOLD {
                continue;
            }
            if i > self.match_length {
                self.match_position = p;
                self.match_length = i;
                if i >= F {
                    break;
                }
            } else if NEAREST
                && i == self.match_length
                && (r + N - p) & MASK < (r + N - self.match_position) & MASK
            {
                self.match_position = p;
            }
        }
        // The string at p equals the new one over all F bytes: r takes p's place.
        let (dad_p, lson_p, rson_p) = (self.dad[p], self.lson[p], self.rson[p]);
        self.dad[r] = dad_p;
        self.lson[r] = lson_p;
        self.rson[r] = rson_p;
        self.dad[usize::from(lson_p)] = r as u16;
        self.dad[usize::from(rson_p)] = r as u16;
        self.relink(usize::from(dad_p), p, r as u16);
        self.dad[p] = NIL;
    }

    /// `DeleteNode(p)`: removes node `p` from its tree, if it is in one.
    fn delete_node(&mut self, p: usize) {
        if self.dad[p] == NIL {
            return;
        }
        let q = if self.rson[p] == NIL {
            self.lson[p]
        } else if self.lson[p] == NIL {
            self.rson[p]
        } else {
            let mut q = self.lson[p];
            if self.rson[usize::from(q)] != NIL {
                while self.rson[usize::from(q)] != NIL {
                    q = self.rson[usize::from(q)];
                }
                let qi = usize::from(q);
                let dad_q = self.dad[qi];
                self.rson[usize::from(dad_q)] = self.lson[qi];
                self.dad[usize::from(self.lson[qi])] = dad_q;
                self.lson[qi] = self.lson[p];
                self.dad[usize::from(self.lson[p])] = q;
            }
            self.rson[usize::from(q)] = self.rson[p];
            self.dad[usize::from(self.rson[p])] = q;
            q
        };
        self.dad[usize::from(q)] = self.dad[p];
        self.relink(usize::from(self.dad[p]), p, q);
        self.dad[p] = NIL;
    }

    /// Makes `child` take `old`'s place under `parent` (a root is always a right child).
    fn relink(&mut self, parent: usize, old: usize, child: u16) {
        if usize::from(self.rson[parent]) == old {
            self.rson[parent] = child;
        } else {
            self.lson[parent] = child;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units<const F: usize, const NEAREST: bool>(data: &[u8]) -> Vec<Unit> {
        let mut out = Vec::new();
        parse::<F, NEAREST>(data, |u| out.push(u));
        out
    }

    /// Replays units as a decoder does (`dist` back in the output, the prefill before
    /// it), checking that each match's ring position is its distance back from `start`.
    fn replay(units: &[Unit], start: usize) -> Vec<u8> {
        let mut out = Vec::new();
        for &unit in units {
            match unit {
                Unit::Literal(b) => out.push(b),
                Unit::Match { offset, dist, len } => {
                    assert!(len > THRESHOLD && (1..N).contains(&dist));
                    assert_eq!((start + out.len() + N - dist) & MASK, offset);
                    for _ in 0..len {
                        let b = out.len().checked_sub(dist).map_or(PREFILL, |at| out[at]);
                        out.push(b);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn units_repeat_the_data() {
        let data = b"   abcabcabcabc, the quick brown fox; the quick brown fox!".repeat(90);
        assert_eq!(replay(&units::<18, false>(&data), N - 18), data);
        assert_eq!(replay(&units::<60, true>(&data), N - 60), data);
    }

    #[test]
    fn nearest_takes_the_closer_of_equal_matches() {
        // The third "xyz" (then '3', above both '1' and '2') walks past the first and the
        // second, each 3 long: LZSS.C keeps the first it met, LZHUF.C the nearest.
        let data = b"xyz1xyz2xyz3";
        let last_match = |list: Vec<Unit>| {
            list.into_iter()
                .filter_map(|u| match u {
                    Unit::Match { dist, len, .. } => Some((dist, len)),
                    Unit::Literal(_) => None,
                })
                .next_back()
        };
        assert_eq!(last_match(units::<18, false>(data)), Some((8, 3)));
        assert_eq!(last_match(units::<60, true>(data)), Some((4, 3)));
        assert!(units::<18, false>(b"").is_empty());
    }
}
