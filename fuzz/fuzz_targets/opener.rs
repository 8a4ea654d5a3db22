//! The body lives in `ngi_tests::fuzzing::opener` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/opener and fuzz/regressions/opener.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::opener(data));
