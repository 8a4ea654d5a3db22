//! The two sample archives in `samples/`, built by ngi's own writers.

use ngi_core::Method;
use ngi_core::nres::{NewEntry, Writer};
use ngi_core::rsli::Builder;

/// File name of the NRes sample, relative to `samples/`.
pub const NRES_FILE: &str = "sample.nres";
/// File name of the RsLi sample, relative to `samples/`.
pub const RSLI_FILE: &str = "sample.rsli";

const README: &[u8] = b"ngi sample archive.\n\
This NRes holds a few small payloads in the shapes real archives use:\n\
a material, a texture header, an effect and an objects.rlb-style binding.\n";

/// What the LZ entries of the RsLi sample hold: text that repeats, as game data does.
pub const LZ_TEXT: &[u8] = b"Packed with Okumura's LZSS (method 0x40) or Yoshizaki's LZHUF \
(method 0x80, here XOR-encrypted first: 0xA0). Packed with Okumura's LZSS or Yoshizaki's \
LZHUF: the second sentence repeats the first, so the encoders find long matches.\n";

/// A small NRes with mixed-case and duplicate names and names that exercise the
/// lower-case folding of `_strcmpi` (`A_` sorts before `AB`).
pub fn nres() -> Vec<u8> {
    let mut binding = [0u8; 64];
    binding[..11].copy_from_slice(b"sample.rsli");
    binding[32..41].copy_from_slice(b"README.TX");
    let entries: [(&[u8], u32, &[u8]); 7] = [
        (b"readme.txt", 0, README),
        (
            b"Steel.mat",
            u32::from_le_bytes(*b"MAT0"),
            b"MAT0 steel: r=0.6 g=0.6 b=0.7\n",
        ),
        (
            b"sky.tex",
            u32::from_le_bytes(*b"Texm"),
            &[0x54, 0x65, 0x78, 0x6D, 4, 0, 4, 0],
        ),
        (b"A_", 1, b"sorts before AB under lower-case folding\n"),
        (b"AB", 1, b"sorts after A_\n"),
        (
            b"spark.fx",
            u32::from_le_bytes(*b"FXID"),
            &[1, 2, 3, 4, 5, 6, 7, 8, 9],
        ),
        (
            b"STEEL.MAT",
            u32::from_le_bytes(*b"MAT0"),
            b"a duplicate name, folded equal\n",
        ),
    ];
    let mut writer = Writer::new();
    for (i, (name, type_id, payload)) in entries.into_iter().enumerate() {
        let entry = NewEntry {
            name,
            type_id,
            attr1: i as u32,
            attr2: 0x2026_1201,
            attr3: 0,
        };
        writer.add(entry, payload).expect("sample entry is valid");
    }
    writer
        .add(
            NewEntry {
                name: b"objects.rlb",
                type_id: 0,
                ..NewEntry::default()
            },
            &binding,
        )
        .expect("sample entry is valid");
    writer.finish()
}

/// A small RsLi with stored, XOR, LZSS and XOR-LZHUF entries, without the 0xABBA flag,
/// so that the data keys of its XOR entries come from the permutation the engine computes
/// at open.
pub fn rsli() -> Vec<u8> {
    let mut builder = Builder::new();
    builder.seed(0x5EED_1998).presorted(false);
    let entries: [(&[u8], Method, &[u8]); 6] = [
        (
            b"README.TXT",
            Method::Stored,
            b"ngi sample RsLi library: stored and XOR entries.\n",
        ),
        (
            b"SECRET.TXT",
            Method::Xor,
            b"XOR-encrypted with this entry's sort index as key.\n",
        ),
        (
            b"MISSION.DAT",
            Method::Xor,
            &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
        ),
        (b"EMPTY", Method::Stored, b""),
        (b"LZSS.TXT", Method::Lzss, LZ_TEXT),
        (b"LZHUF.TXT", Method::XorLzhuf, LZ_TEXT),
    ];
    for (name, method, data) in entries {
        builder
            .add(name, method, data)
            .expect("sample entry is valid");
    }
    builder.build().expect("sample library builds")
}
