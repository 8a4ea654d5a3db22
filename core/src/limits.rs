//! Decode limits: how large an entry, how many decoded bytes in all, and how many entries
//! a caller is willing to act on.
//!
//! The formats store their sizes in 32-bit fields, so one RsLi entry can claim
//! `unpacked_size = 0xFFFF_FFFF` from a 100-byte file, and an NRes header can announce
//! hundreds of millions of entries. Nothing in ngi-core allocates from such a value, and
//! the streaming paths need only a fixed-size decoder state; but a host that sizes an
//! output buffer from `unpacked_size`, or an extractor that writes every entry to disk,
//! is acting on a number the file chose. [`Limits`] is the check to run first:
//!
//! * opening: every opener takes the limits in its [`OpenOptions`](crate::OpenOptions)
//!   ([`nres::Archive::open_with`](crate::nres::Archive::open_with),
//!   [`rsli::Library::open_in`](crate::rsli::Library::open_in) and `Library::open_with`
//!   with `alloc`, the format-agnostic [`archive::Opener`](crate::archive::Opener)) and
//!   refuses an entry count above [`max_entries`](Limits::max_entries) before any entry
//!   is read (and before any entry storage is allocated);
//! * per entry: [`nres::Archive::check_limits`](crate::nres::Archive::check_limits),
//!   [`rsli::Library::check_limits`](crate::rsli::Library::check_limits) and
//!   [`rsli::check_limits`](crate::rsli::check_limits) refuse a decoded size above
//!   [`max_entry_size`](Limits::max_entry_size) — that entry fails, the others stay
//!   readable; the `alloc` convenience `Library::unpack_to_vec` runs the same check before
//!   it allocates;
//! * over a run: a [`Budget`] adds up the decoded sizes of the entries taken (or the
//!   packed bytes their decoders read, when more: [`Budget::take_reading`]) and refuses
//!   the one that would bring the total above [`max_total`](Limits::max_total).
//!
//! Every check is a comparison of integers: nothing allocates, so all of it works without
//! `alloc`.
//!
//! ```
//! use ngi_core::limits::{Budget, LimitError, Limits};
//!
//! let limits = Limits::DEFAULT.with_max_total(100);
//! assert_eq!(
//!     limits.check_size(3, 0xFFFF_FFFF),
//!     Err(LimitError::EntryTooLarge { entry: 3, size: 0xFFFF_FFFF, limit: 256 << 20 })
//! );
//! let mut budget = Budget::new(limits);
//! budget.take(0, 60)?;
//! assert_eq!(
//!     budget.take(1, 60),
//!     Err(LimitError::TotalTooLarge { entry: 1, total: 120, limit: 100 })
//! );
//! assert_eq!(budget.used(), 60, "a refused entry takes nothing");
//! # Ok::<(), LimitError>(())
//! ```

use crate::count::{bytes, entries};
use core::fmt;

/// The most a caller will act on: the decoded size of one entry, the bytes of a whole
/// run, and the number of entries of an archive.
///
/// [`Limits::DEFAULT`] (also [`Default`]) is what the `ngi` command uses unless told
/// otherwise; [`Limits::NONE`] turns every check off. Change one field with the `with_*`
/// methods:
///
/// ```
/// use ngi_core::limits::Limits;
///
/// let limits = Limits::DEFAULT.with_max_entry_size(1 << 20).with_max_entries(4096);
/// assert_eq!(limits.max_entry_size, 1 << 20);
/// assert_eq!(limits.max_total, Limits::DEFAULT.max_total);
/// assert!(limits.check_count(4097).is_err());
/// ```
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// The largest decoded size of one entry, in bytes: NRes `size`, RsLi
    /// `unpacked_size`. Default [`DEFAULT_MAX_ENTRY_SIZE`] (256 MiB).
    pub max_entry_size: u64,
    /// The most bytes a [`Budget`] lets through, summed over the entries taken: each
    /// entry's decoded size, or with [`Budget::take_reading`] the packed bytes its
    /// decoder reads when they are more. Default [`DEFAULT_MAX_TOTAL`] (4 GiB).
    pub max_total: u64,
    /// The most entries an archive may have. Default [`DEFAULT_MAX_ENTRIES`] (1 Mi).
    pub max_entries: u32,
}

/// Default [`Limits::max_entry_size`]: 256 MiB.
///
/// Far above any real entry (the retail game's largest payloads are textures and meshes of
/// a few MiB; an NRes or RsLi file of 32-bit offsets holds at most 4 GiB in all), yet a
/// buffer of it is affordable on any desktop or server, and it is 1/16 of the
/// `0xFFFF_FFFF` bytes a 32-bit `unpacked_size` can claim.
pub const DEFAULT_MAX_ENTRY_SIZE: u64 = 256 << 20;

/// Default [`Limits::max_total`]: 4 GiB.
///
/// The most a file of 32-bit offsets can hold stored; packed entries may legitimately
/// decode to more, but not in any archive the game ships. It bounds the disk a
/// decompression bomb of many entries, each under the entry limit, can fill, and with
/// [`Budget::take_reading`] the work it can cost (taken by decoded sizes alone, entries
/// that share one long packed range of empty Deflate blocks cost work and count nothing).
pub const DEFAULT_MAX_TOTAL: u64 = 4 << 30;

/// Default [`Limits::max_entries`]: 1 048 576.
///
/// RsLi's format maximum is 32 767 (a non-negative `i16`), which this never constrains.
/// NRes counts are an `i32`, bounded in practice by the 32-bit `total_size`
/// (`(2^32 - 16) / 64`, about 67 million 64-byte records); real archives have at most a
/// few thousand entries. A million is 64 MiB of NRes directory, enough for any honest
/// archive. Opened into a `Vec` catalog it costs 104 MiB of memory (an
/// [`archive::Entry`](crate::archive::Entry) is 104 bytes on 64-bit targets), and a file
/// need not be large to claim it: a sparse one, or an `io::ReadAt` source that lies
/// about its length, costs an attacker nothing (measured: from 2.7 MB to 109 MB of
/// resident memory in 0.13 s). A server opening files it does not trust sets a lower
/// [`max_entries`](Limits::max_entries); an [`EntryStore`](crate::archive::EntryStore)
/// of fixed capacity bounds it whatever the limit.
pub const DEFAULT_MAX_ENTRIES: u32 = 1 << 20;

impl Limits {
    /// The defaults: [`DEFAULT_MAX_ENTRY_SIZE`], [`DEFAULT_MAX_TOTAL`],
    /// [`DEFAULT_MAX_ENTRIES`].
    pub const DEFAULT: Limits = Limits {
        max_entry_size: DEFAULT_MAX_ENTRY_SIZE,
        max_total: DEFAULT_MAX_TOTAL,
        max_entries: DEFAULT_MAX_ENTRIES,
    };

    /// No limit but the formats' own: every check passes for any size and total, and
    /// for any entry count a format's 32-bit count field can hold (up to `u32::MAX`;
    /// [`check_count`](Limits::check_count) of a larger number still fails). A caller
    /// that allocates what an entry declares under these limits allocates what the file
    /// says.
    pub const NONE: Limits = Limits {
        max_entry_size: u64::MAX,
        max_total: u64::MAX,
        max_entries: u32::MAX,
    };

    /// These limits with [`max_entry_size`](Limits::max_entry_size) set to `bytes`.
    pub const fn with_max_entry_size(self, bytes: u64) -> Limits {
        Limits {
            max_entry_size: bytes,
            ..self
        }
    }

    /// These limits with [`max_total`](Limits::max_total) set to `bytes`.
    pub const fn with_max_total(self, bytes: u64) -> Limits {
        Limits {
            max_total: bytes,
            ..self
        }
    }

    /// These limits with [`max_entries`](Limits::max_entries) set to `count`.
    pub const fn with_max_entries(self, count: u32) -> Limits {
        Limits {
            max_entries: count,
            ..self
        }
    }

    /// Checks an archive's entry count against [`max_entries`](Limits::max_entries).
    ///
    /// # Errors
    ///
    /// * [`LimitError::TooManyEntries`] when `count` is above `max_entries`.
    pub const fn check_count(&self, count: u64) -> Result<(), LimitError> {
        if count > self.max_entries as u64 {
            return Err(LimitError::TooManyEntries {
                count,
                limit: self.max_entries,
            });
        }
        Ok(())
    }

    /// Checks the decoded `size` of entry `entry` against
    /// [`max_entry_size`](Limits::max_entry_size).
    ///
    /// # Errors
    ///
    /// * [`LimitError::EntryTooLarge`] when `size` is above `max_entry_size`.
    pub const fn check_size(&self, entry: u32, size: u64) -> Result<(), LimitError> {
        if size > self.max_entry_size {
            return Err(LimitError::EntryTooLarge {
                entry,
                size,
                limit: self.max_entry_size,
            });
        }
        Ok(())
    }
}

impl Default for Limits {
    /// [`Limits::DEFAULT`].
    fn default() -> Self {
        Limits::DEFAULT
    }
}

/// A running total of decoded bytes under a set of [`Limits`]: each entry is
/// [`take`](Budget::take)n before it is decoded, and refused when it is too large itself
/// or would bring the total past [`Limits::max_total`].
///
/// Plain integers, no allocation; copy it to try something without committing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    limits: Limits,
    used: u64,
}

impl Budget {
    /// A budget with nothing taken yet.
    pub const fn new(limits: Limits) -> Budget {
        Budget { limits, used: 0 }
    }

    /// Takes the decoded `size` of entry `entry` into the total: first
    /// [`Limits::check_size`], then the total. What decoding the entry reads is not
    /// counted: to bound the work an untrusted archive can cost, use
    /// [`take_reading`](Budget::take_reading), as `ngi` does.
    ///
    /// # Errors
    ///
    /// A refused entry takes nothing, so a later, smaller one may still be taken.
    ///
    /// * [`LimitError::EntryTooLarge`] when `size` is above [`Limits::max_entry_size`].
    /// * [`LimitError::TotalTooLarge`] when the bytes taken so far and `size` together
    ///   are above [`Limits::max_total`].
    pub const fn take(&mut self, entry: u32, size: u64) -> Result<(), LimitError> {
        self.take_reading(entry, size, 0)
    }

    /// [`take`](Budget::take) for an entry whose decoder reads `packed` bytes: `size` is
    /// checked against [`Limits::max_entry_size`], and the total takes the larger of
    /// `size` and `packed`. Decoding costs time in the bytes it reads as well as in those
    /// it writes, and a Deflate stream can read any number of packed bytes (empty blocks)
    /// for no decoded one, as can many entries that share one packed range: counted by
    /// their decoded sizes alone, a small file could keep a run busy for hours.
    ///
    /// ```
    /// use ngi_core::limits::{Budget, LimitError, Limits};
    ///
    /// let mut budget = Budget::new(Limits::DEFAULT.with_max_total(100));
    /// budget.take_reading(0, 0, 60)?; // 60 packed bytes, nothing decoded
    /// assert_eq!(budget.used(), 60);
    /// assert_eq!(
    ///     budget.take_reading(1, 10, 60),
    ///     Err(LimitError::TotalTooLarge { entry: 1, total: 120, limit: 100 })
    /// );
    /// # Ok::<(), LimitError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`take`](Budget::take), the total being that of the larger sizes.
    pub const fn take_reading(
        &mut self,
        entry: u32,
        size: u64,
        packed: u64,
    ) -> Result<(), LimitError> {
        if let Err(e) = self.limits.check_size(entry, size) {
            return Err(e);
        }
        let cost = if packed > size { packed } else { size };
        let total = self.used.saturating_add(cost);
        if total > self.limits.max_total {
            return Err(LimitError::TotalTooLarge {
                entry,
                total,
                limit: self.limits.max_total,
            });
        }
        self.used = total;
        Ok(())
    }

    /// The bytes taken so far.
    pub const fn used(&self) -> u64 {
        self.used
    }

    /// The bytes still allowed in all.
    pub const fn remaining(&self) -> u64 {
        self.limits.max_total.saturating_sub(self.used)
    }

    /// The limits it checks against.
    pub const fn limits(&self) -> &Limits {
        &self.limits
    }
}

/// A [`Limits`] check failed: what was asked, and the limit it passed.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitError {
    /// The archive has more entries than [`Limits::max_entries`].
    TooManyEntries {
        /// The entry count the archive declares.
        count: u64,
        /// The limit.
        limit: u32,
    },
    /// An entry decodes to more than [`Limits::max_entry_size`].
    EntryTooLarge {
        /// The entry's index.
        entry: u32,
        /// Its decoded size (NRes `size`, RsLi `unpacked_size`).
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// Taking the entry would bring the bytes of the run (decoded, or packed where more)
    /// past [`Limits::max_total`].
    TotalTooLarge {
        /// The entry refused.
        entry: u32,
        /// The total with it.
        total: u64,
        /// The limit.
        limit: u64,
    },
}

impl LimitError {
    /// The entry the check was about, for the per-entry errors.
    pub fn entry(&self) -> Option<u32> {
        match *self {
            LimitError::EntryTooLarge { entry, .. } | LimitError::TotalTooLarge { entry, .. } => {
                Some(entry)
            }
            LimitError::TooManyEntries { .. } => None,
        }
    }
}

impl fmt::Display for LimitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LimitError::TooManyEntries { count, limit } => {
                let verb = if count == 1 { "exceeds" } else { "exceed" };
                write!(
                    f,
                    "{} {verb} the limit of {}",
                    entries(count),
                    entries(u64::from(limit))
                )
            }
            LimitError::EntryTooLarge { entry, size, limit } => write!(
                f,
                "entry {entry}: decoded size {size} exceeds the entry size limit of {}",
                bytes(limit)
            ),
            LimitError::TotalTooLarge {
                entry,
                total,
                limit,
            } => write!(
                f,
                "entry {entry}: would bring the run's total to {}, over the limit of {}",
                bytes(total),
                bytes(limit)
            ),
        }
    }
}

impl core::error::Error for LimitError {}

#[cfg(feature = "std")]
impl From<LimitError> for std::io::Error {
    fn from(e: LimitError) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidData, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_as_documented() {
        assert_eq!(Limits::default(), Limits::DEFAULT);
        assert_eq!(Limits::DEFAULT.max_entry_size, 268_435_456);
        assert_eq!(Limits::DEFAULT.max_total, 4_294_967_296);
        assert_eq!(Limits::DEFAULT.max_entries, 1_048_576);
        // RsLi's format maximum passes the default.
        assert_eq!(Limits::DEFAULT.check_count(32767), Ok(()));
    }

    #[test]
    fn limits_are_inclusive() {
        let l = Limits::NONE
            .with_max_entry_size(10)
            .with_max_entries(2)
            .with_max_total(15);
        assert_eq!(l.check_size(0, 10), Ok(()));
        assert_eq!(
            l.check_size(4, 11),
            Err(LimitError::EntryTooLarge {
                entry: 4,
                size: 11,
                limit: 10
            })
        );
        assert_eq!(l.check_count(2), Ok(()));
        assert_eq!(
            l.check_count(u64::MAX),
            Err(LimitError::TooManyEntries {
                count: u64::MAX,
                limit: 2
            })
        );
        let mut b = Budget::new(l);
        assert_eq!(b.take(0, 10), Ok(()));
        assert_eq!(
            b.take(1, 11),
            Err(LimitError::EntryTooLarge {
                entry: 1,
                size: 11,
                limit: 10
            }),
            "the entry check comes first"
        );
        assert_eq!(b.take(2, 5), Ok(()));
        assert_eq!((b.used(), b.remaining()), (15, 0));
        assert_eq!(b.take(3, 0), Ok(()), "empty entries always fit");
        assert_eq!(
            b.take(4, 1),
            Err(LimitError::TotalTooLarge {
                entry: 4,
                total: 16,
                limit: 15
            })
        );
        assert_eq!(b.used(), 15);
    }

    #[test]
    fn none_never_refuses_and_never_overflows() {
        let mut b = Budget::new(Limits::NONE);
        for i in 0..4 {
            assert_eq!(b.take(i, u64::MAX), Ok(()));
        }
        assert_eq!(b.used(), u64::MAX);
        assert_eq!(Limits::NONE.check_count(u64::from(u32::MAX)), Ok(()));
    }

    #[cfg(feature = "std")]
    #[test]
    fn messages_name_the_entry_the_size_and_the_limit() {
        use std::string::ToString;
        let e = Limits::DEFAULT.check_size(7, 0xFFFF_FFFF).unwrap_err();
        assert_eq!(
            e.to_string(),
            "entry 7: decoded size 4294967295 exceeds the entry size limit of 268435456 bytes"
        );
        assert_eq!(e.entry(), Some(7));
        let e = LimitError::TooManyEntries { count: 9, limit: 8 };
        assert_eq!(e.to_string(), "9 entries exceed the limit of 8 entries");
        assert_eq!(e.entry(), None);
        let io: std::io::Error = e.into();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
    }
}
