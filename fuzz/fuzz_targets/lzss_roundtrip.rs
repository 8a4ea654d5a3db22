//! The body lives in `ngi_tests::fuzzing::lzss_roundtrip` (tests/src/fuzzing.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/lzss_roundtrip and fuzz/regressions/lzss_roundtrip.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::lzss_roundtrip(data));
