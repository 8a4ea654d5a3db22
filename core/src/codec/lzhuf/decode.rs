//! The careful path: the whole decoding state but the window, taking one packed byte at a
//! time and one bit at a time, so that it can stop at any bit and resume.

use super::tables::D_LEN;
use super::top::{Lookup, Top};
use super::tree::{R, T, Tree, symbol};
use super::{MAX_MATCH, MIN_MATCH, Run, Window, fast};
use crate::codec::XorStream;
use crate::codec::tally::Stop;

/// Where the decoder stands between two bits of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Before a symbol.
    Symbol,
    /// Inside a symbol's code: `node` is `LZHUF.C`'s `c`, the first son of the node the
    /// bits read so far lead to.
    Code { node: u16 },
    /// A match symbol of length `len` was read: its position is next.
    Position { len: u8 },
    /// A match is being copied: `left` bytes from `dist` bytes back.
    Copy { dist: u16, left: u8 },
}

/// The whole decoding state except the window: what the one-shot and streaming forms share.
#[derive(Debug, Clone)]
pub(super) struct Cursor<L = Top> {
    pub(super) tree: Tree<L>,
    /// Bits read but not used, most significant first; the rest of the word is zero.
    pub(super) bits: u64,
    /// How many of `bits` are valid. Between symbols fewer than 8: only the rest of a byte
    /// already consumed is ever held over (the fast loop hands back whole bytes).
    pub(super) nbits: u32,
    pub(super) phase: Phase,
    /// The keystream of method 0xA0, positioned at the next packed byte.
    pub(super) xor: Option<XorStream>,
}

impl<L: Lookup> Cursor<L> {
    /// A cursor before the first symbol, with `top` as the tree's lookup.
    pub(super) const fn new(key: Option<u16>, top: L) -> Cursor<L> {
        Cursor {
            tree: Tree::new(top),
            bits: 0,
            nbits: 0,
            phase: Phase::Symbol,
            xor: match key {
                Some(key) => Some(XorStream::new(key)),
                None => None,
            },
        }
    }

    /// A cursor of zero bytes around `top`: only for a state to be reset before use.
    pub(super) const fn zeroed(top: L) -> Cursor<L> {
        Cursor {
            tree: Tree::zeroed(top),
            bits: 0,
            nbits: 0,
            phase: Phase::Symbol,
            xor: None,
        }
    }

    /// The state [`new`](Cursor::new) gives, written in place (the tree is 5 648 bytes).
    pub(super) fn reset(&mut self, key: Option<u16>, top: L) {
        let Cursor {
            tree,
            bits,
            nbits,
            phase,
            xor,
        } = self;
        tree.reset(top);
        (*bits, *nbits, *phase) = (0, 0, Phase::Symbol);
        *xor = key.map(XorStream::new);
    }

    /// Loads packed bytes (decrypted) until at least `n` bits are held; `false` when
    /// `input` runs out first. Loads no byte it does not need a bit of.
    #[inline(always)]
    fn fill(&mut self, n: u32, input: &[u8], ip: &mut usize) -> bool {
        while self.nbits < n {
            let Some(&byte) = input.get(*ip) else {
                return false;
            };
            *ip += 1;
            let byte = match &mut self.xor {
                Some(xor) => byte ^ xor.next_byte(),
                None => byte,
            };
            self.bits |= u64::from(byte) << (56 - self.nbits);
            self.nbits += 8;
        }
        true
    }

    /// Drops the `n` bits at the top of the buffer.
    #[inline(always)]
    fn consume(&mut self, n: u32) {
        self.bits <<= n;
        self.nbits -= n;
    }

    /// Decodes from `input` into `out[start..]` until `out` is full or `input` runs dry;
    /// `out[..start]` are the bytes decoded just before (matches read them there).
    /// `out[start..]` must not be longer than what is left of the entry. `Run::produced`
    /// counts from `start`.
    pub(super) fn run(
        &mut self,
        input: &[u8],
        out: &mut [u8],
        start: usize,
        window: &Window<'_>,
    ) -> Run {
        let (mut ip, mut op) = (0, start);
        let stop = loop {
            if op == out.len() {
                break Stop::OutputFull;
            }
            match self.phase {
                Phase::Symbol => {
                    if fast::fits(input.len() - ip, out.len() - op) {
                        self.fast(input, &mut ip, out, &mut op, window);
                        if op == out.len() {
                            continue;
                        }
                    }
                    // One symbol the careful way (then the fast loop is tried again): this
                    // always makes progress, even where the fast loop could not.
                    self.phase = Phase::Code {
                        node: self.tree.son[R],
                    };
                }
                Phase::Code { node } => {
                    let Some(c) = self.descend(usize::from(node), input, &mut ip) else {
                        break Stop::InputEmpty;
                    };
                    let sym = symbol(c);
                    self.tree.update(sym);
                    if sym < 256 {
                        out[op] = sym as u8;
                        op += 1;
                        self.phase = Phase::Symbol;
                    } else {
                        self.phase = Phase::Position {
                            len: (sym - 256 + MIN_MATCH) as u8,
                        };
                    }
                }
                Phase::Position { len } => {
                    // The first 8 bits say how many more the position has: ask for no more.
                    if !self.fill(8, input, &mut ip) {
                        break Stop::InputEmpty;
                    }
                    let i = (self.bits >> 56) as usize;
                    let extra = u32::from(D_LEN[i]) - 2;
                    if !self.fill(8 + extra, input, &mut ip) {
                        break Stop::InputEmpty;
                    }
                    let dist = fast::position(self.bits, i, extra) + 1;
                    self.consume(8 + extra);
                    self.phase = Phase::Copy {
                        dist: dist as u16,
                        left: len,
                    };
                }
                Phase::Copy { dist, left } => {
                    let n = usize::from(left).min(out.len() - op);
                    window.copy_match::<MAX_MATCH>(out, op, usize::from(dist), n);
                    op += n;
                    self.phase = match left - n as u8 {
                        0 => Phase::Symbol,
                        left => Phase::Copy { dist, left },
                    };
                }
            }
        };
        Run {
            consumed: ip,
            produced: op - start,
            stop,
        }
    }

    /// Walks the tree from `node` one bit at a time to a leaf and returns its `son` value;
    /// `None` (the place saved in the phase) when `input` runs out first.
    fn descend(&mut self, mut node: usize, input: &[u8], ip: &mut usize) -> Option<usize> {
        while node < T {
            if !self.fill(1, input, ip) {
                self.phase = Phase::Code { node: node as u16 };
                return None;
            }
            node = usize::from(self.tree.son[node + (self.bits >> 63) as usize]);
            self.consume(1);
        }
        Some(node)
    }

    /// Runs the fast loop, decrypting the input blockwise first for method 0xA0.
    fn fast(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        window: &Window<'_>,
    ) {
        let Some(mut xor) = self.xor else {
            return fast::symbols(self, input, ip, out, op, window);
        };
        let mut block = [0u8; fast::XOR_BLOCK];
        while fast::fits(input.len() - *ip, out.len() - *op) {
            let n = (input.len() - *ip).min(fast::XOR_BLOCK);
            let mut ahead = xor;
            ahead.apply_copy(&input[*ip..*ip + n], &mut block);
            let (mut used, before) = (0, *op);
            fast::symbols(self, &block[..n], &mut used, out, op, window);
            // Put the keystream at the first byte not used: `used` steps on.
            if used == n {
                xor = ahead;
            } else {
                xor.apply(&mut block[..used]);
            }
            *ip += used;
            if *op == before {
                // The loop declined the symbol at hand: the careful path takes it.
                break;
            }
        }
        self.xor = Some(xor);
    }
}
