//! The body lives in `ngi_tests::fuzzing::lzhuf_roundtrip` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/lzhuf_roundtrip and fuzz/regressions/lzhuf_roundtrip.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::lzhuf_roundtrip(data));
