//! The samples in `samples/` are exactly what the writers produce today, and read back to
//! the payloads they were built from.

use ngi_core::Method;
use ngi_core::nres::Archive;
use ngi_core::rsli::{Library, OpenOptions};
use ngi_tests::samples;

const NRES_SAMPLE: &[u8] = include_bytes!("../../samples/sample.nres");
const RSLI_SAMPLE: &[u8] = include_bytes!("../../samples/sample.rsli");

#[test]
fn checked_in_samples_equal_the_writers_output() {
    assert!(
        NRES_SAMPLE == samples::nres().as_slice(),
        "samples/sample.nres is stale: run `cargo run -p ngi-tests --bin make-samples`"
    );
    assert!(
        RSLI_SAMPLE == samples::rsli().as_slice(),
        "samples/sample.rsli is stale: run `cargo run -p ngi-tests --bin make-samples`"
    );
}

#[test]
fn nres_sample_reads_back() {
    let archive = Archive::open(NRES_SAMPLE).unwrap();
    assert_eq!(archive.len(), 8);
    assert_eq!(archive.problems().count(), 0);
    let steel = archive.find(b"steel.MAT").unwrap();
    // The midpoint search over slots [3, 4, 7, 0, 2, 5, 1, 6] probes 3, 5, then 6: entry 1.
    assert_eq!(steel, 1, "the duplicate the engine search probes first");
    let texture = archive.find(b"SKY.TEX").unwrap();
    assert_eq!(
        archive.payload(texture).unwrap(),
        [0x54, 0x65, 0x78, 0x6D, 4, 0, 4, 0]
    );
    for entry in archive.entries() {
        assert_eq!(entry.data_offset % 8, 0, "canonical payloads are 8-aligned");
    }
}

#[test]
fn rsli_sample_reads_back() {
    let lib = Library::open_with(RSLI_SAMPLE, OpenOptions::default()).unwrap();
    assert_eq!(lib.len(), 7);
    assert_eq!(lib.problems().count(), 0);
    let secret = lib.find(b"secret.txt").unwrap();
    let entry = *lib.entry(secret).unwrap();
    assert_eq!(entry.method(), Ok(Method::Xor));
    let mut out = vec![0u8; entry.unpacked_size as usize];
    lib.unpack_into(secret, &mut out).unwrap();
    assert_eq!(out, b"XOR-encrypted with this entry's sort index as key.\n");
    assert_ne!(
        lib.packed(secret).unwrap(),
        out.as_slice(),
        "the payload is encrypted"
    );
}

#[test]
fn rsli_sample_deflate_entry_is_miniz_oxides_stream() {
    let lib = Library::open_with(RSLI_SAMPLE, OpenOptions::default()).unwrap();
    let index = lib.find(b"deflate.txt").unwrap();
    assert_eq!(index, 5);
    let entry = *lib.entry(index).unwrap();
    assert_eq!(entry.method(), Ok(Method::Deflate));
    let text = samples::deflate_text();
    assert_eq!(entry.unpacked_size as usize, text.len());
    let packed = lib.packed(index).unwrap();
    assert!(
        packed == miniz_oxide::deflate::compress_to_vec(&text, samples::DEFLATE_LEVEL).as_slice(),
        "the packed bytes are miniz_oxide's raw stream, not XORed"
    );
    assert!(packed.len() < text.len() / 4, "it compresses");
    let mut out = vec![0u8; text.len()];
    lib.unpack_into(index, &mut out).unwrap();
    assert_eq!(out, text);
    // Every XOR entry of the sample is keyed with a non-zero key (entry 5, Deflate, is the
    // one whose computed key is 0).
    for (i, e) in lib.entries().iter().enumerate() {
        let method = e.method().unwrap();
        assert_eq!(
            e.sort_index == 0,
            i == index,
            "entry {i} ({method}) key {}",
            e.sort_index
        );
    }
}
