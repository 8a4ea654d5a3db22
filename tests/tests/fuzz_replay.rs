//! Replays the fuzz targets on stable: each target's body (`ngi_tests::fuzzing`) over every
//! file of its committed seed corpus, `fuzz/seeds/<target>/`, and of its past crash inputs,
//! `fuzz/regressions/<target>/`. A seed directory that is missing or empty fails, so a
//! target cannot silently test nothing. Also checks that `fuzz/` declares exactly these
//! targets, each a one-liner calling its body.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use ngi_tests::fuzzing::{self, Body};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz")
}

/// The files of `dir`, sorted (none when it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = read
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `body` over the seeds and regressions of `target`; fails listing every input that
/// panicked.
fn replay(target: &str, body: Body) {
    let seeds = fuzz_dir().join("seeds").join(target);
    let seed_files = files(&seeds);
    assert!(
        !seed_files.is_empty(),
        "no seeds in {} (regenerate: cargo run -p ngi-tests --bin make-fuzz-seeds)",
        seeds.display()
    );
    let regressions = files(&fuzz_dir().join("regressions").join(target));
    let mut failed = Vec::new();
    for path in seed_files.iter().chain(&regressions) {
        let data = std::fs::read(path).expect("readable input");
        if catch_unwind(AssertUnwindSafe(|| body(&data))).is_err() {
            failed.push(path.display().to_string());
        }
    }
    assert!(
        failed.is_empty(),
        "{target}: the body panicked on {} of {} inputs: {failed:#?}",
        failed.len(),
        seed_files.len() + regressions.len()
    );
    eprintln!(
        "{target}: {} seeds, {} regressions",
        seed_files.len(),
        regressions.len()
    );
}

fn body(target: &str) -> Body {
    fuzzing::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|&(_, body)| body)
        .expect("a target of fuzzing::TARGETS")
}

macro_rules! replay_tests {
    ($($target:ident),* $(,)?) => {
        $(
            #[test]
            fn $target() {
                replay(stringify!($target), body(stringify!($target)));
            }
        )*
    };
}

replay_tests!(
    lzss,
    lzhuf,
    inflate,
    xor,
    nres,
    rsli,
    lzss_roundtrip,
    lzhuf_roundtrip,
    inflate_diff,
    chunked,
    opener,
    reader,
    tokio_reader,
    editor,
);

/// `fuzz/Cargo.toml` declares one binary per body, each `fuzz_targets/<name>.rs` calls
/// `ngi_tests::fuzzing::<name>`, and every seed or regression directory is a target's.
#[test]
fn fuzz_targets_are_the_bodies() {
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut declared: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|bin| bin.lines().find_map(|l| l.strip_prefix("name = ")))
        .map(|name| name.trim().trim_matches('"'))
        .collect();
    declared.sort_unstable();
    let mut bodies: Vec<&str> = fuzzing::TARGETS.iter().map(|(name, _)| *name).collect();
    bodies.sort_unstable();
    assert_eq!(
        declared, bodies,
        "fuzz/Cargo.toml's targets and fuzzing::TARGETS"
    );
    for name in &bodies {
        let path = fuzz_dir().join("fuzz_targets").join(format!("{name}.rs"));
        let source = std::fs::read_to_string(&path).expect("the target's file");
        assert!(
            source.contains(&format!("ngi_tests::fuzzing::{name}(")),
            "{} does not call ngi_tests::fuzzing::{name}",
            path.display()
        );
    }
    for dir in ["seeds", "regressions"] {
        let Ok(read) = std::fs::read_dir(fuzz_dir().join(dir)) else {
            continue;
        };
        for entry in read {
            let path = entry.expect("readable").path();
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            assert!(
                !path.is_dir() || bodies.contains(&name),
                "fuzz/{dir}/{name} belongs to no target"
            );
        }
    }
}

/// The generator (`make-fuzz-seeds`) makes seeds of every target, and small ones: each
/// under 64 KiB, all under 1 MiB.
#[test]
fn generated_seeds_are_few_and_small() {
    let seeds = fuzzing::seeds::seeds();
    for (name, _) in fuzzing::TARGETS {
        let n = seeds.iter().filter(|s| s.target == name).count();
        assert!((1..=30).contains(&n), "{name}: {n} generated seeds");
    }
    for s in &seeds {
        assert!(
            s.data.len() < 64 << 10,
            "{}/{}: {} bytes",
            s.target,
            s.name,
            s.data.len()
        );
    }
    let total: usize = seeds.iter().map(|s| s.data.len()).sum();
    assert!(total < 1 << 20, "{total} bytes of seeds");
}
