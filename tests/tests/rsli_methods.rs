//! Every packing method through the RsLi builder and reader, with the XOR methods keyed by
//! the permutation the engine computes at open (no 0xABBA), and the file's own stored
//! `sort_index` values overwritten with garbage to prove they play no part.

use ngi_core::codec::xor::XorStream;
use ngi_core::codec::{Decoder, Method, lzhuf, lzss};
use ngi_core::rsli::{Builder, Library, LookupTable, OpenOptions};
use ngi_tests::chunked::{self, Pieces};
use ngi_tests::corpus;

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
    let lib = Library::open(&file, OpenOptions::default()).unwrap();
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
