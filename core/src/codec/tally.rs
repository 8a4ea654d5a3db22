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

impl Tally<Option<DecodeError>> {
    /// A tally whose every byte is zero (an empty entry kept as truncated, the first
    /// variant with zero counts), for a decoder state built only to be reset: a constant
    /// of zeros is written with a memset, where any other byte would have the program
    /// hold and copy the whole constant.
    pub(crate) const fn zeroed() -> Self {
        Tally {
            expected: 0,
            produced: 0,
            kept: Some(DecodeError::Truncated {
                produced: 0,
                expected: 0,
            }),
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_full_takes_precedence_and_truncation_needs_the_end() {
        let mut t = Tally::<Truncation>::new(4);
        let p = t.settle(1, 1, Stop::OutputFull, true).unwrap();
        assert_eq!(p.status, Status::OutputFull);
        let p = t.settle(1, 1, Stop::InputEmpty, false).unwrap();
        assert_eq!(p.status, Status::NeedInput);
        let e = t.settle(0, 0, Stop::InputEmpty, true).unwrap_err();
        assert_eq!(
            e,
            DecodeError::Truncated {
                produced: 2,
                expected: 4
            }
        );
        assert_eq!(t.begin(&mut [0u8; 4]).unwrap_err(), e, "failure is sticky");
    }

    #[test]
    fn done_at_size_or_at_the_marker() {
        let mut t = Tally::<Truncation>::new(2);
        assert_eq!(t.begin(&mut [0u8; 8]).map(|o| o.len()), Ok(2));
        let p = t.settle(5, 2, Stop::OutputFull, false).unwrap();
        assert_eq!((p.consumed, p.produced, p.status), (5, 2, Status::Done));
        let mut t = Tally::<Option<DecodeError>>::new(2);
        let p = t.settle_marked(3, 2, Stop::InputEmpty, false).unwrap();
        assert_eq!(
            p.status,
            Status::NeedInput,
            "all bytes out, marker not yet read"
        );
        let p = t.settle_marked(1, 0, Stop::End, true).unwrap();
        assert_eq!(p.status, Status::Done);
    }

    #[test]
    fn a_kept_error_is_returned_again() {
        let mut t = Tally::<Option<DecodeError>>::new(9);
        let e = DecodeError::Truncated {
            produced: 3,
            expected: 9,
        };
        assert_eq!(t.fail(3, e), e);
        assert_eq!(t.begin(&mut []).unwrap_err(), e);
        assert_eq!(t.produced(), 3, "the bytes before the error are counted");
    }
}
