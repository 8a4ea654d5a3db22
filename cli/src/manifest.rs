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

/// The largest manifest `pack` reads: some million entries of the couple of hundred
/// bytes `unpack` writes for each.
pub const MAX_LEN: usize = 256 << 20;

/// Values a table of the manifest (`[[entry]]`, `[[gap]]`) may hold, and the file outside
/// them: the manifest `unpack` writes has about 16 to an entry.
const VALUES_PER_TABLE: usize = 48;
const VALUES_OUTSIDE: usize = 256;

/// Refuses a manifest with more values than its tables can hold, before it is parsed. The
/// parser builds the whole document in memory first, at about 20 bytes for each byte of
/// an `unpack` manifest (a 50 000-entry one of 10.7 MB: 230 MB), but at up to 100 for a
/// file dense with values (a line `x = [0,0,0,...]`); counted here, the values a table
/// may hold keep any manifest near the first figure. Counted outside strings and
/// comments: each `=` (a key), `,` (an element) and `[` or `{` (an array, an inline
/// table, a table header).
pub fn check_density(text: &str) -> Result<(), String> {
    let bytes = text.as_bytes();
    let starts = |at: usize, prefix: &[u8]| bytes.get(at..).is_some_and(|b| b.starts_with(prefix));
    // A table-array header: `[[` first on its line (`[[` inside a value is an array).
    let header = |at: usize| {
        let first = at
            + bytes[at..]
                .iter()
                .take_while(|&&b| b == b' ' || b == b'\t')
                .count();
        starts(first, b"[[")
    };
    let (mut values, mut tables) = (0usize, usize::from(header(0)));
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        at += 1;
        match b {
            b'#' => at += bytes[at..].iter().take_while(|&&b| b != b'\n').count(),
            b'"' | b'\'' => {
                let triple = [b; 3];
                let close: &[u8] = if starts(at, &triple[..2]) {
                    at += 2;
                    &triple
                } else {
                    &triple[..1]
                };
                // A basic string's backslash escapes the byte after it; a literal's does not.
                while at < bytes.len() && !starts(at, close) {
                    at += if b == b'"' && bytes[at] == b'\\' {
                        2
                    } else {
                        1
                    };
                }
                at += close.len();
            }
            b'\n' => tables += usize::from(header(at)),
            b'=' | b',' | b'[' | b'{' => values += 1,
            _ => {}
        }
    }
    let room = VALUES_OUTSIDE + VALUES_PER_TABLE * tables;
    if values > room {
        return Err(format!(
            "{values} values for {tables} entries and gaps, more than the {room} a manifest \
             unpack wrote could have ({VALUES_PER_TABLE} to a table)"
        ));
    }
    Ok(())
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
    fn density_counts_values_outside_strings_and_comments() {
        let entry = "[[entry]]\nfile = \"A,B=C[{.TXT\"\nname = 'A,B=C'\nflags = 0x40 # a, b = [c\n\
                     name_tail = \"\"\"x,\\\",=\"\"\"\nsize = 12\n\n";
        let head = "ngi_manifest = 1\nformat = \"rsli\"\n";
        // Ten thousand entries as unpack writes them: 7 values each.
        let many = format!("{head}{}", entry.repeat(10_000));
        assert_eq!(check_density(&many), Ok(()));
        // One value past the room of two tables.
        let values = VALUES_OUTSIDE + 2 * VALUES_PER_TABLE;
        let dense = |n: usize| format!("[[gap]]\n  [[entry]]\nx = [{}]\n", "0,".repeat(n));
        // Each table's `[[` counts 2, the `x =` 1, the array's `[` 1, then 1 a comma.
        assert_eq!(check_density(&dense(values - 6)), Ok(()));
        let refused = check_density(&dense(values - 5)).unwrap_err();
        assert!(
            refused.starts_with(&format!("{} values for 2 entries", values + 1)),
            "{refused}"
        );
        // An unterminated string runs to the end (the parser then says where).
        assert_eq!(check_density("x = \"a,b,c"), Ok(()));
    }
}
