//! The Deflate and LZHUF decoders of ngi's first speed round (commit fbbfea1), frozen, so
//! that `benches/benches/inflate.rs` and `benches/benches/lz.rs` can time the current
//! decoders against them in one run (issue 15: a gain is a ratio from one run, not two runs
//! compared).
//!
//! The files under `src/codec/` are `core/src/codec/` of that commit, as they were except
//! for what a snapshot cannot keep: the unit tests (they live in `ngi-core`, for the code
//! that ships), the encoders and the `Unpacker`. Nothing but the benches depends on this
//! crate; it is never published, and it is not to be edited: a new round freezes a new
//! snapshot.
#![no_std]
#![forbid(unsafe_code)]
#![allow(dead_code, clippy::all, missing_docs, rustdoc::all)]

pub mod codec;
