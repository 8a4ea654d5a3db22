//! The conformance corpus every codec is tested on: real text and binaries, random and
//! degenerate data, and the sizes around the codecs' edges (0, 1, the 4 KiB ring, several
//! hundred KiB, enough symbols to force LZHUF's tree reconstruction many times).

use std::path::Path;

/// One input of the corpus.
#[derive(Debug, Clone)]
pub struct Sample {
    /// What it is, for messages and file names.
    pub name: String,
    /// Its bytes.
    pub data: Vec<u8>,
}

/// A deterministic xorshift generator, so every machine tests the same "random" bytes.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// `len` random bytes.
    pub fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

/// Real text, `min_len` bytes at least: the licence texts Debian ships in
/// `/usr/share/common-licenses` (the same on every machine of ours, so runs compare like
/// with like), or this repository's sources where that folder is missing.
pub fn text(min_len: usize) -> Vec<u8> {
    let mut out = read_text_files("/usr/share/common-licenses".into());
    if out.is_empty() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        for dir in ["core/src", "cli/src", "tests"] {
            out.extend(read_text_files(root.join(dir)));
        }
    }
    assert!(!out.is_empty(), "no text found for the corpus");
    while out.len() < min_len {
        let again = out.clone();
        out.extend_from_slice(&again);
    }
    out
}

/// Every file below `dir` without NUL bytes, in sorted path order, concatenated.
fn read_text_files(dir: std::path::PathBuf) -> Vec<u8> {
    let mut out = Vec::new();
    let mut dirs = vec![dir];
    while let Some(dir) = dirs.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = read.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(bytes) = std::fs::read(&path) {
                if !bytes.contains(&0) {
                    out.extend_from_slice(&bytes);
                }
            }
        }
    }
    out
}

/// A real binary: `/bin/bash` (on every Debian machine), else the running test binary.
pub fn binary(len: usize) -> Vec<u8> {
    let bytes = std::fs::read("/bin/bash")
        .or_else(|_| std::fs::read(std::env::current_exe().expect("current exe")))
        .expect("a binary to read");
    bytes.into_iter().cycle().take(len).collect()
}

/// Already-compressed data: dpkg's gzipped changelog (dpkg is essential on Debian), its
/// first `len` bytes (repeated if shorter). Panics, naming the file, when it is missing.
pub fn gzipped(len: usize) -> Vec<u8> {
    let path = "/usr/share/doc/dpkg/changelog.gz";
    let bytes = std::fs::read(path)
        .unwrap_or_else(|e| panic!("{path} is missing ({e}): it ships with Debian's dpkg"));
    assert!(!bytes.is_empty(), "{path} is empty");
    bytes.into_iter().cycle().take(len).collect()
}

/// The whole corpus.
pub fn corpus() -> Vec<Sample> {
    let mut rng = Rng::new(1998);
    let text_big = text(400 * 1024);
    let mut samples = vec![
        ("empty", Vec::new()),
        ("one-byte", vec![b'A']),
        ("text-4095", text_big[..4095].to_vec()),
        ("text-4096", text_big[..4096].to_vec()),
        ("text-4097", text_big[..4097].to_vec()),
        ("text-300k", text_big[..300 * 1024].to_vec()),
        ("binary-400k", binary(400 * 1024)),
        ("random-4097", rng.bytes(4097)),
        ("random-200k", rng.bytes(200 * 1024)),
        ("zeros-64k", vec![0; 64 * 1024]),
        ("spaces-10k", vec![b' '; 10 * 1024]),
        ("gzip-64k", gzipped(64 * 1024)),
    ];
    // Long runs of a few byte values, with run lengths around the match limits.
    let mut runs = Vec::new();
    while runs.len() < 128 * 1024 {
        let byte = [0u8, 0xFF, b'x', 0x20][rng.below(4)];
        let len = [1, 2, 3, 17, 18, 19, 59, 60, 61, 300, 5000][rng.below(11)];
        runs.extend(std::iter::repeat_n(byte, len));
    }
    samples.push(("runs-128k", runs));
    // Text with random bytes sprinkled in: many short matches and literals.
    let mut mixed = text_big[..150 * 1024].to_vec();
    for _ in 0..5000 {
        let at = rng.below(mixed.len());
        mixed[at] = rng.next_u64() as u8;
    }
    samples.push(("text-noisy-150k", mixed));
    samples
        .into_iter()
        .map(|(n, data)| Sample {
            name: n.to_string(),
            data,
        })
        .collect()
}
