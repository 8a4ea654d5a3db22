//! `ngi.toml`, the manifest `ngi unpack` writes beside the entry files and `ngi pack`
//! rebuilds the archive from: the format and header fields, every record field of every
//! entry (the name as `list` shows it), where each payload lay, the bytes of the data
//! region no payload holds, and the SHA-256 of each decoded entry, which tells `pack` the
//! files that changed.
//!
//! ```toml
//! ngi_manifest = 1
//! format = "rsli"          # or "nres"
//! lookup = "canonical"     # sort_index rebuilt by pack; "as-stored" keeps the values below
//! data_start = 256         # the original data region (payload offsets, not the stored ones)
//! data_end = 9000
//! header = "4e4c0001..."   # RsLi: the 32 header bytes (seed and flag are the fields below)
//! seed = 0x12345678
//! presorted_flag = 0xabba
//! trailer = "414f10000000" # RsLi: the "AO" media trailer, when the file ends with one
//! media_overlay = 16       # RsLi read with the trailer: the stored offsets are relative to it
//! gaps = "ngi-gaps.bin"    # bytes of the data region outside every payload, back to back
//!
//! [[gap]]
//! offset = 40
//! len = 3
//!
//! [[entry]]
//! file = "TEXT.TXT"        # the decoded entry
//! name = "TEXT.TXT"
//! method = "lzss"          # RsLi: method, flags, reserved bytes, unpacked size
//! flags = 0x40
//! sort_index = 0           # as stored
//! index = 0                # lookup = "as-stored": the entry's index in the unpacked
//!                          # archive, which tells pack that entries were moved
//! key = 3                  # RsLi XOR methods: the key the packed bytes are encrypted
//!                          # with, when it is not sort_index (no presorted flag)
//! offset = 256             # data_offset as stored, and the packed size
//! size = 1200
//! sha256 = "..."
//! packed = "TEXT.TXT.packed" # when packing the file again would not give the same bytes
//! ```

use serde::{Deserialize, Serialize};

/// The manifest's file name inside the folder.
pub const FILE_NAME: &str = "ngi.toml";
/// The gap bytes' file name inside the folder.
pub const GAPS_NAME: &str = "ngi-gaps.bin";
/// The manifest version this build reads and writes.
pub const VERSION: u32 = 1;

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub ngi_manifest: u32,
    pub format: String,
    pub lookup: String,
    pub data_start: u64,
    pub data_end: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub presorted_flag: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trailer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_overlay: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gaps: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gap: Vec<Gap>,
    #[serde(default)]
    pub entry: Vec<EntryRecord>,
}

/// A run of data-region bytes outside every payload (not padding of zeros to a multiple
/// of 8 after an NRes payload: that is implied); its bytes follow the previous gap's in
/// the gaps file.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Gap {
    pub offset: u64,
    pub len: u64,
}

/// One entry, in directory order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryRecord {
    /// The decoded entry's file, inside the folder; none when it could not be decoded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The name as `list` shows it (`\xNN` and `\\` escapes).
    pub name: String,
    /// The name field's bytes after the name's NUL, in hex, when they are not all zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_tail: Option<String>,
    /// NRes: the whole 36-byte name field in hex, for a name with no NUL in it (the
    /// engine reads past such a field; `pack` keeps it as it is and ignores `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub type_id: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attr1: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attr2: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attr3: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags: Option<u16>,
    /// RsLi: the 4 reserved bytes after the name, in hex, when not all zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reserved: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unpacked_size: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort_index: Option<u32>,
    /// With `lookup = "as-stored"`, the entry's index in the archive unpacked: the stored
    /// `sort_index` values are such indices, so entries listed in another order than
    /// theirs make `pack` rebuild the table (without it, it could not tell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u32>,
    /// RsLi, an XOR method: the key its packed bytes are encrypted with (the effective
    /// `sort_index`), when it is not the stored `sort_index` (a library without the
    /// presorted flag computes it from the names). `pack` needs it where entries share
    /// packed bytes: each reads them with its own key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<u16>,
    /// `data_offset` as stored; absent for an entry added to the folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// NRes `size`, RsLi `packed_size`, as stored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// RsLi: the packed stream before XOR, kept when packing the file again would not
    /// reproduce it (a Deflate stream from another compressor, a corrupt entry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub packed: Option<String>,
}

/// The largest manifest `pack` reads, and `unpack` writes: about 300 000 entries of the
/// couple of hundred bytes `unpack` writes for each. Parsed a table at a time ([`parse`]),
/// a manifest takes about 8 bytes of memory a byte of it, and at most about 16 (a file of
/// entries with empty names), so this bounds `pack`'s parse at about 1 GB.
pub const MAX_LEN: usize = 64 << 20;

/// How many bytes of manifest a key takes at the least: `unpack` writes one in about 15
/// (a key, its value and the line), and no line shorter than 8 (`len = 3`).
const BYTES_PER_KEY: usize = 8;
/// Keys allowed beyond that, so that a short manifest may be dense.
const KEYS_SLACK: usize = 1024;

/// Refuses a manifest of another shape than `unpack` writes, before it is parsed, and
/// returns where its tables start (for [`parse`]). The parser builds a document in memory
/// at about 20 bytes for each byte of an `unpack` manifest, but at up to 100 for a file
/// dense with values (a line `x = [0,0,0,...]`) and 530 for one of dotted keys (each `.a`
/// a table): parsed a table at a time that is bounded, and these refusals name the line
/// of what no manifest has. An `unpack` manifest is blank lines, comments, `[[entry]]` and
/// `[[gap]]` headers and `key = value` lines whose value is a string, a whole number or
/// (for an archive of no entries) `[]`: so outside strings and comments a `[` elsewhere
/// than a header or `[]`, or any of `]`, `{`, `}`, `,` and `.`, is refused at once, keys
/// are held to one in 8 bytes as the scan goes, and what the parser would read otherwise
/// than this scan (a one-line string past its line, a carriage return that ends no line)
/// is refused too, so that the tables found are the parser's.
pub fn check_shape(text: &str) -> Result<Vec<usize>, String> {
    let bytes = text.as_bytes();
    let mut headers = Vec::new();
    let starts = |at: usize, prefix: &[u8]| bytes.get(at..).is_some_and(|b| b.starts_with(prefix));
    let (mut keys, mut line) = (0usize, 1usize);
    // Whether only blanks came before on this line: where a `[` opens a table header.
    let mut line_start = true;
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        at += 1;
        let header = b == b'[' && line_start;
        line_start &= b == b' ' || b == b'\t';
        match b {
            _ if header => {
                headers.push(at - 1);
                let rest = rest_of_line(&bytes[at..], line)?;
                let len = rest.len();
                // The line's header, a comment left out.
                let end = rest.iter().position(|&b| b == b'#').unwrap_or(len);
                let header = String::from_utf8_lossy(&rest[..end]);
                let compact: String = header.chars().filter(|c| !c.is_whitespace()).collect();
                if !matches!(compact.as_str(), "[entry]]" | "[gap]]") {
                    let shown: String = header.trim_end().chars().take(40).collect();
                    return Err(format!(
                        "line {line}: [{shown} is no [[entry]] or [[gap]] header, the only \
                         tables a manifest has"
                    ));
                }
                at += len;
            }
            b'#' => at += rest_of_line(&bytes[at..], line)?.len(),
            b'"' | b'\'' => {
                let triple = [b; 3];
                let multiline = starts(at, &triple[..2]);
                let close: &[u8] = if multiline { &triple } else { &triple[..1] };
                if multiline {
                    at += 2;
                }
                // A basic string's backslash escapes the byte after it (a line-ending one
                // the newline); a literal's does not. A one-line string ends at its line,
                // as the parser has it.
                while at < bytes.len() && !starts(at, close) {
                    if !multiline && bytes[at] == b'\n' {
                        return Err(format!("line {line}: a string runs past its line"));
                    }
                    let step = if b == b'"' && bytes[at] == b'\\' {
                        2
                    } else {
                        1
                    };
                    let skipped = &bytes[at..(at + step).min(bytes.len())];
                    line += skipped.iter().filter(|&&c| c == b'\n').count();
                    at += step;
                }
                at += close.len();
                // A multi-line string may end in one or two quotes of its own before the
                // closing three (`"""say "hi""""`).
                if multiline {
                    let rest = bytes.get(at..).unwrap_or_default();
                    at += rest.iter().take(2).take_while(|&&q| q == b).count();
                }
            }
            b'\n' => {
                line += 1;
                line_start = true;
            }
            // The parser takes a carriage return only as the end of a line.
            b'\r' if bytes.get(at) != Some(&b'\n') => {
                return Err(format!("line {line}: a carriage return that ends no line"));
            }
            // An empty list of entries (`entry = []`, an archive of none) is the one array.
            b'[' if bytes[at..].iter().find(|&&c| c != b' ' && c != b'\t') == Some(&b']') => {
                at += bytes[at..]
                    .iter()
                    .position(|&c| c == b']')
                    .map_or(0, |p| p + 1);
            }
            b'[' | b']' | b'{' | b'}' | b',' | b'.' => {
                return Err(format!(
                    "line {line}: '{}' outside a string: an array, an inline table, a dotted \
                     key or a number with a point, none of which a manifest has",
                    char::from(b)
                ));
            }
            b'=' => {
                keys += 1;
                if keys > KEYS_SLACK + at / BYTES_PER_KEY {
                    return Err(format!(
                        "line {line}: more than one key in {BYTES_PER_KEY} bytes so far \
                         ({keys} in the first {at}), denser than any manifest unpack writes"
                    ));
                }
            }
            _ => {}
        }
    }
    Ok(headers)
}

/// The bytes of `bytes` up to the end of their line (`line`). The parser ends a comment,
/// or the line of a header, at a carriage return: one other than the line's last byte
/// would have it read the rest of the line as TOML the scan did not look at.
fn rest_of_line(bytes: &[u8], line: usize) -> Result<&[u8], String> {
    let rest = &bytes[..bytes.iter().take_while(|&&b| b != b'\n').count()];
    match rest.iter().position(|&b| b == b'\r') {
        Some(r) if r + 1 != rest.len() => {
            Err(format!("line {line}: a carriage return that ends no line"))
        }
        _ => Ok(rest),
    }
}

/// The longest table, or run of fields before the first, parsed at once: `unpack` writes
/// some hundreds of bytes for an entry, and its first comment names the folder.
const MAX_TABLE_LEN: usize = 64 << 10;

/// The tables of one stretch of the manifest.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Tables {
    #[serde(default)]
    gap: Vec<Gap>,
    #[serde(default)]
    entry: Vec<EntryRecord>,
}

/// The manifest in `text`, or why not, naming the line. Parsed a table at a time: the
/// parser builds a document in memory at 20 to 600 bytes for each byte of it (dotted keys
/// the dearest), so that a whole manifest parsed at once could take tens of GB. Each
/// `[[entry]]` or `[[gap]]`, and the fields before the first, is parsed on its own (at
/// most 64 KiB), and only the records are kept: a few hundred bytes each. [`check_shape`]
/// first refuses what `unpack` never writes, and finds the tables.
pub fn parse(text: &str) -> Result<Manifest, String> {
    // Where each table starts, then the end: the pieces after the head.
    let mut bounds = check_shape(text)?;
    bounds.push(text.len());
    let head_end = bounds[0];
    let mut manifest: Manifest = parse_piece(text, 0, head_end)?;
    for pair in bounds.windows(2) {
        let tables: Tables = parse_piece(text, pair[0], pair[1])?;
        manifest.gap.extend(tables.gap);
        manifest.entry.extend(tables.entry);
    }
    Ok(manifest)
}

/// `text[start..end]` parsed alone; its errors name the line of the whole text.
fn parse_piece<T: serde::de::DeserializeOwned>(
    text: &str,
    start: usize,
    end: usize,
) -> Result<T, String> {
    let line_of = |at: usize| {
        text.as_bytes()[..at.min(text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1
    };
    if end - start > MAX_TABLE_LEN {
        return Err(format!(
            "line {}: a table of {} bytes, more than the {MAX_TABLE_LEN} any table of a \
             manifest takes",
            line_of(start),
            end - start
        ));
    }
    toml::from_str(&text[start..end]).map_err(|e| {
        let at = start + e.span().map_or(0, |span| span.start);
        format!(
            "line {}: does not parse: {}",
            line_of(at),
            e.message().trim_end()
        )
    })
}

/// Lower-case hex.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes from hex (either case), `None` if it is not hex.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if text.len() % 2 != 0 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| {
            text.get(i..i + 2)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        assert_eq!(hex(b"\x00\xffAO"), "00ff414f");
        assert_eq!(from_hex("00FF414f"), Some(b"\x00\xffAO".to_vec()));
        assert_eq!(from_hex("0"), None);
        assert_eq!(from_hex("zz"), None);
        assert_eq!(from_hex("+1"), None);
    }

    #[test]
    fn only_the_shape_unpack_writes_is_parsed() {
        // As unpack writes an entry, strings of every kind with `=`, `,`, `[`, `.` and
        // quotes in them (one or two before a multi-line string's close), a comment too.
        let entry = r#"[[entry]]
file = "A,B=C[{.TXT\","
name = 'A,B=C\x41'
flags = 0x40 # a, b = [c.
name_tail = """x,\",="""
alt = """IT'S,""""
raw = '''x\,'''''
size = 12

"#;
        let gap = "[[gap]]\noffset = 40\nlen = 3\n\n";
        let head = "ngi_manifest = 1\nformat = \"rsli\"\n";
        let manifest = format!("{head}{}{}", gap.repeat(100_000), entry.repeat(10_000));
        let headers = check_shape(&manifest).unwrap();
        assert_eq!(headers.len(), 110_000);
        assert!(manifest[headers[0]..].starts_with("[[gap]]\noffset"));
        let refused = |text: &str, want: &str| {
            let e = check_shape(text).expect_err(text);
            assert!(e.starts_with(want), "{e}");
        };
        assert!(check_shape(&format!("{head}entry = [ ]\n")).is_ok());
        // Arrays, inline tables, dotted keys and points: refused where they stand.
        refused(
            &format!("{head}x = [0, 0]\n"),
            "line 3: '[' outside a string",
        );
        refused(
            &format!("{head}\n[[gap]]\ny = {{ a = 1 }}\n"),
            "line 5: '{'",
        );
        refused(&format!("{head}k0.a.a = 1\n"), "line 3: '.'");
        refused(&format!("{head}f = 1.5\n"), "line 3: '.'");
        // Tables other than the two.
        refused(
            &format!("{head}[[gap]] # the first\n[[ entry ]]\n[other]\n"),
            "line 5: [other] is no [[entry]] or [[gap]] header",
        );
        refused("[[entry]\n", "line 1: [[entry] is no");
        // Keys alone, one in 4 bytes: refused once past one in 8 and the slack, near
        // the 2056th (each key brings 4 bytes and half a key of room).
        let keys = format!("{head}{}", "a=1\n".repeat(5000));
        let e = check_shape(&keys).unwrap_err();
        assert!(
            e.starts_with("line 20") && e.contains("more than one key in 8 bytes"),
            "{e}"
        );
        // Quotes before a multi-line string's close are the string's: what follows is
        // outside it again.
        for quote in ["\"", "'"] {
            let close = quote.repeat(4);
            let text = format!("a = {}x{close}\nb = [0]\n# {quote}", quote.repeat(3));
            refused(&text, "line 2: '['");
        }
        // A line-ending backslash in a string still ends a line.
        refused("x = \"\"\"a\\\n\\\nb\"\"\"\ny = [0]\n", "line 4: '['");
        // What the parser reads otherwise than the scan: refused.
        refused(
            "x = \"a\nb = [0]\"\n",
            "line 1: a string runs past its line",
        );
        refused(
            "x = 1 # a\rb = [0]\n",
            "line 1: a carriage return that ends no line",
        );
        refused("[[gap]] #\rb = [0]\n", "line 1: a carriage return");
        assert!(check_shape("x = 1 # crlf\r\n[[gap]]\r\n").is_ok());
        // An unterminated string runs to the end (the parser then says where).
        assert!(check_shape("x = \"\"\"a,b,c").is_ok());
        assert!(check_shape("x = \"\"\"a").is_ok());
    }

    #[test]
    fn parsed_a_table_at_a_time_as_a_whole_would_be() {
        let text = "ngi_manifest = 1\nformat = \"nres\"\nlookup = \"canonical\"\n\
                    data_start = 16\ndata_end = 40\n\n[[gap]]\noffset = 16\nlen = 4\n\n\
                    [[entry]]\nname = \"A\"\nsize = 8\n\n[[gap]]\noffset = 30\nlen = 2\n\n\
                    [[entry]]\nname = \"B\"\n";
        let m = parse(text).unwrap();
        let whole: Manifest = toml::from_str(text).unwrap();
        assert_eq!((m.gap.len(), m.entry.len()), (2, 2));
        assert_eq!(format!("{m:?}"), format!("{whole:?}"));
        // Errors name the line of the whole text.
        let bad = text.replace("name = \"B\"", "nome = \"B\"");
        let e = parse(&bad).unwrap_err();
        assert!(
            e.starts_with("line 20: does not parse: unknown field `nome`"),
            "{e}"
        );
        let e = parse(&text.replace("len = 2", "len = -2")).unwrap_err();
        assert!(e.starts_with("line 17: does not parse"), "{e}");
        // No table is longer than unpack makes one.
        let long = format!("{text}file = \"{}\"\n", "x".repeat(MAX_TABLE_LEN));
        let e = parse(&long).unwrap_err();
        assert!(e.starts_with("line 19: a table of"), "{e}");
    }

    /// Found untested by a mutation run: a bound off by one, and CRLF taken as a
    /// carriage return that ends no line.
    #[test]
    fn a_table_of_the_bound_and_crlf_lines_parse() {
        let text = "ngi_manifest = 1\nformat = \"nres\"\nlookup = \"canonical\"\n\
                    data_start = 16\ndata_end = 40\n\n[[entry]]\nname = \"A\"\n";
        let table = text.len() - text.find("[[entry]]").unwrap();
        let padded = |len: usize| {
            let comment = "#".repeat(len - table - 1);
            format!("{text}{comment}\n")
        };
        assert_eq!(parse(&padded(MAX_TABLE_LEN)).unwrap().entry.len(), 1);
        let e = parse(&padded(MAX_TABLE_LEN + 1)).unwrap_err();
        assert!(e.starts_with("line 7: a table of 65537 bytes"), "{e}");

        let crlf = text.replace('\n', "\r\n");
        let m = parse(&crlf).unwrap();
        assert_eq!(format!("{m:?}"), format!("{:?}", parse(text).unwrap()));
        let e = parse(&crlf.replace("\r\nname", "\rname")).unwrap_err();
        assert!(
            e.starts_with("line 7: a carriage return that ends no line"),
            "{e}"
        );
    }
}
