//! Counts in messages, so that a limit of one byte reads "1 byte", not "1 bytes".

use core::fmt;

/// A number and the noun it counts, shown as "1 byte" or "2 bytes".
pub(crate) struct Count {
    n: u64,
    one: &'static str,
    many: &'static str,
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = if self.n == 1 { self.one } else { self.many };
        write!(f, "{} {noun}", self.n)
    }
}

pub(crate) const fn bytes(n: u64) -> Count {
    Count {
        n,
        one: "byte",
        many: "bytes",
    }
}

pub(crate) const fn decoded_bytes(n: u64) -> Count {
    Count {
        n,
        one: "decoded byte",
        many: "decoded bytes",
    }
}

pub(crate) const fn entries(n: u64) -> Count {
    Count {
        n,
        one: "entry",
        many: "entries",
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(bytes(1).to_string(), "1 byte");
        assert_eq!(bytes(0).to_string(), "0 bytes");
        assert_eq!(decoded_bytes(1).to_string(), "1 decoded byte");
        assert_eq!(decoded_bytes(2).to_string(), "2 decoded bytes");
        assert_eq!(entries(1).to_string(), "1 entry");
        assert_eq!(
            entries(u64::MAX).to_string(),
            "18446744073709551615 entries"
        );
    }

    #[test]
    fn error_messages_count_one_in_the_singular() {
        use crate::error::DecodeError;
        use crate::limits::{LimitError, Limits};
        use crate::nres::NresError;
        use crate::rsli::RsliError;
        let cases: [(std::string::String, &str); 5] = [
            (
                LimitError::TooManyEntries { count: 1, limit: 0 }.to_string(),
                "1 entry exceeds the limit of 0 entries",
            ),
            (
                Limits::DEFAULT
                    .with_max_entry_size(1)
                    .check_size(2, 3)
                    .unwrap_err()
                    .to_string(),
                "entry 2: decoded size 3 exceeds the entry size limit of 1 byte",
            ),
            (
                NresError::Limit {
                    error: LimitError::TooManyEntries { count: 2, limit: 1 },
                    offset: 8,
                }
                .to_string(),
                "NRes entry count 2 at offset 8 exceeds the limit of 1 entry",
            ),
            (
                RsliError::OutputSize {
                    entry: 0,
                    expected: 0,
                    got: 1,
                }
                .to_string(),
                "entry 0: output buffer is 1 byte, but the entry unpacks to exactly 0",
            ),
            (
                DecodeError::Truncated {
                    produced: 0,
                    expected: 1,
                }
                .to_string(),
                "packed stream ends after 0 of 1 decoded byte",
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
    }
}
