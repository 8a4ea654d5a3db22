//! Instruction counts of the decoders (and the LZ encoders), for `valgrind --tool=callgrind`.
//!
//! Wall-clock timings on a shared machine are noisy; instruction counts are not. This runs
//! one row (one codec, one input, one form) and keeps the work callgrind is to count in
//! `measured`, so that `--toggle-collect` leaves out building the input (reading files,
//! compressing it) and checking the output. `benches/callgrind.sh` runs every row and
//! prints the counts; comparing two commits' counts row by row shows a change in speed
//! that timings would drown. (Counts are a proxy: they do not see cache misses or branch
//! mispredictions, so a change that trades one for the other still needs a timing run.)
//!
//! ```sh
//! cargo build --release -p ngi-benches --example callgrind
//! bash benches/callgrind.sh target/release/examples/callgrind
//! ```
//!
//! The Deflate rows also count the peers (`zlib-rs`, `libdeflate`), whose instructions
//! are not ngi's to change but say where a gap is one of instructions: libdeflate's
//! run-time BMI2 variant decodes with about two thirds of ngi's instructions.
//!
//! Inputs as in the criterion benches: `text` (300 KiB of licence texts) and `binary`
//! (400 KiB of /bin/bash), and for Deflate `perl` (300 KiB of perl-base's modules);
//! Deflate streams from miniz_oxide at levels 1, 6 and 9; LZ
//! streams from ngi's own encoders. Streaming feeds 64 KiB of input and 32 KiB of output
//! room per call (`stream`), or 4 KiB and 16 KiB as `benches/benches/lz.rs` does
//! (`small`).

use ngi_core::codec::inflate::{self, InflateDecoder};
use ngi_core::codec::lzhuf::{self, LzhufDecoder};
use ngi_core::codec::lzss::{self, LzssDecoder};
use ngi_core::codec::xor::XorStream;
use ngi_tests::corpus;
use std::hint::black_box;

/// The key of the XOR-then-LZ rows.
const KEY: u16 = 0x5A3C;

/// What one row does.
#[derive(Clone, Copy)]
enum Work {
    /// Inflate a Deflate stream of this level.
    Inflate(u8),
    /// Decode an LZSS stream, XORed with [`KEY`] when `true`.
    Lzss(bool),
    /// Decode an LZHUF stream, XORed with [`KEY`] when `true`.
    Lzhuf(bool),
    /// Encode with LZSS.
    EncodeLzss,
    /// Encode with LZHUF.
    EncodeLzhuf,
}

/// How the stream is decoded: `decode_into`, or a decoder fed `(input, output room)` per
/// call.
#[derive(Clone, Copy)]
enum Form {
    OneShot,
    Stream(usize, usize),
    /// `InPlaceDecoder` (Deflate rows only): 64 KiB of input per call into a buffer of a
    /// window and 32 KiB of room, each call's bytes copied into the output (so that it is
    /// checked; the copies are `memcpy`'s lines in the counts).
    InPlace,
    /// A peer's one-shot inflate, to compare counts with (Deflate rows only).
    Peer(Peer),
}

/// The peers of the Deflate bench.
#[derive(Clone, Copy)]
enum Peer {
    /// zlib-rs, through flate2.
    ZlibRs,
    /// libdeflate (C), through libdeflater.
    Libdeflate,
}

const STREAM: Form = Form::Stream(64 * 1024, 32 * 1024);
const SMALL: Form = Form::Stream(4 * 1024, 16 * 1024);

fn rows() -> Vec<(String, Work, Form)> {
    let mut rows = Vec::new();
    let forms = [("one-shot", Form::OneShot), ("stream", STREAM)];
    for input in ["text", "binary", "perl"] {
        for level in [1u8, 6, 9] {
            let peers = [
                ("in-place", Form::InPlace),
                ("zlib-rs", Form::Peer(Peer::ZlibRs)),
                ("libdeflate", Form::Peer(Peer::Libdeflate)),
            ];
            for (f, form) in forms.into_iter().chain(peers) {
                rows.push((
                    format!("inflate/{input}/l{level}/{f}"),
                    Work::Inflate(level),
                    form,
                ));
            }
        }
        if input == "perl" {
            // perl's modules are one of the Deflate bench's inputs only.
            continue;
        }
        for (codec, work, xor) in [
            ("lzss", Work::Lzss(false), Work::Lzss(true)),
            ("lzhuf", Work::Lzhuf(false), Work::Lzhuf(true)),
        ] {
            for (f, form) in forms.into_iter().chain([("small", SMALL)]) {
                rows.push((format!("{codec}/{input}/{f}"), work, form));
            }
            for (f, form) in forms {
                rows.push((format!("{codec}-xor/{input}/{f}"), xor, form));
            }
        }
        rows.push((
            format!("encode-lzss/{input}"),
            Work::EncodeLzss,
            Form::OneShot,
        ));
        rows.push((
            format!("encode-lzhuf/{input}"),
            Work::EncodeLzhuf,
            Form::OneShot,
        ));
    }
    rows
}

fn xored(mut packed: Vec<u8>) -> Vec<u8> {
    XorStream::new(KEY).apply(&mut packed);
    packed
}

/// The work callgrind counts (the only function `--toggle-collect` names): decodes
/// `packed` into `out` (or encodes `data`) and returns the bytes produced.
#[inline(never)]
fn measured(work: Work, form: Form, data: &[u8], packed: &[u8], out: &mut [u8]) -> usize {
    let n = out.len() as u64;
    let key = |xor: bool| xor.then_some(KEY);
    match (work, form) {
        (Work::EncodeLzss, _) => lzss::encode(data).len(),
        (Work::EncodeLzhuf, _) => lzhuf::encode(data).len(),
        (Work::Inflate(_), Form::OneShot) => inflate::decode_into(packed, out)
            .map(|_| out.len())
            .unwrap_or(0),
        (Work::Lzss(x), Form::OneShot) => lzss::decode_into(packed, key(x), out)
            .map(|_| out.len())
            .unwrap_or(0),
        (Work::Lzhuf(x), Form::OneShot) => lzhuf::decode_into(packed, key(x), out)
            .map(|_| out.len())
            .unwrap_or(0),
        (Work::Inflate(_), Form::Stream(i, o)) => {
            ngi_benches::stream(&mut InflateDecoder::new(n), packed, out, i, o)
        }
        (Work::Lzss(x), Form::Stream(i, o)) => {
            ngi_benches::stream(&mut LzssDecoder::new(n, key(x)), packed, out, i, o)
        }
        (Work::Lzhuf(x), Form::Stream(i, o)) => {
            ngi_benches::stream(&mut LzhufDecoder::new(n, key(x)), packed, out, i, o)
        }
        (Work::Inflate(_), Form::Peer(Peer::ZlibRs)) => {
            let mut z = flate2::Decompress::new(false);
            z.decompress(packed, out, flate2::FlushDecompress::Finish)
                .map_or(0, |_| z.total_out() as usize)
        }
        (Work::Inflate(_), Form::Peer(Peer::Libdeflate)) => libdeflater::Decompressor::new()
            .deflate_decompress(packed, out)
            .unwrap_or(0),
        (Work::Inflate(_), Form::InPlace) => {
            let mut buf = vec![0u8; inflate::WINDOW_SIZE + (32 << 10)];
            ngi_benches::stream_in_place_into(packed, out, &mut buf, 64 << 10, 32 << 10)
        }
        (_, Form::Peer(_) | Form::InPlace) => 0,
    }
}

fn main() {
    let rows = rows();
    let Some(name) = std::env::args().nth(1) else {
        for (name, _, _) in &rows {
            println!("{name}");
        }
        return;
    };
    let Some(&(_, work, form)) = rows.iter().find(|(n, _, _)| *n == name) else {
        eprintln!("no row {name}; run without arguments for the list");
        std::process::exit(2);
    };
    let data = if name.contains("/text") {
        corpus::text(300 * 1024)[..300 * 1024].to_vec()
    } else if name.contains("/perl") {
        ngi_benches::perl_modules(300 * 1024)
    } else {
        corpus::binary(400 * 1024)
    };
    let keyed = |xor: bool, packed: Vec<u8>| if xor { xored(packed) } else { packed };
    let packed = match work {
        Work::Inflate(level) => miniz_oxide::deflate::compress_to_vec(&data, level),
        Work::Lzss(x) => keyed(x, lzss::encode(&data)),
        Work::Lzhuf(x) => keyed(x, lzhuf::encode(&data)),
        Work::EncodeLzss | Work::EncodeLzhuf => Vec::new(),
    };
    let mut out = vec![0u8; data.len()];
    let produced = measured(work, form, black_box(&data), black_box(&packed), &mut out);
    match work {
        Work::EncodeLzss | Work::EncodeLzhuf => assert!(produced > 0, "{name}: no output"),
        _ => assert!(
            produced == data.len() && out == data,
            "{name}: wrong output"
        ),
    }
}
