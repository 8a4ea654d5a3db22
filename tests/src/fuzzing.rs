//! The bodies of the fuzz targets in `fuzz/fuzz_targets/`: one function per target, taking
//! the fuzzer's bytes. Each panics only when ngi breaks one of its contracts (the
//! [`Decoder`] contract, a round trip, agreement with miniz_oxide, the engine's lookup
//! rules); any other outcome, an error included, is a pass.
//!
//! The targets are one-liners that call these, so that `cargo test -p ngi-tests --test
//! fuzz_replay` runs the same code, on stable, over each target's committed seeds
//! (`fuzz/seeds/<target>/`) and past crash inputs (`fuzz/regressions/<target>/`). The seeds
//! are written by `cargo run -p ngi-tests --bin make-fuzz-seeds` ([`seeds`]).
//!
//! Sizes drawn from the input are bounded (64 KiB for a codec's output, 1 MiB for an
//! archive entry, see [`MAX_ENTRY`]) to keep the fuzzer fast; they are not limits of ngi.

mod editor;
pub mod seeds;
mod tokio_reader;

pub use editor::editor;
pub use tokio_reader::{archive_error, tokio_reader};

use std::cmp::Ordering;

use ngi_core::Method;
use ngi_core::codec::inflate::{self, CodeTable, InflateDecoder, InflateError};
use ngi_core::codec::lzhuf::{self, LzhufDecoder};
use ngi_core::codec::lzss::{self, LzssDecoder};
use ngi_core::codec::{self, Decoder, Status, StoredDecoder, Unpacker, XorDecoder, XorStream};
use ngi_core::error::DecodeError;
use ngi_core::nres::{self, DirectoryDecoder, NresError};
use ngi_core::rsli::{self, Library, OpenOptions, RsliError, TableDecoder};

use crate::chunked::InPlaceDriver;
use crate::verdict::Verdict;

/// A target's body.
pub type Body = fn(&[u8]);

/// Every fuzz target, by its name in `fuzz/Cargo.toml`, with its body.
pub const TARGETS: [(&str, Body); 14] = [
    ("lzss", lzss),
    ("lzhuf", lzhuf),
    ("inflate", inflate),
    ("xor", xor),
    ("nres", nres),
    ("rsli", rsli),
    ("lzss_roundtrip", lzss_roundtrip),
    ("lzhuf_roundtrip", lzhuf_roundtrip),
    ("inflate_diff", inflate_diff),
    ("chunked", chunked),
    ("opener", opener),
    ("reader", reader),
    ("tokio_reader", tokio_reader),
    ("editor", editor),
];

/// Archive entries larger than this are not unpacked (to keep the fuzzer fast).
pub const MAX_ENTRY: usize = 1 << 20;
/// Output the archive targets unpack per input at most; later entries are skipped.
const ENTRY_BUDGET: usize = 8 << 20;
/// Entries whose lookups are checked per archive at most (each check scans the table).
const MAX_LOOKUPS: usize = 1024;

// ---------------------------------------------------------------------------------------
// The decoder driver.

/// How a [`drive`] run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// `Ok(consumed)` once the decoder said `Done`, or the error it failed with.
    pub end: Result<usize, DecodeError>,
    /// The first `produced_total` bytes of the output at the end. After an error that is
    /// what the decoder counts as produced, the failing call's bytes included.
    pub output: Vec<u8>,
}

/// Feeds `input` to `decoder` into an output of exactly its expected length, the sizes of
/// each call's input piece and output room taken from `pieces`, and checks the
/// [`Decoder`] contract on every call:
///
/// * `consumed` and `produced` stay within the slices; `produced_total` is their sum;
/// * `Done` only once the expected length is produced; `OutputFull` only with the room
///   used up; `NeedInput` only with the piece used up and the input not ended;
/// * a call with input and room at hand makes progress, and so does one with input at
///   hand once the whole output is produced (no more room can ever be given);
/// * with all the input given and ended, and all the room, a call ends the stream (`Done`
///   or an error) or makes progress;
/// * after an error, a further call returns the same error.
///
/// A call given an empty piece (of input or room) while more could be given may make no
/// progress; the next pieces then grow by one byte per such call, so the run ends.
pub fn drive(
    decoder: &mut dyn Decoder,
    input: &[u8],
    pieces: &mut dyn FnMut() -> (usize, usize),
) -> Run {
    let expected = usize::try_from(decoder.expected_len()).expect("expected size fits");
    let mut out = vec![0u8; expected];
    let (mut consumed, mut produced, mut stalls) = (0usize, 0usize, 0usize);
    loop {
        let (a, b) = pieces();
        let in_end = consumed + (input.len() - consumed).min(a.saturating_add(stalls));
        let out_end = produced + (expected - produced).min(b.saturating_add(stalls));
        let ended = in_end == input.len();
        let (piece, room) = (in_end - consumed, out_end - produced);
        let p = match decoder.decode(&input[consumed..in_end], &mut out[produced..out_end], ended) {
            Ok(p) => p,
            Err(e) => {
                let total = usize::try_from(decoder.produced_total()).expect("fits");
                assert!(
                    (produced..=out_end).contains(&total),
                    "produced_total {total} after an error, outside {produced}..={out_end}"
                );
                let again = decoder.decode(&input[consumed..], &mut [0u8; 64], true);
                assert_eq!(again, Err(e), "a failed decoder must keep its error");
                out.truncate(total);
                return Run {
                    end: Err(e),
                    output: out,
                };
            }
        };
        assert!(
            p.consumed <= piece && p.produced <= room,
            "{p:?} from {piece} bytes of input and {room} of room"
        );
        consumed += p.consumed;
        produced += p.produced;
        assert_eq!(
            decoder.produced_total(),
            produced as u64,
            "produced_total is not the sum of the calls' produced"
        );
        match p.status {
            Status::Done => {
                assert_eq!(produced, expected, "Done before the expected size");
                return Run {
                    end: Ok(consumed),
                    output: out,
                };
            }
            Status::OutputFull => assert_eq!(produced, out_end, "OutputFull with room left"),
            Status::NeedInput => {
                assert_eq!(consumed, in_end, "NeedInput with input left");
                assert!(!ended, "NeedInput after the input ended");
            }
        }
        if p.consumed > 0 || p.produced > 0 {
            stalls = 0;
            continue;
        }
        assert!(
            piece == 0 || room > 0 || produced < expected,
            "no progress with {piece} bytes of input and all the output produced"
        );
        assert!(
            piece == 0 || room == 0,
            "no progress with {piece} bytes of input and {room} of room ({:?})",
            p.status
        );
        assert!(
            !(ended && out_end == expected),
            "all input and room given, input ended: neither done nor failed ({:?})",
            p.status
        );
        stalls += 1;
    }
}

/// Pieces of the whole input and the whole room: one call.
fn whole() -> impl FnMut() -> (usize, usize) {
    || (usize::MAX, usize::MAX)
}

/// A piece size from a byte: 1 to 128, or 64 to 8 192 in steps of 64 (so that the fast
/// paths, which need tens or hundreds of bytes at hand, run too).
fn step_size(b: u8) -> usize {
    match b {
        0..=127 => usize::from(b) + 1,
        _ => usize::from(b - 127) * 64,
    }
}

/// A piece size from a nibble: 0 to 12, then 64, 300 and 4 096.
fn nibble_size(n: u8) -> usize {
    match n & 0xF {
        n @ 0..=12 => usize::from(n),
        13 => 64,
        14 => 300,
        _ => 4096,
    }
}

/// A one-shot decode (`decode_into`) and a streamed one must agree: the same result, the
/// same bytes when complete, and on truncation the same bytes before it.
fn assert_one_shot_agrees(one_shot: Result<usize, DecodeError>, out: &[u8], streamed: &Run) {
    assert_eq!(one_shot, streamed.end, "one shot and streamed disagree");
    match one_shot {
        Ok(_) => assert!(out == streamed.output, "one shot and streamed bytes differ"),
        Err(DecodeError::Truncated { produced, .. }) => {
            let n = usize::try_from(produced).expect("fits");
            assert_eq!(streamed.output.len(), n, "truncated after different counts");
            assert!(
                out[..n] == streamed.output,
                "bytes before truncation differ"
            );
        }
        Err(_) => {}
    }
}

// ---------------------------------------------------------------------------------------
// The codecs on arbitrary packed bytes.

/// `[size lo, size hi, key lo, step, packed...]`: `size` (mod 20 000) is the unpacked
/// size; an odd `key lo` makes it keyed (method 0x60/0xA0) with key `key lo | step << 8`.
fn lz_header(data: &[u8]) -> Option<(usize, Option<u16>, usize, &[u8])> {
    let [a, b, c, step, rest @ ..] = data else {
        return None;
    };
    let size = usize::from(u16::from_le_bytes([*a, *b])) % 20_000;
    let key = (*c & 1 == 1).then(|| u16::from_le_bytes([*c, *step]));
    Some((size, key, step_size(*step), rest))
}

/// LZSS (0x40/0x60): arbitrary packed bytes ([`lz_header`] first), decoded one-shot and
/// in pieces of input and room of one size; the two must agree.
pub fn lzss(data: &[u8]) {
    let Some((size, key, step, packed)) = lz_header(data) else {
        return;
    };
    let mut out = vec![0u8; size];
    let one_shot = lzss::decode_into(packed, key, &mut out);
    let run = drive(&mut LzssDecoder::new(size as u64, key), packed, &mut || {
        (step, step)
    });
    assert_one_shot_agrees(one_shot, &out, &run);
}

/// LZHUF (0x80/0xA0): as [`lzss`], and the in-place form in the same pieces, its buffer
/// a window and up to 700 bytes of room (slid often), must end as the streamed form and
/// give its bytes.
pub fn lzhuf(data: &[u8]) {
    let Some((size, key, step, packed)) = lz_header(data) else {
        return;
    };
    let mut out = vec![0u8; size];
    let one_shot = lzhuf::decode_into(packed, key, &mut out);
    let run = drive(
        &mut LzhufDecoder::new(size as u64, key),
        packed,
        &mut || (step, step),
    );
    assert_one_shot_agrees(one_shot, &out, &run);
    let method = if key.is_some() {
        Method::XorLzhuf
    } else {
        Method::Lzhuf
    };
    assert_in_place_agrees(method, key.unwrap_or(0), size, packed, step, &run);
}

/// The in-place form of `method` (keyed by `key`) on `packed`, in pieces of `step` bytes
/// of input and room, its buffer a window and up to 700 bytes of room (so that it slides
/// often), must end as the streamed `run` did and give its bytes.
fn assert_in_place_agrees(
    method: Method,
    key: u16,
    size: usize,
    packed: &[u8],
    step: usize,
    run: &Run,
) {
    let size = size as u64;
    let room = 1 + step % 700;
    let mut d = InPlaceDriver::new(method, size, key, room).expect("decodes in place");
    let in_place = drive(&mut d, packed, &mut || (step, step));
    assert_eq!(
        in_place.end, run.end,
        "{method}: in place and streamed end differently"
    );
    assert!(
        in_place.output == run.output,
        "{method}: in place and streamed bytes differ"
    );
}

/// Deflate (0x100): `[size lo, size hi, step, stream...]`, decoded one-shot and in pieces
/// of one size; the two must agree (a fault's offset is the same wherever the pieces
/// split, so whole errors are compared).
pub fn inflate(data: &[u8]) {
    let [a, b, step, packed @ ..] = data else {
        return;
    };
    let size = usize::from(u16::from_le_bytes([*a, *b]));
    let step = step_size(*step);
    let mut out = vec![0u8; size];
    let one_shot = inflate::decode_into(packed, &mut out);
    let run = drive(&mut InflateDecoder::new(size as u64), packed, &mut || {
        (step, step)
    });
    assert_one_shot_agrees(one_shot, &out, &run);
    assert_in_place_agrees(Method::Deflate, 0, size, packed, step, &run);
}

/// SPEC 2.3 exactly as written, one byte at a time: the reference the XOR code is held to.
fn xor_reference(key: u16, data: &[u8]) -> (Vec<u8>, u16) {
    let (mut lo, mut hi) = (key as u8, (key >> 8) as u8);
    let out = data
        .iter()
        .map(|&byte| {
            lo = hi ^ (lo << 1);
            let out = byte ^ lo;
            hi = lo ^ (hi >> 1);
            out
        })
        .collect();
    (out, u16::from(lo) | u16::from(hi) << 8)
}

/// XOR (0x20) and the cipher: `[key lo, key hi, size delta, n, n split bytes, payload...]`.
/// [`XorStream::apply`] at the split points, `apply_copy`, `next_byte`, `state` and
/// resuming from a state, and [`XorDecoder`] / [`StoredDecoder`] in pieces, against the
/// per-byte reference.
pub fn xor(data: &[u8]) {
    let [k0, k1, delta, n, rest @ ..] = data else {
        return;
    };
    let key = u16::from_le_bytes([*k0, *k1]);
    let (splits, payload) = rest.split_at(usize::from(*n % 8).min(rest.len()));
    let (reference, end_state) = xor_reference(key, payload);

    // In place, in pieces at the split points (each split byte a piece length, cycled up
    // to 64 pieces), the state carried over.
    let mut stream = XorStream::new(key);
    let mut buf = payload.to_vec();
    let mut at = 0;
    for &s in splits.iter().cycle().take(64) {
        let end = (at + usize::from(s)).min(buf.len());
        stream.apply(&mut buf[at..end]);
        at = end;
    }
    stream.apply(&mut buf[at..]);
    assert!(
        buf == reference,
        "XorStream::apply in pieces differs from SPEC 2.3"
    );
    assert_eq!(stream.state(), end_state, "state after the payload");

    // A stream rebuilt from a state continues it; next_byte is one step.
    let half = payload.len() / 2;
    let mut first = XorStream::new(key);
    let mut copy = vec![0u8; half];
    assert_eq!(first.apply_copy(payload, &mut copy), half);
    let mut second = XorStream::new(first.state());
    let mut tail = vec![0u8; payload.len() - half + 3];
    assert_eq!(
        second.apply_copy(&payload[half..], &mut tail),
        payload.len() - half
    );
    copy.extend_from_slice(&tail[..payload.len() - half]);
    assert!(copy == reference, "apply_copy from a saved state differs");
    let mut bytewise = XorStream::new(key);
    for (i, (&p, &r)) in payload.iter().zip(&reference).take(64).enumerate() {
        assert_eq!(p ^ bytewise.next_byte(), r, "next_byte at {i}");
    }

    // The decoders, with an expected size a little off the payload's length.
    let size = (payload.len() + usize::from(*delta % 8)).saturating_sub(4);
    let mut i = 0;
    let mut pieces = || {
        let s = splits.get(i % splits.len().max(1)).copied().unwrap_or(0xFF);
        i += 1;
        (nibble_size(s), nibble_size(s >> 4))
    };
    let want_end = |len: usize| {
        if size <= len {
            Ok(size)
        } else {
            Err(DecodeError::Truncated {
                produced: len as u64,
                expected: size as u64,
            })
        }
    };
    let keep = size.min(payload.len());
    let run = drive(&mut XorDecoder::new(size as u64, key), payload, &mut pieces);
    assert_eq!(run.end, want_end(payload.len()), "XorDecoder's end");
    assert!(
        run.output[..keep] == reference[..keep],
        "XorDecoder's bytes"
    );
    let run = drive(&mut StoredDecoder::new(size as u64), payload, &mut pieces);
    assert_eq!(run.end, want_end(payload.len()), "StoredDecoder's end");
    assert!(
        run.output[..keep] == payload[..keep],
        "StoredDecoder's bytes"
    );
}

/// One stream decoded in one call and at arbitrary split points must give the same
/// result, the same bytes and the same consumed count (the [`Decoder`] contract), and the
/// one-shot [`codec::unpack_into`] must agree.
///
/// `[method, size lo, size hi, key lo, key hi, n, n schedule bytes, stream...]`: the
/// method is `Method::ALL[method % 7]` (stored, XOR, LZSS, XOR+LZSS, LZHUF, XOR+LZHUF,
/// Deflate) through [`Unpacker`]; each schedule byte (cycled) gives one call's input piece
/// (low nibble) and room (high nibble), see `nibble_size`.
pub fn chunked(data: &[u8]) {
    let [m, a, b, k0, k1, n, rest @ ..] = data else {
        return;
    };
    let method = Method::ALL[usize::from(*m) % Method::ALL.len()];
    let size = u64::from(u16::from_le_bytes([*a, *b]));
    let key = u16::from_le_bytes([*k0, *k1]);
    let (schedule, stream) = rest.split_at((usize::from(*n % 16) + 1).min(rest.len()));
    let unpacker = || Unpacker::new(method, size, key);

    // The schedule's pieces, from its first byte on each time.
    let scheduled = || {
        let mut i = 0;
        move || {
            let s = schedule
                .get(i % schedule.len().max(1))
                .copied()
                .unwrap_or(0);
            i += 1;
            (nibble_size(s), nibble_size(s >> 4))
        }
    };

    let one = drive(&mut unpacker(), stream, &mut whole());
    let split = drive(&mut unpacker(), stream, &mut scheduled());
    assert_eq!(
        one.end, split.end,
        "{method}: one call and pieces end differently"
    );
    assert!(
        one.output == split.output,
        "{method}: one call and pieces produce different bytes"
    );
    // The in-place form (Deflate, LZHUF) in the same pieces, with room for 1 to 4 096
    // bytes behind the window.
    let room = 1 + usize::from(u16::from_le_bytes([*k0, *k1]) % 4096);
    if let Some(mut in_place) = InPlaceDriver::new(method, size, key, room) {
        let in_place = drive(&mut in_place, stream, &mut scheduled());
        assert_eq!(one.end, in_place.end, "{method}: in place ends differently");
        assert!(
            one.output == in_place.output,
            "{method}: in place produces different bytes"
        );
    }

    let mut out = vec![0u8; size as usize];
    let one_shot = codec::unpack_into(method, key, stream, &mut out);
    match (one_shot, &one.end) {
        (Ok(c), Ok(d)) => {
            assert_eq!(c, *d, "{method}: unpack_into consumed");
            assert!(out == one.output, "{method}: unpack_into bytes");
        }
        (Err(e), Err(f)) => assert_eq!(e, *f, "{method}: unpack_into error"),
        (x, y) => panic!("{method}: unpack_into {x:?}, one call {y:?}"),
    }
}

// ---------------------------------------------------------------------------------------
// Round trips.

/// A key and piece sizes drawn from the data itself (the round trips encode all of it).
fn mix(data: &[u8]) -> (u16, u8) {
    let h = data
        .iter()
        .fold(0x9E37u32, |h, &b| h.rotate_left(5) ^ u32::from(b));
    (h as u16, (h >> 16) as u8)
}

/// LZSS.C's encoder on arbitrary data: the stream decodes back to the data, one-shot
/// (using every byte of it) and, XOR-encrypted (method 0x60), in pieces.
pub fn lzss_roundtrip(data: &[u8]) {
    lz_roundtrip(
        "LZSS",
        data,
        lzss::encode(data),
        lzss::decode_into,
        LzssDecoder::new,
    );
}

/// LZHUF.C's encoder on arbitrary data: as [`lzss_roundtrip`] (method 0xA0 keyed).
pub fn lzhuf_roundtrip(data: &[u8]) {
    lz_roundtrip(
        "LZHUF",
        data,
        lzhuf::encode(data),
        lzhuf::decode_into,
        LzhufDecoder::new,
    );
}

/// An LZ codec's one-shot decoder: packed bytes, XOR key, output.
type DecodeInto = fn(&[u8], Option<u16>, &mut [u8]) -> Result<usize, DecodeError>;

/// The round trip of `data` through `packed`, its encoding by the `name` encoder: one-shot
/// with `decode_into`, then XOR-encrypted with a key from the data, in pieces through the
/// decoder `new` makes.
fn lz_roundtrip<D: Decoder>(
    name: &str,
    data: &[u8],
    packed: Vec<u8>,
    decode_into: DecodeInto,
    new: fn(u64, Option<u16>) -> D,
) {
    let mut out = vec![0u8; data.len()];
    assert_eq!(decode_into(&packed, None, &mut out), Ok(packed.len()));
    assert!(out == data, "{name} round trip differs");
    let (key, step) = mix(data);
    let mut xored = packed.clone();
    XorStream::new(key).apply(&mut xored);
    let step = step_size(step);
    let run = drive(&mut new(data.len() as u64, Some(key)), &xored, &mut || {
        (step, step)
    });
    assert_eq!(
        run.end,
        Ok(packed.len()),
        "keyed {name} round trip, in pieces"
    );
    assert!(
        run.output == data,
        "keyed {name} round trip differs, in pieces"
    );
}

// ---------------------------------------------------------------------------------------
// Deflate against miniz_oxide.

/// miniz_oxide's output is not followed past this (the verdict is then unknown).
const MINIZ_LIMIT: usize = 1 << 20;

/// miniz_oxide's verdict on `stream` as a whole raw Deflate stream (no more input to
/// come), into a growing flat buffer; `None` past [`MINIZ_LIMIT`] bytes of output.
fn miniz(stream: &[u8]) -> Option<Verdict> {
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::{DecompressorOxide, decompress, inflate_flags};
    let mut state = Box::<DecompressorOxide>::default();
    let mut out = vec![0u8; (4 * stream.len() + 256).min(MINIZ_LIMIT)];
    let (mut used, mut written) = (0, 0);
    loop {
        let (status, u, w) = decompress(
            &mut state,
            &stream[used..],
            &mut out,
            written,
            inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
        );
        used += u;
        written += w;
        match status {
            TINFLStatus::HasMoreOutput if out.len() < MINIZ_LIMIT => {
                out.resize((2 * out.len()).min(MINIZ_LIMIT), 0);
            }
            TINFLStatus::HasMoreOutput => return None,
            status => {
                out.truncate(written);
                return Some(match status {
                    TINFLStatus::Done => Verdict::Complete(out, used),
                    TINFLStatus::NeedsMoreInput | TINFLStatus::FailedCannotMakeProgress => {
                        Verdict::Truncated(out)
                    }
                    _ => Verdict::Corrupt(out),
                });
            }
        }
    }
}

/// ngi's verdict, given `cap` bytes of room and expected size (a complete stream shorter
/// than that fails with `EndBeforeSize` after its bytes, and is then decoded again with
/// its exact size, which must succeed), and the error when not complete.
fn ngi_verdict(stream: &[u8], cap: usize) -> (Verdict, Option<DecodeError>) {
    let run = drive(&mut InflateDecoder::new(cap as u64), stream, &mut whole());
    match run.end {
        Ok(consumed) => (Verdict::Complete(run.output, consumed), None),
        Err(DecodeError::Inflate {
            error: InflateError::EndBeforeSize,
            ..
        }) => {
            let mut exact = vec![0u8; run.output.len()];
            let r = inflate::decode_into(stream, &mut exact);
            let Ok(consumed) = r else {
                panic!(
                    "ended after {} bytes, but decode_into with that size gives {r:?}",
                    run.output.len()
                );
            };
            assert!(
                exact == run.output,
                "decode_into with the exact size differs"
            );
            (Verdict::Complete(exact, consumed), None)
        }
        Err(e @ DecodeError::Truncated { .. }) => (Verdict::Truncated(run.output), Some(e)),
        Err(e) => (Verdict::Corrupt(run.output), Some(e)),
    }
}

/// Whether ngi's `error` is one miniz_oxide (0.8) does not detect, on a stream it then
/// decodes on (so that it may say complete, or truncated, where ngi says corrupt). Each is
/// a place where miniz_oxide is laxer than zlib, whose verdicts ngi follows
/// (`tests/tests/inflate_errors.rs` holds ngi to zlib-rs on every stream):
fn miniz_is_laxer(error: &DecodeError) -> bool {
    let DecodeError::Inflate { error, .. } = error else {
        return false;
    };
    match error {
        // miniz_oxide accepts a literal/length or distance code with a single symbol of
        // any length, or none (its `init_tree` rejects a code that is not complete only
        // when it has two or more symbols, or is the code-length code). zlib and ngi accept
        // an incomplete code only when it is a single one-bit code (or, for distances,
        // empty). With two or more symbols both reject it, so only those cases differ.
        InflateError::IncompleteCode {
            table: CodeTable::Literals | CodeTable::Distances,
        } => true,
        // miniz_oxide does not check that the literal/length code has a code for 256:
        // without one the block cannot end, so it decodes on until the input runs out
        // (truncated) or another fault.
        InflateError::MissingEndOfBlock => true,
        _ => false,
    }
}

/// Our inflater against miniz_oxide on arbitrary bytes as a raw Deflate stream.
///
/// * The bytes both produce agree as far as the shorter output goes, always.
/// * When miniz_oxide says complete with N bytes, ngi given N bytes (`decode_into`, and
///   the streaming decoder) gives the same bytes and consumed count, unless ngi finds a
///   fault miniz_oxide does not look for ([`miniz_is_laxer`]).
/// * When ngi says complete, so does miniz_oxide, with the same bytes and count.
/// * When neither completes, a truncation for one is a truncation for the other, unless
///   ngi finds a fault miniz_oxide does not look for.
pub fn inflate_diff(data: &[u8]) {
    let Some(theirs) = miniz(data) else {
        return;
    };
    let n = theirs.output().len();
    let (ours, error) = ngi_verdict(data, n + (1 << 16));
    let (a, b) = (ours.output(), theirs.output());
    let common = a.len().min(b.len());
    assert!(
        a[..common] == b[..common],
        "ngi and miniz_oxide output differ (ngi {ours:?}, miniz {theirs:?})"
    );
    let laxer = error.as_ref().is_some_and(miniz_is_laxer);
    match (&theirs, &ours) {
        (Verdict::Complete(_, c), _) => {
            let mut exact = vec![0u8; n];
            let r = inflate::decode_into(data, &mut exact);
            if laxer {
                assert_eq!(
                    r.err(),
                    error,
                    "decode_into with miniz's size: another error"
                );
                return;
            }
            assert_eq!(
                r,
                Ok(*c),
                "miniz complete with {n} bytes; ngi with that size"
            );
            assert!(exact == b, "miniz complete; ngi's bytes differ");
            assert_eq!(&ours, &theirs, "miniz complete; ngi with room to spare");
        }
        (_, Verdict::Complete(..)) => {
            panic!("ngi complete ({:?}), miniz {:?}", ours, theirs)
        }
        (Verdict::Truncated(_), Verdict::Corrupt(_)) if laxer => {}
        // miniz_oxide judges a repeat code with nothing to repeat before its extra bits
        // are in; ngi (as zlib) reads the extra bits first, so a stream cut there is
        // truncated for ngi. With zero bytes appended ngi must find a fault too.
        (Verdict::Corrupt(_), Verdict::Truncated(_)) => {
            let mut padded = data.to_vec();
            padded.extend_from_slice(&[0; 8]);
            let (later, _) = ngi_verdict(&padded, n + (1 << 16));
            assert!(
                matches!(later, Verdict::Corrupt(_)),
                "miniz {:?}, ngi {:?} ({error:?}), and with zero bytes appended ngi {:?}",
                theirs,
                ours,
                later
            );
        }
        (Verdict::Truncated(_), Verdict::Truncated(_))
        | (Verdict::Corrupt(_), Verdict::Corrupt(_)) => {}
        _ => panic!("miniz {:?}, ngi {:?} ({error:?})", theirs, ours),
    }
}

// ---------------------------------------------------------------------------------------
// Archives.

/// NRes: open arbitrary bytes (normal and raw mode); look every entry up by its own name
/// (the engine's rules: `find` returns an entry of an equal name, and finds one unless the
/// table is `Sorted` but no permutation; `find_linear` finds the first); read every
/// payload (exactly the declared range, whenever its rules hold); the problems are exactly
/// the entries that break a rule; the streaming directory decoder, fed in pieces, yields
/// the same records.
pub fn nres(data: &[u8]) {
    if let Ok(archive) = nres::Archive::open(data) {
        check_nres(&archive, data);
    }
    let raw = nres::Archive::open_raw(data).expect("raw mode opens any file under 4 GiB");
    assert_eq!(raw.len(), 1);
    assert_eq!(raw.payload(0), Ok(data));
    assert_eq!(raw.find(b"raw"), Some(0));
    assert_eq!(raw.problems().count(), 0);
}

fn check_nres(archive: &nres::Archive<'_>, data: &[u8]) {
    let header = archive.header().expect("not raw");
    assert_eq!(archive.len(), header.entry_count as usize);
    let searchable = !matches!(archive.lookup_table(), nres::LookupTable::Sorted);
    let mut broken = 0;
    for (i, entry) in archive.entries().enumerate() {
        assert_eq!(entry.index as usize, i);
        if i < MAX_LOOKUPS {
            let name = entry.name();
            let same = |j: usize| {
                let other = archive.entry(j).expect("found entries exist");
                nres::compare_names(name, other.name()) == Ordering::Equal
            };
            match archive.find(name) {
                Some(j) => assert!(same(j), "find({name:?}) gave entry {j}, another name"),
                None => assert!(!searchable, "find({name:?}) missed entry {i}"),
            }
            let first = archive.find_linear(name);
            assert!(
                first.is_some_and(|j| j <= i && same(j)),
                "find_linear({name:?}) gave {first:?}, entry {i} has that name"
            );
        }
        let checked = archive.check_entry(i);
        broken += usize::from(checked.is_err());
        match archive.payload(i) {
            Ok(payload) => {
                assert_eq!(payload.len(), entry.size as usize);
                let start = entry.data_offset as usize;
                assert!(payload == &data[start..start + payload.len()]);
            }
            Err(e) => assert!(checked.is_err(), "payload {i}: {e}, but the entry checks"),
        }
    }
    let mut problem_entries: Vec<u32> = archive.problems().filter_map(|p| nres_entry(&p)).collect();
    problem_entries.dedup();
    assert_eq!(
        problem_entries.len(),
        broken,
        "problems are not the entries that break rules"
    );

    // The directory again, through the streaming decoder, in pieces sized by the data.
    let mut decoder = DirectoryDecoder::new(&header).expect("the archive opened");
    assert_eq!(decoder.directory_offset(), archive.directory_offset());
    let mut rest = &data[archive.directory_offset() as usize..];
    let step = step_size(data.len() as u8);
    let mut seen = 0;
    while !rest.is_empty() {
        let (mut piece, after) = rest.split_at(step.min(rest.len()));
        while let Some(record) = decoder.next_record(&mut piece) {
            let entry = archive.entry(seen).expect("no more records than entries");
            assert_eq!(record.index as usize, seen);
            assert_eq!(record.entry(), entry, "record {seen} differs");
            seen += 1;
        }
        assert!(piece.is_empty() || decoder.is_done(), "input left unread");
        rest = after;
    }
    assert!(decoder.is_done() && seen == archive.len(), "{seen} records");
}

/// The entry an NRes problem is about.
fn nres_entry(problem: &NresError) -> Option<u32> {
    match *problem {
        NresError::DataBeforeHeader { entry, .. }
        | NresError::DataPastDirectory { entry, .. }
        | NresError::NameUnterminated { entry, .. } => Some(entry),
        _ => None,
    }
}

/// RsLi: open arbitrary bytes with and without the media trailer option; the streaming
/// table decoder and `open_in` agree with `open`; look every entry up by its own name
/// (`rsFind` returns an entry of the upper-cased name, and finds one whenever an entry has
/// it); every entry's packed range is the problem-free ones' and unpacks (up to
/// [`MAX_ENTRY`] bytes) with `unpack_into` as with its streaming decoder.
pub fn rsli(data: &[u8]) {
    for media_trailer in [false, true] {
        let options = OpenOptions::DEFAULT.with_media_trailer(media_trailer);
        let Ok(lib) = Library::open_with(data, options) else {
            continue;
        };
        check_rsli(&lib, data, options);
    }
}

fn check_rsli(lib: &Library<'_, Vec<rsli::Entry>>, data: &[u8], options: OpenOptions) {
    let header = *lib.header();
    let entries = lib.entries();
    assert_eq!(entries.len(), usize::from(header.entry_count));
    assert_eq!(lib.trailer(), rsli::parse_trailer(data));
    assert_eq!(
        lib.overlay(),
        lib.trailer().filter(|_| options.media_trailer)
    );

    let mut storage = vec![rsli::Entry::default(); entries.len()];
    let other = Library::open_in(data, &mut storage, options).expect("open succeeded");
    assert_eq!(
        other.entries(),
        entries,
        "open_in and open decrypt differently"
    );
    assert_eq!(other.lookup_table(), lib.lookup_table());

    // The table again, through the streaming decoder in pieces, then settled.
    let mut decoder = TableDecoder::new(&header);
    let mut streamed = Vec::with_capacity(entries.len());
    let step = step_size(data.len() as u8);
    for piece in data[rsli::HEADER_LEN..].chunks(step) {
        let mut piece = piece;
        while let Some(entry) = decoder.next_entry(&mut piece) {
            streamed.push(entry);
        }
        if decoder.is_done() {
            break;
        }
    }
    assert!(
        decoder.is_done(),
        "the table decoder wants more than the file's table"
    );
    let settled = rsli::settle_sort_index(&header, &mut streamed);
    assert_eq!(settled, lib.lookup_table());
    assert_eq!(streamed, entries, "the streaming table decoder differs");

    for (i, entry) in entries.iter().enumerate().take(MAX_LOOKUPS) {
        let name = entry.name();
        let query = name.to_ascii_uppercase();
        match lib.find(name) {
            Some(j) => assert_eq!(entries[j].name(), query, "find({name:?}) gave entry {j}"),
            None => assert!(
                !entries.iter().any(|e| e.name() == query),
                "find({name:?}) missed an entry named {query:?}"
            ),
        }
        if name == query {
            assert!(lib.find(name).is_some(), "find({name:?}) missed entry {i}");
        }
    }

    let mut problem_entries: Vec<u32> = lib.problems().filter_map(|p| rsli_entry(&p)).collect();
    problem_entries.dedup();
    let mut budget = ENTRY_BUDGET;
    let mut bad = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let offset = lib.effective_offset(i).expect("entry exists");
        assert_eq!(
            offset,
            u64::from(entry.data_offset) + u64::from(lib.overlay().unwrap_or(0))
        );
        let packed = match lib.packed(i) {
            Ok(packed) => packed,
            Err(_) => {
                bad.push(i as u32);
                continue;
            }
        };
        let start = offset as usize;
        assert!(
            packed == &data[start..start + packed.len()],
            "packed({i}) elsewhere"
        );
        let size = entry.unpacked_size as usize;
        if size > MAX_ENTRY || size > budget {
            continue;
        }
        budget -= size;
        let mut out = vec![0u8; size];
        let one_shot = lib.unpack_into(i, &mut out);
        let mut unpacker = lib.unpacker(i).expect("packed(i) checked the method");
        let run = drive(&mut unpacker, packed, &mut whole());
        match (one_shot, run.end) {
            (Ok(()), Ok(_)) => assert!(out == run.output, "entry {i}: unpack_into bytes"),
            (Err(RsliError::Decode { entry, error, .. }), Err(e)) => {
                assert_eq!(
                    (entry, error),
                    (i as u32, e),
                    "entry {i}: unpack_into error"
                )
            }
            (x, y) => panic!("entry {i}: unpack_into {x:?}, its decoder {y:?}"),
        }
    }
    assert_eq!(
        problem_entries, bad,
        "problems are not the entries packed() refuses"
    );
}

/// The entry an RsLi problem is about.
fn rsli_entry(problem: &RsliError) -> Option<u32> {
    match *problem {
        RsliError::UnsupportedMethod { entry, .. } | RsliError::DataOutOfBounds { entry, .. } => {
            Some(entry)
        }
        _ => None,
    }
}

/// The opener: `[flags, feed seed, archive...]`; flags bit 0 honours the media trailer,
/// bit 1 opens in raw mode, bit 2 limits the entry count to 2. The archive is opened by the
/// sans-I/O opener fed in pieces whose sizes come from the seed (1 byte when it is 0) and
/// compared with the slice path ([`crate::catalog_check::compare`]: same verdict, entries,
/// lookups, problems, packed ranges, only the header, directory and trailer read); then
/// every entry of at most [`MAX_ENTRY`] bytes is read through `Catalog::reader` and must
/// give what one-shot unpacking of its packed bytes gives.
pub fn opener(data: &[u8]) {
    let [flags, seed, archive @ ..] = data else {
        return;
    };
    let limits = if flags & 4 != 0 {
        ngi_core::Limits::DEFAULT.with_max_entries(2)
    } else {
        ngi_core::Limits::DEFAULT
    };
    let options = OpenOptions::DEFAULT
        .with_limits(limits)
        .with_media_trailer(flags & 1 != 0)
        .with_raw(flags & 2 != 0);
    let mut rng = crate::corpus::Rng::new(u64::from(*seed));
    let piece = || match seed {
        0 => 1,
        _ => 1 + rng.below(64),
    };
    let fed = crate::catalog_check::compare(archive, options, piece);
    // The embedded driver, through a source interrupted now and then, agrees.
    let mut hiccups = Hiccups {
        source: ngi_core::io::embedded::SliceSource::new(archive),
        rng: crate::corpus::Rng::new(u64::from(*seed)),
    };
    let store = Vec::new();
    let seekable = ngi_core::io::embedded::open_seekable(&mut hiccups, store, options);
    match (&fed, &seekable) {
        (Some(fed), Ok(seekable)) => assert_eq!(fed.entries(), seekable.entries()),
        (None, Err(ngi_core::io::OpenError::Archive(_))) => {}
        (fed, seekable) => panic!("fed {fed:?}, open_seekable {seekable:?}"),
    }
    let Some(catalog) = fed else {
        return;
    };
    // One reader pointed at each entry in turn, over a source of its own.
    let mut reused = Box::new(ngi_core::io::embedded::SeekEntryReader::idle(Hiccups {
        source: ngi_core::io::embedded::SliceSource::new(archive),
        rng: crate::corpus::Rng::new(u64::from(*seed) ^ 0x5EED),
    }));
    for (i, entry) in catalog.entries().iter().enumerate() {
        if entry.size > MAX_ENTRY as u64 {
            continue;
        }
        let (Ok(packed), Ok(mut reader)) = (catalog.packed(i, archive), catalog.reader(i, archive))
        else {
            continue;
        };
        let method = entry.method.expect("packed() checked the method");
        let mut want = vec![0u8; entry.size as usize];
        let one_shot = codec::unpack_into(method, entry.key, packed, &mut want);
        let mut got = Vec::new();
        let read = std::io::Read::read_to_end(&mut reader, &mut got);
        let seek_reader = catalog
            .seek_reader(i, &mut hiccups)
            .expect("reader() took it");
        let (embedded_got, embedded_read) = read_embedded(seek_reader);
        catalog
            .reuse_seek_reader(i, &mut reused)
            .expect("reader() took it");
        let reused_read = read_embedded(&mut *reused);
        assert!(
            reused_read == (embedded_got.clone(), embedded_read),
            "entry {i}: a reused reader reads as a new one"
        );
        match (&embedded_read, &read) {
            (Ok(()), Ok(_)) => assert!(embedded_got == got, "entry {i}: embedded bytes"),
            (Err(a), Err(b)) => {
                let b = b.get_ref().and_then(|x| x.downcast_ref());
                assert_eq!(Some(a), b, "entry {i}: embedded error");
            }
            (a, b) => panic!("entry {i}: embedded {a:?}, std {b:?}"),
        }
        match (one_shot, read) {
            (Ok(_), Ok(_)) => assert!(got == want, "entry {i}: reader bytes"),
            (Err(e), Err(r)) => {
                let stream = r
                    .get_ref()
                    .and_then(|x| x.downcast_ref::<ngi_core::io::StreamError>())
                    .expect("a stream error");
                assert_eq!(stream.decode_error(), Some(e), "entry {i}: reader error");
                assert_eq!(stream.entry(), Some(entry.index));
            }
            (x, y) => panic!("entry {i}: one-shot {x:?}, reader {y:?}"),
        }
    }
}

/// Everything an `embedded_io` reader gives, reading again after each interruption, and
/// its stream error if it ends on one.
fn read_embedded<R: embedded_io::Read<Error = ngi_core::io::embedded::ReadError<Hiccup>>>(
    mut reader: R,
) -> (Vec<u8>, Result<(), ngi_core::io::StreamError>) {
    use ngi_core::io::embedded::ReadError;
    let (mut got, mut buf) = (Vec::new(), [0u8; 777]);
    loop {
        match reader.read(&mut buf) {
            Ok(0) => return (got, Ok(())),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(ReadError::Source(Hiccup)) => continue,
            Err(ReadError::Stream(e)) => return (got, Err(e)),
            Err(e) => panic!("an error of no known kind: {e:?}"),
        }
    }
}

/// An interruption: `embedded_io`'s "try again".
#[derive(Debug)]
pub struct Hiccup;

impl std::fmt::Display for Hiccup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Hiccup {}

impl embedded_io::Error for Hiccup {
    fn kind(&self) -> embedded_io::ErrorKind {
        embedded_io::ErrorKind::Interrupted
    }
}

/// An `embedded_io` source over bytes whose reads are interrupted one time in four, as a
/// seed draws.
struct Hiccups<'a> {
    source: ngi_core::io::embedded::SliceSource<'a>,
    rng: crate::corpus::Rng,
}

impl embedded_io::ErrorType for Hiccups<'_> {
    type Error = Hiccup;
}

impl embedded_io::Read for Hiccups<'_> {
    fn read(&mut self, buf: &mut [u8]) -> Result<usize, Hiccup> {
        if !buf.is_empty() && self.rng.below(4) == 0 {
            return Err(Hiccup);
        }
        let Ok(n) = self.source.read(buf);
        Ok(n)
    }
}

impl embedded_io::Seek for Hiccups<'_> {
    fn seek(&mut self, pos: embedded_io::SeekFrom) -> Result<u64, Hiccup> {
        let Ok(at) = self.source.seek(pos);
        Ok(at)
    }
}

/// A `std::io::BufRead` over bytes that hands out pieces of the sizes a seed draws (1 byte
/// when the seed is 0), to feed a reader unevenly.
struct Uneven<'a> {
    bytes: &'a [u8],
    rng: crate::corpus::Rng,
    one: bool,
    window: usize,
}

impl std::io::Read for Uneven<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let available = std::io::BufRead::fill_buf(self)?;
        let n = available.len().min(buf.len());
        buf[..n].copy_from_slice(&available[..n]);
        std::io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl std::io::BufRead for Uneven<'_> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.window == 0 {
            self.window = if self.one { 1 } else { 1 + self.rng.below(300) };
        }
        Ok(&self.bytes[..self.window.min(self.bytes.len())])
    }
    fn consume(&mut self, amount: usize) {
        let amount = amount.min(self.window).min(self.bytes.len());
        self.bytes = &self.bytes[amount..];
        self.window -= amount.min(self.window);
    }
}

/// `DecodeReader`: `[method, key lo, key hi, size lo, size hi, seed, packed...]`. The packed
/// bytes are read through a source that yields uneven pieces and with read sizes drawn
/// from the seed (1 byte when it is 0), and must give exactly what one-shot unpacking
/// gives: the same bytes and the same packed length used (what follows stays in the
/// source), or the same codec error (`UnexpectedEof` exactly for truncation), which then
/// sticks; never `Ok(0)` before the end.
pub fn reader(data: &[u8]) {
    let [m, k0, k1, s0, s1, seed, packed @ ..] = data else {
        return;
    };
    let method = Method::ALL[usize::from(*m) % Method::ALL.len()];
    let key = u16::from_le_bytes([*k0, *k1]);
    let size = usize::from(u16::from_le_bytes([*s0, *s1]));
    let mut want = vec![0u8; size];
    let one_shot = codec::unpack_into(method, key, packed, &mut want);
    let mut rng = crate::corpus::Rng::new(u64::from(*seed));
    let source = Uneven {
        bytes: packed,
        rng: rng.clone(),
        one: *seed == 0,
        window: 0,
    };
    let mut r = ngi_core::io::DecodeReader::new(source, method, size as u64, key);
    let mut got = Vec::new();
    let mut buf = vec![0u8; 4096];
    let end = loop {
        let n = if *seed == 0 {
            1
        } else {
            1 + rng.below(buf.len())
        };
        match std::io::Read::read(&mut r, &mut buf[..n]) {
            Ok(0) => break Ok(()),
            Ok(k) => got.extend_from_slice(&buf[..k]),
            Err(e) => break Err(e),
        }
    };
    match (one_shot, end) {
        (Ok(used), Ok(())) => {
            assert!(got == want, "reader bytes");
            assert_eq!(r.decoder().consumed(), used as u64, "packed bytes used");
            assert_eq!(
                r.into_inner().bytes.len(),
                packed.len() - used,
                "the rest stays"
            );
        }
        (Err(e), Err(io)) => {
            let stream = io
                .get_ref()
                .and_then(|x| x.downcast_ref::<ngi_core::io::StreamError>())
                .copied()
                .expect("a stream error");
            assert_eq!(stream.decode_error(), Some(e), "reader error");
            let eof = matches!(e, DecodeError::Truncated { .. });
            assert_eq!(io.kind() == std::io::ErrorKind::UnexpectedEof, eof);
            let again = std::io::Read::read(&mut r, &mut buf[..1]).expect_err("sticky");
            assert_eq!(again.kind(), io.kind());
            // An error may come after every byte is out: a Deflate stream that goes on past
            // its size, or whose end code is missing.
            assert!(got.len() <= size, "more bytes than the size");
        }
        (x, y) => panic!("one-shot {x:?}, reader {y:?} after {} bytes", got.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ngi_core::Progress;
    use std::panic::catch_unwind;

    /// A stored decoder that breaks the contract in one chosen way.
    struct Broken {
        inner: StoredDecoder,
        flaw: Flaw,
    }

    #[derive(Clone, Copy)]
    enum Flaw {
        /// Reports `NeedInput` after the input ended instead of `Truncated`.
        NeedInputAfterEnd,
        /// Takes no input once 3 bytes are out, though it has room.
        StallsAfterThree,
        /// Forgets its error.
        ForgetsError,
        /// Has forgotten it.
        Forgot,
    }

    impl Decoder for Broken {
        fn decode(
            &mut self,
            input: &[u8],
            output: &mut [u8],
            input_ended: bool,
        ) -> Result<Progress, DecodeError> {
            match self.flaw {
                Flaw::StallsAfterThree if self.inner.produced_total() >= 3 => {
                    return Ok(Progress {
                        consumed: 0,
                        produced: 0,
                        status: Status::NeedInput,
                    });
                }
                Flaw::NeedInputAfterEnd if input_ended => {
                    let p = self.inner.decode(input, output, false)?;
                    return Ok(p);
                }
                Flaw::ForgetsError => {
                    let r = self.inner.decode(input, output, input_ended);
                    if r.is_err() {
                        self.flaw = Flaw::Forgot;
                    }
                    return r;
                }
                Flaw::Forgot => {
                    return Ok(Progress {
                        consumed: 0,
                        produced: 0,
                        status: Status::NeedInput,
                    });
                }
                _ => {}
            }
            self.inner.decode(input, output, input_ended)
        }

        fn expected_len(&self) -> u64 {
            self.inner.expected_len()
        }

        fn produced_total(&self) -> u64 {
            self.inner.produced_total()
        }
    }

    fn panics(flaw: Flaw, input: &[u8], size: u64) -> bool {
        let input = input.to_vec();
        catch_unwind(move || {
            let mut d = Broken {
                inner: StoredDecoder::new(size),
                flaw,
            };
            drive(&mut d, &input, &mut || (2, 2));
        })
        .is_err()
    }

    #[test]
    fn drive_catches_contract_breaches() {
        assert!(panics(Flaw::NeedInputAfterEnd, b"abc", 5));
        assert!(panics(Flaw::StallsAfterThree, b"abcdef", 6));
        assert!(panics(Flaw::ForgetsError, b"", 5));
        // A sound decoder passes, truncated or not.
        let run = drive(&mut StoredDecoder::new(5), b"abc", &mut || (0, 1));
        assert_eq!(
            run.end,
            Err(DecodeError::Truncated {
                produced: 3,
                expected: 5
            })
        );
        assert_eq!(run.output, b"abc");
        let run = drive(&mut StoredDecoder::new(2), b"abc", &mut || (1, 0));
        assert_eq!((run.end, &run.output[..]), (Ok(2), &b"ab"[..]));
    }

    #[test]
    fn bodies_take_short_and_empty_inputs() {
        for (_, body) in TARGETS {
            for len in 0..12 {
                body(&vec![0u8; len]);
                body(&vec![0xFF; len]);
            }
        }
    }
}
