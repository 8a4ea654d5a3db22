//! What a save writes, piece by piece.

use alloc::collections::TryReserveError;
use alloc::vec::Vec;

use crate::codec::xor::XorStream;

/// One run of output bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Bytes the plan made (a header, a directory, an encrypted table, a new payload).
    Owned(Vec<u8>),
    /// Bytes the editor holds (a payload added or replaced), borrowed from it.
    Borrowed(&'a [u8]),
    /// `len` bytes of the source archive starting at `offset`, copied as they are.
    Copy {
        /// Where the bytes start in the source.
        offset: u64,
        /// How many.
        len: u64,
    },
    /// `len` zero bytes (alignment padding).
    Zeros(u64),
}

impl Piece<'_> {
    /// How many bytes the piece writes.
    pub fn len(&self) -> u64 {
        match self {
            Piece::Owned(bytes) => bytes.len() as u64,
            Piece::Borrowed(bytes) => bytes.len() as u64,
            Piece::Copy { len, .. } | Piece::Zeros(len) => *len,
        }
    }

    /// Whether the piece writes nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// An RsLi payload kept as it was but moved to a new `sort_index`, so its XOR key
/// changes (methods 0x20, 0x60, 0xA0, SPEC 2.5): the `len` output bytes from `at` are
/// XORed with the keystreams of both keys, which takes the old encryption off and puts
/// the new one on without decoding anything. The keystream does not depend on the data,
/// so this works chunk by chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rekey {
    /// Output offset of the payload's first byte.
    pub at: u64,
    /// Bytes to re-key from `at`.
    pub len: u64,
    /// The key the copied bytes are encrypted with.
    pub from: u16,
    /// The key they must be encrypted with.
    pub to: u16,
}

/// A whole file to write: the pieces in order, and the re-keying to apply to the bytes
/// they produce. `len` is the sum of the pieces.
///
/// ```
/// use ngi_core::edit::{Piece, Plan};
///
/// let plan = Plan::new(vec![Piece::Owned(b"head".to_vec()), Piece::Copy { offset: 16, len: 8 }]);
/// assert_eq!(plan.len(), 12);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan<'a> {
    /// What to write, in order.
    pub pieces: Vec<Piece<'a>>,
    /// Output ranges to re-key, sorted by `at` and not overlapping.
    pub rekeys: Vec<Rekey>,
}

impl<'a> Plan<'a> {
    /// A plan of these pieces and no re-keying.
    pub fn new(pieces: Vec<Piece<'a>>) -> Plan<'a> {
        Plan {
            pieces,
            rekeys: Vec::new(),
        }
    }

    /// Bytes the plan writes.
    pub fn len(&self) -> u64 {
        self.pieces
            .iter()
            .fold(0u64, |sum, piece| sum.saturating_add(piece.len()))
    }

    /// Whether the plan writes nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of a plan whose source is `source` in memory: for tests and small
    /// archives ([`write_plan`](crate::edit::write_plan) writes any plan in bounded
    /// memory). Copies past the end of `source` give zeros there.
    ///
    /// ```
    /// use ngi_core::edit::{Piece, Plan};
    ///
    /// let plan = Plan::new(vec![Piece::Owned(b"head".to_vec()), Piece::Copy { offset: 2, len: 4 }]);
    /// assert_eq!(plan.to_vec(b"..src")?, b"headsrc\0");
    /// assert!(Plan::new(vec![Piece::Zeros(u64::MAX)]).to_vec(b"").is_err());
    /// # Ok::<(), std::collections::TryReserveError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// * [`TryReserveError`] when the plan's whole [`len`](Plan::len) cannot be reserved.
    ///   It is reserved first, so a plan larger than memory can hold is an error, not a
    ///   shorter output or an abort.
    pub fn to_vec(&self, source: &[u8]) -> Result<Vec<u8>, TryReserveError> {
        let mut out = Vec::new();
        out.try_reserve_exact(usize::try_from(self.len()).unwrap_or(usize::MAX))?;
        // Every piece fits in what was reserved, so no length below can overflow.
        for piece in &self.pieces {
            match piece {
                Piece::Owned(bytes) => out.extend_from_slice(bytes),
                Piece::Borrowed(bytes) => out.extend_from_slice(bytes),
                Piece::Copy { offset, len } => {
                    let start = usize::try_from(*offset).unwrap_or(usize::MAX);
                    let len = usize::try_from(*len).unwrap_or(usize::MAX);
                    let end = start.saturating_add(len).min(source.len());
                    let have = source.get(start..end).unwrap_or_default();
                    out.extend_from_slice(have);
                    out.resize(out.len().saturating_add(len - have.len()), 0);
                }
                Piece::Zeros(len) => {
                    let len = usize::try_from(*len).unwrap_or(usize::MAX);
                    out.resize(out.len().saturating_add(len), 0);
                }
            }
        }
        let mut rekeys = Rekeying::new(&self.rekeys);
        rekeys.apply(&mut out, 0);
        Ok(out)
    }
}

/// Applies a plan's re-keying to output chunks that arrive in order.
#[derive(Debug)]
pub(crate) struct Rekeying<'r> {
    rest: &'r [Rekey],
    /// The two keystreams of the range under way, with where they are.
    active: Option<(XorStream, XorStream, u64)>,
}

impl<'r> Rekeying<'r> {
    pub(crate) fn new(rekeys: &'r [Rekey]) -> Rekeying<'r> {
        Rekeying {
            rest: rekeys,
            active: None,
        }
    }

    /// Re-keys `chunk`, which holds the output bytes from `at` on; chunks must come in
    /// order, without gaps.
    pub(crate) fn apply(&mut self, chunk: &mut [u8], at: u64) {
        let end = at.saturating_add(chunk.len() as u64);
        while let Some(rekey) = self.rest.first() {
            let range_end = rekey.at.saturating_add(rekey.len);
            if rekey.at >= end {
                return;
            }
            let (old, new, done) = self
                .active
                .get_or_insert_with(|| (XorStream::new(rekey.from), XorStream::new(rekey.to), 0));
            let from = rekey.at.saturating_add(*done).max(at);
            let to = range_end.min(end);
            let lo = usize::try_from(from - at).unwrap_or(usize::MAX);
            let hi = usize::try_from(to.saturating_sub(at)).unwrap_or(0);
            if let Some(bytes) = chunk.get_mut(lo..hi) {
                old.apply(bytes);
                new.apply(bytes);
                *done += bytes.len() as u64;
            }
            if to < range_end {
                return;
            }
            self.active = None;
            self.rest = self.rest.get(1..).unwrap_or_default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    /// A plan too large for memory is an error, never a wrapped length: `b"head"` and
    /// `u64::MAX` zeros once came out as the 3 bytes `b"hea"` in a release build.
    #[test]
    fn a_plan_past_memory_is_an_error() {
        let wrapping = Plan::new(vec![Piece::Owned(b"head".to_vec()), Piece::Zeros(u64::MAX)]);
        assert!(wrapping.to_vec(&[]).is_err());
        let copy = Plan::new(vec![Piece::Copy {
            offset: 0,
            len: u64::MAX - 100,
        }]);
        assert!(copy.to_vec(b"abc").is_err());
        let past = Plan::new(vec![Piece::Copy {
            offset: u64::MAX,
            len: 3,
        }]);
        assert_eq!(past.to_vec(b"abc").unwrap(), [0, 0, 0]);
    }
}
