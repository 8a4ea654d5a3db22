//! Entry names as text, and entry names as file names.
//!
//! Display form (tables, JSON `name`, error messages): printable ASCII (0x20..=0x7E) as
//! itself, except the backslash, which is written `\\`; every other byte as `\xNN` with
//! two lower-case hex digits. The form is lossless, and NAME arguments accept it back.
//!
//! File names for `extract`: ASCII letters, digits and `. _ - + ( ) [ ] { } ! # $ & ' , ; = @ ^ ~`
//! and inner spaces are kept; every other byte (path separators, drive colons, control and
//! non-ASCII bytes, `%` itself) becomes `%XX`. A trailing dot or space is escaped too
//! (Windows would drop it), so are names made only of dots (`.`, `..`), and an empty name
//! becomes `%`. A name whose part before the first dot is a Windows device name (`CON`,
//! `PRN`, `AUX`, `NUL`, `CONIN$`, `CONOUT$`, `COM0`-`COM9`, `LPT0`-`LPT9`, any case),
//! spaces after it or not, has the device name's last byte escaped (`CON.TXT` ->
//! `CO%4E.TXT`, `CON .TXT` -> `CO%4E .TXT`), since Windows would open the device. The
//! result never contains a separator, so it always names a file directly inside the
//! target folder.

use std::fmt::Write;

/// The display form of `name`.
pub fn display(name: &[u8]) -> String {
    let mut out = String::with_capacity(name.len());
    for &b in name {
        match b {
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7E => out.push(b as char),
            _ => {
                let _ = write!(out, "\\x{b:02x}");
            }
        }
    }
    out
}

/// Reads a NAME argument: the display form back into bytes. A backslash that starts no
/// valid escape is taken literally.
pub fn parse_argument(arg: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(arg.len());
    let mut i = 0;
    while let Some(&b) = arg.get(i) {
        if b == b'\\' {
            if arg.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if arg.get(i + 1) == Some(&b'x') {
                // Two hex digits exactly (`from_str_radix` alone would take `+f`).
                let hex = arg
                    .get(i + 2..i + 4)
                    .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                    .and_then(|h| std::str::from_utf8(h).ok());
                if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    out.push(v);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(b);
        i += 1;
    }
    out
}

/// Whether `b` may stand as itself in an extracted file name.
fn file_safe(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b" ._-+()[]{}!#$&',;=@^~".contains(&b)
}

/// The file name entry `name` is extracted to (see the module docs); never empty, never
/// `.` or `..`, never containing `/`, `\` or `:`.
pub fn file_name(name: &[u8]) -> String {
    if name.is_empty() {
        return "%".into();
    }
    let all_dots = name.iter().all(|&b| b == b'.');
    let last = name.len() - 1;
    let stem_len = name.iter().position(|&b| b == b'.').unwrap_or(name.len());
    // Windows drops spaces after a device name too: `CON .TXT` opens the console.
    let device_len = name[..stem_len]
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(0, |at| at + 1);
    let device = is_windows_device(&name[..device_len]);
    let mut out = String::with_capacity(name.len());
    for (i, &b) in name.iter().enumerate() {
        let keep = file_safe(b)
            && !(all_dots
                || (i == last && (b == b'.' || b == b' '))
                || (i == 0 && b == b' ')
                || (device && i + 1 == device_len));
        if keep {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// Whether `stem` names a device on Windows, whatever its extension.
fn is_windows_device(stem: &[u8]) -> bool {
    let upper = stem.to_ascii_uppercase();
    matches!(
        upper.as_slice(),
        b"CON" | b"PRN" | b"AUX" | b"NUL" | b"CONIN$" | b"CONOUT$"
    ) || matches!(upper.as_slice(), [b'C', b'O', b'M', b'0'..=b'9'])
        || matches!(upper.as_slice(), [b'L', b'P', b'T', b'0'..=b'9'])
}

/// `file` with `~suffix` put before its extension: how a later entry whose file name
/// collides (ignoring ASCII case) with an earlier one is named.
pub fn disambiguate(file: &str, suffix: &str) -> String {
    match file.rfind('.') {
        Some(dot) if dot > 0 => format!("{}~{suffix}{}", &file[..dot], &file[dot..]),
        _ => format!("{file}~{suffix}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_round_trips_through_the_argument_parser() {
        let name = b"A\\B\x00\xff z\"";
        let shown = display(name);
        assert_eq!(shown, "A\\\\B\\x00\\xff z\"");
        assert_eq!(parse_argument(shown.as_bytes()), name);
        assert_eq!(parse_argument(b"C:\\q"), b"C:\\q");
        assert_eq!(
            parse_argument(b"\\x+f"),
            b"\\x+f",
            "no escape: a sign is no digit"
        );
        assert_eq!(parse_argument(b"\\x0f"), b"\x0f");
        // As the README says: either case of digit, a lower-case x, and a backslash
        // that starts no escape stands for itself.
        assert_eq!(parse_argument(b"caf\\xE9\\xe9"), b"caf\xe9\xe9");
        assert_eq!(parse_argument(b"caf\\XE9"), b"caf\\XE9");
        assert_eq!(parse_argument(b"\\xZZ a\\b"), b"\\xZZ a\\b");
    }

    #[test]
    fn file_names_stay_inside_the_folder() {
        assert_eq!(file_name(b"MESH.MSH"), "MESH.MSH");
        assert_eq!(file_name(b"../../etc/passwd"), "..%2F..%2Fetc%2Fpasswd");
        assert_eq!(file_name(b"..\\boot.ini"), "..%5Cboot.ini");
        assert_eq!(file_name(b"C:evil"), "C%3Aevil");
        assert_eq!(file_name(b".."), "%2E%2E");
        assert_eq!(file_name(b"."), "%2E");
        assert_eq!(file_name(b""), "%");
        assert_eq!(file_name(b"a. "), "a.%20");
        assert_eq!(file_name(b"100%\xe0"), "100%25%E0");
        assert_eq!(file_name(b"/abs"), "%2Fabs");
        assert_eq!(file_name(b"CON.TXT"), "CO%4E.TXT");
        assert_eq!(file_name(b"CON .TXT"), "CO%4E .TXT");
        assert_eq!(file_name(b"lpt1  .x"), "lpt%31  .x");
        assert_eq!(file_name(b"nul "), "nu%6C%20");
        assert_eq!(file_name(b" .TXT"), "%20.TXT");
        assert_eq!(file_name(b"nul"), "nu%6C");
        assert_eq!(file_name(b"com1.dat"), "com%31.dat");
        assert_eq!(file_name(b"LPT9"), "LPT%39");
        assert_eq!(file_name(b"com0.dat"), "com%30.dat");
        assert_eq!(file_name(b"LPT0"), "LPT%30");
        assert_eq!(file_name(b"conin$.x"), "conin%24.x");
        assert_eq!(file_name(b"CONOUT$"), "CONOUT%24");
        assert_eq!(file_name(b"CONSOLE.TXT"), "CONSOLE.TXT");
        assert_eq!(file_name(b"COMA"), "COMA");
        for n in [&b"x/y"[..], b"\\", b"a:b", b"\0"] {
            let f = file_name(n);
            assert!(!f.contains(['/', '\\', ':', '\0']), "{f}");
        }
    }

    /// `Folder::create_temp` names its files with `%n` so that no entry's file can be
    /// one: every one- and two-byte name, and the names made unique from them.
    #[test]
    fn no_file_name_holds_the_temporary_files_mark() {
        let one = (0..=255u8).map(|b| vec![b]);
        let two = (0..=u16::MAX).map(|v| v.to_be_bytes().to_vec());
        for name in core::iter::once(Vec::new()).chain(one).chain(two) {
            let file = file_name(&name);
            for made in [disambiguate(&file, "7"), file] {
                assert!(!made.contains("%n"), "{name:?} -> {made}");
            }
        }
        assert_eq!(file_name(b"%ngi"), "%25ngi");
    }

    #[test]
    fn disambiguation_keeps_the_extension() {
        assert_eq!(disambiguate("TEX.DAT", "5"), "TEX~5.DAT");
        assert_eq!(disambiguate("NOEXT", "2"), "NOEXT~2");
        assert_eq!(disambiguate(".hidden", "1"), ".hidden~1");
    }
}
