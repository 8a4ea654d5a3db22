//! Name comparison as the engine does it (SPEC 1.4): MSVC `_strcmpi`.

use core::cmp::Ordering;

/// Compares two names as MSVC `_strcmpi` does (SPEC 1.4): ASCII letters folded to
/// **lower** case, then unsigned byte order, with C-string semantics — each name ends at
/// its first NUL or at the end of the slice, and a name that is a prefix of the other is
/// the lesser.
///
/// The folding direction decides the order of the six bytes between `Z` and `a`
/// (`[ \ ] ^ _` and the backquote): they sort before every letter. Bytes `>= 0x80` are
/// compared unchanged.
///
/// ```
/// use core::cmp::Ordering;
/// use ngi_core::nres::compare_names;
///
/// assert_eq!(compare_names(b"Texture.TEX", b"texture.tex"), Ordering::Equal);
/// assert_eq!(compare_names(b"A_", b"AB"), Ordering::Less); // '_' < 'b'
/// assert_eq!(compare_names(b"ab", b"abc"), Ordering::Less);
/// assert_eq!(compare_names(b"ab\0zzz", b"AB"), Ordering::Equal);
/// ```
pub fn compare_names(a: &[u8], b: &[u8]) -> Ordering {
    folded(a).cmp(folded(b))
}

/// The bytes `_strcmpi` compares: up to the first NUL, letters in lower case.
fn folded(name: &[u8]) -> impl Iterator<Item = u8> + '_ {
    c_str(name).iter().map(u8::to_ascii_lowercase)
}

/// The C string at the start of `bytes`: everything before the first NUL, or all of it.
pub(crate) fn c_str(bytes: &[u8]) -> &[u8] {
    bytes.split(|&b| b == 0).next().unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use Ordering::{Equal, Greater, Less};

    #[test]
    fn folds_to_lower_case() {
        for between in *b"[\\]^_`" {
            for letter in [b'B', b'b', b'A', b'a', b'Z', b'z'] {
                // Under upper-case folding every one of these would be Greater.
                assert_eq!(
                    compare_names(&[between], &[letter]),
                    Less,
                    "{between} vs {letter}"
                );
            }
            assert_eq!(compare_names(&[between], b"@"), Greater);
            assert_eq!(compare_names(&[between], b"{"), Less);
        }
        assert_eq!(compare_names(b"A_", b"AB"), Less);
        assert_eq!(compare_names(b"a_", b"ab"), Less);
        assert_eq!(compare_names(b"AB", b"a_"), Greater);
        assert_eq!(compare_names(b"A`", b"Ab"), Less);
    }

    #[test]
    fn letters_equal_in_any_case() {
        assert_eq!(compare_names(b"ABCXYZ", b"abcxyz"), Equal);
        assert_eq!(compare_names(b"MiXeD.Msh", b"mIxEd.mSH"), Equal);
        assert_eq!(compare_names(b"abc", b"ABD"), Less);
        assert_eq!(compare_names(b"ABD", b"abc"), Greater);
    }

    #[test]
    fn high_bytes_unchanged_and_unsigned() {
        // 0xC0 and 0xE0 are a case pair in cp1251, but _strcmpi folds ASCII only.
        assert_eq!(compare_names(&[0xC0], &[0xE0]), Less);
        assert_eq!(
            compare_names(&[0x80], b"z"),
            Greater,
            "unsigned, not signed char"
        );
        assert_eq!(compare_names(&[0xFF], &[0xFF]), Equal);
    }

    #[test]
    fn c_string_semantics() {
        assert_eq!(compare_names(b"ab", b"abc"), Less);
        assert_eq!(compare_names(b"abc", b"ab"), Greater);
        assert_eq!(compare_names(b"", b""), Equal);
        assert_eq!(compare_names(b"", b"a"), Less);
        assert_eq!(compare_names(b"ab\0c", b"ab\0d"), Equal);
        assert_eq!(compare_names(b"ab\0", b"AB"), Equal);
        assert_eq!(compare_names(b"\0x", b""), Equal);
        assert_eq!(c_str(b"ab\0cd"), b"ab");
        assert_eq!(c_str(b"abcd"), b"abcd");
        assert_eq!(c_str(b""), b"");
    }
}
