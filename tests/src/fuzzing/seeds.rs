//! The committed seed corpus of the fuzz targets (`fuzz/seeds/<target>/`), built from
//! ngi's encoders and writers, miniz_oxide's compressor and the samples, so that it can be
//! regenerated: `cargo run -p ngi-tests --bin make-fuzz-seeds`. Every seed is a valid
//! input of its target's layout (see each body in [`super`]), plus a few truncations.

use ngi_core::Method;
use ngi_core::codec::{XorStream, lzhuf, lzss};
use ngi_core::nres::{NewEntry, Writer};
use ngi_core::rsli::Builder;

use crate::deflate_bits::{Bits, stored_run_then_far_matches};
use crate::samples;

/// One seed: its target, its file name, its bytes.
#[derive(Debug, Clone)]
pub struct Seed {
    /// The fuzz target (a name of [`super::TARGETS`]).
    pub target: &'static str,
    /// The file name under `fuzz/seeds/<target>/`.
    pub name: String,
    /// The bytes.
    pub data: Vec<u8>,
}

/// Short texts and data the seeds are made of, each with a name.
fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    let binary: Vec<u8> = (0..3000u32)
        .map(|i| (i.wrapping_mul(i) >> 3) as u8)
        .collect();
    let mut runs = vec![b'a'; 700];
    runs.extend(b"ab".repeat(200));
    runs.extend(vec![0u8; 300]);
    vec![
        ("text", samples::LZ_TEXT.to_vec()),
        ("lines", samples::deflate_text()),
        ("binary", binary),
        ("runs", runs),
        ("empty", Vec::new()),
    ]
}

fn xored(key: u16, data: &[u8]) -> Vec<u8> {
    let mut out = data.to_vec();
    XorStream::new(key).apply(&mut out);
    out
}

fn from_hex(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.bytes().filter(u8::is_ascii_hexdigit).collect();
    digits
        .chunks(2)
        .map(|pair| u8::from_str_radix(std::str::from_utf8(pair).expect("ASCII"), 16).expect("hex"))
        .collect()
}

fn size16(len: usize) -> [u8; 2] {
    u16::try_from(len)
        .expect("seed inputs are under 64 KiB")
        .to_le_bytes()
}

/// Every seed.
pub fn seeds() -> Vec<Seed> {
    let mut out = Vec::new();
    let mut add = |target: &'static str, name: String, data: Vec<u8>| {
        out.push(Seed { target, name, data });
    };
    let inputs = inputs();

    // lzss, lzhuf: [size lo, size hi, key lo, step, packed...]; an odd key lo means keyed,
    // key = key lo | step << 8.
    type Encode = fn(&[u8]) -> Vec<u8>;
    let encoders: [(&str, Encode); 2] = [("lzss", lzss::encode), ("lzhuf", lzhuf::encode)];
    for (target, encode) in encoders {
        for (k, (what, data)) in inputs.iter().enumerate() {
            let packed = encode(data);
            // Steps 1, 64, 8 192, 8, 2: see `step_size`.
            let step = [0u8, 0x80, 0xFF, 7, 1][k];
            let [a, b] = size16(data.len());
            add(
                target,
                format!("{what}-plain"),
                [&[a, b, 0, step][..], &packed].concat(),
            );
            if k >= 3 {
                continue;
            }
            let key_lo = 0x35 + 2 * k as u8;
            let key = u16::from_le_bytes([key_lo, step]);
            let keyed = xored(key, &packed);
            add(
                target,
                format!("{what}-keyed"),
                [&[a, b, key_lo, step][..], &keyed].concat(),
            );
            if k < 2 {
                let cut = &packed[..packed.len() / 2];
                add(
                    target,
                    format!("{what}-cut"),
                    [&[a, b, 0, 3][..], cut].concat(),
                );
            }
        }
    }

    // inflate: [size lo, size hi, step, stream...]; inflate_diff: the stream alone.
    let mut streams = Vec::new();
    for (k, (what, data)) in inputs.iter().enumerate() {
        for level in [0u8, 1, 6, 9] {
            let s = miniz_oxide::deflate::compress_to_vec(data, level);
            streams.push((format!("{what}-level{level}"), data.len(), s, k));
        }
    }
    // zlib's fixed-Huffman block for "aaaaaa", then a byte not part of the stream.
    streams.push((
        "fixed-trailing".into(),
        6,
        vec![0x4B, 0x4C, 0x04, 0x01, 0x00, 0xFF],
        0,
    ));
    for (name, size, s, k) in &streams {
        let step = [0u8, 0x80, 0xFF, 7, 0x90][*k];
        let [a, b] = size16(*size);
        let diff = [
            "text-level0",
            "text-level1",
            "text-level6",
            "lines-level9",
            "binary-level6",
            "runs-level6",
            "empty-level6",
            "fixed-trailing",
        ];
        if diff.contains(&name.as_str()) {
            add("inflate_diff", name.clone(), s.clone());
        }
        if name.ends_with("level6") || name == "runs-level0" || name.starts_with("fixed") {
            add("inflate", name.clone(), [&[a, b, step][..], s].concat());
        }
        if name == "text-level6" {
            let cut = &s[..s.len() / 2];
            add(
                "inflate",
                format!("{name}-cut"),
                [&[a, b, 2][..], cut].concat(),
            );
        }
    }
    let (_, _, lines, _) = streams
        .iter()
        .find(|s| s.0 == "lines-level6")
        .expect("made above");
    add(
        "inflate_diff",
        "lines-level6-cut".into(),
        lines[..lines.len() / 3].to_vec(),
    );
    let mut trailing = lines.clone();
    trailing.extend_from_slice(b"TRAILING");
    add("inflate_diff", "lines-level6-trailing".into(), trailing);

    // Streams the fuzzer found where miniz_oxide is laxer than ngi (and zlib): a distance
    // code of a single symbol longer than one bit, which miniz_oxide accepts and decodes to
    // the end (complete, or truncated when cut), and a literal/length code without
    // end-of-block (miniz_oxide reads on and runs out of input). See `miniz_is_laxer`.
    for (name, hex) in [
        (
            "miniz-laxer-single-distance-code",
            "759d3d0bc2301086777fc56d5aa825838374731107a1c522a85b484e136a9392bbe2c7aff7c8e4a0d3b3\
             00000000000039b26a9392bbe2c7a2f7048a",
        ),
        (
            "miniz-laxer-single-distance-code-cut",
            "758d3d0bc2301086677fc56d5aa825838374731107a1c522a85b484e136a9392bbe2c72faf4b4cf7c2c884",
        ),
        (
            "miniz-laxer-no-end-of-block",
            "edc1410d00000c02b15965ffffffffffffff470041c6c6c6c6c6c6c6c6c6c6c6c604c6c6c6c6c6c6bac6\
             c6c6000000000000000043cc",
        ),
    ] {
        add("inflate_diff", name.into(), from_hex(hex));
    }

    // xor: [key lo, key hi, size delta (4: the payload's length), n, n split bytes, payload].
    for (k, (what, data)) in inputs.iter().enumerate().take(4) {
        let key = [0x1234u16, 0, 0xFFFF, 0xBEEF][k].to_le_bytes();
        let (delta, splits): (u8, &[u8]) = [
            (4, &[1, 40, 7][..]),
            (0, &[]),
            (7, &[255]),
            (4, &[31, 0, 2, 64, 5]),
        ][k];
        let head = [&key[..], &[delta, splits.len() as u8], splits].concat();
        add("xor", what.to_string(), [&head[..], data].concat());
    }

    // Round trips: the data itself.
    for (what, data) in &inputs {
        add("lzss_roundtrip", what.to_string(), data.clone());
        add("lzhuf_roundtrip", what.to_string(), data.clone());
    }

    // chunked: [method, size lo, size hi, key lo, key hi, n, n + 1 schedule bytes, stream].
    let text = &inputs[0].1;
    let lines = &inputs[1].1;
    let key = 0x5AA5u16;
    for (m, method) in Method::ALL.iter().enumerate() {
        let data = if m % 2 == 0 { text } else { lines };
        let packed = pack(*method, key, data);
        let schedule: &[u8] = [
            &[0x11][..],
            &[0xFF, 0x10, 0x01],
            &[0x3D, 0xD3, 0x00, 0xEE],
            &[0x21],
            &[0xF1, 0x1F],
            &[0x5C, 0x0B, 0xE2],
            &[0x12, 0xFE, 0xDF, 0x11, 0x0A],
        ][m];
        let [a, b] = size16(data.len());
        let [k0, k1] = key.to_le_bytes();
        let head = [m as u8, a, b, k0, k1, schedule.len() as u8 - 1];
        add(
            "chunked",
            method.name().to_string(),
            [&head[..], schedule, &packed].concat(),
        );
    }

    // chunked, Deflate: a stored run longer than the window, then matches reaching back to
    // its oldest bytes the window must keep (the calls' window leaves some out).
    let (mut bits, mut data) = (Bits::default(), Vec::new());
    stored_run_then_far_matches(&mut bits, &mut data, &[20_000, 13_000], 0x5EED);
    let m = Method::ALL
        .iter()
        .position(|&m| m == Method::Deflate)
        .expect("Deflate is a method");
    let [a, b] = size16(data.len());
    let schedule = [0xFF, 0xF0, 0x0F];
    let head = [m as u8, a, b, 0, 0, schedule.len() as u8 - 1];
    add(
        "chunked",
        "deflate-stored-run-far-matches".to_string(),
        [&head[..], &schedule, &bits.done()].concat(),
    );

    // nres: the sample, a short one with names that fold, an empty one, a cut one.
    let sample = samples::nres();
    add("nres", "sample".into(), sample.clone());
    let mut writer = Writer::new();
    for (name, payload) in [
        (&b"A_"[..], &b"first"[..]),
        (b"ab", b"second"),
        (b"AB", b"dup"),
    ] {
        writer
            .add(
                NewEntry {
                    name,
                    ..NewEntry::default()
                },
                payload,
            )
            .expect("valid entry");
    }
    add("nres", "folding".into(), writer.finish());
    add("nres", "empty".into(), Writer::new().finish());
    add(
        "nres",
        "sample-cut".into(),
        sample[..sample.len() - 10].to_vec(),
    );

    // rsli: the sample, every method presorted with a media trailer, a cut one.
    let sample = samples::rsli();
    add("rsli", "sample".into(), sample.clone());
    let mut builder = Builder::new();
    builder
        .seed(0x0BAD_F00D)
        .presorted(true)
        .media_trailer(Some(0));
    for (i, method) in Method::ALL.iter().enumerate() {
        let name =
            format!("M{i}.{}", &method.name()[..3.min(method.name().len())]).to_ascii_uppercase();
        builder
            .add(name.as_bytes(), *method, &text[..40 + 30 * i])
            .expect("valid entry");
    }
    add(
        "rsli",
        "methods-trailer".into(),
        builder.build().expect("builds"),
    );
    add(
        "rsli",
        "sample-cut".into(),
        sample[..sample.len() / 2].to_vec(),
    );

    // opener: [flags, feed seed, archive]: both samples fed a byte at a time and in random
    // pieces, with the trailer honoured, in raw mode, under a 2-entry limit, and cut.
    let archives = [
        ("nres", samples::nres()),
        ("rsli", samples::rsli()),
        ("rsli-methods", builder.build().expect("builds")),
    ];
    for (what, archive) in &archives {
        for (flags, seed, how) in [
            (0u8, 0u8, "bytes"),
            (1, 9, "trailer"),
            (2, 3, "raw"),
            (4, 0, "limit"),
        ] {
            add(
                "opener",
                format!("{what}-{how}"),
                [&[flags, seed][..], archive].concat(),
            );
        }
        let cut = &archive[..archive.len() * 2 / 3];
        add(
            "opener",
            format!("{what}-cut"),
            [&[0u8, 5][..], cut].concat(),
        );
    }

    // tokio_reader: [flags, read seed, archive]: the same archives read a byte at a time
    // and in random sizes, with the trailer, raw, under a 1 KiB entry limit, and cut.
    for (what, archive) in &archives {
        for (flags, seed, how) in [
            (0u8, 0u8, "bytes"),
            (1, 9, "trailer"),
            (2, 3, "raw"),
            (8, 5, "entry-limit"),
        ] {
            add(
                "tokio_reader",
                format!("{what}-{how}"),
                [&[flags, seed][..], archive].concat(),
            );
        }
        let cut = &archive[..archive.len() * 2 / 3];
        add(
            "tokio_reader",
            format!("{what}-cut"),
            [&[0u8, 5][..], cut].concat(),
        );
    }

    // reader: [method, key lo, key hi, size lo, size hi, seed, packed]: every method over
    // two inputs, read a byte at a time and unevenly, then a truncated and an overlong one.
    let lz_text = samples::LZ_TEXT;
    for (m, method) in Method::ALL.iter().enumerate() {
        let key = 0x1234u16;
        for (seed, data) in [(0u8, lz_text), (7, &samples::deflate_text()[..])] {
            let mut packed = pack(*method, key, data);
            let [s0, s1] = size16(data.len());
            let [k0, k1] = key.to_le_bytes();
            let head = [m as u8, k0, k1, s0, s1, seed];
            add(
                "reader",
                format!("{}-{seed}", method.name()),
                [&head[..], &packed].concat(),
            );
            if seed == 7 {
                packed.truncate(packed.len() * 3 / 4);
                add(
                    "reader",
                    format!("{}-cut", method.name()),
                    [&head[..], &packed].concat(),
                );
                packed = pack(*method, key, data);
                packed.extend_from_slice(b"and bytes after the stream");
                add(
                    "reader",
                    format!("{}-trailing", method.name()),
                    [&head[..], &packed].concat(),
                );
            }
        }
    }

    // editor: [flags, ops, 4 * ops script bytes, archive]: the samples, a library of every
    // method with a trailer, an NRes with gaps and overlaps and an RsLi whose XOR entries
    // share packed bytes, each untouched, then edited by scripts that add, replace (held
    // or from the source), remove, rename, sort, move and canonicalize.
    let mut trailed = Builder::new();
    trailed.seed(0x7EED).presorted(true).media_trailer(Some(40));
    for (name, method) in samples::ALL_METHODS {
        trailed
            .add(name, method, &samples::all_methods_text(method)[..300])
            .expect("valid");
    }
    let editable = [
        ("nres", 0u8, samples::nres()),
        ("odd-nres", 0, samples::odd_nres()),
        ("rsli", 0, samples::rsli()),
        ("rsli-trailer", 1, trailed.build().expect("builds")),
        ("rsli-shared", 0, crate::hostile::shared_bytes_library().0),
    ];
    let scripts: [(&str, &[[u8; 4]]); 5] = [
        ("untouched", &[]),
        // Payloads given as ranges of the source (kind bit 0x80: an NRes add with c's bit
        // 0x80 and an NRes replace; kinds 0x84 and 0x85 an RsLi add and replace, stored or
        // XOR by c, and one refused for packing).
        (
            "from-source",
            &[
                [0x80, 1, 2, 0x81],
                [0x84, 3, 20, 1],
                [0x85, 0, 40, 0],
                [0x81, 1, 30, 2],
                [0x84, 5, 7, 2],
            ],
        ),
        ("add-replace", &[[0, 1, 2, 30], [1, 0, 40, 3], [0, 9, 9, 0]]),
        (
            "remove-rename-sort",
            &[[2, 1, 0, 0], [3, 0, 7, 0], [4, 0, 9, 0], [4, 0, 8, 0]],
        ),
        (
            "move-fields-canonical",
            &[[5, 0, 3, 0], [6, 1, 2, 3], [7, 0, 0, 0], [1, 2, 5, 1]],
        ),
    ];
    for (what, flags, archive) in &editable {
        for (how, script) in scripts {
            let head = [*flags, script.len() as u8];
            let body: Vec<u8> = script.iter().flatten().copied().collect();
            add(
                "editor",
                format!("{what}-{how}"),
                [&head[..], &body, archive].concat(),
            );
        }
    }
    out
}

use crate::streams::pack_keyed as pack;
