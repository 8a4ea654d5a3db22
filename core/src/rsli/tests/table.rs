//! The incremental table decoder, fed one byte at a time, against `Library::entries`.

use super::*;
use crate::rsli::{TableDecoder, find_in, settle_sort_index};

fn decode_bytewise(file: &[u8]) -> Vec<Entry> {
    let header = Header::parse(file).unwrap();
    let mut decoder = TableDecoder::new(&header);
    let mut entries = Vec::new();
    for byte in &file[HEADER_LEN..] {
        let mut input = core::slice::from_ref(byte);
        if let Some(e) = decoder.next_entry(&mut input) {
            entries.push(e);
        }
        if decoder.is_done() {
            break;
        }
        assert!(input.is_empty());
    }
    assert!(decoder.is_done());
    assert_eq!(decoder.remaining(), 0);
    entries
}

#[test]
fn one_byte_at_a_time_equals_the_opened_table() {
    let mut rng = Lcg(0x7AB1E);
    for (count, presorted) in [(0, false), (1, true), (5, false), (64, true), (200, false)] {
        let (mut file, _) = random_library(&mut rng, count, presorted);
        if !presorted {
            // Stored values unlike the computed ones, so the comparison means something.
            patch_table(&mut file, |_, e| e.file_sort_index = rng.next() as u16);
        }
        let library = open(&file, OpenOptions::default());
        let decoded = decode_bytewise(&file);
        assert_eq!(decoded.len(), library.len());
        for (i, (d, e)) in decoded.iter().zip(library.entries()).enumerate() {
            assert_eq!(
                d.sort_index, d.file_sort_index,
                "entry {i}: not settled yet"
            );
            assert_eq!(d.file_sort_index, e.file_sort_index, "entry {i}");
            assert_eq!(
                *d,
                Entry {
                    sort_index: e.file_sort_index,
                    ..*e
                },
                "entry {i}"
            );
            assert_eq!(d.to_bytes(), e.to_bytes(), "entry {i}");
        }
        // Settled on their own, they are the library's entries, and lookups agree.
        let mut settled = decoded;
        let header = Header::parse(&file).unwrap();
        assert_eq!(
            settle_sort_index(&header, &mut settled),
            library.lookup_table()
        );
        assert_eq!(settled, library.entries());
        for e in library.entries() {
            assert_eq!(find_in(&settled, e.name()), library.find(e.name()));
        }
    }
}
