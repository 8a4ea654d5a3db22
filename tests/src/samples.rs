//! The two sample archives in `samples/`, built by ngi's own writers.

use ngi_core::Method;
use ngi_core::nres::{NewEntry, Writer};
use ngi_core::rsli::Builder;

/// File name of the NRes sample, relative to `samples/`.
pub const NRES_FILE: &str = "sample.nres";
/// File name of the RsLi sample, relative to `samples/`.
pub const RSLI_FILE: &str = "sample.rsli";

/// What `readme.txt` of the NRes sample holds.
pub const README: &[u8] = b"ngi sample archive.\n\
This NRes holds a few small payloads in the shapes real archives use:\n\
a material, a texture header, an effect and an objects.rlb-style binding.\n";

/// What the LZ entries of the RsLi sample hold: text that repeats, as game data does.
pub const LZ_TEXT: &[u8] = b"Packed with Okumura's LZSS (method 0x40) or Yoshizaki's LZHUF \
(method 0x80, here XOR-encrypted first: 0xA0). Packed with Okumura's LZSS or Yoshizaki's \
LZHUF: the second sentence repeats the first, so the encoders find long matches.\n";

/// The Deflate level of the sample's Deflate entry (the builder's default today, written
/// out so that the sample does not change with the default).
pub const DEFLATE_LEVEL: u8 = 9;

/// What the Deflate entry of the RsLi sample (`DEFLATE.TXT`) holds: 32 numbered lines,
/// about 5 KB of text that repeats with variations, as game data does. `cli/tests/cli.rs`
/// builds the same text to compare `ngi cat` with.
pub fn deflate_text() -> Vec<u8> {
    let mut text = b"DEFLATE.TXT: raw Deflate (RsLi method 0x100, RFC 1951, no zlib wrapper), \
packed by miniz_oxide and read back by ngi's own inflater.\n"
        .to_vec();
    for i in 1..=32u32 {
        text.extend_from_slice(
            format!(
                "line {i:02} of 32: RsLi packs stored 0x000, XOR 0x020, LZSS 0x040, \
                 XOR+LZSS 0x060, LZHUF 0x080, XOR+LZHUF 0x0A0 and Deflate 0x100; \
                 {i} squared is {}.\n",
                i * i
            )
            .as_bytes(),
        );
    }
    text
}

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

/// A small RsLi with stored, XOR, LZSS, XOR-LZHUF and Deflate entries, without the 0xABBA
/// flag, so that the data keys of its XOR entries come from the permutation the engine
/// computes at open.
pub fn rsli() -> Vec<u8> {
    let mut builder = Builder::new();
    builder
        .seed(0x5EED_1998)
        .presorted(false)
        .deflate_level(DEFLATE_LEVEL);
    let deflate = deflate_text();
    let entries: [(&[u8], Method, &[u8]); 7] = [
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
        // Before LZHUF.TXT: entry 5 is the one whose computed key is 0 (README.TXT, entry
        // 0, sorts into slot 5), and Deflate has no key to use, so every XOR entry keeps a
        // non-zero one.
        (b"DEFLATE.TXT", Method::Deflate, &deflate),
        (b"LZHUF.TXT", Method::XorLzhuf, LZ_TEXT),
    ];
    for (name, method, data) in entries {
        builder
            .add(name, method, data)
            .expect("sample entry is valid");
    }
    builder.build().expect("sample library builds")
}

/// What the entry of `method` in [`all_methods`] holds: 48 numbered lines, about 6 KB of
/// text that repeats with variations, so that the LZ methods and Deflate really compress.
pub fn all_methods_text(method: Method) -> Vec<u8> {
    let name = method.name();
    let mut text = format!(
        "{name}: RsLi method 0x{:03X}, one entry of the all-methods fixture that the WASM \
         check (scripts/wasm-check.sh) decodes in Node.js and compares with `ngi cat`.\n",
        method.bits()
    )
    .into_bytes();
    for i in 1..=48u32 {
        text.extend_from_slice(
            format!(
                "{name} line {i:02} of 48: decoded by ngi-core built for wasm32 without std \
                 or alloc, and natively by the ngi command; {i} cubed is {}.\n",
                i * i * i
            )
            .as_bytes(),
        );
    }
    text
}

/// The entries of [`all_methods`], in table order, one per method.
///
/// Deflate is entry 3 because the computed permutation keys entry 3 with 0 (STORED.TXT,
/// entry 0, sorts into slot 3), and Deflate has no key to use: every XOR entry keeps a
/// non-zero one.
pub const ALL_METHODS: [(&[u8], Method); 7] = [
    (b"STORED.TXT", Method::Stored),
    (b"XOR.TXT", Method::Xor),
    (b"LZSS.TXT", Method::Lzss),
    (b"DEFLATE.TXT", Method::Deflate),
    (b"LZHUF.TXT", Method::Lzhuf),
    (b"XORLZHUF.TXT", Method::XorLzhuf),
    (b"XORLZSS.TXT", Method::XorLzss),
];

/// An RsLi with one entry of each of the seven methods ([`ALL_METHODS`]), without the
/// 0xABBA flag. Built at check time (`make-samples --all-methods PATH`), not checked in.
///
/// Panics if an XOR entry were keyed 0: that key leaves the bytes as they are, so the
/// entry would not test the cipher.
pub fn all_methods() -> Vec<u8> {
    let mut builder = Builder::new();
    builder
        .seed(0x0A11_0DE5)
        .presorted(false)
        .deflate_level(DEFLATE_LEVEL);
    for (name, method) in ALL_METHODS {
        builder
            .add(name, method, &all_methods_text(method))
            .expect("fixture entry is valid");
    }
    let bytes = builder.build().expect("fixture library builds");
    let library = ngi_core::rsli::Library::open(&bytes).expect("fixture library opens");
    for entry in library.entries() {
        let method = entry.method().expect("fixture methods are valid");
        assert!(
            !method.uses_xor() || entry.data_key() != 0,
            "XOR entry keyed 0"
        );
    }
    bytes
}

/// An NRes that no canonical writer would produce: a gap after the header, payloads
/// unaligned and overlapping, non-zero padding, bytes after names' NULs, and a
/// permutation that is valid but not the canonical one.
pub fn odd_nres() -> Vec<u8> {
    let mut file = vec![0u8; 16];
    file.extend_from_slice(b"GAPGAP"); // 16..22: no payload here
    let payloads: [(&[u8], usize); 3] = [(b"first!", 22), (b"second payload", 28), (b"ond", 31)];
    file.extend_from_slice(b"first!second payload\xEE\xEE\xEE"); // 22..45
    let directory_offset = file.len();
    let names: [&[u8]; 3] = [b"B.DAT", b"a.dat", b"c.dat"];
    let mut directory = Vec::new();
    for (i, ((payload, offset), name)) in payloads.iter().zip(names).enumerate() {
        let mut record = [0u8; 64];
        record[0..4].copy_from_slice(&(i as u32 * 7).to_le_bytes());
        record[12..16].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        record[20..20 + name.len()].copy_from_slice(name);
        record[50..55].copy_from_slice(b"JUNK!"); // after the NUL
        record[56..60].copy_from_slice(&(*offset as u32).to_le_bytes());
        // In range but not the canonical 1, 0, 2.
        record[60..64].copy_from_slice(&(i as u32).to_le_bytes());
        directory.extend_from_slice(&record);
    }
    file.extend_from_slice(&directory);
    let total = file.len() as u32;
    file[0..4].copy_from_slice(b"NRes");
    file[4..8].copy_from_slice(&0x100u32.to_le_bytes());
    file[8..12].copy_from_slice(&3u32.to_le_bytes());
    file[12..16].copy_from_slice(&total.to_le_bytes());
    assert_eq!(directory_offset, 45);
    file
}

/// A library of one entry per method ([`ALL_METHODS`], the texts of [`all_methods_text`])
/// with the given seed, table kind and trailer: the editors' and packers' variants.
pub fn every_method_library(seed: u32, presorted: bool, trailer: Option<u32>) -> Vec<u8> {
    let mut builder = Builder::new();
    builder
        .seed(seed)
        .presorted(presorted)
        .media_trailer(trailer);
    for (name, method) in ALL_METHODS {
        builder
            .add(name, method, &all_methods_text(method))
            .expect("fixture entry is valid");
    }
    builder.build().expect("fixture library builds")
}
