//! Deflate streams from encoders nobody on the team wrote — Debian's zopfli, pigz,
//! libdeflate, 7-Zip and gzip, and PyPI's isal — decode to the original, one-shot and in
//! pieces, and the decoder stops exactly at the end of the raw stream (the gzip trailer
//! that follows is not consumed).

use std::path::{Path, PathBuf};
use std::process::Command;

use ngi_core::codec::inflate::{self, InflateDecoder};
use ngi_tests::chunked::{self, Pieces};
use ngi_tests::corpus::{self, Sample};

fn scratch() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("inflate-encoders");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn tool(name: &str, package: &str) -> String {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    assert!(
        found,
        "`{name}` is missing: install the Debian package `{package}` (scripts/test.sh does)"
    );
    name.to_string()
}

fn run(program: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The raw Deflate stream inside a gzip member (RFC 1952): after the header, before the
/// 8-byte trailer.
fn gzip_payload(gz: &[u8]) -> &[u8] {
    assert_eq!(&gz[..3], &[0x1F, 0x8B, 8], "a gzip member with Deflate");
    let flags = gz[3];
    let mut at = 10;
    if flags & 4 != 0 {
        let xlen = usize::from(u16::from_le_bytes([gz[at], gz[at + 1]]));
        at += 2 + xlen;
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            at += gz[at..].iter().position(|&b| b == 0).unwrap() + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    &gz[at..gz.len() - 8]
}

/// Decodes `stream` to `want`, one-shot and in random pieces, and checks that exactly the
/// stream is consumed.
fn check(what: &str, stream: &[u8], want: &[u8]) {
    let mut out = vec![0u8; want.len()];
    let consumed = inflate::decode_into(stream, &mut out).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(out == want, "{what}: one-shot output differs");
    assert_eq!(consumed, stream.len(), "{what}: one-shot consumed");
    for pieces in [Pieces::Random(7, 64), Pieces::Random(8, 70_000)] {
        let mut d = InflateDecoder::new(want.len() as u64);
        let (got, used) = chunked::decode(&mut d, stream, want.len(), pieces)
            .unwrap_or_else(|e| panic!("{what} {pieces:?}: {e}"));
        assert!(got == want, "{what} {pieces:?}: output differs");
        assert_eq!(used, stream.len(), "{what} {pieces:?}: consumed");
    }
}

fn samples() -> Vec<Sample> {
    // Sizes 0 and 1, the ring edges, and real files of every kind; the biggest trimmed so
    // that zopfli's slow search stays within seconds.
    corpus::corpus()
        .into_iter()
        .map(|mut s| {
            s.data.truncate(96 * 1024);
            s
        })
        .collect()
}

/// Writes each sample to a file of the folder `encoder` (its own: the tests run at once,
/// and a tool must never read a file another test is rewriting) and calls `f` on it.
fn each_file(encoder: &str, f: impl Fn(&Sample, &str)) {
    let dir = scratch().join(encoder);
    std::fs::create_dir_all(&dir).unwrap();
    for sample in samples() {
        let path = dir.join(&sample.name);
        std::fs::write(&path, &sample.data).unwrap();
        f(&sample, path.to_str().unwrap());
    }
}

#[test]
fn zopfli_streams_decode() {
    let zopfli = tool("zopfli", "zopfli");
    each_file("zopfli", |s, path| {
        let raw = run(&zopfli, &["--deflate", "--i3", "-c", path]);
        check(&format!("zopfli {}", s.name), &raw, &s.data);
    });
}

#[test]
fn pigz_streams_decode() {
    let pigz = tool("pigz", "pigz");
    each_file("pigz", |s, path| {
        for level in ["-1", "-6", "-9", "-11"] {
            let gz = run(&pigz, &["-c", "-n", level, path]);
            check(
                &format!("pigz {level} {}", s.name),
                gzip_payload(&gz),
                &s.data,
            );
        }
    });
}

#[test]
fn libdeflate_streams_decode() {
    let gzip = tool("libdeflate-gzip", "libdeflate-tools");
    each_file("libdeflate", |s, path| {
        for level in ["-1", "-6", "-12"] {
            let gz = run(&gzip, &["-c", level, path]);
            check(
                &format!("libdeflate {level} {}", s.name),
                gzip_payload(&gz),
                &s.data,
            );
        }
    });
}

#[test]
fn seven_zip_streams_decode() {
    let seven = tool("7z", "p7zip-full");
    each_file("seven_zip", |s, path| {
        for level in ["-mx=1", "-mx=9"] {
            let out = Path::new(path).with_extension(format!("{}.gz", &level[4..]));
            let _ = std::fs::remove_file(&out);
            run(
                &seven,
                &[
                    "a",
                    "-tgzip",
                    level,
                    "-bso0",
                    "-bsp0",
                    out.to_str().unwrap(),
                    path,
                ],
            );
            let gz = std::fs::read(&out).unwrap();
            check(
                &format!("7z {level} {}", s.name),
                gzip_payload(&gz),
                &s.data,
            );
        }
    });
}

#[test]
fn gzip_streams_decode() {
    let gzip = tool("gzip", "gzip");
    each_file("gzip", |s, path| {
        for level in ["-1", "-9"] {
            let gz = run(&gzip, &["-c", "-n", level, path]);
            check(
                &format!("gzip {level} {}", s.name),
                gzip_payload(&gz),
                &s.data,
            );
        }
    });
}

#[test]
fn isal_streams_decode() {
    let python = std::env::var("NGI_PYTHON").unwrap_or_else(|_| {
        panic!("NGI_PYTHON is unset: run scripts/test.sh, which makes a venv with isal")
    });
    let script = "import sys, isal.isal_zlib as z\n\
        data = open(sys.argv[1], 'rb').read()\n\
        level = int(sys.argv[2])\n\
        c = z.compressobj(level, z.DEFLATED, -15)\n\
        sys.stdout.buffer.write(c.compress(data) + c.flush())\n";
    each_file("isal", |s, path| {
        for level in ["0", "1", "2", "3"] {
            let raw = run(&python, &["-c", script, path, level]);
            check(&format!("isal {level} {}", s.name), &raw, &s.data);
        }
    });
}
