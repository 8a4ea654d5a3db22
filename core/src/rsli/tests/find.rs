//! `rsFind` (SPEC 2.5): query normalisation, duplicates, and the three kinds of table.

use super::*;
use crate::rsli::{LookupTable, RsliError};

fn library_of(names: &[&[u8]], presorted: bool) -> Vec<u8> {
    let mut builder = Builder::new();
    builder.seed(0x0BAD_CAFE).presorted(presorted);
    for (i, name) in names.iter().enumerate() {
        builder.add(name, Method::Stored, &[i as u8]).unwrap();
    }
    builder.build().unwrap()
}

#[test]
fn queries_are_upper_cased_ascii_only() {
    let file = library_of(&[b"ALPHA", b"BETA.DAT", b"\xE9T\xC9", b"GAMMA_1"], true);
    let library = open(&file, OpenOptions::default());
    assert_eq!(library.lookup_table(), LookupTable::Presorted);
    assert_eq!(library.find(b"alpha"), Some(0));
    assert_eq!(library.find(b"ALPHA"), Some(0));
    assert_eq!(library.find(b"bEtA.dAt"), Some(1));
    assert_eq!(
        library.find(b"\xE9t\xC9"),
        Some(2),
        "only the ASCII t changes"
    );
    assert_eq!(
        library.find(b"\xC9T\xC9"),
        None,
        "0xE9 is not folded to 0xC9"
    );
    assert_eq!(library.find(b"gamma_1"), Some(3));
    assert_eq!(library.find(b"ALPH"), None);
    assert_eq!(library.find(b"ALPHAS"), None);
    assert_eq!(library.find(b""), None);
}

#[test]
fn lower_case_names_in_a_file_are_never_found() {
    let entries = [entry(b"abc", 0, 0, 0), entry(b"ABC", 0, 0, 0)];
    let file = raw_file(0, false, &entries, &[], None);
    let library = open(&file, OpenOptions::default());
    assert_eq!(library.find(b"abc"), Some(1));
    assert_eq!(library.find(b"ABC"), Some(1));
}

#[test]
fn queries_stop_at_nul_and_after_15_bytes() {
    let file = library_of(&[b"ABCDEFGHIJKL", b"ABC", b"Q"], false);
    let library = open(&file, OpenOptions::default());
    // A full 12-byte name (no NUL in the field) is found whole.
    assert_eq!(library.find(b"abcdefghijkl"), Some(0));
    // The query ends at its first NUL, like strncpy.
    assert_eq!(library.find(b"ABC\0DEFGHIJKL"), Some(1));
    assert_eq!(library.find(b"abcdefghijkl\0mnop"), Some(0));
    assert_eq!(library.find(b"\0ABC"), None);
    // Past 12 bytes nothing can match: the 15 bytes kept of a 16-byte query, or a
    // 13-byte query, are longer than any name.
    assert_eq!(library.find(b"ABCDEFGHIJKLM"), None);
    assert_eq!(library.find(b"ABCDEFGHIJKLMNO"), None);
    assert_eq!(library.find(b"ABCDEFGHIJKLMNOP"), None);
    assert_eq!(library.find(b"abcdefghijklmnopqrstuvwxyz"), None);
    assert_eq!(library.find(&[b'A'; 1000]), None);
}

#[test]
fn duplicates_resolve_as_the_engine_binary_search_does() {
    // Three equal names: slots [0, 1, 2]; the first probe is slot (0 + 2) / 2 = 1.
    let file = library_of(&[b"B", b"B", b"B"], true);
    let library = open(&file, OpenOptions::default());
    assert_eq!(library.find(b"b"), Some(1), "not the first in entry order");
    // Five: the first probe is slot 2, holding entry 2.
    let file = library_of(&[b"B", b"B", b"B", b"B", b"B"], false);
    assert_eq!(open(&file, OpenOptions::default()).find(b"B"), Some(2));
    // Sorted "A"(2) "B"(0) "B"(1) "B"(3): slots [2, 0, 1, 3]; the first probe is slot 1,
    // holding entry 0.
    let file = library_of(&[b"B", b"B", b"A", b"B"], true);
    let library = open(&file, OpenOptions::default());
    assert_eq!(
        library
            .entries()
            .iter()
            .map(|e| e.sort_index)
            .collect::<Vec<_>>(),
        [2, 0, 1, 3]
    );
    assert_eq!(library.find(b"B"), Some(0));
    assert_eq!(library.find(b"A"), Some(2));
}

#[test]
fn presorted_out_of_range_searches_until_a_slot_is_out_of_range() {
    let mut file = library_of(&[b"B", b"B", b"B", b"Z", b"A"], true);
    patch_table(&mut file, |i, e| {
        if i == 3 {
            e.file_sort_index = 500;
        }
        if i == 4 {
            e.file_sort_index = 0x8000; // negative as the engine's i16
        }
    });
    let library = open(&file, OpenOptions::default());
    assert_eq!(
        library.lookup_table(),
        LookupTable::PresortedOutOfRange {
            entry: 3,
            sort_index: 500
        }
    );
    // Slots [4, 0, 1, 500, 0x8000]: the engine's search for B probes slot 2 first and
    // finds entry 1 there, not the first B in entry order; for A it probes slots 2 and 0,
    // both in range. For Z and Q it reaches slot 3, out of range, and the scan decides.
    assert_eq!(library.find(b"B"), Some(1), "the binary search's answer");
    assert_eq!(library.find(b"A"), Some(4));
    assert_eq!(library.find(b"z"), Some(3));
    assert_eq!(library.find(b"Q"), None);
    // Presorted values are used as they are, also as data keys.
    assert_eq!(library.entries()[3].sort_index, 500);
    assert_eq!(library.entries()[4].data_key(), 0x8000);
}

/// The first value out of range is the entry count itself; one less is a slot.
#[test]
fn a_presorted_value_of_the_entry_count_is_out_of_range() {
    for (value, out) in [(3, true), (2, false)] {
        let mut file = library_of(&[b"A", b"B", b"C"], true);
        patch_table(&mut file, |i, e| {
            if i == 1 {
                e.file_sort_index = value;
            }
        });
        let table = open(&file, OpenOptions::default()).lookup_table();
        let expected = LookupTable::PresortedOutOfRange {
            entry: 1,
            sort_index: value,
        };
        assert_eq!(table == expected, out, "{value}: {table:?}");
    }
}

#[test]
fn presorted_but_different_still_finds_everything() {
    let mut rng = Lcg(99);
    let mut names: Vec<Vec<u8>> = Vec::new();
    while names.len() < 60 {
        let n = name(&mut rng, b"ABCDEFGHIJ0123");
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let refs: Vec<&[u8]> = names.iter().map(|n| &n[..]).collect();
    let honest = library_of(&refs, true);
    let patches: [fn(usize) -> u16; 3] = [
        |i| (59 - i) as u16,       // reversed: a permutation, wrongly ordered
        |_| 0,                     // not a permutation at all
        |i| ((i * 7) % 60) as u16, // another permutation
    ];
    for patch in patches {
        let mut file = honest.clone();
        patch_table(&mut file, |i, e| e.file_sort_index = patch(i));
        let library = open(&file, OpenOptions::default());
        assert_eq!(library.lookup_table(), LookupTable::PresortedDiffers);
        for (i, n) in names.iter().enumerate() {
            assert_eq!(library.find(n), Some(i), "{n:?}");
            assert_eq!(library.entries()[i].sort_index, patch(i));
        }
        assert_eq!(library.find(b"NOT THERE"), None);
    }
}

#[test]
fn unpresorted_garbage_is_replaced_by_the_computed_permutation() {
    let names: [&[u8]; 6] = [b"DELTA", b"ALPHA", b"CHARLIE", b"ALPHA", b"BRAVO", b"ECHO"];
    let mut builder = Builder::new();
    builder.presorted(false).seed(0xFACE);
    for (i, n) in names.iter().enumerate() {
        builder.add(n, Method::Xor, &[i as u8; 40]).unwrap();
    }
    let mut file = builder.build().unwrap();
    patch_table(&mut file, |i, e| {
        e.file_sort_index = 0xF00D ^ (i as u16 * 0x1111)
    });
    let library = open(&file, OpenOptions::default());
    assert_eq!(library.lookup_table(), LookupTable::Computed);
    // ALPHA(1) ALPHA(3) BRAVO(4) CHARLIE(2) DELTA(0) ECHO(5)
    let slots: Vec<u16> = library.entries().iter().map(|e| e.sort_index).collect();
    assert_eq!(slots, [1, 3, 4, 2, 0, 5]);
    for (i, e) in library.entries().iter().enumerate() {
        assert_eq!(e.file_sort_index, 0xF00D ^ (i as u16 * 0x1111));
        assert_eq!(e.data_key(), slots[i]);
        let mut out = [0u8; 40];
        library.unpack_into(i, &mut out).unwrap();
        assert_eq!(
            out, [i as u8; 40],
            "entry {i} decrypts with the computed key"
        );
    }
    assert_eq!(library.find(b"charlie"), Some(2));
    assert_eq!(library.find(b"ECHO"), Some(5));
    // Probes slot 2 (entry 4, BRAVO), then slot 0 (entry 1).
    assert_eq!(library.find(b"ALPHA"), Some(1));
    assert_eq!(library.find(b"FOXTROT"), None);
    assert_eq!(
        library.unpack_into(6, &mut []),
        Err(RsliError::NoSuchEntry { index: 6 })
    );
}
