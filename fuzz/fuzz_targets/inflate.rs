//! The body lives in `ngi_tests::fuzzing::inflate` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/inflate and fuzz/regressions/inflate.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::inflate(data));
