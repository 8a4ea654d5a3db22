//! The body lives in `ngi_tests::fuzzing::reader` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/reader and fuzz/regressions/reader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::reader(data));
