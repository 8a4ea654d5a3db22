//! Counts in messages: "1 entry", "2 entries"; "1 byte", "7 bytes".

/// `n` and its noun, singular for one.
pub fn of(n: impl Into<u64>, one: &str, many: &str) -> String {
    let n = n.into();
    format!("{n} {}", if n == 1 { one } else { many })
}

pub fn entries(n: usize) -> String {
    of(n as u64, "entry", "entries")
}

pub fn bytes(n: u64) -> String {
    of(n, "byte", "bytes")
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(super::entries(1), "1 entry");
        assert_eq!(super::entries(0), "0 entries");
        assert_eq!(super::bytes(1), "1 byte");
        assert_eq!(super::bytes(7), "7 bytes");
        assert_eq!(super::of(1u32, "file", "files"), "1 file");
        assert_eq!(super::of(2u32, "file", "files"), "2 files");
    }
}
