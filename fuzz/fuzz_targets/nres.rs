//! The body lives in `ngi_tests::fuzzing::nres` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/nres and fuzz/regressions/nres.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::nres(data));
