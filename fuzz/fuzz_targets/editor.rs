//! The body lives in `ngi_tests::fuzzing::editor` (tests/src/fuzzing/editor.rs), which
//! `cargo test -p ngi-tests --test fuzz_replay` runs over fuzz/seeds/editor and fuzz/regressions/editor.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| ngi_tests::fuzzing::editor(data));
