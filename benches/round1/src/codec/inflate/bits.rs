//! The careful path's bit buffer: packed bytes go into `bits` (least significant bit
//! first, as RFC 1951 packs them) one at a time and only when the bits at hand do not
//! cover what is read next, so a call can stop between any two bytes and never consumes a
//! byte before it needs a bit of it. The fast loop keeps the same buffer in locals and
//! tops it up a word at a time (`fast.rs`, whose docs say why it stays there).

use super::Inflater;
use super::huffman::{consumed, lookup};

/// Which of the block's tables a code is looked up in.
#[derive(Clone, Copy)]
pub(super) enum Tab {
    /// The literal/length table.
    Lit,
    /// The distance table (or, while a dynamic header is read, the code-length table).
    Dist,
}

impl Inflater {
    /// Takes one more input byte into the bit buffer; `false` when there is none.
    #[inline(always)]
    pub(super) fn pull(&mut self, input: &[u8], ip: &mut usize) -> bool {
        match input.get(*ip) {
            Some(&b) => {
                self.bits |= (b as u64) << self.nbits;
                self.nbits += 8;
                *ip += 1;
                true
            }
            None => false,
        }
    }

    /// Makes sure `n` (at most 56) bits are in the buffer; `false` when input ran out.
    #[inline(always)]
    pub(super) fn need(&mut self, n: u32, input: &[u8], ip: &mut usize) -> bool {
        while self.nbits < n {
            if !self.pull(input, ip) {
                return false;
            }
        }
        true
    }

    /// Drops the `n` bits at the bottom of the buffer, read.
    #[inline(always)]
    pub(super) fn drop_bits(&mut self, n: u32) {
        self.bits >>= n;
        self.nbits -= n;
    }

    /// Peeks a code of `table` with the bits at hand, pulling bytes until its length is
    /// covered: `None` when input ran out first.
    #[inline(always)]
    pub(super) fn peek_code(
        &mut self,
        table: Tab,
        root: u32,
        skip: u32,
        input: &[u8],
        ip: &mut usize,
    ) -> Option<u32> {
        loop {
            let t: &[u32] = match table {
                Tab::Lit => &self.lit,
                Tab::Dist => &self.dist,
            };
            let e = lookup(t, root, self.bits >> skip);
            if consumed(e) + skip <= self.nbits {
                return Some(e);
            }
            if !self.pull(input, ip) {
                return None;
            }
        }
    }
}
