//! What a save writes, piece by piece.

use crate::count::bytes;
use alloc::collections::TryReserveError;
use alloc::vec::Vec;
use core::fmt;

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
/// so this works chunk by chunk. A new payload of those methods is written before any
/// XOR and encrypted the same way, from key 0 (whose keystream is zeros): a plan's
/// pieces are the file only once its re-keying is applied.
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

/// Bytes a plan's source must hold at `offset`: bytes of the file its editor was made
/// from ([`Plan::source_holds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held<'a> {
    /// Where they start in the source.
    pub offset: u64,
    /// The bytes.
    pub bytes: &'a [u8],
}

/// A whole file to write: the pieces in order, the re-keying to apply to the bytes they
/// produce, and what the source must hold for its copies to take the bytes they were
/// planned for. `len` is the sum of the pieces.
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
    /// The bytes of the file the editor was made from that tell it from another file and
    /// from its own older or newer versions: its header and its directory (NRes) or
    /// encrypted table (RsLi), and an RsLi trailer the editor keeps apart. The offsets of
    /// the copies were read from them, so a source that does not hold them is not the
    /// file the copies were planned over: [`to_vec`](Plan::to_vec) and `edit::write_plan`
    /// refuse it before writing anything, where they would otherwise write a well-formed
    /// archive of the wrong bytes. Empty for a plan that copies nothing (an editor of
    /// nothing) and for [`Plan::new`]; a caller who puts a source together itself (the
    /// payloads of an unpacked archive in files, say) may empty it.
    pub source_holds: Vec<Held<'a>>,
}

impl<'a> Plan<'a> {
    /// A plan of these pieces and no re-keying.
    pub fn new(pieces: Vec<Piece<'a>>) -> Plan<'a> {
        Plan {
            pieces,
            rekeys: Vec::new(),
            source_holds: Vec::new(),
        }
    }

    /// Whether `source` holds what [`source_holds`](Plan::source_holds) says, as
    /// [`to_vec`](Plan::to_vec) checks it: the way to check a source in memory before
    /// running the plan without `std` (see [`rekeying`](Plan::rekeying)).
    ///
    /// ```
    /// use ngi_core::edit::SourceMismatch;
    /// use ngi_core::{Method, rsli::{Builder, Editor, Library}};
    ///
    /// let mut builder = Builder::new();
    /// builder.add(b"A.TXT", Method::Stored, b"version 1")?;
    /// let old = builder.build()?;
    /// let mut editor = Editor::open(&Library::open(&old)?)?;
    /// editor.rename(0, b"B.TXT")?;
    /// let plan = editor.plan()?;
    /// assert_eq!(plan.check_source(&old), Ok(()));
    ///
    /// // The file was saved again by someone else since it was read.
    /// let mut builder = Builder::new();
    /// builder.add(b"A.TXT", Method::Stored, b"version 2, longer")?;
    /// let newer = builder.build()?;
    /// assert_eq!(plan.check_source(&newer), Err(SourceMismatch { offset: 52 }));
    /// # Ok::<(), Box<dyn core::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`SourceMismatch`] at the first offset where `source` differs from what it must
    /// hold, or ends before it.
    pub fn check_source(&self, source: &[u8]) -> Result<(), SourceMismatch> {
        for held in &self.source_holds {
            let start = usize::try_from(held.offset).unwrap_or(usize::MAX);
            let same = same_prefix(held.bytes, source.get(start..).unwrap_or_default());
            if same < held.bytes.len() {
                return Err(SourceMismatch {
                    offset: held.offset.saturating_add(same as u64),
                });
            }
        }
        Ok(())
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
    /// archives (`edit::write_plan` writes any plan in bounded
    /// memory with `std`; without it, see [`rekeying`](Plan::rekeying)).
    ///
    /// ```
    /// use ngi_core::edit::{Piece, Plan, ToVecError};
    ///
    /// let plan = Plan::new(vec![Piece::Owned(b"head".to_vec()), Piece::Copy { offset: 2, len: 3 }]);
    /// assert_eq!(plan.to_vec(b"..src")?, b"headsrc");
    /// assert_eq!(
    ///     plan.to_vec(b"..sr"),
    ///     Err(ToVecError::SourceShort { offset: 2, len: 3, source_len: 4 })
    /// );
    /// assert!(Plan::new(vec![Piece::Zeros(u64::MAX)]).to_vec(b"").is_err());
    /// # Ok::<(), ToVecError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// * [`ToVecError::TooLarge`] when the plan's whole [`len`](Plan::len) cannot be
    ///   reserved. It is reserved first, so a plan larger than memory can hold is an
    ///   error, not a shorter output or an abort, where the allocator refuses it: a
    ///   system that overcommits memory (Linux by default) may grant the reservation and
    ///   end the process when the pages are filled.
    /// * [`ToVecError::SourceMismatch`] when `source` does not hold what
    ///   [`source_holds`](Plan::source_holds) says ([`check_source`](Plan::check_source)),
    ///   checked before anything else: it is not the file the plan was made from.
    /// * [`ToVecError::SourceShort`] for the first [`Piece::Copy`] that reaches past the
    ///   end of `source`: a save never pads a missing payload with anything (as
    ///   `edit::write_plan` refuses it too).
    pub fn to_vec(&self, source: &[u8]) -> Result<Vec<u8>, ToVecError> {
        self.check_source(source)
            .map_err(ToVecError::SourceMismatch)?;
        let mut out = Vec::new();
        out.try_reserve_exact(usize::try_from(self.len()).unwrap_or(usize::MAX))
            .map_err(ToVecError::TooLarge)?;
        // Every piece fits in what was reserved, so no length below can overflow.
        for piece in &self.pieces {
            match piece {
                Piece::Owned(bytes) => out.extend_from_slice(bytes),
                Piece::Borrowed(bytes) => out.extend_from_slice(bytes),
                &Piece::Copy { offset, len } => {
                    let short = ToVecError::SourceShort {
                        offset,
                        len,
                        source_len: source.len() as u64,
                    };
                    let start = usize::try_from(offset).map_err(|_| short.clone())?;
                    let len = usize::try_from(len).map_err(|_| short.clone())?;
                    let bytes = start
                        .checked_add(len)
                        .and_then(|end| source.get(start..end))
                        .ok_or(short)?;
                    out.extend_from_slice(bytes);
                }
                Piece::Zeros(len) => {
                    let len = usize::try_from(*len).unwrap_or(usize::MAX);
                    out.resize(out.len().saturating_add(len), 0);
                }
            }
        }
        self.rekeying().apply(&mut out, 0);
        Ok(out)
    }

    /// The re-keying of this plan, to apply to its output as it is made: the way to run
    /// a plan without `std` (into flash, say) in bounded memory. Check the source
    /// ([`check_source`](Plan::check_source), or compare
    /// [`source_holds`](Plan::source_holds) with it yourself), then put each piece's
    /// bytes in a buffer (a copy read from the source), hand each chunk to
    /// [`Rekeying::apply`] in order, and write it.
    ///
    /// ```
    /// use ngi_core::edit::Piece;
    /// use ngi_core::{Method, rsli::{Builder, Editor, Library}};
    ///
    /// let mut builder = Builder::new();
    /// builder.add(b"B", Method::Xor, b"encrypted with its sort_index")?;
    /// let old = builder.build()?;
    /// let mut editor = Editor::open(&Library::open(&old)?)?;
    /// editor.add(b"A", Method::Stored, b"sorts first")?; // B's key changes
    /// let plan = editor.plan()?;
    /// assert_eq!(plan.rekeys.len(), 1, "B's bytes are copied and re-keyed, not packed again");
    ///
    /// // A flash writer that takes 16 bytes at a time, from the file the plan was made from.
    /// plan.check_source(&old)?;
    /// let mut flash = Vec::new();
    /// let mut rekeying = plan.rekeying();
    /// let (mut at, mut buf) = (0u64, [0u8; 16]);
    /// for piece in &plan.pieces {
    ///     let mut done = 0;
    ///     while done < piece.len() {
    ///         let n = (piece.len() - done).min(16) as usize;
    ///         let chunk = &mut buf[..n];
    ///         let (from, to) = (done as usize, done as usize + n);
    ///         match piece {
    ///             Piece::Owned(bytes) => chunk.copy_from_slice(&bytes[from..to]),
    ///             Piece::Borrowed(bytes) => chunk.copy_from_slice(&bytes[from..to]),
    ///             Piece::Copy { offset, .. } => {
    ///                 let start = (offset + done) as usize;
    ///                 chunk.copy_from_slice(&old[start..start + n]);
    ///             }
    ///             Piece::Zeros(_) => chunk.fill(0),
    ///         }
    ///         rekeying.apply(chunk, at);
    ///         flash.extend_from_slice(chunk);
    ///         (at, done) = (at + n as u64, done + n as u64);
    ///     }
    /// }
    /// assert_eq!(flash, plan.to_vec(&old)?);
    /// let library = Library::open(&flash)?;
    /// let b = library.find(b"B").unwrap();
    /// assert_eq!(library.unpack_to_vec(b, &Default::default())?, b"encrypted with its sort_index");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn rekeying(&self) -> Rekeying<'_> {
        Rekeying::new(&self.rekeys)
    }
}

/// How many bytes `expected` and `found` begin with alike.
pub(crate) fn same_prefix(expected: &[u8], found: &[u8]) -> usize {
    expected
        .iter()
        .zip(found)
        .take_while(|(a, b)| a == b)
        .count()
}

/// Why [`Plan::to_vec`] gave no bytes.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToVecError {
    /// The plan's whole length could not be reserved.
    TooLarge(TryReserveError),
    /// A [`Piece::Copy`] of `len` bytes from `offset` reaches past the end of the source,
    /// which is `source_len` bytes long.
    SourceShort {
        /// Where the copy starts in the source.
        offset: u64,
        /// Its length.
        len: u64,
        /// The source's length.
        source_len: u64,
    },
    /// The source does not hold what the plan's
    /// [`source_holds`](Plan::source_holds) says: it is not the file the plan was made
    /// from.
    SourceMismatch(SourceMismatch),
}

impl fmt::Display for ToVecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToVecError::TooLarge(e) => write!(f, "the plan does not fit in memory: {e}"),
            ToVecError::SourceShort {
                offset,
                len,
                source_len,
            } => write!(
                f,
                "a copy of {} at offset {offset} runs past the end of the {source_len}-byte \
                 source",
                bytes(*len)
            ),
            ToVecError::SourceMismatch(e) => e.fmt(f),
        }
    }
}

impl core::error::Error for ToVecError {}

/// A plan's source does not hold what its [`source_holds`](Plan::source_holds) says,
/// from `offset` on (a byte that differs, or the end of the source): it is another file
/// than the one the plan was made from, or that file changed since its editor read it.
/// Written from it, the plan would copy other bytes than those it was planned over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceMismatch {
    /// The first offset where the source differs.
    pub offset: u64,
}

impl fmt::Display for SourceMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the source differs at offset {} from the archive the plan was made from (its \
             header, directory or table): another file, or the archive changed since it was \
             read",
            self.offset
        )
    }
}

impl core::error::Error for SourceMismatch {}

/// Applies a plan's re-keying ([`Plan::rekeying`]) to its output chunks, which must
/// arrive in order, without gaps (chunks out of order come out wrong, never a panic).
#[derive(Debug, Clone)]
pub struct Rekeying<'r> {
    rest: &'r [Rekey],
    /// The two keystreams of the range under way, with where they are.
    active: Option<(XorStream, XorStream, u64)>,
}

impl<'r> Rekeying<'r> {
    /// The re-keying of these ranges (sorted by `at`, not overlapping, as a
    /// [`Plan`]'s).
    pub fn new(rekeys: &'r [Rekey]) -> Rekeying<'r> {
        Rekeying {
            rest: rekeys,
            active: None,
        }
    }

    /// Re-keys `chunk`, which holds the output bytes from `at` on; chunks must come in
    /// order, without gaps.
    pub fn apply(&mut self, chunk: &mut [u8], at: u64) {
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

    /// Its length is what it writes, pieces of nothing included, saturating at
    /// `u64::MAX`.
    #[test]
    fn len_and_is_empty() {
        assert!(Plan::new(vec![]).is_empty());
        let nothing = Plan::new(vec![Piece::Zeros(0), Piece::Owned(vec![])]);
        assert_eq!((nothing.len(), nothing.is_empty()), (0, true));
        let some = Plan::new(vec![Piece::Zeros(2), Piece::Copy { offset: 9, len: 3 }]);
        assert_eq!((some.len(), some.is_empty()), (5, false));
        let huge = Plan::new(vec![Piece::Zeros(u64::MAX), Piece::Zeros(1)]);
        assert_eq!(huge.len(), u64::MAX);
    }

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
        assert_eq!(
            past.to_vec(b"abc"),
            Err(ToVecError::SourceShort {
                offset: u64::MAX,
                len: 3,
                source_len: 3
            })
        );
    }
}
