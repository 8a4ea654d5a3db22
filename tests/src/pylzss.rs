//! The LZSS reference nobody on the team wrote: `pylzss` 0.3.9 from PyPI (Python module
//! `lzss`), a port of Okumura's 1989 `LZSS.C`, encoder and decoder. Tests reach it through
//! the interpreter named by the `NGI_PYTHON` environment variable (a venv with pylzss;
//! `scripts/test.sh` makes one) and batch their work into as few Python runs as they can:
//! one process per [`run`], fed length-prefixed records on stdin, answering on stdout.
//!
//! What the reference does, found by reading and running it (it matters only for crafted
//! streams, and the tests rely on none of it):
//! * `lzss.decompress(data)` decodes until the input ends and drops a unit cut short; it
//!   knows no expected size. Its ring is prefilled with `0x20` in its first 4078 bytes
//!   only; the last 18 (`0xFEE..=0xFFF`) are an uninitialised stack array, which reads as
//!   zero in practice (as `LZSS.C`'s zeroed global does). The engine fills all 4096.
//! * `lzss.compress(data)` is `LZSS.C`'s `Encode()` statement for statement, including the
//!   `0x20` prefill of the first 4078 ring bytes. Its ring's last 18 bytes and the 17 past
//!   them are uninitialised too, where `LZSS.C` has zeros; they are all written before they
//!   are compared except at the very end of inputs shorter than about 35 bytes.
//! * Its output buffer starts at half the input length and grows by half, so for inputs of
//!   1 to 3 bytes it writes a few bytes past a tiny allocation (harmless in practice under
//!   CPython's allocator, which rounds small blocks up to 16 bytes).

use std::io::{Read, Write};
use std::process::{Command, Stdio};

/// The version the tests were written against.
pub const VERSION: &str = "0.3.9";

/// How to get the reference, for failure messages.
pub const HOW_TO_INSTALL: &str = "python3 -m venv target/ref-venv && \
     target/ref-venv/bin/pip install pylzss==0.3.9, then run the tests with \
     NGI_PYTHON=$PWD/target/ref-venv/bin/python (scripts/test.sh does both)";

/// What to do with one input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `lzss.compress`.
    Compress,
    /// `lzss.decompress`.
    Decompress,
}

/// The Python side: checks the module and its version, then answers each record.
const SCRIPT: &str = r#"
import struct, sys
try:
    import lzss
    from importlib import metadata
    version = metadata.version("pylzss")
except Exception as e:
    sys.stderr.write("cannot import pylzss (module lzss): %r\n" % (e,))
    sys.exit(3)
if version != sys.argv[1]:
    sys.stderr.write("pylzss %s is installed, %s is expected\n" % (version, sys.argv[1]))
    sys.exit(4)
data = sys.stdin.buffer.read()
out = sys.stdout.buffer
pos = 0
while pos < len(data):
    op = data[pos]
    (n,) = struct.unpack_from("<Q", data, pos + 1)
    blob = data[pos + 9 : pos + 9 + n]
    pos += 9 + n
    result = lzss.compress(blob) if op == ord("c") else lzss.decompress(blob)
    out.write(struct.pack("<Q", len(result)))
    out.write(result)
out.flush()
"#;

/// Runs every job through pylzss in one Python process and returns the results in order.
///
/// Panics (failing the test, never passing it silently) when `NGI_PYTHON` is not set, the
/// interpreter cannot start, pylzss is missing or of another version, or it fails.
pub fn run(jobs: &[(Op, &[u8])]) -> Vec<Vec<u8>> {
    let python = std::env::var_os("NGI_PYTHON").unwrap_or_else(|| {
        panic!(
            "NGI_PYTHON is not set: the LZSS conformance tests need pylzss {VERSION} as \
             their reference. Install it: {HOW_TO_INSTALL}"
        )
    });
    let mut request = Vec::new();
    for (op, bytes) in jobs {
        request.push(match op {
            Op::Compress => b'c',
            Op::Decompress => b'd',
        });
        request.extend_from_slice(&(bytes.len() as u64).to_le_bytes());
        request.extend_from_slice(bytes);
    }
    let mut child = Command::new(&python)
        .args(["-c", SCRIPT, VERSION])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run NGI_PYTHON={}: {e}. Install pylzss {VERSION}: {HOW_TO_INSTALL}",
                python.to_string_lossy()
            )
        });
    // The script reads all its input before it writes, so writing everything first and
    // then reading cannot deadlock; a writer thread keeps that true whatever it does.
    let mut stdin = child.stdin.take().expect("piped stdin");
    let writer = std::thread::spawn(move || {
        // A script that exits early breaks the pipe; its stderr says why.
        let _ = stdin.write_all(&request);
    });
    let mut response = Vec::new();
    child
        .stdout
        .take()
        .expect("piped stdout")
        .read_to_end(&mut response)
        .expect("reading pylzss's answers");
    let mut errors = String::new();
    child
        .stderr
        .take()
        .expect("piped stderr")
        .read_to_string(&mut errors)
        .expect("reading pylzss's errors");
    writer.join().expect("writer thread");
    let status = child.wait().expect("waiting for Python");
    assert!(
        status.success(),
        "pylzss failed ({status}): {errors}\nInstall pylzss {VERSION}: {HOW_TO_INSTALL}"
    );
    let mut results = Vec::with_capacity(jobs.len());
    let mut rest = response.as_slice();
    while let Some((len, tail)) = rest.split_first_chunk::<8>() {
        let len = u64::from_le_bytes(*len) as usize;
        assert!(tail.len() >= len, "pylzss's answer is cut short");
        results.push(tail[..len].to_vec());
        rest = &tail[len..];
    }
    assert!(rest.is_empty(), "pylzss's answer has a stray tail");
    assert_eq!(
        results.len(),
        jobs.len(),
        "pylzss answered {} of {} jobs",
        results.len(),
        jobs.len()
    );
    results
}

/// `lzss.compress` of each input, in one Python run.
pub fn compress_all(inputs: &[&[u8]]) -> Vec<Vec<u8>> {
    let jobs: Vec<_> = inputs.iter().map(|&b| (Op::Compress, b)).collect();
    run(&jobs)
}

/// `lzss.decompress` of each input, in one Python run.
pub fn decompress_all(inputs: &[&[u8]]) -> Vec<Vec<u8>> {
    let jobs: Vec<_> = inputs.iter().map(|&b| (Op::Decompress, b)).collect();
    run(&jobs)
}
