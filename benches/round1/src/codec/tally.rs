//! The bookkeeping every decoder shares: how many bytes the entry must produce, how many
//! it has, its failure once it failed, and the rules that turn what one call did into the
//! [`Progress`] (or the error) the [`Decoder`](super::Decoder) contract promises:
//!
//! * a call never gets more output room than the entry has bytes left;
//! * `Done` when the stream's end is reached: the expected size for the streams that have
//!   no end marker (stored, XOR, LZSS, LZHUF), the marker itself for those that have one
//!   (Deflate's final block, where the codec has checked the size);
//! * otherwise `OutputFull` when the call stopped for want of room, even if the input
//!   ran out at the same time (more input alone could not make progress);
//! * running dry is `Truncated` only when the caller said the input has ended;
//! * a failed decoder returns the same error on every later call.
//!
//! Each codec reports only how its run stopped ([`Stop`]); the rules live here, once.

use super::{DecodeError, Progress, Status};

/// How one call's run over its buffers stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The output room (already cut to what is left of the entry) is used up.
    OutputFull,
    /// The input is used up.
    InputEmpty,
    /// The stream's own end marker was decoded (only codecs with one report it).
    End,
}

/// What a decoder keeps of its failure, so that later calls return the same error.
pub(crate) trait Kept: Copy {
    /// Not failed.
    const NONE: Self;
    /// The truncation that `produced` of `expected` bytes are.
    fn truncated(expected: u64, produced: u64) -> Self;
    /// The error kept, if any (a kept truncation is rebuilt from the counters).
    fn error(self, expected: u64, produced: u64) -> Option<DecodeError>;
}

/// A kept failure for the decoders that can fail only by truncation (stored, XOR, LZSS,
/// LZHUF): one byte, the error being rebuilt from the counters, where a whole
/// [`DecodeError`] would take 24.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Truncation(bool);

impl Kept for Truncation {
    const NONE: Self = Truncation(false);

    fn truncated(_: u64, _: u64) -> Self {
        Truncation(true)
    }

    fn error(self, expected: u64, produced: u64) -> Option<DecodeError> {
        self.0
            .then_some(DecodeError::Truncated { produced, expected })
    }
}

/// Any failure, kept whole (Deflate's carry what is wrong and where).
impl Kept for Option<DecodeError> {
    const NONE: Self = None;

    fn truncated(expected: u64, produced: u64) -> Self {
        Some(DecodeError::Truncated { produced, expected })
    }

    fn error(self, _: u64, _: u64) -> Option<DecodeError> {
        self
    }
}

/// The expected and produced counts of one entry and its kept failure.
#[derive(Debug, Clone)]
pub(crate) struct Tally<K = Truncation> {
    expected: u64,
    produced: u64,
    kept: K,
}

impl<K: Kept> Tally<K> {
    /// An entry that must produce exactly `expected` bytes.
    pub(crate) const fn new(expected: u64) -> Self {
        Tally {
            expected,
            produced: 0,
            kept: K::NONE,
        }
    }

    /// The bytes the entry must produce.
    #[inline(always)]
    pub(crate) fn expected(&self) -> u64 {
        self.expected
    }

    /// The bytes produced by earlier calls.
    #[inline(always)]
    pub(crate) fn produced(&self) -> u64 {
        self.produced
    }

    /// The start of a call: the kept error if the decoder failed, else `output` cut to the
    /// bytes the entry has left, so that no codec can write past its size.
    #[inline(always)]
    pub(crate) fn begin<'o>(&self, output: &'o mut [u8]) -> Result<&'o mut [u8], DecodeError> {
        if let Some(e) = self.kept.error(self.expected, self.produced) {
            return Err(e);
        }
        let left = usize::try_from(self.expected - self.produced).unwrap_or(usize::MAX);
        let room = left.min(output.len());
        Ok(&mut output[..room])
    }

    /// The end of a call of a stream with no end marker (stored, XOR, LZSS, LZHUF):
    /// `consumed` and `produced` bytes, the run stopped by `stop`. Done once the expected
    /// bytes are out.
    #[inline(always)]
    pub(crate) fn settle(
        &mut self,
        consumed: usize,
        produced: usize,
        stop: Stop,
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        self.produced += produced as u64;
        let done = self.produced == self.expected;
        self.conclude(done, consumed, produced, stop, input_ended)
    }

    /// The end of a call of a stream that ends with its own marker (Deflate): done only
    /// when the run decoded the marker ([`Stop::End`]; the codec checked the size there).
    #[inline(always)]
    pub(crate) fn settle_marked(
        &mut self,
        consumed: usize,
        produced: usize,
        stop: Stop,
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        self.produced += produced as u64;
        self.conclude(stop == Stop::End, consumed, produced, stop, input_ended)
    }

    /// The rules shared by both endings, once the produced bytes are counted.
    fn conclude(
        &mut self,
        done: bool,
        consumed: usize,
        produced: usize,
        stop: Stop,
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let status = if done {
            Status::Done
        } else if stop == Stop::OutputFull {
            Status::OutputFull
        } else if input_ended {
            self.kept = K::truncated(self.expected, self.produced);
            return Err(DecodeError::Truncated {
                produced: self.produced,
                expected: self.expected,
            });
        } else {
            Status::NeedInput
        };
        Ok(Progress {
            consumed,
            produced,
            status,
        })
    }
}

impl Tally<Option<DecodeError>> {
    /// The end of a call that failed with `e` after producing `produced` bytes (counted:
    /// they stay the caller's, and `produced_total` says how far the stream got): keeps
    /// `e` as the decoder's failure and returns it.
    pub(crate) fn fail(&mut self, produced: usize, e: DecodeError) -> DecodeError {
        self.produced += produced as u64;
        self.kept = Some(e);
        e
    }
}

/// The outcome of a one-shot decode (the whole stream into an exact-size buffer of
/// `expected` bytes) that used `consumed` bytes of the stream and produced `produced`:
/// the bytes used when the buffer is full, else the truncation.
pub(crate) fn one_shot(
    consumed: usize,
    produced: usize,
    expected: usize,
) -> Result<usize, DecodeError> {
    if produced == expected {
        Ok(consumed)
    } else {
        Err(DecodeError::Truncated {
            produced: produced as u64,
            expected: expected as u64,
        })
    }
}
