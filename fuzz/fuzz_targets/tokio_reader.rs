//! The body lives in `ngi_tests::fuzzing::tokio_reader` (tests/src/fuzzing/tokio_reader.rs),
//! which `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/tokio_reader and
//! fuzz/regressions/tokio_reader.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::tokio_reader(data));
