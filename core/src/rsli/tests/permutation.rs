//! `compute_permutation` against the engine's own algorithm: a stable bubble sort of the
//! indices by `strcmp` over the engine's 16-byte in-memory names (12 + 4 zero bytes).

use super::*;
use crate::rsli::compute_permutation;

/// C's `strcmp` over NUL-terminated buffers.
fn strcmp(a: &[u8; 16], b: &[u8; 16]) -> i32 {
    for (&x, &y) in a.iter().zip(b) {
        if x != y {
            return i32::from(x) - i32::from(y);
        }
        if x == 0 {
            return 0;
        }
    }
    0
}

/// The engine's copy of a name: the 12-byte field, then the 4 zeroed reserved bytes.
fn in_memory(e: &Entry) -> [u8; 16] {
    let mut name = [0u8; 16];
    name[..12].copy_from_slice(&e.name);
    name
}

/// The engine's bubble sort, O(n^2): only strictly greater neighbours swap.
fn bubble_sort(entries: &[Entry]) -> Vec<u16> {
    let names: Vec<[u8; 16]> = entries.iter().map(in_memory).collect();
    let mut p: Vec<u16> = (0..entries.len() as u16).collect();
    for pass in 0..p.len() {
        let mut swapped = false;
        for j in 0..p.len() - 1 - pass {
            if strcmp(&names[p[j] as usize], &names[p[j + 1] as usize]) > 0 {
                p.swap(j, j + 1);
                swapped = true;
            }
        }
        if !swapped {
            break;
        }
    }
    p
}

/// A number that orders as `strcmp` orders the name: the in-memory name with every byte
/// after its first NUL cleared, read big-endian. (Equal up to both NULs: equal numbers;
/// else the first differing byte decides both.)
fn strcmp_key(e: &Entry) -> u128 {
    let mut name = in_memory(e);
    if let Some(nul) = name.iter().position(|&b| b == 0) {
        name[nul..].fill(0);
    }
    u128::from_be_bytes(name)
}

/// The same bubble sort, each step one integer comparison so that 32 767 entries take
/// seconds in a debug build: the names are first replaced by their rank among the
/// distinct [`strcmp_key`]s, and each item is `rank << 16 | index` (compared by rank
/// only, as the engine compares names only).
fn bubble_sort_keyed(entries: &[Entry]) -> Vec<u16> {
    let keys: Vec<u128> = entries.iter().map(strcmp_key).collect();
    let mut distinct = keys.clone();
    distinct.sort_unstable();
    distinct.dedup();
    let mut items: Vec<u64> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| (distinct.binary_search(k).unwrap() as u64) << 16 | i as u64)
        .collect();
    let mut end = items.len();
    while end > 1 {
        let mut last_swap = 0;
        for j in 1..end {
            let (a, b) = (items[j - 1], items[j]);
            if a >> 16 > b >> 16 {
                items[j - 1] = b;
                items[j] = a;
                last_swap = j;
            }
        }
        // Past the last swap the items are already in place: the classic bubble-sort
        // shortcut, which changes no comparison's outcome.
        end = last_swap;
    }
    items.into_iter().map(|item| item as u16).collect()
}

/// Random name fields over `alphabet` with many duplicates: mostly short names, some
/// with a NUL inside the field (bytes after it are not part of the name), some of all
/// 12 bytes, random reserved bytes and stored values (neither may matter).
fn random_entries(rng: &mut Lcg, count: usize, alphabet: &[u8]) -> Vec<Entry> {
    (0..count)
        .map(|_| {
            let mut e = Entry {
                reserved: rng.next().to_le_bytes(),
                sort_index: rng.next() as u16,
                file_sort_index: rng.next() as u16,
                ..Entry::default()
            };
            let len = match rng.below(8) {
                0 => 0,
                1 => 12,
                _ => 1 + rng.below(3),
            };
            for b in &mut e.name[..len] {
                *b = alphabet[rng.below(alphabet.len())];
            }
            if rng.below(4) == 0 {
                // Garbage after a NUL.
                let at = rng.below(12);
                e.name[at] = 0;
                for b in &mut e.name[at + 1..] {
                    *b = rng.next() as u8;
                }
            }
            e
        })
        .collect()
}

fn check(entries: &mut [Entry]) {
    let want = if entries.len() <= 1000 {
        let want = bubble_sort(entries);
        assert_eq!(bubble_sort_keyed(entries), want, "the two references agree");
        want
    } else {
        bubble_sort_keyed(entries)
    };
    let before: Vec<Entry> = entries.to_vec();
    compute_permutation(entries);
    let got: Vec<u16> = entries.iter().map(|e| e.sort_index).collect();
    assert_eq!(got, want, "{} entries", entries.len());
    for (a, b) in before.iter().zip(entries.iter()) {
        assert_eq!(
            Entry {
                sort_index: 0,
                ..*a
            },
            Entry {
                sort_index: 0,
                ..*b
            }
        );
    }
}

#[test]
fn equals_the_bubble_sort_on_random_names() {
    let mut rng = Lcg(0x5EED);
    for count in [0, 1, 2, 17, 1000] {
        for alphabet in [&b"A"[..], b"AB", b"AZa_\x7F\x80\xFF"] {
            for _ in 0..3 {
                check(&mut random_entries(&mut rng, count, alphabet));
            }
        }
    }
}

/// The largest table, compared with the real O(n^2) bubble sort (about 5e8 comparisons,
/// each one integer comparison; names from a two-letter alphabet, many duplicates).
#[test]
fn equals_the_bubble_sort_on_32767_entries() {
    let mut rng = Lcg(32767);
    check(&mut random_entries(&mut rng, 32767, b"AB"));
}

#[test]
fn equals_a_stable_merge_sort_on_32767_entries() {
    // An independent O(n log n) reference: the standard library's stable sort by name.
    let mut rng = Lcg(7);
    let mut entries = random_entries(&mut rng, 32767, b"ABCDEFGH\xE0");
    let mut want: Vec<u16> = (0..entries.len() as u16).collect();
    want.sort_by(|&a, &b| {
        let (a, b) = (
            in_memory(&entries[a as usize]),
            in_memory(&entries[b as usize]),
        );
        strcmp(&a, &b).cmp(&0)
    });
    compute_permutation(&mut entries);
    assert!(entries.iter().map(|e| e.sort_index).eq(want));
}

#[test]
fn ties_keep_entry_order() {
    let mut entries = random_entries(&mut Lcg(1), 500, b"A");
    for e in &mut entries {
        e.name = [0; 12];
    }
    compute_permutation(&mut entries);
    assert!(entries.iter().map(|e| e.sort_index).eq(0..500));
}
