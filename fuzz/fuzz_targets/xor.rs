//! The body lives in `ngi_tests::fuzzing::xor` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/xor and fuzz/regressions/xor.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::xor(data));
