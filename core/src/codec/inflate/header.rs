//! The careful path's block headers: the 3 header bits, a stored block's `LEN`/`NLEN`, the
//! fixed tables, and a dynamic block's counts, code-length code and code lengths, each
//! read so that a call can stop between any two bytes and resume there (RFC 1951 3.2).

use super::bits::Tab;
use super::huffman::{CL_ROOT, DIST_ROOT, LIT_ROOT, build, consumed, value};
use super::{CodeTable, FIXED_TABLES, InflateError, Inflater, NEED_INPUT, NEXT, Phase, Step};

/// The order a dynamic header lists the code-length code's lengths in.
const CL_ORDER: [u8; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

impl Inflater {
    /// `BFINAL` and `BTYPE`: on to the block's own header or, for a fixed block, its
    /// symbols.
    pub(super) fn header(&mut self, input: &[u8], ip: &mut usize) -> Step {
        if !self.need(3, input, ip) {
            return NEED_INPUT;
        }
        self.last = self.bits & 1 != 0;
        let kind = (self.bits >> 1) & 3;
        self.drop_bits(3);
        self.phase = match kind {
            0 => {
                let align = self.nbits % 8;
                self.drop_bits(align);
                Phase::StoredLen
            }
            1 => {
                // Empty fixed blocks are 10 bits that produce nothing: built per block,
                // a stream of them took hundreds of times zlib's time, with no output
                // for a decode limit to count.
                if self.hclen != FIXED_TABLES {
                    self.fixed_tables()?;
                    self.hclen = FIXED_TABLES;
                }
                Phase::Symbols
            }
            2 => Phase::DynHeader,
            _ => return Err(InflateError::ReservedBlockType),
        };
        NEXT
    }

    /// The tables of a fixed-Huffman block (RFC 1951 3.2.6).
    fn fixed_tables(&mut self) -> Result<(), InflateError> {
        let mut l = [0u8; 320];
        l[..144].fill(8);
        l[144..256].fill(9);
        l[256..280].fill(7);
        l[280..288].fill(8);
        build(&l[..288], &mut self.lit, LIT_ROOT, CodeTable::Literals)?;
        l[..32].fill(5);
        build(&l[..32], &mut self.dist, DIST_ROOT, CodeTable::Distances)
    }

    /// A stored block's `LEN` and `NLEN`, `produced` bytes into the stream.
    pub(super) fn stored_len(&mut self, input: &[u8], ip: &mut usize, produced: u64) -> Step {
        if !self.need(32, input, ip) {
            return NEED_INPUT;
        }
        let len = self.bits as u16;
        let nlen = (self.bits >> 16) as u16;
        // Faults are located after the bits that show them (see `finish`).
        self.drop_bits(32);
        if len != !nlen {
            return Err(InflateError::StoredLengthMismatch { len, nlen });
        }
        if produced + len as u64 > self.tally.expected() {
            return Err(InflateError::TooMuchOutput);
        }
        self.phase = Phase::Stored { left: len };
        NEXT
    }

    /// `HLIT`, `HDIST` and `HCLEN` of a dynamic block.
    pub(super) fn dyn_header(&mut self, input: &[u8], ip: &mut usize) -> Step {
        if !self.need(14, input, ip) {
            return NEED_INPUT;
        }
        self.hlit = (self.bits & 31) as u16 + 257;
        self.hdist = ((self.bits >> 5) & 31) as u16 + 1;
        self.hclen = ((self.bits >> 10) & 15) as u8 + 4;
        self.drop_bits(14);
        if self.hlit > 286 {
            return Err(InflateError::TooManyLengthCodes { hlit: self.hlit });
        }
        if self.hdist > 30 {
            return Err(InflateError::TooManyDistanceCodes { hdist: self.hdist });
        }
        self.lens[..19].fill(0);
        self.phase = Phase::CodeLens { i: 0 };
        NEXT
    }

    /// The code-length code's lengths, `i` of them read; then its table (held in the
    /// distance table while the lengths are read).
    pub(super) fn code_lens(&mut self, mut i: u8, input: &[u8], ip: &mut usize) -> Step {
        while i < self.hclen {
            if !self.need(3, input, ip) {
                self.phase = Phase::CodeLens { i };
                return NEED_INPUT;
            }
            self.lens[CL_ORDER[i as usize] as usize] = (self.bits & 7) as u8;
            self.drop_bits(3);
            i += 1;
        }
        build(
            &self.lens[..19],
            &mut self.dist,
            CL_ROOT,
            CodeTable::CodeLengths,
        )?;
        self.phase = Phase::Lens { i: 0 };
        NEXT
    }

    /// The literal/length and distance code lengths, `i` of them read; then their tables.
    pub(super) fn lens(&mut self, mut i: u16, input: &[u8], ip: &mut usize) -> Step {
        let total = self.hlit + self.hdist;
        while i < total {
            let Some(e) = self.peek_code(Tab::Dist, CL_ROOT, 0, input, ip) else {
                self.phase = Phase::Lens { i };
                return NEED_INPUT;
            };
            let clen = consumed(e);
            let sym = value(e);
            if sym < 16 {
                self.lens[i as usize] = sym as u8;
                self.drop_bits(clen);
                i += 1;
                continue;
            }
            let (extra, add) = match sym {
                16 => (2, 3),
                17 => (3, 3),
                _ => (7, 11),
            };
            if !self.need(clen + extra, input, ip) {
                self.phase = Phase::Lens { i };
                return NEED_INPUT;
            }
            let count = ((self.bits >> clen) & ((1 << extra) - 1)) as u16 + add;
            self.drop_bits(clen + extra);
            let value = if sym == 16 {
                if i == 0 {
                    return Err(InflateError::RepeatWithoutPrevious);
                }
                self.lens[i as usize - 1]
            } else {
                0
            };
            if i + count > total {
                return Err(InflateError::RepeatPastEnd);
            }
            self.lens[i as usize..(i + count) as usize].fill(value);
            i += count;
        }
        self.tables(total as usize)
    }

    /// The literal/length and distance tables from the `total` lengths read.
    fn tables(&mut self, total: usize) -> Step {
        let hlit = self.hlit as usize;
        if self.lens[256] == 0 {
            return Err(InflateError::MissingEndOfBlock);
        }
        build(
            &self.lens[..hlit],
            &mut self.lit,
            LIT_ROOT,
            CodeTable::Literals,
        )?;
        build(
            &self.lens[hlit..total],
            &mut self.dist,
            DIST_ROOT,
            CodeTable::Distances,
        )?;
        self.phase = Phase::Symbols;
        NEXT
    }
}
