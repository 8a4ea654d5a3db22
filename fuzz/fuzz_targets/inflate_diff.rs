//! The body lives in `ngi_tests::fuzzing::inflate_diff` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/inflate_diff and fuzz/regressions/inflate_diff.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::inflate_diff(data));
