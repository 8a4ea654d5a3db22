//! Every packing method through the RsLi builder and reader, with the XOR methods keyed by
//! the permutation the engine computes at open (no 0xABBA), and the file's own stored
//! `sort_index` values overwritten with garbage to prove they play no part.
//!
//! Deflate (0x100, builder feature `deflate`) has a test of its own: its stream is
//! miniz_oxide's, byte for byte, at every level asked for, and besides ngi's inflater it is
//! inflated by Python's `zlib` (C zlib), which must use every byte of it and no more.

use ngi_core::codec::xor::XorStream;
use ngi_core::codec::{Decoder, Method, lzhuf, lzss};
use ngi_core::rsli::{Builder, Library, LookupTable, OpenOptions};
use ngi_tests::chunked::{self, Pieces};
use ngi_tests::corpus;

/// Every method but Deflate, which `deflate_round_trips_and_is_miniz_oxides_stream` covers.
const METHODS: [Method; 6] = [
    Method::Stored,
    Method::Xor,
    Method::Lzss,
    Method::XorLzss,
    Method::Lzhuf,
    Method::XorLzhuf,
];

/// The library with entry `i`'s stored `sort_index` set to `0x7000 + i`, table
/// re-encrypted: a reader must ignore these values without the 0xABBA flag.
fn with_garbage_sort_indices(file: &[u8]) -> Vec<u8> {
    let key = u16::from_le_bytes([file[20], file[21]]);
    let count = usize::from(u16::from_le_bytes([file[4], file[5]]));
    let mut out = file.to_vec();
    let table = &mut out[32..32 + 32 * count];
    XorStream::new(key).apply(table);
    for i in 0..count {
        let garbage = 0x7000u16 + i as u16;
        table[32 * i + 18..32 * i + 20].copy_from_slice(&garbage.to_le_bytes());
    }
    XorStream::new(key).apply(table);
    out
}

#[test]
fn every_method_round_trips_with_computed_keys() {
    let samples: Vec<corpus::Sample> = corpus::corpus()
        .into_iter()
        .filter(|s| s.data.len() <= 160 * 1024)
        .collect();
    let mut builder = Builder::new();
    builder.seed(0xC0DE_2026).presorted(false);
    let mut expected = Vec::new();
    for (i, sample) in samples.iter().enumerate() {
        let method = METHODS[i % METHODS.len()];
        // Names in reverse of entry order, so that permutation slots differ from indices.
        let name = format!(
            "E{:02}.{}",
            99 - i,
            &method.name()[..3].to_ascii_uppercase()
        );
        let index = builder.add(name.as_bytes(), method, &sample.data).unwrap();
        expected.push((index, method, &sample.data, &sample.name));
    }
    let file = with_garbage_sort_indices(&builder.build().unwrap());
    let lib = Library::open_with(&file, OpenOptions::default()).unwrap();
    assert_eq!(lib.lookup_table(), LookupTable::Computed);
    assert_eq!(lib.problems().count(), 0);
    let mut keyed = 0;
    for (index, method, data, name) in expected {
        let entry = *lib.entry(index).unwrap();
        assert_eq!(entry.method(), Ok(method), "{name}");
        assert_ne!(
            entry.file_sort_index, entry.sort_index,
            "garbage is not the key"
        );
        // The packed bytes are the encoder's stream, XORed with the computed key.
        let mut plain_stream = lib.packed(index).unwrap().to_vec();
        if method.uses_xor() {
            XorStream::new(entry.sort_index).apply(&mut plain_stream);
            keyed += usize::from(entry.sort_index != 0);
        }
        let reference = match method {
            Method::Stored | Method::Xor => data.to_vec(),
            Method::Lzss | Method::XorLzss => lzss::encode(data),
            _ => lzhuf::encode(data),
        };
        assert!(
            plain_stream == reference,
            "{name} ({method}): packed stream"
        );
        // One-shot and streamed decoding give the original.
        let mut out = vec![0u8; data.len()];
        lib.unpack_into(index, &mut out).unwrap();
        assert!(&out == data, "{name} ({method}): one-shot");
        let mut decoder = lib.unpacker(index).unwrap();
        let (streamed, _) = chunked::decode(
            &mut decoder,
            lib.packed(index).unwrap(),
            data.len(),
            Pieces::Random(index as u64, 3000),
        )
        .unwrap();
        assert!(&streamed == data, "{name} ({method}): streamed");
        assert_eq!(decoder.produced_total(), data.len() as u64);
        // Found by name through the computed permutation.
        assert_eq!(lib.find(entry.name()), Some(index));
    }
    assert!(keyed >= 4, "the XOR entries use non-zero keys");
}

/// Inflates each raw Deflate stream with Python's `zlib` (the C zlib, a decoder nobody on
/// the team wrote), in one process. Each answer is the output and whether the stream
/// ended exactly at the end of its bytes (`eof` set, no `unused_data`). The interpreter is
/// `NGI_PYTHON` when set, else `python3`; a missing one fails the test, never skips it.
fn python_zlib_inflate(streams: &[&[u8]]) -> Vec<(Vec<u8>, bool)> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    const SCRIPT: &str = r#"
import struct, sys, zlib
data = sys.stdin.buffer.read()
out = sys.stdout.buffer
pos = 0
while pos < len(data):
    (n,) = struct.unpack_from("<Q", data, pos)
    blob = data[pos + 8 : pos + 8 + n]
    pos += 8 + n
    d = zlib.decompressobj(-15)
    result = d.decompress(blob) + d.flush()
    exact = d.eof and d.unused_data == b"" and d.unconsumed_tail == b""
    out.write(struct.pack("<QB", len(result), 1 if exact else 0))
    out.write(result)
out.flush()
"#;
    let python = std::env::var_os("NGI_PYTHON").unwrap_or_else(|| "python3".into());
    let mut request = Vec::new();
    for s in streams {
        request.extend_from_slice(&(s.len() as u64).to_le_bytes());
        request.extend_from_slice(s);
    }
    let mut child = Command::new(&python)
        .args(["-c", SCRIPT])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {python:?} (Python 3 with zlib): {e}"));
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&request));
    let mut answer = Vec::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_end(&mut answer)
        .unwrap();
    writer.join().unwrap().unwrap();
    assert!(child.wait().unwrap().success(), "Python's zlib failed");
    let mut results = Vec::new();
    let mut rest = answer.as_slice();
    while !rest.is_empty() {
        let n = u64::from_le_bytes(rest[..8].try_into().unwrap()) as usize;
        let exact = rest[8] == 1;
        results.push((rest[9..9 + n].to_vec(), exact));
        rest = &rest[9 + n..];
    }
    assert_eq!(results.len(), streams.len(), "one answer per stream");
    results
}

#[test]
fn deflate_round_trips_and_is_miniz_oxides_stream() {
    // The whole corpus at the builder's default level; the small inputs at the other
    // levels too (0: stored blocks only, 1: miniz_oxide's fast path, 10: the slowest).
    let mut jobs: Vec<(String, Option<u8>, Vec<u8>)> = vec![
        ("explicit empty".into(), None, Vec::new()),
        ("explicit 1 byte".into(), None, vec![0x5A]),
    ];
    for sample in corpus::corpus() {
        if sample.data.len() <= 16 * 1024 {
            for level in [0, 1, 6, 10] {
                jobs.push((sample.name.clone(), Some(level), sample.data.clone()));
            }
        }
        jobs.push((sample.name, None, sample.data));
    }
    let mut builder = Builder::new();
    builder.seed(0xDEF1_A7E5).presorted(false);
    let mut expected = Vec::new();
    for (i, (name, level, data)) in jobs.iter().enumerate() {
        let level = level.unwrap_or(ngi_core::rsli::DEFAULT_DEFLATE_LEVEL);
        builder.deflate_level(level);
        // Names in reverse of entry order, so that permutation slots differ from indices.
        let entry_name = format!("D{:02}L{level:02}.DEF", 99 - i);
        let index = builder
            .add(entry_name.as_bytes(), Method::Deflate, data)
            .unwrap();
        expected.push((index, level, data, format!("{name} at level {level}")));
    }
    let file = with_garbage_sort_indices(&builder.build().unwrap());
    let lib = Library::open_with(&file, OpenOptions::default()).unwrap();
    assert_eq!(lib.problems().count(), 0);
    let mut end = 0;
    let mut keyed = 0;
    let mut streams = Vec::new();
    for &(index, level, data, ref what) in &expected {
        let entry = *lib.entry(index).unwrap();
        assert_eq!(entry.method(), Ok(Method::Deflate), "{what}");
        assert_eq!(entry.flags, 0x100, "{what}: the method bits only");
        assert_eq!(entry.unpacked_size as usize, data.len(), "{what}");
        keyed += usize::from(entry.sort_index != 0);
        // The packed bytes are miniz_oxide's raw stream exactly: no XOR whatever the key,
        // and packed_size is the stream's length (no overrun byte, nothing after it).
        let packed = lib.packed(index).unwrap();
        let reference = miniz_oxide::deflate::compress_to_vec(data, level);
        assert!(packed == reference.as_slice(), "{what}: packed stream");
        assert_eq!(entry.packed_size as usize, reference.len(), "{what}");
        let stream_end = entry.data_offset as usize + entry.packed_size as usize;
        assert!(stream_end <= file.len(), "{what}: inside the file");
        end = end.max(stream_end);
        // One-shot and streamed decoding give the original.
        let mut out = vec![0u8; data.len()];
        lib.unpack_into(index, &mut out).unwrap();
        assert!(&out == data, "{what}: one-shot");
        let pieces = if data.len() <= 4097 {
            Pieces::OneByte
        } else {
            Pieces::Random(index as u64, 3000)
        };
        let mut decoder = lib.unpacker(index).unwrap();
        let (streamed, _) = chunked::decode(&mut decoder, packed, data.len(), pieces).unwrap();
        assert!(&streamed == data, "{what}: streamed");
        assert_eq!(decoder.produced_total(), data.len() as u64);
        // miniz_oxide's own inflater agrees (a sibling of the encoder, not independent).
        let inflated = miniz_oxide::inflate::decompress_to_vec(packed).unwrap();
        assert!(&inflated == data, "{what}: miniz_oxide inflate");
        assert_eq!(lib.find(entry.name()), Some(index), "{what}");
        streams.push(packed);
    }
    assert_eq!(
        end,
        file.len(),
        "the last stream ends the file, no byte past it"
    );
    assert!(
        keyed >= expected.len() - 1,
        "keys an XOR would have used were there"
    );
    // The independent reference: C zlib through Python, inflating each stream completely
    // and using every byte of it.
    let answers = python_zlib_inflate(&streams);
    for ((_, _, data, what), (inflated, exact)) in expected.iter().zip(answers) {
        assert!(&&inflated == data, "{what}: Python zlib output");
        assert!(
            exact,
            "{what}: the stream ends exactly at packed_size for zlib"
        );
    }
}
