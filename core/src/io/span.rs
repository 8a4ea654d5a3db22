//! The bookkeeping of a packed range read through a buffer, shared by the range readers of
//! `std` and `embedded_io`: where the next read starts, where the range ends, which bytes
//! of the buffer are still unread.

use core::ops::Range;

/// A range of a source read chunk by chunk into a buffer: `next..end` is yet to be read
/// from the source, `pos..filled` of the buffer is read but not consumed.
#[derive(Debug, Clone)]
pub(super) struct Span {
    next: u64,
    end: u64,
    pos: usize,
    filled: usize,
}

#[cfg_attr(not(any(feature = "std", feature = "embedded-io")), allow(dead_code))]
impl Span {
    pub(super) const fn new(range: Range<u64>) -> Span {
        Span {
            next: range.start,
            end: if range.end > range.start {
                range.end
            } else {
                range.start
            },
            pos: 0,
            filled: 0,
        }
    }

    /// Where to read next and how many bytes (at most `chunk`), once the buffered bytes
    /// are consumed and while the range is not read to its end.
    pub(super) fn refill(&self, chunk: usize) -> Option<(u64, usize)> {
        if self.pos < self.filled || self.next >= self.end {
            return None;
        }
        let left = usize::try_from(self.end - self.next).unwrap_or(usize::MAX);
        Some((self.next, left.min(chunk)))
    }

    /// `n` bytes were read from where [`refill`](Span::refill) said into the buffer's
    /// start; 0 means the source ended early, and so does the range then.
    pub(super) fn refilled(&mut self, n: usize) {
        if n == 0 {
            self.end = self.next;
        }
        self.next += n as u64;
        (self.pos, self.filled) = (0, n);
    }

    /// The unread bytes of the buffer.
    pub(super) fn buffered(&self) -> Range<usize> {
        self.pos..self.filled
    }

    pub(super) fn consume(&mut self, amount: usize) {
        self.pos = self.pos.saturating_add(amount).min(self.filled);
    }

    /// The bytes of the range not yet consumed.
    #[cfg(feature = "std")]
    pub(super) fn remaining(&self) -> u64 {
        (self.end - self.next) + (self.filled - self.pos) as u64
    }
}
