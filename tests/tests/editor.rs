//! The lossless editors of ngi-core (`nres::Editor`, `rsli::Editor`) and the plans they
//! save through: untouched archives come back byte for byte, `niCreateResFile` keeps old
//! payloads where they were, the twelve sort modes order as a stable sort on their key,
//! RsLi re-keying keeps every entry decodable.

use std::cmp::Ordering;

use ngi_core::codec::XorStream;
use ngi_core::edit::{Piece, Plan, SourceMismatch, ToVecError, write_plan};
use ngi_core::nres::{self, Archive, NewEntry, SortMode, Writer};
use ngi_core::rsli::{self, Builder, Library};
use ngi_core::{Limits, Method, OpenOptions};
use ngi_tests::corpus::Rng;
use ngi_tests::hostile::{self, Format};
use ngi_tests::samples::{self, odd_nres};

/// The file a plan writes, through the std writer (chunked copies), checked against the
/// in-memory rendering.
fn saved(plan: &Plan<'_>, source: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let written = write_plan(plan, &source.to_vec(), &mut out).expect("plan writes");
    assert_eq!(written, out.len() as u64);
    assert_eq!(
        out,
        plan.to_vec(source).unwrap(),
        "write_plan and to_vec agree"
    );
    out
}

fn nres_payloads(bytes: &[u8]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let a = Archive::open(bytes).expect("opens");
    (0..a.len())
        .map(|i| {
            let e = a.entry(i).unwrap();
            (e.name().to_vec(), a.payload(i).expect("payload").to_vec())
        })
        .collect()
}

fn rsli_decoded(bytes: &[u8], trailer: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
    let lib =
        Library::open_with(bytes, OpenOptions::DEFAULT.with_media_trailer(trailer)).expect("opens");
    (0..lib.len())
        .map(|i| {
            let name = lib.entry(i).unwrap().name().to_vec();
            (
                name,
                lib.unpack_to_vec(i, &Limits::DEFAULT).expect("decodes"),
            )
        })
        .collect()
}

fn sample_nres_archives() -> Vec<(String, Vec<u8>)> {
    let mut writer = Writer::new();
    let mut rng = Rng::new(7);
    for i in 0..40u32 {
        let name = format!(
            "entry{:02}.{}",
            (i * 13) % 40,
            ["msh", "TEX", "mat"][i as usize % 3]
        );
        let len = rng.below(300);
        writer
            .add(
                NewEntry {
                    name: name.as_bytes(),
                    type_id: i % 4,
                    attr1: i,
                    attr2: i * 3,
                    attr3: 9,
                },
                &rng.bytes(len),
            )
            .unwrap();
    }
    vec![
        ("sample.nres".into(), samples::nres()),
        ("written".into(), writer.finish()),
        ("odd".into(), odd_nres()),
        ("empty".into(), Writer::new().finish()),
    ]
}

#[test]
fn untouched_archives_save_byte_for_byte() {
    for (name, bytes) in sample_nres_archives() {
        let editor = nres::Editor::open(&Archive::open(&bytes).unwrap()).unwrap();
        assert_eq!(saved(&editor.plan().unwrap(), &bytes), bytes, "{name}");
    }
    for bytes in [samples::rsli(), samples::all_methods()] {
        for trailer in [false, true] {
            let lib = Library::open_with(&bytes, OpenOptions::DEFAULT.with_media_trailer(trailer))
                .unwrap();
            let editor = rsli::Editor::open(&lib).unwrap();
            assert_eq!(saved(&editor.plan().unwrap(), &bytes), bytes);
        }
    }
}

#[test]
fn every_hostile_archive_that_opens_saves_byte_for_byte() {
    let (mut nres_cases, mut rsli_cases) = (0, 0);
    for case in hostile::catalogue() {
        let options = OpenOptions::DEFAULT
            .with_media_trailer(case.media_trailer)
            .with_limits(case.limits);
        let plan_bytes = match case.format {
            Format::Nres => match Archive::open_with(&case.bytes, options) {
                Ok(archive) if !archive.is_raw() => {
                    nres_cases += 1;
                    let editor = nres::Editor::open(&archive).unwrap();
                    saved(&editor.plan().unwrap(), &case.bytes)
                }
                _ => continue,
            },
            Format::Rsli => match Library::open_with(&case.bytes, options) {
                Ok(lib) => {
                    rsli_cases += 1;
                    let editor = rsli::Editor::open(&lib).unwrap();
                    saved(&editor.plan().unwrap(), &case.bytes)
                }
                Err(_) => continue,
            },
        };
        assert!(plan_bytes == case.bytes, "{}", case.name);
    }
    assert!(
        nres_cases >= 10 && rsli_cases >= 20,
        "{nres_cases} {rsli_cases}"
    );
}

#[test]
fn adding_to_an_nres_leaves_every_old_payload_byte_where_it_was() {
    for (name, old) in sample_nres_archives() {
        let archive = Archive::open(&old).unwrap();
        let directory_offset = archive.directory_offset() as usize;
        let mut editor = nres::Editor::open(&archive).unwrap();
        let added = editor
            .add(
                NewEntry {
                    name: b"added.bin",
                    type_id: 5,
                    ..NewEntry::default()
                },
                b"appended".to_vec(),
            )
            .unwrap();
        let new = saved(&editor.plan().unwrap(), &old);
        assert_eq!(
            new[16..directory_offset],
            old[16..directory_offset],
            "{name}"
        );
        let reopened = Archive::open(&new).unwrap();
        for i in 0..archive.len() {
            let (a, b) = (archive.entry(i).unwrap(), reopened.entry(i).unwrap());
            assert_eq!(
                (a.data_offset, a.size),
                (b.data_offset, b.size),
                "{name} {i}"
            );
            assert_eq!(
                a.name_field, b.name_field,
                "{name} {i}: the whole field kept"
            );
        }
        let e = reopened.entry(added).unwrap();
        assert_eq!(e.data_offset as usize, directory_offset, "{name}");
        assert_eq!(reopened.payload(added).unwrap(), b"appended");
        assert_eq!(reopened.find(b"ADDED.BIN"), Some(added));
        for (i, (entry_name, _)) in nres_payloads(&new).iter().enumerate() {
            let found = reopened.find(entry_name).unwrap();
            assert!(
                nres::compare_names(reopened.entry(found).unwrap().name(), entry_name).is_eq(),
                "{i}"
            );
        }
        if directory_offset % 8 == 0 {
            assert!(reopened.problems().next().is_none(), "{name}");
        }
    }
}

#[test]
fn replacing_shifts_later_payloads_and_keeps_them_aligned() {
    let old = sample_nres_archives().remove(1).1;
    let before = nres_payloads(&old);
    for (index, len) in [(0usize, 1000usize), (5, 0), (20, 3), (39, 77)] {
        let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
        let data: Vec<u8> = (0..len).map(|i| (i * 31 + index) as u8).collect();
        editor.replace(index, data.clone()).unwrap();
        let new = saved(&editor.plan().unwrap(), &old);
        let a = Archive::open(&new).unwrap();
        assert!(a.problems().next().is_none());
        assert_eq!(a.lookup_table(), nres::LookupTable::Canonical);
        let after = nres_payloads(&new);
        for (i, (b, n)) in before.iter().zip(&after).enumerate() {
            if i == index {
                assert_eq!(n.1, data);
            } else {
                assert_eq!(b, n, "entry {i}");
            }
            assert_eq!(a.entry(i).unwrap().data_offset % 8, 0);
        }
        // The old entries before it did not move.
        let o = Archive::open(&old).unwrap();
        for i in 0..index {
            assert_eq!(
                o.entry(i).unwrap().data_offset,
                a.entry(i).unwrap().data_offset
            );
        }
        // Canonical in, canonical out: the writer from the same entries agrees.
        let mut writer = Writer::new();
        for i in 0..a.len() {
            let e = a.entry(i).unwrap();
            writer
                .add(
                    NewEntry {
                        name: e.name(),
                        type_id: e.type_id,
                        attr1: e.attr1,
                        attr2: e.attr2,
                        attr3: e.attr3,
                    },
                    a.payload(i).unwrap(),
                )
                .unwrap();
        }
        assert_eq!(writer.finish(), new, "replace {index}");
    }
}

/// `replace` lays payloads out as a fresh writer would for the same content, empty
/// entries included: an empty entry after the last payload moved in front of that
/// payload's replacement (a replacement by the same bytes changed the file), and an empty
/// payload's replacement went after all the data, shifting nothing (found by a probe of
/// the write side). Every archive of up to four entries of 0, 3 or 8 bytes, each entry
/// replaced by 0, 3, 8 or 13 bytes, in both formats.
#[test]
fn replacing_lays_out_as_a_fresh_writer_does() {
    let nres_of = |payloads: &[Vec<u8>]| {
        let mut writer = Writer::new();
        for (i, data) in payloads.iter().enumerate() {
            let name = format!("e{i}");
            let entry = NewEntry {
                name: name.as_bytes(),
                ..NewEntry::default()
            };
            writer.add(entry, data).unwrap();
        }
        writer.finish()
    };
    let rsli_of = |payloads: &[Vec<u8>]| {
        let mut builder = Builder::new();
        for (i, data) in payloads.iter().enumerate() {
            let name = format!("E{i}");
            builder.add(name.as_bytes(), Method::Stored, data).unwrap();
        }
        builder.build().unwrap()
    };
    let sizes = [0usize, 3, 8];
    let mut cases = 0;
    for count in 1..=4u32 {
        for pick in 0..3usize.pow(count) {
            let payloads: Vec<Vec<u8>> = (0..count as usize)
                .map(|i| vec![b'a' + i as u8; sizes[pick / 3usize.pow(i as u32) % 3]])
                .collect();
            let (nres_old, rsli_old) = (nres_of(&payloads), rsli_of(&payloads));
            for index in 0..payloads.len() {
                for len in [0usize, 3, 8, 13] {
                    let mut want = payloads.clone();
                    want[index] = vec![b'z'; len];
                    let shown = format!("{payloads:?}, entry {index} by {len} bytes");
                    let archive = Archive::open(&nres_old).unwrap();
                    let mut editor = nres::Editor::open(&archive).unwrap();
                    editor.replace(index, want[index].clone()).unwrap();
                    let new = saved(&editor.plan().unwrap(), &nres_old);
                    assert_eq!(new, nres_of(&want), "NRes: {shown}");
                    let library = Library::open(&rsli_old).unwrap();
                    let mut editor = rsli::Editor::open(&library).unwrap();
                    editor.replace(index, &want[index]).unwrap();
                    let new = saved(&editor.plan().unwrap(), &rsli_old);
                    assert_eq!(new, rsli_of(&want), "RsLi: {shown}");
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 4 * (3 + 2 * 9 + 3 * 27 + 4 * 81));
}

/// A replace or a removal in an archive of overlapping payloads, gaps and empty entries
/// anywhere keeps every other entry's bytes: the first placement of an empty payload's
/// replacement put it inside a kept payload running across it (343 of 20 000 such edits
/// read wrong bytes; found by review and by the fuzzer). Each archive also saves byte
/// for byte untouched.
#[test]
fn edits_of_overlapping_payloads_keep_every_other_entry_s_bytes() {
    let save = |editor: &nres::Editor, source: &[u8]| saved(&editor.plan().unwrap(), source);
    let mut rng = Rng::new(47);
    let mut wrong = Vec::new();
    for case in 0..20_000 {
        let count = 1 + rng.below(5);
        let data_len = 8 * (1 + rng.below(6));
        let mut writer = Writer::new();
        let first = NewEntry {
            name: b"pad",
            ..NewEntry::default()
        };
        writer.add(first, &rng.bytes(data_len)).unwrap();
        for i in 1..count {
            let name = format!("e{i}");
            let entry = NewEntry {
                name: name.as_bytes(),
                ..NewEntry::default()
            };
            writer.add(entry, &[]).unwrap();
        }
        let mut file = writer.finish();
        let directory = file.len() - count * 64;
        // Every record pointed anywhere in the data, a third of them empty.
        for i in 0..count {
            let start = 16 + rng.below(data_len + 1);
            let len = match rng.below(3) {
                0 => 0,
                _ => rng.below(16 + data_len - start + 1),
            };
            let record = directory + i * 64;
            file[record + 56..record + 60].copy_from_slice(&(start as u32).to_le_bytes());
            file[record + 12..record + 16].copy_from_slice(&(len as u32).to_le_bytes());
        }
        let Ok(archive) = Archive::open(&file) else {
            continue;
        };
        let before: Vec<Vec<u8>> = (0..count)
            .map(|i| archive.payload(i).unwrap().to_vec())
            .collect();
        let mut editor = nres::Editor::open(&archive).unwrap();
        assert_eq!(save(&editor, &file), file, "case {case}, untouched");
        let target = rng.below(count);
        let removed = rng.below(3) == 2;
        let new = vec![0xEE; rng.below(20)];
        if removed {
            editor.remove(target).unwrap();
        } else {
            editor.replace(target, new.clone()).unwrap();
        }
        let out = save(&editor, &file);
        let after = Archive::open(&out).unwrap();
        let kept = (0..count).filter(|&i| !(removed && i == target));
        for (now, i) in kept.enumerate() {
            let want = if i == target { &new } else { &before[i] };
            if after.payload(now).unwrap() != want.as_slice() {
                wrong.push(format!("case {case}: entry {i} (edited {target})"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} wrong: {:?}",
        wrong.len(),
        &wrong[..wrong.len().min(5)]
    );
}

#[test]
fn removing_and_renaming() {
    let old = odd_nres();
    let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
    editor.remove(0).unwrap(); // "B.DAT", "first!", in a block of its own
    editor.rename(0, b"A2.DAT").unwrap();
    assert_eq!(editor.find(b"a2.dat"), Some(0));
    assert_eq!(
        editor.rename(0, &[b'x'; 36]),
        Err(nres::WriteError::NameTooLong { entry: 0, len: 36 })
    );
    assert_eq!(
        editor.remove(9),
        Err(nres::WriteError::NoSuchEntry { index: 9, count: 2 })
    );
    // An index past the end is that whatever else the call gets wrong: not a directory
    // too large for `replace`, nor a bad name for `rename`.
    for index in [9, 1 << 30, usize::MAX] {
        let missing = Err(nres::WriteError::NoSuchEntry {
            index: index as u64,
            count: 2,
        });
        assert_eq!(editor.replace(index, Vec::new()), missing);
        assert_eq!(editor.rename(index, b"x"), missing);
        assert_eq!(editor.rename(index, b""), missing);
    }
    let new = saved(&editor.plan().unwrap(), &old);
    let a = Archive::open(&new).unwrap();
    assert_eq!(
        nres_payloads(&new),
        [
            (b"A2.DAT".to_vec(), b"second payload".to_vec()),
            (b"c.dat".to_vec(), b"ond".to_vec()),
        ]
    );
    assert_eq!(a.lookup_table(), nres::LookupTable::Canonical);
    assert_eq!(
        &a.entry(0).unwrap().name_field[6..],
        &[0u8; 30][..],
        "renamed: zeroed"
    );
    assert_eq!(
        &a.entry(1).unwrap().name_field[30..35],
        b"JUNK!",
        "untouched: kept"
    );
    // "first!" had a block of its own: it is cut, the gap before it stays.
    assert_eq!(&new[16..22], b"GAPGAP");
    assert!(!new.windows(6).any(|w| w == b"first!"));
}

#[test]
fn canonicalize_gives_what_the_writer_writes() {
    let old = odd_nres();
    let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
    editor.canonicalize().unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let mut writer = Writer::new();
    for (i, (name, payload)) in nres_payloads(&old).iter().enumerate() {
        writer
            .add(
                NewEntry {
                    name,
                    type_id: i as u32 * 7,
                    ..NewEntry::default()
                },
                payload,
            )
            .unwrap();
    }
    assert_eq!(new, writer.finish());
}

/// Mode 0 is the engine's "none (reset)": the order stays and `sort_index` is rebuilt, as
/// every engine save does (it changed nothing, and `ngi sort A 0` said "sorted").
#[test]
fn sort_mode_none_keeps_the_order_and_rebuilds_sort_index() {
    let mut writer = Writer::new();
    for name in [&b"b"[..], b"C", b"a"] {
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        writer.add(entry, name).unwrap();
    }
    let canonical = writer.finish();
    // Entry 0's slot out of range: the engine scans, and a save rebuilds it.
    let mut broken = canonical.clone();
    let slot = broken.len() - 3 * 64 + 60;
    broken[slot..slot + 4].copy_from_slice(&9u32.to_le_bytes());
    let archive = Archive::open(&broken).unwrap();
    assert!(!archive.lookup_table().is_searchable());
    let mut editor = nres::Editor::open(&archive).unwrap();
    editor.sort(SortMode::None);
    assert_eq!(saved(&editor.plan().unwrap(), &broken), canonical);
}

/// The key a sort mode orders by, for the reference sort.
fn reference_key(mode: SortMode, e: &nres::Entry<'_>) -> (Vec<u32>, Vec<u8>) {
    let name = e.name().to_ascii_lowercase();
    match mode {
        SortMode::None => (vec![], vec![]),
        SortMode::Attr1 => (vec![e.attr1], vec![]),
        SortMode::Attr2 => (vec![e.attr2], vec![]),
        SortMode::Attr1Attr2 => (vec![e.attr1, e.attr2], vec![]),
        SortMode::Type => (vec![e.type_id], vec![]),
        SortMode::TypeAttr1 | SortMode::TypeAttr1Again => (vec![e.type_id, e.attr1], vec![]),
        SortMode::TypeAttr1Attr2 => (vec![e.type_id, e.attr1, e.attr2], vec![]),
        SortMode::Name => (vec![], name),
        SortMode::TypeName => (vec![e.type_id], name),
        SortMode::Attr1Name => (vec![e.attr1], name),
        SortMode::Attr2Name => (vec![e.attr2], name),
    }
}

#[test]
fn the_twelve_sort_modes_are_stable_sorts_on_their_keys() {
    // 300 entries with few distinct keys: many ties in every mode. Names repeat in
    // different cases, and use the bytes between 'Z' and 'a' where folding matters.
    let mut rng = Rng::new(12);
    let stems = ["a_", "AB", "b", "B", "[x]", "zz", "Zz", "m^"];
    let mut writer = Writer::new();
    for i in 0..300u32 {
        let name = format!("{}{}", stems[rng.below(stems.len())], rng.below(4));
        writer
            .add(
                NewEntry {
                    name: name.as_bytes(),
                    type_id: rng.below(3) as u32,
                    attr1: [0, 0x7FFF_FFFF, 0x8000_0000][rng.below(3)],
                    attr2: rng.below(2) as u32,
                    attr3: i,
                },
                format!("payload {i}").as_bytes(),
            )
            .unwrap();
    }
    let old = writer.finish();
    let original = Archive::open(&old).unwrap();
    assert_eq!(SortMode::ALL.len(), 12);
    for (number, mode) in (0u32..).zip(SortMode::ALL) {
        assert_eq!(SortMode::from_number(number), Some(mode));
        assert_eq!(SortMode::from_name(mode.name()), Some(mode));
        assert_eq!(SortMode::from_name(&number.to_string()), Some(mode));
        // The current order is not the file order: sort once by name first, so ties
        // must keep that order, not fall back to the original indices.
        let mut editor = nres::Editor::open(&original).unwrap();
        editor.sort(SortMode::Attr2Name);
        let middle = saved(&editor.plan().unwrap(), &old);
        let middle_archive = Archive::open(&middle).unwrap();
        let current: Vec<nres::Entry<'_>> = middle_archive.entries().collect();
        let mut reference: Vec<usize> = (0..current.len()).collect();
        reference.sort_by(|&a, &b| {
            reference_key(mode, &current[a]).cmp(&reference_key(mode, &current[b]))
        });

        editor.sort(mode);
        let sorted = saved(&editor.plan().unwrap(), &old);
        let a = Archive::open(&sorted).unwrap();
        let got: Vec<u32> = a.entries().map(|e| e.attr3).collect();
        let want: Vec<u32> = reference.iter().map(|&i| current[i].attr3).collect();
        assert_eq!(got, want, "mode {mode}");
        assert_eq!(
            a.lookup_table(),
            nres::LookupTable::Canonical,
            "mode {mode}"
        );
        assert!(a.problems().next().is_none());
        for i in 0..a.len() {
            let e = a.entry(i).unwrap();
            assert_eq!(
                a.payload(i).unwrap(),
                format!("payload {}", e.attr3).as_bytes()
            );
            let found = a.find(e.name()).expect("every name is found");
            assert_eq!(
                nres::compare_names(a.entry(found).unwrap().name(), e.name()),
                Ordering::Equal
            );
        }
        // Sorting never moves a payload: only the directory changes.
        assert_eq!(
            sorted[16..original.directory_offset() as usize],
            old[16..original.directory_offset() as usize]
        );
    }
    assert_eq!(SortMode::from_name("type-name"), Some(SortMode::TypeName));
    assert_eq!(SortMode::from_name("12"), None);
    assert_eq!(SortMode::from_name("by-size"), None);
}

/// A library with every method, XOR ones included, under both kinds of table.
fn keyed_library(presorted: bool, trailer: Option<u32>) -> Vec<u8> {
    samples::every_method_library(0xBEEF_0042, presorted, trailer)
}

#[test]
fn an_added_entry_that_moves_sort_index_re_keys_the_xor_entries() {
    for presorted in [true, false] {
        for trailer in [None, Some(64)] {
            let old = keyed_library(presorted, trailer);
            let honour = trailer.is_some();
            let options = OpenOptions::DEFAULT.with_media_trailer(honour);
            let lib = Library::open_with(&old, options).unwrap();
            let mut editor = rsli::Editor::open(&lib).unwrap();
            // "AAA" sorts before every name: every other entry's slot moves by one.
            let added = editor
                .add(b"AAA", Method::XorLzss, b"the newcomer, the newcomer")
                .unwrap();
            let plan = editor.plan().unwrap();
            assert!(plan.rekeys.len() >= 3, "{:?}", plan.rekeys);
            let new = saved(&plan, &old);
            let relib = Library::open_with(&new, options).unwrap();
            assert_eq!(relib.problems().count(), 0);
            let mut want = rsli_decoded(&old, honour);
            want.push((b"AAA".to_vec(), b"the newcomer, the newcomer".to_vec()));
            assert_eq!(rsli_decoded(&new, honour), want);
            for i in 0..lib.len() {
                let (before, after) = (lib.entry(i).unwrap(), relib.entry(i).unwrap());
                let method = before.method().unwrap();
                if method.uses_xor() {
                    assert_ne!(before.sort_index, after.sort_index, "{i}: its key moved");
                    assert_ne!(
                        lib.packed(i).unwrap(),
                        relib.packed(i).unwrap(),
                        "{i}: re-keyed"
                    );
                } else {
                    assert_eq!(
                        lib.packed(i).unwrap(),
                        relib.packed(i).unwrap(),
                        "{i}: unkeyed bytes kept"
                    );
                }
            }
            assert_eq!(relib.find(b"aaa"), Some(added));
            if honour {
                assert_eq!(
                    &new[new.len() - 6..],
                    &old[old.len() - 6..],
                    "the trailer stays last"
                );
            }
            // The same entries through the builder: the editor's bytes are the canonical
            // ones (the builder puts the new entry last too).
            let mut builder = Builder::new();
            builder
                .seed(0xBEEF_0042)
                .presorted(presorted)
                .media_trailer(trailer);
            for (name, data) in &want {
                let method = relib
                    .entry(relib.find(name).unwrap())
                    .unwrap()
                    .method()
                    .unwrap();
                builder.add(name, method, data).unwrap();
            }
            assert_eq!(
                builder.build().unwrap(),
                new,
                "presorted {presorted}, trailer {trailer:?}"
            );
        }
    }
}

#[test]
fn a_re_keyed_payload_that_shares_bytes_gets_a_copy_of_its_own() {
    let (old, shared) = hostile::shared_bytes_library();
    let lib = Library::open(&old).unwrap();
    let before = rsli_decoded(&old, false);
    assert_ne!(
        before[1].1, before[2].1,
        "one ciphertext, two keys, two texts"
    );
    assert_eq!(before[4].1, &old[shared.clone()], "E stores the ciphertext");
    let untouched = rsli::Editor::open(&lib).unwrap();
    assert_eq!(saved(&untouched.plan().unwrap(), &old), old);

    // Adding "AA.TXT" or removing "A.TXT" moves the keys of B and C; renaming E to a name
    // that sorts where it did moves none.
    type Edit = fn(&mut rsli::Editor);
    let cases: [(&str, Edit, bool); 3] = [
        (
            "add",
            |e| _ = e.add(b"AA.TXT", Method::Stored, b"new").unwrap(),
            true,
        ),
        ("remove", |e| e.remove(0).unwrap(), true),
        ("rename", |e| e.rename(4, b"Z.TXT").unwrap(), false),
    ];
    for (what, edit, re_keyed) in cases {
        let mut editor = rsli::Editor::open(&lib).unwrap();
        edit(&mut editor);
        // Before, a save that re-keyed was refused: "entry 1: its packed bytes are shared
        // with entry 2, so they cannot be re-keyed for its new sort_index".
        let new = saved(&editor.plan().expect(what), &old);
        let relib = Library::open(&new).unwrap();
        assert_eq!(relib.problems().count(), 0, "{what}");
        let mut want = before.clone();
        match what {
            "add" => want.push((b"AA.TXT".to_vec(), b"new".to_vec())),
            "remove" => _ = want.remove(0),
            _ => want[4].0 = b"Z.TXT".to_vec(),
        }
        assert_eq!(
            rsli_decoded(&new, false),
            want,
            "{what}: every entry decodes as before"
        );
        let name = if what == "rename" {
            &b"z.txt"[..]
        } else {
            b"e.txt"
        };
        let (b, c, e) = (relib.find(b"b.txt"), relib.find(b"c.txt"), relib.find(name));
        let offset = |i: Option<usize>| relib.entry(i.unwrap()).unwrap().data_offset;
        assert_eq!(
            relib.packed(e.unwrap()).unwrap(),
            &old[shared.clone()],
            "{what}: the stored entry keeps the bytes as they were"
        );
        // Re-keyed, B and C each get a copy of their own; otherwise all three still share.
        assert_eq!(offset(b) != offset(e), re_keyed, "{what}: B");
        assert_eq!(offset(c) != offset(e), re_keyed, "{what}: C");
        assert!(!re_keyed || offset(b) != offset(c), "{what}: B and C apart");
    }
}

/// `set_source_key`: a source whose bytes of an entry are encrypted with another key
/// than the table's (as `ngi pack` puts one back together) saves as the library itself.
#[test]
fn a_source_key_is_what_the_save_re_keys_from() {
    let old = keyed_library(false, None);
    let lib = Library::open(&old).unwrap();
    let xor = lib.find(b"xor.txt").unwrap();
    let e = *lib.entry(xor).unwrap();
    let at = e.data_offset as usize;
    let bytes = at..at + rsli::xor_len(&e) as usize;
    assert_ne!(e.sort_index, 77);
    let mut source = old.clone();
    XorStream::new(e.sort_index).apply(&mut source[bytes.clone()]);
    XorStream::new(77).apply(&mut source[bytes]);
    let mut editor = rsli::Editor::open(&lib).unwrap();
    assert_ne!(saved(&editor.plan().unwrap(), &source), old);
    editor.set_source_key(xor, 77).unwrap();
    assert_eq!(saved(&editor.plan().unwrap(), &source), old);
    let count = lib.len() as u64;
    assert_eq!(
        editor.set_source_key(lib.len(), 1),
        Err(rsli::BuildError::NoSuchEntry {
            index: count,
            count
        })
    );
}

/// An editor built from a catalog (header and directory, no payload) saves an edit as
/// the editor of the whole file in memory does, for both formats and for a library
/// whose trailer is honoured or not; a catalog of the other format or of raw mode is
/// refused.
#[test]
fn editors_from_a_catalog_save_what_editors_of_the_whole_file_save() {
    use ngi_core::archive::{Catalog, Error};
    let nres_bytes = odd_nres();
    let archive = Archive::open(&nres_bytes).unwrap();
    let catalog = Catalog::open(&nres_bytes, OpenOptions::DEFAULT).unwrap();
    let edit = |editor: &mut nres::Editor| {
        editor.remove(0).unwrap();
        let new = NewEntry {
            name: b"added.dat",
            ..NewEntry::default()
        };
        editor.add(new, b"added bytes".to_vec()).unwrap();
        saved(&editor.plan().unwrap(), &nres_bytes)
    };
    let from_catalog = edit(&mut nres::Editor::from_catalog(&catalog).unwrap());
    assert_eq!(
        from_catalog,
        edit(&mut nres::Editor::open(&archive).unwrap())
    );
    assert_ne!(from_catalog, nres_bytes);

    let mut saves = 0;
    for trailer in [None, Some(0), Some(24)] {
        let bytes = samples::every_method_library(0x1234, false, trailer);
        for honour in [false, true] {
            let options = OpenOptions::DEFAULT.with_media_trailer(honour);
            let lib = Library::open_with(&bytes, options).unwrap();
            let catalog = Catalog::open(&bytes, options).unwrap();
            // Offsets built for a non-zero overlay read without it lie outside the
            // payloads: both editors refuse the edit alike.
            let edit = |editor: &mut rsli::Editor| {
                editor.add(b"ADDED", Method::XorLzss, b"added, added")?;
                editor.rename(0, b"AAA")?;
                Ok::<_, rsli::BuildError>(saved(&editor.plan()?, &bytes))
            };
            let from_catalog = edit(&mut rsli::Editor::from_catalog(&catalog).unwrap());
            let whole = edit(&mut rsli::Editor::open(&lib).unwrap());
            assert_eq!(
                from_catalog, whole,
                "trailer {trailer:?}, honoured {honour}"
            );
            if let (Ok(new), Some(_)) = (&whole, trailer) {
                // Honoured or not, past the last payload's last byte: kept last.
                assert_eq!(
                    new[new.len() - 6..],
                    bytes[bytes.len() - 6..],
                    "trailer {trailer:?}, honoured {honour}: the trailer stays last"
                );
            }
            if let Err(e) = &whole {
                // The refusal says how the user most likely got there.
                assert!(
                    matches!(e, rsli::BuildError::OutsideChanged { .. })
                        && e.to_string().contains("AO media trailer")
                        && e.to_string().contains("open it the other way"),
                    "trailer {trailer:?}, honoured {honour}: {e}"
                );
            }
            saves += usize::from(whole.is_ok());
        }
    }
    assert_eq!(saves, 5);

    let rsli_catalog = Catalog::open(&samples::rsli(), OpenOptions::DEFAULT).unwrap();
    assert_eq!(
        nres::Editor::from_catalog(&rsli_catalog).unwrap_err(),
        Error::Nres(nres::NresError::BadMagic {
            found: *b"NL\0\x01"
        })
    );
    assert_eq!(
        rsli::Editor::from_catalog(&catalog).unwrap_err(),
        Error::Rsli(rsli::RsliError::BadMagic { found: *b"NR" })
    );
    let raw = Catalog::open(b"any bytes", OpenOptions::DEFAULT.with_raw(true)).unwrap();
    for e in [
        nres::Editor::from_catalog(&raw).map(drop),
        rsli::Editor::from_catalog(&raw).map(drop),
    ] {
        assert_eq!(e, Err(Error::Nres(nres::NresError::RawMode)));
    }
}

/// An editor started empty writes, for the same entries, the library the builder
/// writes (names added out of order, so that the XOR keys are permutation slots).
#[test]
fn rsli_editor_from_nothing_writes_what_the_builder_writes() {
    let mut editor = rsli::Editor::default();
    let mut builder = Builder::new();
    for (i, method) in Method::ALL.into_iter().enumerate() {
        let name = format!("E{}", 9 - i);
        let data = format!("entry {i}, packed with {method}, ").repeat(i + 1);
        editor
            .add(name.as_bytes(), method, data.as_bytes())
            .unwrap();
        builder
            .add(name.as_bytes(), method, data.as_bytes())
            .unwrap();
    }
    let built = builder.build().unwrap();
    assert_eq!(editor.plan().unwrap().to_vec(&[]).unwrap(), built);
    assert_eq!(
        rsli::Editor::new().plan().unwrap().to_vec(&[]).unwrap(),
        Builder::new().build().unwrap()
    );
}

/// An entry whose flags name no method has none of its own to be packed with: `replace`
/// refuses it (it was packed stored, its flags rewritten, with no word), `replace_with`
/// chooses one.
#[test]
fn rsli_replace_refuses_an_entry_with_no_method() {
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"old bytes").unwrap();
    let mut old = builder.build().unwrap();
    hostile::patch_rsli(&mut old, |_, e| e.flags = 0x1E0);
    let lib = Library::open(&old).unwrap();
    let mut editor = rsli::Editor::open(&lib).unwrap();
    assert_eq!(
        editor.replace(0, b"new bytes"),
        Err(rsli::BuildError::UnsupportedMethod {
            entry: 0,
            flags: 0x1E0
        })
    );
    assert_eq!(editor.entry(0).unwrap().flags, 0x1E0);
    editor
        .replace_with(0, Method::Stored, b"new bytes")
        .unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let lib = Library::open(&new).unwrap();
    assert_eq!(
        lib.unpack_to_vec(0, &Limits::DEFAULT).unwrap(),
        b"new bytes"
    );
}

#[test]
fn rsli_replace_remove_rename_and_canonicalize() {
    let old = keyed_library(false, None);
    let lib = Library::open(&old).unwrap();
    let before = rsli_decoded(&old, false);

    let mut editor = rsli::Editor::open(&lib).unwrap();
    let xor = editor.find(b"xor.txt").unwrap();
    editor
        .replace(xor, b"replaced, and XORed with its key")
        .unwrap();
    let lzss = editor.find(b"LZSS.TXT").unwrap();
    editor
        .replace_with(lzss, Method::Lzhuf, b"now LZHUF")
        .unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let got = rsli_decoded(&new, false);
    for (i, (b, g)) in before.iter().zip(&got).enumerate() {
        match i {
            _ if i == xor => assert_eq!(g.1, b"replaced, and XORed with its key"),
            _ if i == lzss => assert_eq!(g.1, b"now LZHUF"),
            _ => assert_eq!(b, g),
        }
    }
    assert_eq!(
        Library::open(&new).unwrap().entry(lzss).unwrap().method(),
        Ok(Method::Lzhuf)
    );

    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.remove(0).unwrap();
    editor.rename(0, b"ZZZ.TXT").unwrap();
    assert_eq!(
        editor.rename(1, b"lower"),
        Err(rsli::BuildError::NameNotUpperCase { entry: 1 })
    );
    assert_eq!(
        editor.rename(1, b"THIRTEEN.CHAR"),
        Err(rsli::BuildError::NameTooLong { entry: 1, len: 13 })
    );
    let new = saved(&editor.plan().unwrap(), &old);
    let mut want = before[1..].to_vec();
    want[0].0 = b"ZZZ.TXT".to_vec();
    assert_eq!(rsli_decoded(&new, false), want);

    // A canonical rebuild of an untouched library built canonically is itself.
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.canonicalize().unwrap();
    assert_eq!(saved(&editor.plan().unwrap(), &old), old);
}

/// An empty RsLi entry whose `data_offset` points into the header reads as empty, and
/// a canonical rebuild lays it out among the others, as the builder does: it was refused
/// as a payload outside the region (a library no check finds fault with).
#[test]
fn rsli_canonicalize_lays_out_an_empty_entry_pointing_anywhere() {
    let mut builder = rsli::Builder::new();
    builder.add(b"A.TXT", Method::Stored, b"first").unwrap();
    builder.add(b"EMPTY", Method::Stored, b"").unwrap();
    builder
        .add(b"B.TXT", Method::Lzss, b"second second")
        .unwrap();
    let canonical = builder.build().unwrap();
    let mut odd = canonical.clone();
    ngi_tests::hostile::patch_rsli(&mut odd, |i, e| {
        if i == 1 {
            e.data_offset = 0;
        }
    });
    assert_ne!(odd, canonical);
    let lib = Library::open(&odd).unwrap();
    assert_eq!(lib.problems().count(), 0);
    assert_eq!(lib.unpack_to_vec(1, &Limits::DEFAULT).unwrap(), b"");
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.canonicalize().unwrap();
    assert_eq!(saved(&editor.plan().unwrap(), &odd), canonical);
    // At the very end of a file with a trailer (outside the payload region, which ends
    // before the trailer) it reads (nothing) too, and is laid out the same.
    builder.media_trailer(Some(0));
    let trailed = builder.build().unwrap();
    let mut at_end = trailed.clone();
    let len = at_end.len() as u32;
    ngi_tests::hostile::patch_rsli(&mut at_end, |i, e| {
        if i == 1 {
            e.data_offset = len;
        }
    });
    let lib = Library::open(&at_end).unwrap();
    assert_eq!(lib.unpack_to_vec(1, &Limits::DEFAULT).unwrap(), b"");
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.canonicalize().unwrap();
    assert_eq!(saved(&editor.plan().unwrap(), &at_end), trailed);
    // One past the end of the file does not read: laid out, it would (the fuzz target's
    // model found it), so it stays refused.
    let mut past = canonical.clone();
    ngi_tests::hostile::patch_rsli(&mut past, |i, e| {
        if i == 1 {
            e.data_offset = len + 1;
        }
    });
    canonicalize_refused(&past, 1, u64::from(len) + 1);
    // One with bytes there is still refused: they would be lost.
    ngi_tests::hostile::patch_rsli(&mut odd, |i, e| {
        if i == 0 {
            e.data_offset = 0;
        }
    });
    let lib = Library::open(&odd).unwrap();
    let mut editor = rsli::Editor::open(&lib).unwrap();
    assert_eq!(
        editor.canonicalize(),
        Err(rsli::BuildError::PayloadOutside {
            entry: 0,
            offset: 0
        })
    );
}

/// A canonical rebuild sizes each payload as the builder does. A stored or XOR entry's
/// `packed_size` may claim more bytes than a read takes (here its neighbour's, which were
/// written twice) or fewer, and a Deflate entry may declare one byte past the end of the
/// file (SPEC 2.7), which overlapped the next payload once the entry was moved before it.
#[test]
fn rsli_canonicalize_sizes_payloads_as_the_builder_does() {
    let text = b"deflated, deflated, deflated and deflated again".repeat(4);
    let build = |order: &[usize]| {
        let mut builder = Builder::new();
        for &i in order {
            match i {
                0 => builder.add(b"A.TXT", Method::Stored, b"first"),
                1 => builder.add(b"X.TXT", Method::Xor, b"secret text"),
                2 => builder.add(b"B.TXT", Method::Stored, b"second"),
                _ => builder.add(b"D.TXT", Method::Deflate, &text),
            }
            .unwrap();
        }
        builder.build().unwrap()
    };
    let canonical = build(&[0, 1, 2, 3]);
    type Patch = fn(&mut rsli::Entry);
    let cases: [(&str, usize, Patch); 4] = [
        ("stored, 3 bytes too many", 0, |e| e.packed_size += 3),
        ("stored, none", 0, |e| e.packed_size = 0),
        ("XOR, all the file", 1, |e| e.packed_size = u32::MAX),
        ("Deflate, a byte past the end", 3, |e| e.packed_size += 1),
    ];
    for (what, entry, patch) in cases {
        let mut odd = canonical.clone();
        hostile::patch_rsli(&mut odd, |i, e| {
            if i == entry {
                patch(e)
            }
        });
        assert_ne!(odd, canonical, "{what}");
        let lib = Library::open(&odd).unwrap();
        let mut editor = rsli::Editor::open(&lib).unwrap();
        editor.canonicalize().unwrap();
        assert_eq!(saved(&editor.plan().unwrap(), &odd), canonical, "{what}");
        if entry == 3 {
            let mut editor = rsli::Editor::open(&lib).unwrap();
            editor.move_entry(3, 0).unwrap();
            editor.canonicalize().unwrap();
            let moved = saved(&editor.plan().unwrap(), &odd);
            assert_eq!(moved, build(&[3, 0, 1, 2]), "{what}, moved first");
        }
    }
}

/// Opens the library `file`, whose entry `entry` no reader takes, and checks that a
/// canonical rebuild refuses it as lying outside the payloads at `offset`: the editor,
/// unchanged by the refusal.
fn canonicalize_refused(file: &[u8], entry: u32, offset: u64) -> rsli::Editor {
    let lib = Library::open(file).unwrap();
    assert!(lib.unpack_to_vec(entry as usize, &Limits::DEFAULT).is_err());
    let mut editor = rsli::Editor::open(&lib).unwrap();
    assert_eq!(
        editor.canonicalize(),
        Err(rsli::BuildError::PayloadOutside { entry, offset })
    );
    editor
}

#[test]
fn an_empty_entry_in_padding_does_not_move_later_payloads() {
    // a at 16 (10 bytes + 6 padding), b at 32, z: empty, at 26 inside a's padding.
    let mut writer = Writer::new();
    writer
        .add(
            NewEntry {
                name: b"a",
                ..NewEntry::default()
            },
            b"0123456789",
        )
        .unwrap();
    writer
        .add(
            NewEntry {
                name: b"b",
                ..NewEntry::default()
            },
            b"bbbb",
        )
        .unwrap();
    writer
        .add(
            NewEntry {
                name: b"z",
                ..NewEntry::default()
            },
            b"",
        )
        .unwrap();
    let mut old = writer.finish();
    let z = old.len() - 64;
    old[z + 56..z + 60].copy_from_slice(&26u32.to_le_bytes());
    let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
    editor.replace(0, b"9876543210".to_vec()).unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let a = Archive::open(&new).unwrap();
    assert_eq!(a.entry(1).unwrap().data_offset, 32, "b stays where it was");
    assert_eq!(a.payload(1).unwrap(), b"bbbb");
    assert_eq!(a.payload(0).unwrap(), b"9876543210");
    assert!(a.problems().next().is_none());
    // Removing a: z, in a's cut bytes, lands where they were, and stays valid.
    let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
    editor.remove(0).unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let a = Archive::open(&new).unwrap();
    assert_eq!(
        nres_payloads(&new),
        [(b"b".to_vec(), b"bbbb".to_vec()), (b"z".to_vec(), vec![])]
    );
    assert!(a.problems().next().is_none());
}

/// A plan written from another file than the one its editor read, or from that file
/// saved again by someone else since, is refused before a byte is written: the copies'
/// offsets were read from the old header and directory (or table), and over other bytes
/// they made a well-formed archive of the wrong payloads. A source that holds the file
/// and more after it (payloads joined after the archive) is what it may be.
#[test]
fn a_plan_is_refused_over_a_source_that_is_not_its_file() {
    // NRes: the editor opened the file; another tool replaced entry 0 since.
    let old = samples::nres();
    let archive = Archive::open(&old).unwrap();
    let mut other = nres::Editor::open(&archive).unwrap();
    other.replace(0, vec![b'#'; 300]).unwrap();
    let newer = saved(&other.plan().unwrap(), &old);
    let mut mine = nres::Editor::open(&archive).unwrap();
    mine.rename(1, b"renamed.tex").unwrap();
    let plan = mine.plan().unwrap();
    // RsLi: the table differs, as the newer file's sizes and offsets do.
    let old_lib = samples::rsli();
    let lib = Library::open(&old_lib).unwrap();
    let mut other = rsli::Editor::open(&lib).unwrap();
    other.add(b"NEW.TXT", Method::Stored, b"new").unwrap();
    let newer_lib = saved(&other.plan().unwrap(), &old_lib);
    let mut mine_lib = rsli::Editor::open(&lib).unwrap();
    mine_lib.remove(0).unwrap();
    let lib_plan = mine_lib.plan().unwrap();
    for (plan, old, newer) in [(&plan, &old, &newer), (&lib_plan, &old_lib, &newer_lib)] {
        assert!(!plan.source_holds.is_empty());
        let first_difference = old.iter().zip(newer).position(|(a, b)| a != b);
        let mut cases: Vec<(&str, Vec<u8>)> = vec![
            ("saved again since", newer.clone()),
            ("another file of the same length", vec![0xAA; old.len()]),
            ("empty", Vec::new()),
        ];
        // An NRes directory ends the file, so a file cut short lacks its last byte. An
        // RsLi library without a trailer is checked by its head alone: cut short, it is
        // refused when a copy reaches its end.
        if plan
            .source_holds
            .iter()
            .any(|h| h.offset + h.bytes.len() as u64 == old.len() as u64)
        {
            cases.push(("cut short", old[..old.len() - 1].to_vec()));
        } else {
            let short = &old[..old.len() - 1];
            assert_eq!(plan.check_source(short), Ok(()));
            assert!(matches!(
                plan.to_vec(short),
                Err(ToVecError::SourceShort { .. })
            ));
        }
        for (what, source) in cases {
            let at = plan.check_source(&source).expect_err(what).offset;
            let want = match what {
                "saved again since" => first_difference.unwrap() as u64,
                "another file of the same length" | "empty" => 0,
                _ => old.len() as u64 - 1,
            };
            assert_eq!(at, want, "{what}");
            assert_eq!(
                plan.to_vec(&source),
                Err(ToVecError::SourceMismatch(SourceMismatch { offset: at })),
                "{what}"
            );
            let mut out = Vec::new();
            let e = write_plan(plan, &source, &mut out).expect_err(what);
            assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{what}");
            let inner = e.get_ref().and_then(|e| e.downcast_ref::<SourceMismatch>());
            assert_eq!(inner, Some(&SourceMismatch { offset: at }), "{what}");
            assert!(e.to_string().contains(&format!("offset {at}")), "{e}");
            assert!(out.is_empty(), "{what}: nothing written");
        }
        // Its own file, and its own file with bytes joined after it, write.
        let own = saved(plan, old);
        let mut longer = old.clone();
        longer.extend_from_slice(b"payloads joined after the archive");
        assert_eq!(saved(plan, &longer), own);
    }
    // The NRes header and directory are what is checked, wherever the directory lies.
    let mut moved = nres::Editor::open(&archive).unwrap();
    moved.canonicalize().unwrap();
    let plan = moved.plan().unwrap();
    let directory_offset = archive.directory_offset() as usize;
    let mut touched = old.clone();
    touched[directory_offset + 1] ^= 1;
    assert_eq!(
        plan.check_source(&touched),
        Err(SourceMismatch {
            offset: directory_offset as u64 + 1
        })
    );
    // An editor of nothing copies nothing, and checks nothing.
    let mut fresh = nres::Editor::new();
    fresh
        .add(
            NewEntry {
                name: b"a",
                ..NewEntry::default()
            },
            b"a".to_vec(),
        )
        .unwrap();
    assert!(fresh.plan().unwrap().source_holds.is_empty());
    let mut fresh = rsli::Editor::new();
    fresh.add(b"A", Method::Stored, b"a").unwrap();
    assert!(fresh.plan().unwrap().source_holds.is_empty());
}

/// An RsLi trailer the editor keeps apart is part of what the source must hold: a file
/// whose trailer changed (its offsets read with another overlay) is not the same file.
#[test]
fn an_rsli_plan_checks_the_trailer_it_keeps() {
    let mut builder = rsli::Builder::new();
    builder.add(b"A.TXT", Method::Stored, b"first").unwrap();
    builder.media_trailer(Some(0));
    let old = builder.build().unwrap();
    let lib = Library::open(&old).unwrap();
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.rename(0, b"B.TXT").unwrap();
    let plan = editor.plan().unwrap();
    let trailer_at = old.len() as u64 - 6;
    assert!(plan.source_holds.iter().any(|h| h.offset == trailer_at));
    let mut other = old.clone();
    *other.last_mut().unwrap() = 1;
    assert_eq!(
        plan.check_source(&other),
        Err(SourceMismatch {
            offset: old.len() as u64 - 1
        })
    );
    saved(&plan, &old);
}

/// SPEC 2.7's retail quirk: a Deflate entry whose `packed_size` runs one byte past the end
/// of the file.
fn overrun_library() -> (Vec<u8>, Vec<u8>) {
    let text =
        b"INTERF8: a Deflate stream that decodes without its last declared byte. ".repeat(20);
    let stream = miniz_oxide::deflate::compress_to_vec(&text, 6);
    let mut file = vec![0u8; 32];
    file[..4].copy_from_slice(b"NL\x00\x01");
    file[4] = 2;
    let mut a = rsli::Entry::default();
    a.name[..5].copy_from_slice(b"A.TXT");
    (a.unpacked_size, a.packed_size, a.data_offset) = (5, 5, 96);
    let mut d = rsli::Entry::default();
    d.name[..11].copy_from_slice(b"INTERF8.TEX");
    d.flags = 0x100;
    (d.unpacked_size, d.packed_size, d.data_offset) =
        (text.len() as u32, stream.len() as u32 + 1, 101);
    (a.file_sort_index, d.file_sort_index) = (0, 1);
    file.extend_from_slice(&a.to_bytes());
    file.extend_from_slice(&d.to_bytes());
    file.extend_from_slice(b"hello");
    file.extend_from_slice(&stream);
    (file, text)
}

#[test]
fn the_deflate_entry_one_byte_past_the_end_survives_edits() {
    let (old, text) = overrun_library();
    let lib = Library::open(&old).unwrap();
    assert_eq!(lib.unpack_to_vec(1, &Limits::DEFAULT).unwrap(), text);
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.add(b"NEW.TXT", Method::Lzss, b"new entry").unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let want = vec![
        (b"A.TXT".to_vec(), b"hello".to_vec()),
        (b"INTERF8.TEX".to_vec(), text.clone()),
        (b"NEW.TXT".to_vec(), b"new entry".to_vec()),
    ];
    assert_eq!(rsli_decoded(&new, false), want);
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.remove(0).unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    assert_eq!(rsli_decoded(&new, false), want[1..2]);
}

/// The RsLi editor answers an index past the end the same way, before the name.
#[test]
fn an_rsli_index_past_the_end_is_no_such_entry() {
    let old = samples::rsli();
    let lib = Library::open(&old).unwrap();
    let mut editor = rsli::Editor::open(&lib).unwrap();
    let count = lib.len() as u64;
    for name in [&b""[..], b"OK.TXT"] {
        assert_eq!(
            editor.rename(usize::MAX, name),
            Err(rsli::BuildError::NoSuchEntry {
                index: usize::MAX as u64,
                count
            })
        );
    }
}

/// What an editor is given that cannot be edited is refused by an error that says so (it
/// was `BadMagic` with the magic "NRes" for a raw-mode archive, and "file of N bytes is
/// shorter than the header" for a directory or table of the wrong length), and a caller's
/// mistake converts to `InvalidInput`, the same in both formats.
#[test]
fn editors_refuse_what_they_cannot_edit_by_name() {
    use ngi_core::archive::{Catalog, Error};
    use std::io::ErrorKind;

    let nres_bytes = samples::nres();
    let raw = Archive::open_raw(&nres_bytes).unwrap();
    let e = nres::Editor::open(&raw).unwrap_err();
    assert_eq!(e, nres::NresError::RawMode);
    assert!(e.to_string().contains("raw mode"), "{e}");
    let archive = Archive::open(&nres_bytes).unwrap();
    let header = archive.header().unwrap();
    let directory = &nres_bytes[archive.directory_offset() as usize..];
    for cut in [directory.len() - 1, directory.len() + 64] {
        let given = if cut < directory.len() {
            directory[..cut].to_vec()
        } else {
            [directory, &[0u8; 64][..]].concat()
        };
        let e = nres::Editor::from_directory(&header, &given).unwrap_err();
        assert_eq!(
            e,
            nres::NresError::DirectoryLength {
                expected: directory.len() as u64,
                got: given.len() as u64
            }
        );
        assert_eq!(std::io::Error::from(e).kind(), ErrorKind::InvalidInput);
    }

    let rsli_bytes = samples::rsli();
    let lib = Library::open(&rsli_bytes).unwrap();
    let header = *lib.header();
    let table = &rsli_bytes[32..header.table_end() as usize];
    let len = rsli_bytes.len() as u64;
    let tail = &rsli_bytes[rsli_bytes.len() - 6..];
    let e = rsli::Editor::from_table(&header, &table[1..], len, tail, None).unwrap_err();
    assert_eq!(
        e,
        rsli::RsliError::TableLength {
            expected: table.len() as u64,
            got: table.len() as u64 - 1
        }
    );
    let e = rsli::Editor::from_entries(&header, Vec::new(), len, tail, None).unwrap_err();
    assert_eq!(
        e,
        rsli::RsliError::EntryCount {
            expected: header.entry_count,
            got: 0
        }
    );
    assert_eq!(std::io::Error::from(e).kind(), ErrorKind::InvalidInput);
    // An overlay is the trailer's value: another, or one without a trailer, would read
    // the offsets with one value and write the trailer with another.
    let mut trailed = rsli::Builder::new();
    trailed.media_trailer(Some(32));
    trailed.add(b"A.TXT", Method::Stored, b"text").unwrap();
    let trailed = trailed.build().unwrap();
    let trailed_header = rsli::Header::parse(&trailed[..32]).unwrap();
    let trailed_len = trailed.len() as u64;
    let trailed_table = &trailed[32..64];
    let trailed_tail = &trailed[trailed.len() - 6..];
    for (overlay, tail, trailer) in [
        (16, trailed_tail, Some(32)),
        (32, &b""[..], None),
        (32, &trailed[..6], None),
    ] {
        let e = rsli::Editor::from_table(
            &trailed_header,
            trailed_table,
            trailed_len,
            tail,
            Some(overlay),
        )
        .unwrap_err();
        assert_eq!(e, rsli::RsliError::OverlayNotTrailer { overlay, trailer });
        assert_eq!(std::io::Error::from(e).kind(), ErrorKind::InvalidInput);
    }
    let editor = rsli::Editor::from_table(
        &trailed_header,
        trailed_table,
        trailed_len,
        trailed_tail,
        Some(32),
    )
    .unwrap();
    assert_eq!(saved(&editor.plan().unwrap(), &trailed), trailed);
    // A file shorter than its table is still `Truncated`, with the file's length.
    let e = rsli::Editor::from_table(&header, table, 40, tail, None).unwrap_err();
    assert_eq!(
        e,
        rsli::RsliError::Truncated {
            len: 40,
            needed: header.table_end()
        }
    );
    // The raw bytes are the header: fields that say otherwise change nothing, and bytes
    // that are no header are refused as such.
    let mut lying = header;
    lying.seed ^= 0x5555;
    lying.entry_count = 1;
    let editor = rsli::Editor::from_table(&lying, table, len, tail, None).unwrap();
    assert_eq!(saved(&editor.plan().unwrap(), &rsli_bytes), rsli_bytes);
    lying.raw = [0; 32];
    let e = rsli::Editor::from_table(&lying, table, len, tail, None).unwrap_err();
    assert_eq!(e, rsli::RsliError::BadMagic { found: [0, 0] });

    // An index past the last entry is `NoSuchEntry` at the top level, from either format
    // and from the catalog alike.
    let from_nres = Error::from(archive.payload(99).unwrap_err());
    let from_rsli = Error::from(lib.packed(99).unwrap_err());
    let catalog = Catalog::open(&rsli_bytes, OpenOptions::DEFAULT).unwrap();
    let from_catalog = catalog.get(99).unwrap_err();
    for e in [from_nres, from_rsli, from_catalog] {
        assert_eq!(e, Error::NoSuchEntry { index: 99 });
        assert_eq!(std::io::Error::from(e).kind(), ErrorKind::InvalidInput);
    }
}

/// A tail longer than 6 bytes is read by its last 6, where the trailer is: taking its
/// first 6 wrote payload bytes where the trailer was, and every entry read wrongly.
#[test]
fn rsli_editor_reads_a_long_tail_by_its_last_six_bytes() {
    let mut builder = Builder::new();
    builder.media_trailer(Some(16));
    builder.add(b"A", Method::Stored, b"a payload").unwrap();
    let with_trailer = builder.build().unwrap();
    let options = OpenOptions::DEFAULT.with_media_trailer(true);
    let lib = Library::open_with(&with_trailer, options).unwrap();
    let header = *lib.header();
    let table = &with_trailer[32..header.table_end() as usize];
    let len = with_trailer.len() as u64;
    for tail in [&with_trailer[len as usize - 16..], &with_trailer[..]] {
        let mut editor =
            rsli::Editor::from_table(&header, table, len, tail, lib.overlay()).unwrap();
        editor.add(b"B", Method::Stored, b"new").unwrap();
        let out = saved(&editor.plan().unwrap(), &with_trailer);
        let edited = Library::open_with(&out, options).unwrap();
        assert_eq!(edited.trailer(), Some(16));
        assert_eq!(
            edited.unpack_to_vec(0, &Limits::DEFAULT).unwrap(),
            b"a payload"
        );
        assert_eq!(edited.unpack_to_vec(1, &Limits::DEFAULT).unwrap(), b"new");
    }
}

/// Entry `index`'s bytes, or `None` when it does not decode.
fn rsli_entry(bytes: &[u8], index: usize) -> Option<Vec<u8>> {
    let lib = Library::open(bytes).expect("opens");
    lib.unpack_to_vec(index, &Limits::DEFAULT).ok()
}

/// An edit made through the editor, for a case of the test below.
type Edit = fn(&mut rsli::Editor);

/// (what, entry pointed, where, how many bytes, edit, the refusal as (entry after the
/// edit, offset)).
type OutsideCase = (&'static str, usize, u64, u32, Edit, Option<(u32, u64)>);

/// The cases of the test below, for a library of `len` bytes.
fn outside_cases(len: u64) -> [OutsideCase; 15] {
    let rm_a: Edit = |e| e.remove(0).unwrap();
    let rename_a: Edit = |e| e.rename(0, b"Q.TXT").unwrap();
    let rename_a_first: Edit = |e| e.rename(0, b"AA.TXT").unwrap();
    let rename_a_last: Edit = |e| e.rename(0, b"Z.TXT").unwrap();
    let rename_c: Edit = |e| e.rename(2, b"Z.TXT").unwrap();
    let add_small: Edit = |e| _ = e.add(b"D.TXT", Method::Stored, b"D").unwrap();
    let add_large: Edit = |e| _ = e.add(b"D.TXT", Method::Stored, &[7; 100]).unwrap();
    [
        ("B in reserved header bytes, rm A", 1, 6, 8, rm_a, None),
        ("B over the entry count, rm A", 1, 4, 8, rm_a, Some((0, 4))),
        (
            "B in A's record, rename A",
            1,
            32,
            8,
            rename_a,
            Some((1, 32)),
        ),
        ("B in A's record, rename C", 1, 32, 8, rename_c, None),
        (
            "XOR C in the header, key kept",
            2,
            6,
            8,
            rename_a_first,
            None,
        ),
        (
            "XOR C in the header, key moved",
            2,
            6,
            8,
            rename_a_last,
            Some((2, 6)),
        ),
        (
            "B past the end, still past it",
            1,
            len + 64,
            8,
            add_small,
            None,
        ),
        (
            "B past the end, then inside",
            1,
            len + 64,
            8,
            add_large,
            Some((1, len + 64)),
        ),
        // An empty entry reads (nothing) wherever both files hold its offset, though it
        // lies past the table of the new one; one past the end that a file grown to hold
        // its offset would open is refused.
        ("empty C in the old table only, rm A", 2, 100, 0, rm_a, None),
        (
            "empty C past the end, then inside",
            2,
            len + 20,
            0,
            add_large,
            Some((2, len + 20)),
        ),
        // A stored byte just past the end cannot be read before nor after (the one byte
        // of slack is Deflate's alone).
        ("B's one byte past the end, rm A", 1, len, 1, rm_a, None),
        // A stored entry starting inside the payloads whose read runs past the end: no
        // reader takes it, and moved with the bytes it has it would read those laid after
        // them (an `add` made it readable, with the new entry's bytes as its own).
        (
            "B running past the end, add",
            1,
            len - 4,
            8,
            add_small,
            Some((1, len - 4)),
        ),
        // Its bytes there are all a resumed download would keep of it: an edit that may
        // move them is refused (`rm A` moved them without a word), however it lays out the
        // payloads (the check does not follow them).
        (
            "B running past the end, rm A",
            1,
            len - 4,
            8,
            rm_a,
            Some((0, len - 4)),
        ),
        (
            "B running past the end, rename C",
            1,
            len - 4,
            8,
            rename_c,
            Some((1, len - 4)),
        ),
        // The same from the first byte after the table (the header and three records).
        (
            "A running past the end from the first payload byte, rename C",
            0,
            32 + 3 * 32,
            len as u32,
            rename_c,
            Some((0, 32 + 3 * 32)),
        ),
    ]
}

/// An RsLi entry whose bytes are no payload's (in the header or the table, or past the
/// end) is left where it is by the editor; an edit that would change what it reads
/// there (the bytes, or its XOR key) is refused and names it, one that would not goes
/// through and the entry reads as before. Before, `rename` of entry 0 changed what an
/// entry pointing into its record read, and the save passed `verify`.
#[test]
fn an_rsli_entry_outside_the_payloads_reads_as_before_or_the_edit_is_refused() {
    let mut builder = Builder::new();
    builder.add(b"A.TXT", Method::Stored, b"A's bytes").unwrap();
    builder.add(b"B.TXT", Method::Stored, b"B's bytes").unwrap();
    builder.add(b"C.TXT", Method::Xor, b"C's bytes").unwrap();
    let base = builder.build().unwrap();
    let len = base.len() as u32;
    // Entry `who` pointed at `at`, `size` bytes.
    let pointed = |who: usize, at: u64, size: u32| {
        let mut file = base.clone();
        hostile::patch_rsli(&mut file, |i, e| {
            if i == who {
                (e.data_offset, e.packed_size, e.unpacked_size) = (at as u32, size, size);
            }
        });
        file
    };
    let len = u64::from(len);
    let cases = outside_cases(len);
    for (what, who, at, size, edit, refused) in cases {
        let old = pointed(who, at, size);
        let before = rsli_entry(&old, who);
        assert_eq!(
            before.is_some(),
            at + u64::from(size) <= len,
            "{what}: reads before iff inside the file"
        );
        let mut editor = rsli::Editor::open(&Library::open(&old).unwrap()).unwrap();
        assert_eq!(
            saved(&editor.plan().unwrap(), &old),
            old,
            "{what}: untouched"
        );
        edit(&mut editor);
        match (editor.plan(), refused) {
            (Err(e), Some((entry, offset))) => {
                assert_eq!(
                    e,
                    rsli::BuildError::OutsideChanged { entry, offset },
                    "{what}"
                );
                assert!(e.to_string().contains("may change what it reads"), "{e}");
            }
            (Ok(plan), None) => {
                let new = saved(&plan, &old);
                let after = Library::open(&new).unwrap();
                let name = Library::open(&old)
                    .unwrap()
                    .entry(who)
                    .unwrap()
                    .name()
                    .to_vec();
                let index = after.find(&name).expect("still listed");
                assert_eq!(rsli_entry(&new, index), before, "{what}: reads as before");
            }
            (got, want) => panic!("{what}: {:?}, expected refusal {want:?}", got.err()),
        }
    }
}

/// An NRes record outside the data region cannot be read (SPEC 1.3); an edit that would
/// bring its range inside the new data region, where it would read other payloads as
/// its own, is refused.
#[test]
fn an_nres_record_outside_the_data_stays_unreadable_or_the_edit_is_refused() {
    let mut writer = Writer::new();
    for (name, data) in [
        (&b"a"[..], &b"first"[..]),
        (b"b", b"second"),
        (b"c", b"third"),
    ] {
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        writer.add(entry, data).unwrap();
    }
    let mut old = writer.finish();
    // Entry 1 points into the directory (at the start of entry 2's record).
    let directory = old.len() - 3 * 64;
    let at = (directory + 2 * 64) as u32;
    old[directory + 64 + 56..][..4].copy_from_slice(&at.to_le_bytes());
    old[directory + 64 + 12..][..4].copy_from_slice(&8u32.to_le_bytes());
    let archive = Archive::open(&old).unwrap();
    assert!(archive.payload(1).is_err(), "outside: no payload");
    let new_entry = NewEntry {
        name: b"d",
        ..NewEntry::default()
    };

    let mut editor = nres::Editor::open(&archive).unwrap();
    editor.remove(0).unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let after = Archive::open(&new).unwrap();
    assert!(
        after.payload(0).is_err(),
        "rm: still outside the data, unread"
    );
    assert_eq!(after.payload(1).unwrap(), b"third");

    let mut editor = nres::Editor::open(&archive).unwrap();
    editor.add(new_entry, vec![9; 300]).unwrap();
    let e = editor.plan().unwrap_err();
    assert_eq!(
        e,
        nres::WriteError::OutsideNowInside {
            entry: 1,
            data_offset: at,
            size: 8
        }
    );
    assert!(e.to_string().contains("read other bytes as its own"), "{e}");
}

/// The same at the first offset a payload can have: an archive with no payload bytes,
/// whose one record claims 8 bytes at offset 16 (the directory's), takes them in as
/// soon as an added payload lies there: one that covers them, or one that ends exactly
/// where they do.
#[test]
fn an_nres_record_outside_at_the_first_payload_offset_is_refused_too() {
    let mut writer = Writer::new();
    let entry = NewEntry {
        name: b"a",
        ..NewEntry::default()
    };
    writer.add(entry, b"").unwrap();
    let mut old = writer.finish();
    assert_eq!(old.len(), 16 + 64, "no payload bytes");
    old[16 + 12..][..4].copy_from_slice(&8u32.to_le_bytes());
    let archive = Archive::open(&old).unwrap();
    assert_eq!(archive.entries().next().unwrap().data_offset, 16);
    assert!(archive.payload(0).is_err(), "outside: no payload");

    for added in [300, 8] {
        let mut editor = nres::Editor::open(&archive).unwrap();
        let new_entry = NewEntry {
            name: b"b",
            ..NewEntry::default()
        };
        editor.add(new_entry, vec![9; added]).unwrap();
        assert_eq!(
            editor.plan().unwrap_err(),
            nres::WriteError::OutsideNowInside {
                entry: 0,
                data_offset: 16,
                size: 8
            },
            "{added} bytes added"
        );
    }
}

/// A library with no payload bytes whose last 6 bytes, in its table, read as an `AO`
/// trailer: honoured, its overlay places the offsets, but an edited table could not keep
/// those bytes, so any edit is refused; the library saves as it is.
#[test]
fn an_rsli_trailer_inside_the_table_refuses_every_edit() {
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"").unwrap();
    builder.add(b"B", Method::Stored, b"").unwrap();
    let mut old = builder.build().unwrap();
    assert_eq!(old.len(), 32 + 2 * 32, "no payload bytes");
    let at = old.len() - 6;
    old[at..].copy_from_slice(b"AO\x10\0\0\0");
    let options = OpenOptions::DEFAULT.with_media_trailer(true);
    let lib = Library::open_with(&old, options).unwrap();
    assert_eq!(lib.overlay(), Some(16));
    let refused = rsli::BuildError::TrailerInTable { overlay: 16 };
    let edits: [(&str, Edit); 4] = [
        ("rename", |e| e.rename(0, b"Z").unwrap()),
        ("remove", |e| e.remove(1).unwrap()),
        ("add", |e| _ = e.add(b"C", Method::Stored, b"c").unwrap()),
        // No name changes: the table's order stays, and only the payload is new.
        ("replace", |e| e.replace(1, b"b").unwrap()),
    ];
    for (what, edit) in edits {
        let mut editor = rsli::Editor::open(&lib).unwrap();
        assert_eq!(
            saved(&editor.plan().unwrap(), &old),
            old,
            "{what}: untouched"
        );
        edit(&mut editor);
        assert_eq!(editor.plan().unwrap_err(), refused, "{what}");
    }
    assert!(
        refused.to_string().contains("overlaps the table"),
        "{refused}"
    );
}

/// A library of [`rsli::MAX_ENTRIES`] entries (the count is an `i16`) takes no more:
/// `add` refuses the next, and the entries there save as they were; one removed makes
/// room for one.
#[test]
fn an_rsli_library_of_max_entries_takes_no_more() {
    let mut builder = Builder::new();
    for _ in 0..rsli::MAX_ENTRIES {
        builder.add(b"N", Method::Stored, b"").unwrap();
    }
    let old = builder.build().unwrap();
    let lib = Library::open(&old).unwrap();
    let mut editor = rsli::Editor::open(&lib).unwrap();
    assert_eq!(
        editor.add(b"M", Method::Stored, b"m"),
        Err(rsli::BuildError::TooManyEntries)
    );
    assert_eq!(saved(&editor.plan().unwrap(), &old), old);
    editor.remove(0).unwrap();
    assert_eq!(
        editor.add(b"M", Method::Stored, b"m"),
        Ok(rsli::MAX_ENTRIES - 1)
    );
    let new = saved(&editor.plan().unwrap(), &old);
    let relib = Library::open(&new).unwrap();
    assert_eq!(relib.len(), rsli::MAX_ENTRIES);
    let added = relib.find(b"M").unwrap();
    assert_eq!(relib.unpack_to_vec(added, &Limits::DEFAULT).unwrap(), b"m");
}

/// A random permutation of `0..n` (Fisher-Yates).
fn shuffled(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order
}

/// Where `move_entry` gets the order `order` asks for: entry `order[k]`, wherever the
/// moves so far have put it, is moved to `k`.
fn moves_for(order: &[usize]) -> Vec<(usize, usize)> {
    let mut now: Vec<usize> = (0..order.len()).collect();
    let mut moves = Vec::new();
    for (k, &want) in order.iter().enumerate() {
        let from = now.iter().position(|&i| i == want).unwrap();
        moves.push((from, k));
        let i = now.remove(from);
        now.insert(k, i);
    }
    moves
}

/// `reorder` saves what the same order reached by `move_entry` one entry at a time saves,
/// byte for byte, in both formats and with new, replaced and kept payloads mixed; an
/// order that moves nothing saves the archive untouched, and a refused order changes
/// nothing.
#[test]
fn reorder_saves_what_moving_one_entry_at_a_time_saves() {
    let mut rng = Rng::new(0x0D0E);
    for (name, old) in sample_nres_archives() {
        let archive = Archive::open(&old).unwrap();
        let start = |rng: &mut Rng| {
            let mut editor = nres::Editor::open(&archive).unwrap();
            if !editor.is_empty() {
                editor.replace(0, rng.bytes(77)).unwrap();
            }
            let new = NewEntry {
                name: b"new.bin",
                ..NewEntry::default()
            };
            editor.add(new, rng.bytes(40)).unwrap();
            editor
        };
        let mut untouched = nres::Editor::open(&archive).unwrap();
        let identity: Vec<usize> = (0..untouched.len()).collect();
        untouched.reorder(&identity).unwrap();
        assert_eq!(saved(&untouched.plan().unwrap(), &old), old, "{name}");
        for round in 0..4 {
            let mut seed = Rng::new(round);
            let mut editor = start(&mut seed);
            let order = shuffled(editor.len(), &mut rng);
            let mut seed = Rng::new(round);
            let mut stepped = start(&mut seed);
            for (from, to) in moves_for(&order) {
                stepped.move_entry(from, to).unwrap();
            }
            editor.reorder(&order).unwrap();
            let got = saved(&editor.plan().unwrap(), &old);
            assert_eq!(
                got,
                saved(&stepped.plan().unwrap(), &old),
                "{name} {order:?}"
            );
            let before = nres_payloads(&saved(&start(&mut Rng::new(round)).plan().unwrap(), &old));
            let want: Vec<_> = order.iter().map(|&i| before[i].clone()).collect();
            assert_eq!(nres_payloads(&got), want, "{name} {order:?}");
        }
        let mut editor = start(&mut Rng::new(9));
        let plan_before = saved(&editor.plan().unwrap(), &old);
        let n = editor.len();
        let mut repeated: Vec<usize> = (0..n).collect();
        repeated[n - 1] = 0;
        let refusals = [
            (
                (0..n + 1).collect::<Vec<_>>(),
                nres::WriteError::OrderLength {
                    len: n as u64 + 1,
                    count: n as u64,
                },
            ),
            (
                (1..=n).collect(),
                nres::WriteError::NoSuchEntry {
                    index: n as u64,
                    count: n as u64,
                },
            ),
        ];
        for (order, error) in refusals {
            assert_eq!(editor.reorder(&order), Err(error), "{name}");
        }
        if n > 1 {
            assert_eq!(
                editor.reorder(&repeated),
                Err(nres::WriteError::OrderRepeats { index: 0 })
            );
        }
        assert_eq!(saved(&editor.plan().unwrap(), &old), plan_before, "{name}");
    }

    for trailer in [None, Some(64)] {
        let old = keyed_library(false, trailer);
        let options = OpenOptions::DEFAULT.with_media_trailer(trailer.is_some());
        let lib = Library::open_with(&old, options).unwrap();
        let start = || {
            let mut editor = rsli::Editor::open(&lib).unwrap();
            editor
                .replace_with(1, Method::Lzhuf, b"replaced, replaced")
                .unwrap();
            editor
                .add(b"ZZZ", Method::XorLzss, b"added, added, added")
                .unwrap();
            editor
        };
        for _ in 0..4 {
            let order = shuffled(start().len(), &mut rng);
            let mut editor = start();
            editor.reorder(&order).unwrap();
            let mut stepped = start();
            for (from, to) in moves_for(&order) {
                stepped.move_entry(from, to).unwrap();
            }
            let got = saved(&editor.plan().unwrap(), &old);
            assert_eq!(got, saved(&stepped.plan().unwrap(), &old), "{order:?}");
            let before = rsli_decoded(&saved(&start().plan().unwrap(), &old), trailer.is_some());
            let want: Vec<_> = order.iter().map(|&i| before[i].clone()).collect();
            assert_eq!(rsli_decoded(&got, trailer.is_some()), want, "{order:?}");
        }
        let mut editor = start();
        let n = editor.len();
        assert_eq!(
            editor.reorder(&[0]),
            Err(rsli::BuildError::OrderLength {
                len: 1,
                count: n as u64
            })
        );
        let mut repeated: Vec<usize> = (0..n).collect();
        repeated[1] = 0;
        assert_eq!(
            editor.reorder(&repeated),
            Err(rsli::BuildError::OrderRepeats { index: 0 })
        );
        assert_eq!(
            saved(&editor.plan().unwrap(), &old),
            saved(&start().plan().unwrap(), &old)
        );
    }
}

/// A replacing payload is checked against the whole directory, whichever entry it
/// replaces: it was checked against the directory of the entries up to it, so a payload
/// one byte too large passed for entry 0 of eight and not for entry 7 (the plan refused
/// it later).
#[test]
fn a_replacing_payload_too_large_is_refused_for_any_entry() {
    let old = samples::nres();
    let archive = Archive::open(&old).unwrap();
    let count = archive.len() as u64;
    // The largest payload that fits: 16 + len, padded, + the directory <= u32::MAX.
    let room = (u64::from(u32::MAX) - 64 * count) / 8 * 8 - 16;
    for index in [0, archive.len() - 1] {
        let mut editor = nres::Editor::open(&archive).unwrap();
        assert_eq!(
            editor.replace_from_source(index, 0, room + 1),
            Err(nres::WriteError::TooLarge {
                entry: index as u32
            }),
            "entry {index}"
        );
        editor.replace_from_source(index, 0, room).unwrap();
    }
}

/// A payload taken from the source (`add_from_source`, `replace_from_source`) saves what
/// the same bytes held by the editor save, byte for byte; the source may run past the
/// archive, and a source that ends before the range fails the write.
#[test]
fn payloads_from_the_source_save_as_payloads_held() {
    let mut rng = Rng::new(0x50CE);
    for (name, old) in sample_nres_archives() {
        let archive = Archive::open(&old).unwrap();
        let (added, replacing) = (rng.bytes(1000), rng.bytes(333));
        let source = [&old[..], &added, &replacing].concat();
        let (at_added, at_replacing) = (old.len() as u64, (old.len() + added.len()) as u64);
        let new = NewEntry {
            name: b"from.src",
            type_id: 7,
            ..NewEntry::default()
        };

        let mut held = nres::Editor::open(&archive).unwrap();
        held.add(new, added.clone()).unwrap();
        let mut sourced = nres::Editor::open(&archive).unwrap();
        let i = sourced.add_from_source(new, at_added, 1000).unwrap();
        assert_eq!(sourced.source_range(i), Some(at_added..at_added + 1000));
        assert_eq!(sourced.entry(i).unwrap().size, 1000);
        if !archive.is_empty() {
            held.replace(0, replacing.clone()).unwrap();
            sourced.replace_from_source(0, at_replacing, 333).unwrap();
        }
        let want = saved(&held.plan().unwrap(), &old);
        assert_eq!(saved(&sourced.plan().unwrap(), &source), want, "{name}");

        // The source ends inside the new payload: the write fails.
        let short = &source[..at_added as usize + 999];
        let mut out = Vec::new();
        let written = write_plan(&sourced.plan().unwrap(), &short.to_vec(), &mut out);
        let kind = written.map_err(|e| e.kind());
        assert_eq!(
            kind,
            Err(std::io::ErrorKind::UnexpectedEof),
            "{name}: a short source"
        );
    }
    // A range past the largest offset: the write fails (it was cut short without a word).
    let mut editor = nres::Editor::new();
    editor
        .add_from_source(
            NewEntry {
                name: b"far",
                ..NewEntry::default()
            },
            u64::MAX - 2,
            10,
        )
        .unwrap();
    let mut out = Vec::new();
    let e = write_plan(&editor.plan().unwrap(), &Vec::<u8>::new(), &mut out).unwrap_err();
    assert!(e.to_string().contains("runs past any source"), "{e}");
    // Too large for the format's 32-bit sizes, as `add` refuses it.
    let mut editor = nres::Editor::new();
    let e = editor.add_from_source(
        NewEntry {
            name: b"huge",
            ..NewEntry::default()
        },
        0,
        1 << 32,
    );
    assert_eq!(e, Err(nres::WriteError::TooLarge { entry: 0 }));
    // Payloads that only together pass 4 GiB: the plan names the one that crosses (it
    // named the last entry, here a byte that fits).
    let mut editor = nres::Editor::new();
    for (name, len) in [(&b"three"[..], 3u64 << 30), (b"two", 2 << 30), (b"byte", 1)] {
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        editor.add_from_source(entry, 0, len).unwrap();
    }
    let e = editor.plan().map(drop);
    assert_eq!(e, Err(nres::WriteError::TooLarge { entry: 1 }));
    // Moved last (new payloads are laid out in entry order), it is named by its place.
    editor.move_entry(1, 2).unwrap();
    let e = editor.plan().map(drop);
    assert_eq!(e, Err(nres::WriteError::TooLarge { entry: 2 }));
}

/// RsLi data taken from the source (`add_from_source`, `replace_from_source`) saves what
/// the same data held by the editor saves, byte for byte, XOR entries encrypted with the
/// key the save gives them; the methods that pack are refused and change nothing.
#[test]
fn rsli_data_from_the_source_saves_as_data_held() {
    let mut rng = Rng::new(0x5ABE);
    let mut xor_keys_seen = false;
    for (presorted, trailer) in [(true, None), (false, Some(64))] {
        let old = keyed_library(presorted, trailer);
        let options = OpenOptions::DEFAULT.with_media_trailer(trailer.is_some());
        let library = Library::open_with(&old, options).unwrap();
        let (added, replacing) = (rng.bytes(1000), rng.bytes(333));
        let source = [&old[..], &added, &replacing].concat();
        let (at_added, at_replacing) = (old.len() as u64, (old.len() + added.len()) as u64);
        // "A" sorts first and "ZZ" last: the entries' keys differ.
        for (name, method) in [
            (&b"A"[..], Method::Xor),
            (b"ZZ", Method::Xor),
            (b"ZZ", Method::Stored),
        ] {
            let case = format!(
                "presorted {presorted}, {}, {method:?}",
                String::from_utf8_lossy(name)
            );
            let mut held = rsli::Editor::open(&library).unwrap();
            let mut sourced = rsli::Editor::open(&library).unwrap();
            held.add(name, method, &added).unwrap();
            let i = sourced
                .add_from_source(name, method, at_added, 1000)
                .unwrap();
            assert_eq!(sourced.source_range(i), Some(at_added..at_added + 1000));
            let entry = sourced.entry(i).unwrap();
            assert_eq!((entry.unpacked_size, entry.packed_size), (1000, 1000));
            held.replace_with(1, method, &replacing).unwrap();
            sourced
                .replace_from_source(1, method, at_replacing, 333)
                .unwrap();
            let want = saved(&held.plan().unwrap(), &old);
            assert_eq!(saved(&sourced.plan().unwrap(), &source), want, "{case}");

            let new = Library::open_with(&want, options).unwrap();
            let limits = Limits::DEFAULT;
            let got = |i: usize| new.unpack_to_vec(i, &limits).unwrap();
            assert_eq!(
                (got(i), got(1)),
                (added.clone(), replacing.clone()),
                "{case}"
            );
            let key = new.entry(i).unwrap().sort_index;
            xor_keys_seen |= method == Method::Xor && key != 0;
            // Written encrypted with that key when the method XORs, as it is when not.
            let at =
                new.entry(i).unwrap().data_offset as usize + new.overlay().unwrap_or(0) as usize;
            let mut raw = want[at..at + 1000].to_vec();
            if method == Method::Xor {
                XorStream::new(key).apply(&mut raw);
            }
            assert_eq!(raw, added, "{case}: the bytes in the file");
        }
        for method in Method::ALL {
            if matches!(method, Method::Stored | Method::Xor) {
                continue;
            }
            let mut editor = rsli::Editor::open(&library).unwrap();
            let n = editor.len() as u32;
            assert_eq!(
                editor.add_from_source(b"P", method, at_added, 10),
                Err(rsli::BuildError::MethodPacks { entry: n, method })
            );
            assert_eq!(
                editor.replace_from_source(2, method, at_added, 10),
                Err(rsli::BuildError::MethodPacks { entry: 2, method })
            );
            assert_eq!(
                saved(&editor.plan().unwrap(), &old),
                old,
                "{method:?}: unchanged"
            );
        }
    }
    assert!(xor_keys_seen, "a new XOR entry with a key other than 0");
    // Too large for the 32-bit sizes, as `add` refuses it; a source that ends early
    // fails the write.
    let mut editor = rsli::Editor::new();
    let e = editor.add_from_source(b"HUGE", Method::Stored, 0, 1 << 32);
    assert_eq!(e, Err(rsli::BuildError::TooLarge { entry: 0 }));
    editor
        .add_from_source(b"SHORT", Method::Xor, 0, 10)
        .unwrap();
    let e = write_plan(&editor.plan().unwrap(), &vec![0u8; 9], &mut Vec::new()).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
}

/// `source_index` follows each entry through removals, moves and sorts, and is `None` for
/// an added one and past the end, in both editors.
#[test]
fn source_index_follows_the_entries() {
    let old = samples::nres();
    let archive = Archive::open(&old).unwrap();
    let n = archive.len();
    let mut editor = nres::Editor::open(&archive).unwrap();
    editor.remove(0).unwrap();
    let added = editor
        .add(
            NewEntry {
                name: b"added",
                ..NewEntry::default()
            },
            b"x".to_vec(),
        )
        .unwrap();
    editor.move_entry(added, 0).unwrap();
    let listed: Vec<Option<usize>> = (0..editor.len()).map(|i| editor.source_index(i)).collect();
    let want: Vec<Option<usize>> = std::iter::once(None).chain((1..n).map(Some)).collect();
    assert_eq!(listed, want);
    editor.sort(SortMode::Name);
    for i in 0..editor.len() {
        let name = editor.entry(i).unwrap().name().to_vec();
        let source = editor.source_index(i);
        assert_eq!(source.is_none(), name == b"added", "{i}");
        if let Some(j) = source {
            assert_eq!(archive.entry(j).unwrap().name(), &name[..], "{i}");
        }
    }
    assert_eq!(editor.source_index(editor.len()), None);

    let old = samples::rsli();
    let lib = Library::open(&old).unwrap();
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.remove(1).unwrap();
    editor.replace_with(0, Method::Lzss, b"new bytes").unwrap();
    editor.add(b"ADDED", Method::Stored, b"y").unwrap();
    assert_eq!(editor.source_index(0), Some(0), "replaced: the same entry");
    assert_eq!(editor.source_index(1), Some(2));
    assert_eq!(editor.source_index(editor.len() - 1), None);
}

/// A source that claims `u64::MAX` bytes (a `Read + Seek` that lies about its length)
/// with a Deflate entry outside the payloads: planning a save overflowed adding the one
/// byte a Deflate entry may read past the end (a panic in debug builds, a wrapped test in
/// release).
#[test]
fn a_source_of_u64_max_bytes_plans_without_overflow() {
    let mut raw = [0u8; 32];
    raw[..6].copy_from_slice(b"NL\x00\x01\x01\x00");
    let header = rsli::Header::parse(&raw).unwrap();
    let mut entry = rsli::Entry::default();
    entry.name[0] = b'A';
    entry.flags = Method::Deflate.bits();
    entry.packed_size = 4;
    entry.unpacked_size = 1;
    let mut editor =
        rsli::Editor::from_table(&header, &entry.to_bytes(), u64::MAX, &[], None).unwrap();
    editor.rename(0, b"C").unwrap();
    // The entry reads the header's first 4 bytes, which a rename leaves as they were;
    // the rest of the source is copied after the new table, to its claimed end.
    let plan = editor.plan().unwrap();
    assert_eq!(plan.len(), u64::MAX);
    assert!(
        matches!(plan.pieces[1..], [Piece::Copy { offset: 64, len }] if len == u64::MAX - 64),
        "{plan:?}"
    );
}

/// `retain` saves what `remove` of each dropped entry saves (from the last down), for
/// every sample archive of both formats and a few choices of entries to drop.
#[test]
fn retain_saves_what_removing_each_entry_saves() {
    let drops: [fn(usize) -> bool; 4] = [|_| false, |_| true, |i| i % 2 == 0, |i| i % 3 == 1];
    for (name, bytes) in sample_nres_archives() {
        let archive = Archive::open(&bytes).unwrap();
        for drop in drops {
            let mut one_by_one = nres::Editor::open(&archive).unwrap();
            for index in (0..one_by_one.len()).rev().filter(|&i| drop(i)) {
                one_by_one.remove(index).unwrap();
            }
            let mut at_once = nres::Editor::open(&archive).unwrap();
            at_once.retain(|i| !drop(i));
            assert_eq!(
                saved(&at_once.plan().unwrap(), &bytes),
                saved(&one_by_one.plan().unwrap(), &bytes),
                "{name}"
            );
        }
    }
    for bytes in [samples::rsli(), samples::all_methods()] {
        let lib = Library::open(&bytes).unwrap();
        for drop in drops {
            let mut one_by_one = rsli::Editor::open(&lib).unwrap();
            for index in (0..one_by_one.len()).rev().filter(|&i| drop(i)) {
                one_by_one.remove(index).unwrap();
            }
            let mut at_once = rsli::Editor::open(&lib).unwrap();
            at_once.retain(|i| !drop(i));
            assert_eq!(
                saved(&at_once.plan().unwrap(), &bytes),
                saved(&one_by_one.plan().unwrap(), &bytes)
            );
        }
    }
}

/// An entry added after a data region that ends unaligned (no engine writes one, a hand
/// can) is padded as the engine pads, by its size rounded up to 8 (`padding = ((size +
/// 7) & ~7) - size`, the source document of SPEC 1.8), not to the next aligned position.
#[test]
fn a_payload_added_after_an_unaligned_end_is_padded_by_its_size() {
    let mut bytes = b"NRes".to_vec();
    for field in [0x100u32, 1, 21 + 64] {
        bytes.extend_from_slice(&field.to_le_bytes());
    }
    bytes.extend_from_slice(b"12345");
    let mut record = [0u8; 64];
    record[12..16].copy_from_slice(&5u32.to_le_bytes());
    record[20] = b'a';
    record[56..60].copy_from_slice(&16u32.to_le_bytes());
    bytes.extend_from_slice(&record);
    let archive = Archive::open(&bytes).unwrap();
    let mut editor = nres::Editor::open(&archive).unwrap();
    editor
        .add(
            NewEntry {
                name: b"b",
                ..NewEntry::default()
            },
            b"abc",
        )
        .unwrap();
    let out = saved(&editor.plan().unwrap(), &bytes);
    let edited = Archive::open(&out).unwrap();
    assert_eq!(edited.entry(1).map(|e| e.data_offset), Some(21));
    assert_eq!(edited.directory_offset(), 21 + 8);
    assert_eq!(&out[16..29], b"12345abc\0\0\0\0\0");
    assert_eq!(edited.payload(0).unwrap(), b"12345");
}

/// A Deflate entry whose one packed byte is the byte past the end of the file has no
/// byte to decode (a stream needs at least one), so no reader takes it. Laid out
/// elsewhere it would read the byte found there (`0x03` alone is a whole, empty stream),
/// so the editor keeps it where it is and refuses to move it, as any other entry reading
/// past the end. SPEC 2.7's quirk forgives the last byte of a stream, not its only one.
#[test]
fn a_deflate_entry_whose_only_byte_is_past_the_end_is_not_moved() {
    let mut builder = rsli::Builder::new();
    builder.add(b"A.TXT", Method::Stored, b"first").unwrap();
    builder.add(b"D.TEX", Method::Stored, b"").unwrap();
    let mut file = builder.build().unwrap();
    let len = file.len() as u32;
    ngi_tests::hostile::patch_rsli(&mut file, |i, e| {
        if i == 1 {
            (e.flags, e.packed_size, e.data_offset) = (0x100, 1, len);
        }
    });
    let mut editor = canonicalize_refused(&file, 1, u64::from(len));
    // Untouched, it saves as it was; an edit that would move it is refused.
    assert_eq!(saved(&editor.plan().unwrap(), &file), file);
    editor
        .add(b"NEW.TXT", Method::Stored, b"new entry")
        .unwrap();
    assert!(matches!(
        editor.plan(),
        Err(rsli::BuildError::OutsideChanged { entry: 1, .. })
    ));
}

/// Three XOR entries whose presorted table is a permutation but not the engine's (the
/// names sort A, B, C; the stored values reversed), each payload keyed by its stored
/// value as the engine reads it with the flag.
fn custom_presorted_library() -> Vec<u8> {
    let datas: [&[u8]; 3] = [b"ay, ay", b"bee bee", b"sea"];
    let (mut entries, mut payload) = (Vec::new(), Vec::new());
    for (i, (name, data)) in [b"A", b"B", b"C"].iter().zip(datas).enumerate() {
        let key = 2 - i as u16;
        let offset = 32 + 3 * 32 + payload.len() as u32;
        let len = data.len() as u32;
        entries.push(hostile::rentry(&name[..], 0x020, key, len, offset, len));
        let mut keyed = data.to_vec();
        XorStream::new(key).apply(&mut keyed);
        payload.extend(keyed);
    }
    hostile::rsli_file(0x0BAD_5EED, true, &entries, &payload, None)
}

/// `set_seed` re-encrypts the table alone; `set_presorted` changes the flag and writes the
/// engine's permutation, re-keying the XOR payloads it moves, so every entry decodes as
/// before and is found by its name. Setting what the header already has changes nothing.
#[test]
fn rsli_seed_and_presorted_flag_can_be_changed() {
    let custom = custom_presorted_library();
    let want = rsli_decoded(&custom, false);
    assert_eq!(want[2].1, b"sea");
    let table_end = 32 + 3 * 32;

    let open = |bytes: &[u8]| rsli::Editor::open(&Library::open(bytes).unwrap()).unwrap();
    let mut editor = open(&custom);
    assert_eq!((editor.seed(), editor.is_presorted()), (0x0BAD_5EED, true));
    editor.set_seed(0x0BAD_5EED).set_presorted(true);
    assert_eq!(
        saved(&editor.plan().unwrap(), &custom),
        custom,
        "nothing changed"
    );

    editor.set_seed(0x1357_9BDF);
    let reseeded = saved(&editor.plan().unwrap(), &custom);
    let library = Library::open(&reseeded).unwrap();
    assert_eq!(library.header().seed, 0x1357_9BDF);
    assert_eq!(
        reseeded[table_end..],
        custom[table_end..],
        "no payload moves"
    );
    assert_ne!(reseeded[32..table_end], custom[32..table_end]);
    assert_eq!(rsli_decoded(&reseeded, false), want);

    // An entry reading the table's bytes would read others: refused, unless the seed is
    // set back.
    let in_table = hostile::rentry(b"T", 0, 0, 8, 40, 8);
    let odd = hostile::rsli_file(0x0BAD_5EED, false, &[in_table], b"", None);
    let mut editor = open(&odd);
    editor.set_seed(1);
    assert_eq!(
        editor.plan().unwrap_err(),
        rsli::BuildError::OutsideChanged {
            entry: 0,
            offset: 40
        }
    );
    editor.set_seed(0x0BAD_5EED);
    assert_eq!(saved(&editor.plan().unwrap(), &odd), odd);

    // Without the flag the engine sorts the names itself: A's key goes from 2 to 0, C's
    // from 0 to 2, and their payloads are re-keyed.
    let mut editor = open(&custom);
    editor.set_presorted(false);
    let unsorted = saved(&editor.plan().unwrap(), &custom);
    let library = Library::open(&unsorted).unwrap();
    assert!(!library.header().is_presorted());
    let stored: Vec<u16> = (0..3)
        .map(|i| library.entry(i).unwrap().file_sort_index)
        .collect();
    assert_eq!(stored, [0, 1, 2]);
    assert_eq!(rsli_decoded(&unsorted, false), want);
    assert_ne!(unsorted[table_end..], custom[table_end..]);
    for (i, name) in [b"A", b"B", b"C"].iter().enumerate() {
        assert_eq!(library.find(&name[..]), Some(i));
    }

    // And back: the flag set over the values the engine computed keeps every key.
    let mut editor = open(&unsorted);
    assert!(!editor.is_presorted());
    editor.set_presorted(true);
    let presorted = saved(&editor.plan().unwrap(), &unsorted);
    assert!(Library::open(&presorted).unwrap().header().is_presorted());
    assert_eq!(presorted[..14], unsorted[..14]);
    assert_eq!(presorted[16..], unsorted[16..]);
    assert_eq!(rsli_decoded(&presorted, false), want);
}

// ------------------------------------------------------------------------------------
// Checks no test above reached, each found by a mutation run (seed 20261209) where
// breaking it left every other test passing.

/// A canonical NRes of stored entries named and holding `names`.
fn nres_of(names: &[&[u8]]) -> Vec<u8> {
    let mut writer = Writer::new();
    for name in names {
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        writer.add(entry, name).unwrap();
    }
    writer.finish()
}

/// A rename alone, with no other edit, rebuilds `sort_index` (`removing_and_renaming`
/// removes first, which rebuilds it anyway).
#[test]
fn nres_rename_alone_rebuilds_sort_index() {
    let old = nres_of(&[b"a", b"b"]);
    let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
    editor.rename(0, b"c").unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let a = Archive::open(&new).unwrap();
    assert_eq!(a.lookup_table(), nres::LookupTable::Canonical);
    assert_eq!(a.find(b"c"), Some(0));
    assert_eq!(a.find(b"b"), Some(1));
}

/// `rebuild_sort_index` turns a table that is no permutation into the canonical one.
#[test]
fn nres_rebuild_sort_index_repairs_a_garbage_table() {
    let mut old = nres_of(&[b"a", b"b", b"c"]);
    let directory = old.len() - 3 * 64;
    for (i, garbage) in [2u32, 1, 0].into_iter().enumerate() {
        old[directory + 64 * i + 60..][..4].copy_from_slice(&garbage.to_le_bytes());
    }
    let archive = Archive::open(&old).unwrap();
    assert_ne!(archive.lookup_table(), nres::LookupTable::Canonical);
    let mut editor = nres::Editor::open(&archive).unwrap();
    assert_eq!(saved(&editor.plan().unwrap(), &old), old, "untouched: kept");
    editor.rebuild_sort_index();
    let new = saved(&editor.plan().unwrap(), &old);
    assert_eq!(
        Archive::open(&new).unwrap().lookup_table(),
        nres::LookupTable::Canonical
    );
}

/// A move to past the end is `NoSuchEntry` and changes nothing (unchecked, it panicked in
/// `Vec::insert`).
#[test]
fn nres_move_entry_to_past_the_end_is_refused() {
    let old = nres_of(&[b"a", b"b"]);
    let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
    assert_eq!(
        editor.move_entry(0, 2),
        Err(nres::WriteError::NoSuchEntry { index: 2, count: 2 })
    );
    assert_eq!(saved(&editor.plan().unwrap(), &old), old);
}

/// A file of exactly `u32::MAX` bytes fits `total_size` and plans (from a directory
/// alone, so no 4 GiB in memory).
#[test]
fn nres_plan_of_exactly_u32_max_bytes_is_accepted() {
    let header = nres::Header {
        entry_count: 1,
        total_size: u32::MAX,
    };
    let mut record = [0u8; 64];
    record[20] = b'a';
    record[12..16].copy_from_slice(&(u32::MAX - 16 - 64).to_le_bytes());
    record[56..60].copy_from_slice(&16u32.to_le_bytes());
    let mut editor = nres::Editor::from_directory(&header, &record).unwrap();
    editor.rename(0, b"b").unwrap();
    let plan = editor
        .plan()
        .expect("u32::MAX bytes fit the 32-bit total_size");
    assert_eq!(plan.len(), u64::from(u32::MAX));
}

/// `from_entries` refuses a file length shorter than the table it was given.
#[test]
fn rsli_from_entries_refuses_a_file_shorter_than_its_table() {
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"abc").unwrap();
    let bytes = builder.build().unwrap();
    let lib = Library::open(&bytes).unwrap();
    let header = *lib.header();
    let needed = header.table_end();
    let e = rsli::Editor::from_entries(&header, lib.entries().to_vec(), needed - 1, &[], None)
        .map(drop)
        .unwrap_err();
    assert_eq!(
        e,
        rsli::RsliError::Truncated {
            len: needed - 1,
            needed
        }
    );
}

/// Without `0xABBA` the stored `sort_index` values may be anything until a rebuild writes
/// the engine's permutation.
#[test]
fn rsli_rebuild_sort_index_writes_the_permutation() {
    let mut builder = Builder::new();
    builder.presorted(false);
    for name in [&b"C"[..], b"B", b"A"] {
        builder.add(name, Method::Xor, name).unwrap();
    }
    let mut old = builder.build().unwrap();
    let key = u16::from_le_bytes([old[20], old[21]]);
    let table = &mut old[32..32 + 3 * 32];
    XorStream::new(key).apply(table);
    for i in 0..3 {
        table[32 * i + 18..32 * i + 20].copy_from_slice(&(0x7000u16 + i as u16).to_le_bytes());
    }
    XorStream::new(key).apply(table);
    let mut editor = rsli::Editor::open(&Library::open(&old).unwrap()).unwrap();
    editor.rebuild_sort_index();
    let new = saved(&editor.plan().unwrap(), &old);
    let lib = Library::open(&new).unwrap();
    for e in lib.entries() {
        assert_eq!(e.file_sort_index, e.sort_index, "stored = computed");
    }
    for i in 0..3 {
        let mut out = vec![0u8; 1];
        lib.unpack_into(i, &mut out).unwrap();
    }
}

/// An empty Deflate entry one byte past the end is unreadable
/// (DataOutOfBounds: the one-byte allowance is for non-empty streams); an add that makes
/// the file long enough to read it must be refused.
#[test]
fn rsli_empty_deflate_entry_one_past_the_end_stays_unreadable() {
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"abc").unwrap();
    builder.add(b"B", Method::Deflate, b"x").unwrap();
    let bytes = builder.build().unwrap();
    let lib = Library::open(&bytes).unwrap();
    let header = *lib.header();
    let len = bytes.len() as u64;
    let mut entries = lib.entries().to_vec();
    entries[1].packed_size = 0;
    entries[1].data_offset = len as u32 + 1;
    let tail = &bytes[bytes.len() - 6..];
    let mut editor = rsli::Editor::from_entries(&header, entries, len, tail, None).unwrap();
    editor.add(b"C", Method::Stored, &[7u8; 10][..]).unwrap();
    assert!(
        matches!(
            editor.plan().map(drop),
            Err(rsli::BuildError::OutsideChanged { entry: 1, .. })
        ),
        "an unreadable entry would become readable"
    );
}

/// Shared bytes are found by offset, not by entry order. XOR "B.TXT" shares its bytes
/// with the stored "E.TXT" alone, and "C.TXT" and "D.TXT" lie between them in entry order
/// but after them in the file: an add that moves B's key must give B a copy of its own
/// (sorted by entry, the sharing was missed, and the plan refused with
/// `SharedKeyedPayload`).
#[test]
fn rsli_shared_payload_found_when_entry_order_is_not_offset_order() {
    let (old, _) = hostile::library_sharing_bytes_of_b(&[4]);
    let lib = Library::open(&old).unwrap();
    let before: Vec<Vec<u8>> = (0..lib.len())
        .map(|i| lib.unpack_to_vec(i, &Limits::DEFAULT).unwrap())
        .collect();
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.add(b"AA.TXT", Method::Stored, &b"new"[..]).unwrap();
    let new = saved(&editor.plan().expect("B gets a copy of its own"), &old);
    let relib = Library::open(&new).unwrap();
    for (i, want) in before.iter().enumerate() {
        assert_eq!(&relib.unpack_to_vec(i, &Limits::DEFAULT).unwrap(), want);
    }
}

/// A stored entry reads `unpacked_size` bytes whatever `packed_size` says (SPEC 2.7), so
/// the bytes it reads past its packed size, in the next payload's block, stay when that
/// payload is removed.
#[test]
fn rsli_stored_entry_reading_past_its_packed_size_keeps_those_bytes() {
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"0123456789").unwrap();
    builder.add(b"B", Method::Stored, b"abcdef").unwrap();
    builder.add(b"C", Method::Stored, b"xyz").unwrap();
    let mut old = builder.build().unwrap();
    hostile::patch_rsli(&mut old, |i, e| {
        if i == 0 {
            e.unpacked_size = 16;
        }
    });
    let lib = Library::open(&old).unwrap();
    let a = lib.unpack_to_vec(0, &Limits::DEFAULT).unwrap();
    assert_eq!(a, b"0123456789abcdef");
    let mut editor = rsli::Editor::open(&lib).unwrap();
    editor.remove(1).unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let relib = Library::open(&new).unwrap();
    assert_eq!(relib.unpack_to_vec(0, &Limits::DEFAULT).unwrap(), a);
    assert_eq!(relib.unpack_to_vec(1, &Limits::DEFAULT).unwrap(), b"xyz");
}

/// `SortMode::number` is `from_number`'s inverse.
#[test]
fn nres_sort_mode_number_inverts_from_number() {
    for n in 0..12 {
        assert_eq!(nres::SortMode::from_number(n).unwrap().number(), n);
    }
}

/// A reorder alone rebuilds `sort_index` (the reorder test above adds an entry first,
/// which rebuilds it anyway).
#[test]
fn nres_reorder_alone_rebuilds_sort_index() {
    let old = nres_of(&[b"a", b"b", b"c"]);
    let mut editor = nres::Editor::open(&Archive::open(&old).unwrap()).unwrap();
    editor.reorder(&[2, 0, 1]).unwrap();
    let new = saved(&editor.plan().unwrap(), &old);
    let a = Archive::open(&new).unwrap();
    assert_eq!(a.lookup_table(), nres::LookupTable::Canonical);
    assert_eq!(a.find(b"c"), Some(0));
    assert_eq!(a.find(b"a"), Some(1));
}
