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
}
