//! The XOR method's key is the entry's final `sort_index` (SPEC 2.5), checked against a
//! keystream computed here over the plain text, not against the library's own decoder.

use super::*;
use crate::codec::Decoder;
use crate::rsli::LookupTable;

/// The engine's permutation, by an independent stable sort.
fn reference_permutation(names: &[Vec<u8>]) -> Vec<u16> {
    let mut p: Vec<u16> = (0..names.len() as u16).collect();
    p.sort_by(|&a, &b| names[a as usize].cmp(&names[b as usize]));
    p
}

fn encrypted(plain: &[u8], key: u16) -> Vec<u8> {
    let mut out = plain.to_vec();
    XorStream::new(key).apply(&mut out);
    out
}

fn check_payloads(library: &Library<'_, Vec<Entry>>, items: &[(Vec<u8>, Vec<u8>)]) {
    let names: Vec<Vec<u8>> = items.iter().map(|(n, _)| n.clone()).collect();
    let keys = reference_permutation(&names);
    for (i, (_, plain)) in items.iter().enumerate() {
        let e = library.entries()[i];
        assert_eq!(e.sort_index, keys[i], "entry {i}");
        let packed = library.packed(i).unwrap();
        match e.method().unwrap() {
            Method::Xor => assert_eq!(packed, encrypted(plain, keys[i]), "entry {i}"),
            _ => assert_eq!(packed, &plain[..], "entry {i}"),
        }
        let mut out = alloc::vec![0u8; plain.len()];
        library.unpack_into(i, &mut out).unwrap();
        assert_eq!(&out, plain, "entry {i}");
        // The resumable decoder, one byte at a time, gives the same.
        let mut unpacker = library.unpacker(i).unwrap();
        let mut again = alloc::vec![0u8; plain.len()];
        for (j, slot) in again.iter_mut().enumerate() {
            let p = unpacker
                .decode(&packed[j..j + 1], core::slice::from_mut(slot), false)
                .unwrap();
            assert_eq!((p.consumed, p.produced), (1, 1));
        }
        assert_eq!(&again, plain, "entry {i}, byte by byte");
    }
}

#[test]
fn payload_key_is_the_final_sort_index() {
    let mut rng = Lcg(0xD00D);
    for count in [1, 2, 17, 150] {
        for presorted in [true, false] {
            let (file, items) = random_library(&mut rng, count, presorted);
            let library = open(&file, OpenOptions::default());
            let want = if presorted {
                LookupTable::Presorted
            } else {
                LookupTable::Computed
            };
            assert_eq!(library.lookup_table(), want);
            check_payloads(&library, &items);
            for (i, (name, _)) in items.iter().enumerate() {
                let found = library.find(name).unwrap();
                assert_eq!(&items[found].0, name, "entry {i}");
            }
        }
    }
}

#[test]
fn unpresorted_keys_ignore_the_stored_values() {
    let mut rng = Lcg(0xACDC);
    let (mut file, items) = random_library(&mut rng, 40, false);
    // Garbage in the file: values far from the permutation, nonzero and all different.
    patch_table(&mut file, |i, e| {
        e.file_sort_index = 0x4000 + 977 * i as u16
    });
    let library = open(&file, OpenOptions::default());
    assert_eq!(library.lookup_table(), LookupTable::Computed);
    check_payloads(&library, &items);
    // Decrypting with the stored value would have been wrong for every XOR entry with
    // data.
    for (i, (_, plain)) in items.iter().enumerate() {
        let e = library.entries()[i];
        assert_ne!(e.file_sort_index, e.sort_index);
        if e.method() == Ok(Method::Xor) && !plain.is_empty() {
            let packed = library.packed(i).unwrap();
            assert_ne!(encrypted(packed, e.file_sort_index), *plain, "entry {i}");
        }
    }
}
