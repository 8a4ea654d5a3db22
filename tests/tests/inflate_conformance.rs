//! Deflate (method 0x100) against encoders nobody on the team wrote: Python's `zlib` (the
//! system `python3`; these tests fail, never pass, without it) at levels 0-9 with every
//! strategy and small windows, streams whose fixed and dynamic blocks alternate, and
//! `miniz_oxide` at levels 0-10.
//!
//! Every stream decodes to the original one shot (`decode_into`, consuming exactly the
//! stream even with trailing bytes) and through the chunking harness (whole, random pieces,
//! and 1-byte pieces on samples up to 64 KiB); every proper prefix is `Truncated`; a
//! declared size one short is `TooMuchOutput` and one long is `EndBeforeSize`.

use ngi_core::codec::inflate::{self, InflateDecoder, InflateError};
use ngi_core::codec::{Method, unpack_into};
use ngi_core::error::DecodeError;
use ngi_tests::chunked::{self, Pieces};
use ngi_tests::corpus::{self, Rng};
use std::path::PathBuf;
use std::process::Command;
use std::sync::LazyLock;

struct Case {
    /// The sample and the encoder settings, for messages.
    what: String,
    data: usize,
    stream: Vec<u8>,
}

fn samples() -> Vec<(String, Vec<u8>)> {
    let mut s: Vec<_> = corpus::corpus()
        .into_iter()
        .map(|s| (s.name, s.data))
        .collect();
    let mut rng = Rng::new(32768);
    // Distances of exactly 32 768: random bytes, repeated.
    let block = rng.bytes(32768);
    s.push(("random-32k-x3".into(), block.repeat(3)));
    // Many 258-byte matches at various distances.
    let mut long = Vec::new();
    for i in 0..400 {
        let unit = rng.bytes(1 + i % 37);
        for _ in 0..(600 / unit.len() + 1) {
            long.extend_from_slice(&unit);
        }
    }
    s.push(("long-matches".into(), long));
    // Runs of every period under 8 (matches closer than a word, which the fast loop
    // copies by a word of the repeated pattern), of every length 3-40 and then every
    // seventh up to 258, each after a few random bytes that end the run before.
    let mut short = Vec::new();
    for period in 1..=7 {
        for len in (3..=40).chain((47..=258).step_by(7)) {
            short.extend_from_slice(&rng.bytes(5));
            let unit = rng.bytes(period);
            short.extend((0..period + len).map(|k| unit[k % period]));
        }
    }
    s.push(("short-periods".into(), short));
    s.push(("two-bytes".into(), b"ab".to_vec()));
    s
}

static SAMPLES: LazyLock<Vec<(String, Vec<u8>)>> = LazyLock::new(samples);

/// (level, wbits, memlevel, strategy name)
fn settings(sample_len: usize) -> Vec<(u32, i32, u32, &'static str)> {
    let mut v = Vec::new();
    for level in 0..=9 {
        v.push((level, -15, 8, "Z_DEFAULT_STRATEGY"));
    }
    for strategy in ["Z_FILTERED", "Z_HUFFMAN_ONLY", "Z_RLE", "Z_FIXED", "MIXED"] {
        v.push((6, -15, 8, strategy));
        v.push((1, -15, 9, strategy));
    }
    if sample_len <= 200 * 1024 {
        for wbits in -15..=-9 {
            v.push((9, wbits, 1 + (-wbits as u32) % 9, "Z_DEFAULT_STRATEGY"));
        }
    }
    v
}

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("inflate-{}-{name}", std::process::id()))
}

/// All zlib streams, from one Python run.
static CASES: LazyLock<Vec<Case>> = LazyLock::new(|| {
    let samples = &*SAMPLES;
    let mut jobs = String::new();
    let mut meta = Vec::new();
    for (i, (name, data)) in samples.iter().enumerate() {
        let input = tmp(&format!("in{i}"));
        std::fs::write(&input, data).unwrap();
        for (j, (level, wbits, mem, strategy)) in settings(data.len()).into_iter().enumerate() {
            let output = tmp(&format!("out{i}-{j}"));
            jobs.push_str(&format!(
                "{} {} {level} {wbits} {mem} {strategy}\n",
                input.display(),
                output.display()
            ));
            meta.push((
                format!("{name} zlib level {level} wbits {wbits} mem {mem} {strategy}"),
                i,
                output,
            ));
        }
    }
    let job_file = tmp("jobs");
    std::fs::write(&job_file, jobs).unwrap();
    let script = r#"
import sys, zlib
for line in open(sys.argv[1]):
    i, o, level, wbits, mem, strategy = line.split()
    data = open(i, 'rb').read()
    if strategy == 'MIXED':
        # Fixed and dynamic blocks in turn: six streams of a sixth of the data each, Z_FIXED
        # and the default strategy alternating, each ended by a sync flush (an empty stored
        # block, so the next starts on a byte), and after each a hundred empty fixed blocks
        # (4 in every 5 bytes). The decoder keeps the fixed tables from one fixed block to
        # the next, and a dynamic block must replace them.
        out, n = b'', 6
        for k in range(n):
            piece = data[len(data) * k // n:len(data) * (k + 1) // n]
            s = zlib.Z_FIXED if k % 2 == 0 else zlib.Z_DEFAULT_STRATEGY
            c = zlib.compressobj(int(level), zlib.DEFLATED, int(wbits), int(mem), s)
            out += c.compress(piece)
            if k < n - 1:
                out += c.flush(zlib.Z_SYNC_FLUSH) + bytes.fromhex('0208208000') * 25
            else:
                out += c.flush()
        assert zlib.decompress(out, -15) == data
        open(o, 'wb').write(out)
        continue
    c = zlib.compressobj(int(level), zlib.DEFLATED, int(wbits), int(mem), getattr(zlib, strategy))
    open(o, 'wb').write(c.compress(data) + c.flush())
"#;
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&job_file)
        .status()
        .expect("python3 runs");
    let _ = std::fs::remove_file(&job_file);
    assert!(status.success(), "python3 zlib failed");
    let mut cases = Vec::new();
    for (what, i, output) in meta {
        let stream = std::fs::read(&output).unwrap();
        let _ = std::fs::remove_file(&output);
        cases.push(Case {
            what,
            data: i,
            stream,
        });
    }
    for (i, (name, data)) in samples.iter().enumerate() {
        let _ = std::fs::remove_file(tmp(&format!("in{i}")));
        for level in 0..=10u8 {
            cases.push(Case {
                what: format!("{name} miniz_oxide level {level}"),
                data: i,
                stream: miniz_oxide::deflate::compress_to_vec(data, level),
            });
        }
    }
    cases
});

#[test]
fn every_stream_decodes_one_shot_and_leaves_trailing_bytes() {
    for case in CASES.iter() {
        let data = &SAMPLES[case.data].1;
        let mut out = vec![0u8; data.len()];
        let mut packed = case.stream.clone();
        assert_eq!(
            inflate::decode_into(&packed, &mut out),
            Ok(case.stream.len()),
            "{}",
            case.what
        );
        assert!(out == *data, "{}", case.what);
        packed.extend_from_slice(&[0xA5; 20]);
        out.fill(0);
        assert_eq!(
            unpack_into(Method::Deflate, 0, &packed, &mut out),
            Ok(case.stream.len()),
            "{}",
            case.what
        );
        assert!(out == *data, "{}", case.what);
    }
}

#[test]
fn every_stream_decodes_in_pieces() {
    for (k, case) in CASES.iter().enumerate() {
        let data = &SAMPLES[case.data].1;
        let mut pieces = vec![
            Pieces::Whole,
            Pieces::Random(k as u64, 100),
            Pieces::Random(k as u64 + 7, 70_000),
        ];
        if data.len() <= 64 * 1024 {
            pieces.push(Pieces::OneByte);
        }
        let mut packed = case.stream.clone();
        packed.extend_from_slice(b"trailing");
        for p in pieces {
            let mut d = InflateDecoder::new(data.len() as u64);
            let (out, consumed) = chunked::decode(&mut d, &packed, data.len(), p)
                .unwrap_or_else(|e| panic!("{} {p:?}: {e}", case.what));
            assert!(out == *data, "{} {p:?}", case.what);
            assert_eq!(consumed, case.stream.len(), "{} {p:?}", case.what);
        }
    }
}

#[test]
fn prefixes_are_truncated_and_sizes_are_exact() {
    let mut rng = Rng::new(1951);
    for case in CASES.iter() {
        let data = &SAMPLES[case.data].1;
        let n = case.stream.len();
        let mut cuts = vec![0, 1, n / 2, n - 1];
        cuts.extend((0..4).map(|_| rng.below(n)));
        for cut in cuts {
            if cut >= n {
                continue;
            }
            let mut out = vec![0u8; data.len()];
            match inflate::decode_into(&case.stream[..cut], &mut out) {
                Err(DecodeError::Truncated { expected, .. }) => {
                    assert_eq!(expected, data.len() as u64)
                }
                other => panic!("{} cut at {cut}: {other:?}", case.what),
            }
            let mut d = InflateDecoder::new(data.len() as u64);
            match chunked::decode(
                &mut d,
                &case.stream[..cut],
                data.len(),
                Pieces::Random(cut as u64, 5000),
            ) {
                Err(DecodeError::Truncated { .. }) => {}
                other => panic!("{} cut at {cut}: {:?}", case.what, other.map(|x| x.1)),
            }
        }
        if !data.is_empty() {
            let mut short = vec![0u8; data.len() - 1];
            match inflate::decode_into(&case.stream, &mut short) {
                Err(DecodeError::Inflate {
                    error: InflateError::TooMuchOutput,
                    ..
                }) => {}
                other => panic!("{} one short: {other:?}", case.what),
            }
        }
        let mut long = vec![0u8; data.len() + 1];
        match inflate::decode_into(&case.stream, &mut long) {
            Err(DecodeError::Inflate {
                error: InflateError::EndBeforeSize,
                ..
            }) => {}
            other => panic!("{} one long: {other:?}", case.what),
        }
    }
}

#[test]
fn the_corpus_has_what_the_issue_asks_for() {
    let names: Vec<_> = SAMPLES.iter().map(|s| s.0.as_str()).collect();
    for n in [
        "empty",
        "one-byte",
        "random-32k-x3",
        "long-matches",
        "binary-400k",
    ] {
        assert!(names.contains(&n), "{n}");
    }
    assert!(CASES.len() > 400, "{}", CASES.len());
}

#[test]
fn nothing_is_written_past_the_size() {
    for case in CASES.iter() {
        let data = &SAMPLES[case.data].1;
        let mut out = vec![0xEE; data.len() + 300];
        let mut d = InflateDecoder::new(data.len() as u64);
        let p = ngi_core::codec::Decoder::decode(&mut d, &case.stream, &mut out, true).unwrap();
        assert_eq!(
            (p.produced, p.consumed),
            (data.len(), case.stream.len()),
            "{}",
            case.what
        );
        assert!(out[..data.len()] == data[..], "{}", case.what);
        assert!(
            out[data.len()..].iter().all(|&b| b == 0xEE),
            "{}",
            case.what
        );
    }
}

/// The in-place form (the window in the caller's buffer) decodes every stream to Python's
/// input too, with buffers that slide every few hundred bytes or every 70 KiB, and pieces
/// of input and room from one byte to the whole.
#[test]
fn every_stream_decodes_in_place() {
    for (k, case) in CASES.iter().enumerate() {
        let data = &SAMPLES[case.data].1;
        let mut packed = case.stream.clone();
        packed.extend_from_slice(b"trailing");
        let mut runs = vec![
            (Pieces::Whole, 70_000),
            (Pieces::Random(k as u64, 100), 70_000),
            (Pieces::Random(k as u64 + 7, 70_000), 300 + k % 50),
        ];
        if data.len() <= 64 * 1024 {
            runs.push((Pieces::OneByte, 1 + k % 300));
        }
        for (p, room) in runs {
            let mut d = chunked::InPlaceDriver::inflate(data.len() as u64, room);
            let (out, consumed) = chunked::decode(&mut d, &packed, data.len(), p)
                .unwrap_or_else(|e| panic!("{} {p:?} room {room}: {e}", case.what));
            assert!(out == *data, "{} {p:?} room {room}", case.what);
            assert_eq!(
                consumed,
                case.stream.len(),
                "{} {p:?} room {room}",
                case.what
            );
        }
    }
}
