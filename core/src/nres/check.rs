//! The per-entry read rules of SPEC 1.3, for one entry or all of them.

use core::iter::FusedIterator;

use super::entry::name_field_offset;
use super::{Archive, Entry, HEADER_LEN, NresError};
use crate::limits::Limits;

/// The read rules of SPEC 1.3, in the order they are checked and reported.
#[derive(Debug, Clone, Copy)]
enum Rule {
    DataAfterHeader,
    DataBeforeDirectory,
    NameTerminated,
}

const RULES: [Rule; 3] = [
    Rule::DataAfterHeader,
    Rule::DataBeforeDirectory,
    Rule::NameTerminated,
];

impl Rule {
    fn violation(self, entry: &Entry<'_>, directory_offset: u64) -> Option<NresError> {
        match self {
            Rule::DataAfterHeader => (u64::from(entry.data_offset) < HEADER_LEN as u64).then_some(
                NresError::DataBeforeHeader {
                    entry: entry.index,
                    data_offset: entry.data_offset,
                },
            ),
            Rule::DataBeforeDirectory => {
                let end = u64::from(entry.data_offset) + u64::from(entry.size);
                (end > directory_offset).then_some(NresError::DataPastDirectory {
                    entry: entry.index,
                    data_offset: entry.data_offset,
                    size: entry.size,
                    directory_offset,
                })
            }
            Rule::NameTerminated => {
                (!entry.name_field.contains(&0)).then(|| NresError::NameUnterminated {
                    entry: entry.index,
                    offset: name_field_offset(directory_offset, entry.index),
                })
            }
        }
    }
}

impl<'a> Entry<'a> {
    /// Checks this entry's `size` against [`Limits::max_entry_size`]. Run it before sizing
    /// anything from `size` (a host reading the payload through seeks, say); nothing here
    /// allocates.
    ///
    /// ```
    /// use ngi_core::limits::{LimitError, Limits};
    /// use ngi_core::nres::{Entry, NresError};
    ///
    /// let mut record = [0u8; 64];
    /// record[12..16].copy_from_slice(&0x4000_0000u32.to_le_bytes()); // size: 1 GiB
    /// record[56..60].copy_from_slice(&16u32.to_le_bytes());
    /// let entry = Entry::parse(3, &record);
    /// assert_eq!(
    ///     entry.check_limits(&Limits::DEFAULT),
    ///     Err(NresError::Limit {
    ///         error: LimitError::EntryTooLarge { entry: 3, size: 0x4000_0000, limit: 256 << 20 },
    ///         offset: 16,
    ///     })
    /// );
    /// assert_eq!(entry.check_limits(&Limits::NONE), Ok(()));
    /// ```
    ///
    /// # Errors
    ///
    /// * [`NresError::Limit`] when `size` is above `limits.max_entry_size`: a payload
    ///   larger than the caller will take. It names the entry, its offset (the
    ///   `data_offset`), its size and the limit.
    pub fn check_limits(&self, limits: &Limits) -> Result<(), NresError> {
        limits
            .check_size(self.index, u64::from(self.size))
            .map_err(|error| NresError::Limit {
                error,
                offset: u64::from(self.data_offset),
            })
    }

    /// Checks the two rules of SPEC 1.3 that guard the payload bytes: `data_offset >= 16`
    /// and `data_offset + size <= directory_offset` (in 64 bits). The name rule does not:
    /// an entry whose name lacks its NUL still has intact, readable data.
    ///
    /// # Errors
    ///
    /// The first rule broken, in this order:
    ///
    /// * [`NresError::DataBeforeHeader`] when `data_offset` is below 16;
    /// * [`NresError::DataPastDirectory`] when `data_offset + size` is past
    ///   `directory_offset`.
    pub fn check_data_range(&self, directory_offset: u64) -> Result<(), NresError> {
        match RULES[..2]
            .iter()
            .find_map(|rule| rule.violation(self, directory_offset))
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Checks the read rules of SPEC 1.3 for this entry of an NRes archive whose directory
    /// starts at `directory_offset`: `data_offset >= 16`, `data_offset + size <=
    /// directory_offset` (in 64 bits) and a NUL in the name field.
    ///
    /// This is what [`Archive::check_entry`] runs; it is here for callers that decode the
    /// directory themselves ([`DirectoryDecoder`](super::DirectoryDecoder)). The raw-mode
    /// entry is exempt: its payload starts at 0 by definition.
    ///
    /// ```
    /// use ngi_core::nres::{Entry, NresError};
    ///
    /// let mut record = [0u8; 64];
    /// record[20] = b'a';
    /// record[56..60].copy_from_slice(&8u32.to_le_bytes()); // data_offset inside the header
    /// assert_eq!(
    ///     Entry::parse(0, &record).check(16),
    ///     Err(NresError::DataBeforeHeader { entry: 0, data_offset: 8 })
    /// );
    /// ```
    ///
    /// # Errors
    ///
    /// The first rule broken, in this order:
    ///
    /// * [`NresError::DataBeforeHeader`] when `data_offset` is below 16;
    /// * [`NresError::DataPastDirectory`] when `data_offset + size` is past
    ///   `directory_offset`;
    /// * [`NresError::NameUnterminated`] when the name field holds no NUL.
    pub fn check(&self, directory_offset: u64) -> Result<(), NresError> {
        match self.violations(directory_offset).next() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Every read rule of SPEC 1.3 this entry breaks, in the order of
    /// [`check`](Entry::check): what [`Archive::problems`] lists for it.
    ///
    /// ```
    /// use ngi_core::nres::Entry;
    ///
    /// let mut record = [b'x'; 64]; // no NUL in the name, offsets far out
    /// record[56..60].copy_from_slice(&8u32.to_le_bytes());
    /// assert_eq!(Entry::parse(0, &record).violations(16).count(), 3);
    /// ```
    pub fn violations(self, directory_offset: u64) -> impl Iterator<Item = NresError> + 'a {
        RULES
            .iter()
            .filter_map(move |rule| rule.violation(&self, directory_offset))
    }
}

/// Every per-entry rule violation of an archive, in entry order and, within an entry, in
/// the order of [`Entry::check`]; returned by [`Archive::problems`].
///
/// It walks the directory once, without allocating.
#[derive(Debug, Clone)]
pub struct Problems<'a> {
    archive: Archive<'a>,
    entry: usize,
    rule: usize,
}

impl<'a> Problems<'a> {
    pub(super) fn new(archive: Archive<'a>) -> Problems<'a> {
        Problems {
            archive,
            entry: 0,
            rule: 0,
        }
    }
}

impl Iterator for Problems<'_> {
    type Item = NresError;

    fn next(&mut self) -> Option<NresError> {
        if self.archive.is_raw() {
            return None;
        }
        let directory_offset = self.archive.directory_offset();
        while let Some(entry) = self.archive.entry(self.entry) {
            while let Some(rule) = RULES.get(self.rule) {
                self.rule += 1;
                if let Some(e) = rule.violation(&entry, directory_offset) {
                    return Some(e);
                }
            }
            self.rule = 0;
            self.entry += 1;
        }
        None
    }
}

impl FusedIterator for Problems<'_> {}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::nres::testutil::{Rec, archive};
    use std::vec::Vec;

    fn open_and_check(bytes: &[u8], index: usize) -> Result<(), NresError> {
        let a = Archive::open(bytes).expect("the header is valid");
        let checked = a.check_entry(index);
        // payload guards its bytes by the data-range rules alone.
        let data_rule = match checked {
            Err(NresError::NameUnterminated { .. }) => Ok(()),
            other => other,
        };
        assert_eq!(a.payload(index).map(|_| ()), data_rule);
        checked
    }

    #[test]
    fn data_before_header() {
        for data_offset in [0, 1, 15] {
            let bytes = archive(
                &[0; 8],
                &[
                    Rec::named(b"ok"),
                    Rec {
                        data_offset,
                        size: 1,
                        ..Rec::named(b"early")
                    },
                ],
            );
            assert_eq!(open_and_check(&bytes, 0), Ok(()));
            assert_eq!(
                open_and_check(&bytes, 1),
                Err(NresError::DataBeforeHeader {
                    entry: 1,
                    data_offset
                })
            );
        }
        let bytes = archive(
            &[],
            &[Rec {
                data_offset: 16,
                size: 0,
                ..Rec::named(b"at 16")
            }],
        );
        assert_eq!(open_and_check(&bytes, 0), Ok(()), "16 itself is allowed");
    }

    #[test]
    fn data_past_directory() {
        // Directory at 16 + 8 = 24.
        let body = [7u8; 8];
        let cases = [
            (16, 9),
            (24, 1),
            (25, 0),
            (u32::MAX - 1, 3), // the end overflows 32 bits
            (u32::MAX, u32::MAX),
            (16, u32::MAX),
        ];
        for (data_offset, size) in cases {
            let bytes = archive(
                &body,
                &[
                    Rec {
                        size: 8,
                        ..Rec::named(b"fits")
                    },
                    Rec {
                        data_offset,
                        size,
                        ..Rec::named(b"past")
                    },
                ],
            );
            assert_eq!(open_and_check(&bytes, 0), Ok(()));
            assert_eq!(
                open_and_check(&bytes, 1),
                Err(NresError::DataPastDirectory {
                    entry: 1,
                    data_offset,
                    size,
                    directory_offset: 24
                }),
                "{data_offset} + {size}"
            );
        }
        for (data_offset, size) in [(16, 8), (24, 0), (20, 4)] {
            let bytes = archive(
                &body,
                &[Rec {
                    data_offset,
                    size,
                    ..Rec::named(b"fits")
                }],
            );
            assert_eq!(open_and_check(&bytes, 0), Ok(()), "{data_offset} + {size}");
        }
    }

    #[test]
    fn name_unterminated() {
        let full = [b'x'; 36];
        let bytes = archive(
            &[0; 8],
            &[
                Rec::named(b"a"),
                Rec {
                    sort_index: 1,
                    ..Rec::named(&full[..35])
                },
                Rec {
                    sort_index: 2,
                    ..Rec::named(&full)
                },
            ],
        );
        assert_eq!(open_and_check(&bytes, 1), Ok(()), "35 bytes + NUL is fine");
        // Directory at 24; entry 2's name field at 24 + 128 + 20.
        assert_eq!(
            open_and_check(&bytes, 2),
            Err(NresError::NameUnterminated {
                entry: 2,
                offset: 172
            })
        );
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.lookup_table(), crate::nres::LookupTable::Canonical);
        assert_eq!(a.entry(2).map(|e| e.name()), Some(&full[..]));
        assert_eq!(a.find(&full), Some(2), "lookup still sees all 36 bytes");
        assert_eq!(
            a.payload(2),
            Ok(&b""[..]),
            "the data of such an entry stays readable"
        );
    }

    #[test]
    fn no_such_entry() {
        let bytes = archive(&[], &[Rec::named(b"a")]);
        let a = Archive::open(&bytes).unwrap();
        assert_eq!(a.check_entry(1), Err(NresError::NoSuchEntry { index: 1 }));
        assert_eq!(
            a.payload(usize::MAX),
            Err(NresError::NoSuchEntry {
                index: usize::MAX as u64
            })
        );
    }

    #[test]
    fn problems_lists_every_violation_in_order() {
        let full = [b'n'; 36];
        let bytes = archive(
            &[0; 16],
            &[
                Rec::named(b"fine"),
                Rec {
                    data_offset: 0,
                    size: u32::MAX,
                    ..Rec::named(&full)
                },
                Rec::named(b"fine too"),
                Rec {
                    data_offset: 40,
                    size: 1,
                    ..Rec::named(b"past")
                },
            ],
        );
        let a = Archive::open(&bytes).unwrap();
        let dir = 32;
        let found: Vec<NresError> = a.problems().collect();
        assert_eq!(
            found,
            [
                NresError::DataBeforeHeader {
                    entry: 1,
                    data_offset: 0
                },
                NresError::DataPastDirectory {
                    entry: 1,
                    data_offset: 0,
                    size: u32::MAX,
                    directory_offset: dir
                },
                NresError::NameUnterminated {
                    entry: 1,
                    offset: dir + 64 + 20
                },
                NresError::DataPastDirectory {
                    entry: 3,
                    data_offset: 40,
                    size: 1,
                    directory_offset: dir
                },
            ]
        );
        // check_entry reports the first of an entry's violations.
        assert_eq!(a.check_entry(1), Err(found[0]));
        let mut p = a.problems();
        p.by_ref().for_each(drop);
        assert_eq!(p.next(), None, "fused");
    }
}
