//! The careful path's steps that produce output: a stored block's bytes, one symbol of a
//! Huffman block, the rest of a match. Each takes input a byte at a time and only when the
//! bits at hand do not suffice, and stops (saving its place in the phase) as soon as the
//! input or the output room runs out. A Huffman block tries the fast loop first: these
//! steps run only near the edges of a call's buffers.

use super::bits::Tab;
use super::error::{bad_dist, bad_lit};
use super::huffman::{DIST_ROOT, EOB, LIT_ROOT, LITERAL, consumed, kind, with_extra};
use super::window::Window;
use super::{
    FAST_IN, InflateError, Inflater, MAX_MATCH, NEED_INPUT, NEXT, OUTPUT_FULL, Phase, Step,
};

impl Inflater {
    /// Copies what it can of a stored block's `left` bytes (`base` bytes preceded the
    /// call's output); at the block's end, on to the next.
    pub(super) fn stored(
        &mut self,
        mut left: u16,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        base: u64,
    ) -> Step {
        // Whole bytes still in the bit buffer come first.
        while left > 0 && self.nbits >= 8 && *op < out.len() {
            out[*op] = self.bits as u8;
            *op += 1;
            self.drop_bits(8);
            left -= 1;
        }
        if self.nbits < 8 {
            let n = (left as usize).min(input.len() - *ip).min(out.len() - *op);
            out[*op..*op + n].copy_from_slice(&input[*ip..*ip + n]);
            *op += n;
            *ip += n;
            left -= n as u16;
        }
        self.phase = Phase::Stored { left };
        if left == 0 {
            self.end_block(base + *op as u64)?;
            NEXT
        } else if *op == out.len() {
            OUTPUT_FULL
        } else {
            NEED_INPUT
        }
    }

    /// Copies what the room takes of a match's `left` bytes from `dist` back.
    pub(super) fn copy(
        &mut self,
        left: u16,
        dist: u16,
        out: &mut [u8],
        op: &mut usize,
        window: &Window<'_>,
    ) -> Step {
        let n = (left as usize).min(out.len() - *op);
        window.copy_match::<MAX_MATCH>(out, *op, dist as usize, n);
        *op += n;
        let left = left - n as u16;
        if left == 0 {
            self.phase = Phase::Symbols;
            NEXT
        } else {
            self.phase = Phase::Copy { left, dist };
            OUTPUT_FULL
        }
    }

    /// Inside a Huffman block: the fast loop while it may run, then one symbol the careful
    /// way (then the fast loop is tried again), which always makes progress, even where
    /// the fast loop could not.
    pub(super) fn symbols(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        window: &Window<'_>,
        base: u64,
    ) -> Step {
        if input.len() - *ip >= FAST_IN {
            if window.ring.is_some() {
                self.fast::<true>(input, ip, out, op, window, base)?;
            } else {
                self.fast::<false>(input, ip, out, op, window, base)?;
            }
            if self.phase != Phase::Symbols {
                return NEXT;
            }
        }
        self.symbol(input, ip, out, op, base + *op as u64)
    }

    /// One literal, end-of-block or match header (the match is then copied by
    /// [`copy`](Inflater::copy)), `produced` bytes into the stream.
    fn symbol(
        &mut self,
        input: &[u8],
        ip: &mut usize,
        out: &mut [u8],
        op: &mut usize,
        produced: u64,
    ) -> Step {
        let Some(e) = self.peek_code(Tab::Lit, LIT_ROOT, 0, input, ip) else {
            return NEED_INPUT;
        };
        if e & LITERAL != 0 {
            if produced == self.tally.expected() {
                self.drop_bits(consumed(e));
                return Err(InflateError::TooMuchOutput);
            }
            if *op == out.len() {
                return OUTPUT_FULL;
            }
            out[*op] = (e >> 16) as u8;
            *op += 1;
            self.drop_bits(consumed(e));
        } else if kind(e) == EOB {
            self.drop_bits(consumed(e));
            self.end_block(produced)?;
        } else if kind(e) == 0 {
            return self.match_header(e, input, ip, produced);
        } else {
            self.drop_bits(consumed(e));
            return Err(bad_lit(e));
        }
        NEXT
    }

    /// A match whose length entry is `e`: its length and distance, checked against the
    /// bytes produced so far and the size, then the copy's phase.
    fn match_header(&mut self, e: u32, input: &[u8], ip: &mut usize, produced: u64) -> Step {
        // `peek_code` made sure the extra bits are at hand too.
        let mlen = with_extra(e, self.bits);
        let skip = consumed(e);
        let Some(d) = self.peek_code(Tab::Dist, DIST_ROOT, skip, input, ip) else {
            return NEED_INPUT;
        };
        let dist = with_extra(d, self.bits >> skip);
        self.drop_bits(skip + consumed(d));
        if kind(d) != 0 {
            return Err(bad_dist(d));
        }
        if dist as u64 > produced {
            return Err(InflateError::DistanceTooFar {
                distance: dist as u16,
                available: produced as u16,
            });
        }
        if produced + mlen as u64 > self.tally.expected() {
            return Err(InflateError::TooMuchOutput);
        }
        self.phase = Phase::Copy {
            left: mlen as u16,
            dist: dist as u16,
        };
        NEXT
    }
}
