//! Editing and packing through the real binary: `unpack` then `pack` gives the archive
//! back byte for byte (samples, every method, RsLi with and without 0xABBA and a trailer,
//! Deflate streams of zlib, libdeflate and 7-Zip, every hostile archive that opens); a changed file changes only its entry; bad folders are one line
//! and nothing written; in-place edits; atomic saves under SIGKILL; memory of `add` on a
//! 2 GiB archive.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use ngi_core::nres::{self, NewEntry, Writer};
use ngi_core::rsli::{self, Builder};
use ngi_core::{Limits, Method};
use ngi_tests::corpus::Rng;
use ngi_tests::hostile::{self, Expect, Produce};
use ngi_tests::samples;

use ngi_tests::scratch::Scratch;
use sha2::{Digest, Sha256};

fn ngi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ngi"))
        .args(args)
        .output()
        .expect("ngi runs")
}

fn ok(args: &[&str]) -> Output {
    let o = ngi(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

/// Exit status 1 with exactly one line on stderr, which is returned.
fn fails(args: &[&str]) -> String {
    let o = ngi(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err
}

/// `bytes` written as the file `name` in `dir`: its path.
fn written(dir: &Path, name: impl AsRef<Path>, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    fs::write(&path, bytes).unwrap();
    path
}

/// `bytes` written as the archive `name` in `dir`, then unpacked into `dir`'s `folder`:
/// the archive's path and the folder's.
fn unpacked(dir: &Path, name: &str, bytes: impl AsRef<[u8]>, folder: &str) -> (PathBuf, PathBuf) {
    let archive = written(dir, name, bytes);
    let folder = dir.join(folder);
    ok(&["unpack", s(&archive), "-o", s(&folder)]);
    (archive, folder)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Unpacks `bytes` (written as `name` in `dir`) and packs the folder again; returns the
/// folder and the packed file's bytes.
fn round_trip(dir: &Path, name: &str, bytes: &[u8], flags: &[&str]) -> (PathBuf, Vec<u8>) {
    let archive = written(dir, name, bytes);
    let folder = dir.join(format!("{name}.d"));
    let mut args = vec!["unpack", s(&archive), "-o", s(&folder)];
    args.extend_from_slice(flags);
    ok(&args);
    let packed = dir.join(format!("{name}.packed"));
    let said = ok(&["pack", s(&folder), "-o", s(&packed)]).stdout;
    let said = String::from_utf8_lossy(&said);
    assert!(said.contains(" (0 changed, 0 added), "), "{name}: {said}");
    (folder, fs::read(&packed).unwrap())
}

fn assert_same(name: &str, got: &[u8], want: &[u8]) {
    if got != want {
        let at = got
            .iter()
            .zip(want)
            .position(|(a, b)| a != b)
            .unwrap_or(got.len().min(want.len()));
        panic!(
            "{name}: {} bytes against {}, first difference at {at}",
            got.len(),
            want.len()
        );
    }
}

/// The library every method in, under both tables, with and without a trailer.
fn rsli_variants() -> Vec<(String, Vec<u8>, bool)> {
    let mut out = Vec::new();
    for presorted in [true, false] {
        for trailer in [None, Some(0), Some(100)] {
            let bytes = samples::every_method_library(0x0BAD_5EED, presorted, trailer);
            let honoured = trailer.is_some_and(|t| t > 0);
            let name = format!("p{presorted}-t{trailer:?}");
            out.push((name, bytes, honoured));
        }
    }
    out
}

#[test]
fn unpack_then_pack_is_byte_identical() {
    let dir = Scratch::new("edit-round");
    let mut cases: Vec<(String, Vec<u8>, bool)> = vec![
        ("sample.nres".into(), samples::nres(), false),
        ("sample.rsli".into(), samples::rsli(), false),
        ("all-methods.rsli".into(), samples::all_methods(), false),
        ("odd.nres".into(), samples::odd_nres(), false),
        ("empty.nres".into(), Writer::new().finish(), false),
        ("empty.rsli".into(), Builder::new().build().unwrap(), false),
    ];
    let mut writer = Writer::new();
    let mut rng = Rng::new(3);
    for i in 0..200u32 {
        let name = format!(
            "Entry_{:03}.{}",
            (i * 37) % 200,
            ["tex", "MSH"][i as usize % 2]
        );
        let len = rng.below(2000);
        let entry = NewEntry {
            name: name.as_bytes(),
            type_id: i % 5,
            attr1: i,
            attr2: u32::MAX - i,
            attr3: 7,
        };
        writer.add(entry, &rng.bytes(len)).unwrap();
    }
    cases.push(("many.nres".into(), writer.finish(), false));
    cases.extend(rsli_variants());
    for (name, bytes, trailer) in &cases {
        let flags: &[&str] = if *trailer { &["--media-trailer"] } else { &[] };
        let (_, packed) = round_trip(&dir, name, bytes, flags);
        assert_same(name, &packed, bytes);
    }
}

/// A library whose offsets count from its `AO` media trailer's overlay is refused by every
/// command that edits, unless the trailer is honoured: read from the start of the file its
/// records point into the table, and an edit that moved the payloads under them left every
/// entry reading wrong with the flag (`add` put entry 0's bytes past the end of the file).
/// With the flag, an edit keeps every entry as it was. A trailer of overlay 0 changes no
/// offset and needs no flag.
#[test]
fn a_library_read_through_its_media_trailer_is_edited_only_with_it() {
    let dir = Scratch::new("edit-trailer");
    let added = written(&dir, "ADDED.TXT", b"one more");
    let bytes = samples::every_method_library(0x0BAD_5EED, false, Some(100));
    let lib = written(&dir, "t.rsli", &bytes);
    let out = dir.join("out");
    for args in [
        &["add", s(&lib), s(&added)][..],
        &["rm", s(&lib), "STORED.TXT"],
        &["rename", s(&lib), "STORED.TXT", "OTHER.TXT"],
        &["repack", s(&lib)],
        &["unpack", s(&lib), "-o", s(&out)],
    ] {
        let err = fails(args);
        assert!(
            err.contains("entry 0 (\"STORED.TXT\") lies at offset 156")
                && err.contains("overlay 100")
                && err.contains("--media-trailer"),
            "{args:?}: {err}"
        );
        assert_eq!(fs::read(&lib).unwrap(), bytes, "{args:?} changed the file");
        assert!(!out.exists());
    }
    let decoded = |flag: &[&str]| -> Vec<Vec<u8>> {
        samples::ALL_METHODS
            .iter()
            .map(|(name, _)| {
                let name = std::str::from_utf8(name).unwrap();
                ok(&[&["cat", s(&lib), name][..], flag].concat()).stdout
            })
            .collect()
    };
    let before = decoded(&["--media-trailer"]);
    ok(&["add", "--media-trailer", s(&lib), s(&added)]);
    ok(&["verify", "--media-trailer", s(&lib)]);
    assert_eq!(decoded(&["--media-trailer"]), before);

    let zero = written(
        &dir,
        "zero.rsli",
        samples::every_method_library(1, false, Some(0)),
    );
    ok(&["add", s(&zero), s(&added)]);
    ok(&["verify", s(&zero)]);

    // Trailer bytes after a library whose offsets count from the start of the file: its
    // entries lie in the payloads as they are and past them with the overlay, so it is
    // edited without the flag (the review found such a library refused, and the flag it
    // asked for then broke an entry).
    // Its empty entry EMPTY is moved to offset 0, before the payloads: an empty entry
    // reads alike anywhere, and was taken as a sign of the overlay.
    let plain = dir.join("plain.rsli");
    let mut bytes = samples::rsli();
    let header = rsli::Header::parse(&bytes).unwrap();
    let table = 32..header.table_end() as usize;
    ngi_core::codec::XorStream::new(header.key()).apply(&mut bytes[table.clone()]);
    let empty_offset = 32 + 3 * 32 + 24;
    bytes[empty_offset..empty_offset + 4].copy_from_slice(&0u32.to_le_bytes());
    ngi_core::codec::XorStream::new(header.key()).apply(&mut bytes[table]);
    bytes.extend_from_slice(b"AO");
    bytes.extend_from_slice(&256u32.to_le_bytes());
    fs::write(&plain, &bytes).unwrap();
    let readme = cat(&plain, "README.TXT");
    // The mirror case: given --media-trailer, every entry of such a library lies past the
    // payloads, and an edit left them all behind as bytes no record points at (exit 0;
    // rename re-keyed an XOR entry whose bytes it did not touch, rm broke every offset).
    for args in [
        &["rename", s(&plain), "README.TXT", "READ.ME"][..],
        &["rm", s(&plain), "SECRET.TXT"],
        &["unpack", s(&plain), "-o", s(&out)],
    ] {
        let err = fails(&[args, &["--media-trailer"]].concat());
        assert!(
            err.contains("read from the \"AO\" media trailer's overlay (256)")
                && err.contains("without --media-trailer"),
            "{args:?}: {err}"
        );
        assert_eq!(
            fs::read(&plain).unwrap(),
            bytes,
            "{args:?} changed the file"
        );
        assert!(!out.exists());
    }
    ok(&["add", s(&plain), s(&added)]);
    ok(&["verify", s(&plain)]);
    assert_eq!(cat(&plain, "README.TXT"), readme);
}

/// The raw Deflate stream inside a gzip member (RFC 1952).
fn gzip_payload(gz: &[u8]) -> Vec<u8> {
    assert_eq!(&gz[..3], &[0x1F, 0x8B, 8]);
    let flags = gz[3];
    let mut at = 10;
    if flags & 4 != 0 {
        at += 2 + usize::from(u16::from_le_bytes([gz[at], gz[at + 1]]));
    }
    for bit in [8u8, 16] {
        if flags & bit != 0 {
            at += gz[at..].iter().position(|&b| b == 0).unwrap() + 1;
        }
    }
    if flags & 2 != 0 {
        at += 2;
    }
    gz[at..gz.len() - 8].to_vec()
}

fn run_tool(program: &str, args: &[&str]) -> Vec<u8> {
    let o = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program} is missing ({e}); scripts/test.sh installs it"));
    assert!(
        o.status.success(),
        "{program}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o.stdout
}

/// An RsLi (seed 0: a plain table) of Deflate entries whose streams come from `streams`.
fn library_of_streams(entries: &[(&[u8], Vec<u8>, usize)]) -> Vec<u8> {
    let mut file = vec![0u8; 32];
    file[..4].copy_from_slice(b"NL\x00\x01");
    file[4..6].copy_from_slice(&(entries.len() as u16).to_le_bytes());
    let mut at = 32 + 32 * entries.len();
    let mut table = Vec::new();
    for (name, stream, unpacked) in entries {
        let mut e = rsli::Entry::default();
        e.name[..name.len()].copy_from_slice(name);
        e.flags = 0x100;
        e.unpacked_size = *unpacked as u32;
        e.packed_size = stream.len() as u32;
        e.data_offset = at as u32;
        at += stream.len();
        table.extend_from_slice(&e.to_bytes());
    }
    // The engine sorts names itself (no 0xABBA): store its permutation.
    let mut parsed: Vec<rsli::Entry> = table
        .chunks(32)
        .map(|c| rsli::Entry::from_bytes(c.try_into().unwrap()))
        .collect();
    rsli::compute_permutation(&mut parsed);
    for e in &mut parsed {
        e.file_sort_index = e.sort_index;
        file.extend_from_slice(&e.to_bytes());
    }
    for (_, stream, _) in entries {
        file.extend_from_slice(stream);
    }
    file
}

#[test]
fn deflate_streams_of_other_compressors_are_kept_as_they_were() {
    let dir = Scratch::new("edit-foreign");
    let text = ngi_tests::corpus::text(100_000);
    let input = written(&dir, "input.txt", &text);
    let zlib = run_tool(
        "python3",
        &[
            "-c",
            "import sys, zlib; c = zlib.compressobj(9, zlib.DEFLATED, -15); \
             sys.stdout.buffer.write(c.compress(open(sys.argv[1], 'rb').read()) + c.flush())",
            s(&input),
        ],
    );
    let libdeflate = gzip_payload(&run_tool("libdeflate-gzip", &["-c", "-12", s(&input)]));
    let seven_out = dir.join("input.gz");
    run_tool(
        "7z",
        &[
            "a",
            "-tgzip",
            "-mx=9",
            "-bso0",
            "-bsp0",
            s(&seven_out),
            s(&input),
        ],
    );
    let seven = gzip_payload(&fs::read(&seven_out).unwrap());
    let library = library_of_streams(&[
        (b"ZLIB.TXT", zlib, text.len()),
        (b"LIBDEFL.TXT", libdeflate, text.len()),
        (b"7ZIP.TXT", seven, text.len()),
    ]);
    let (folder, packed) = round_trip(&dir, "foreign.rsli", &library, &[]);
    assert_same("foreign.rsli", &packed, &library);
    for name in ["ZLIB.TXT", "LIBDEFL.TXT", "7ZIP.TXT"] {
        assert_eq!(fs::read(folder.join(name)).unwrap(), text, "{name} decoded");
        assert!(
            folder.join(format!("{name}.packed")).exists(),
            "{name}: its stream is kept"
        );
    }
    // The entries ngi packs itself need no kept stream.
    let (folder, _) = round_trip(&dir, "own.rsli", &samples::all_methods(), &[]);
    let kept: Vec<_> = fs::read_dir(&folder)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".packed"))
        .collect();
    assert!(kept.is_empty(), "{kept:?}");
}

#[test]
fn every_hostile_archive_the_engine_accepts_round_trips() {
    let dir = Scratch::new("edit-hostile");
    let (mut tried, mut broken) = (0, 0);
    for (i, case) in hostile::catalogue().into_iter().enumerate() {
        // Every case that opens, broken entries and all: unpack keeps what it cannot
        // decode as packed bytes or as the record alone.
        let Expect::Opens(opens) = &case.expect else {
            continue;
        };
        if case.limits != Limits::DEFAULT {
            continue;
        }
        broken += usize::from(!opens.entries.iter().all(|e| matches!(e, Produce::Bytes(_))));
        let mut flags: &[&str] = if case.media_trailer {
            &["--media-trailer"]
        } else {
            &[]
        };
        // A library whose entries lie in its payloads only without the overlay of its
        // trailer is refused with the flag (it was unpacked, and an edit then left every
        // entry behind); it round trips without.
        if case.media_trailer {
            let probe = written(&dir, format!("probe{i}"), &case.bytes);
            let folder = dir.join(format!("probe{i}.d"));
            let o = ngi(&["unpack", s(&probe), "-o", s(&folder), "--media-trailer"]);
            let err = String::from_utf8_lossy(&o.stderr);
            if !o.status.success() && err.contains("edit it without --media-trailer") {
                assert!(!folder.exists(), "{}: {err}", case.name);
                flags = &[];
            }
        }
        let (_, packed) = round_trip(&dir, &format!("case{i}"), &case.bytes, flags);
        assert_same(&case.name, &packed, &case.bytes);
        tried += 1;
    }
    assert!(
        tried >= 40 && broken >= 10,
        "{tried} cases, {broken} with broken entries"
    );
}

fn cat(archive: &Path, name: &str) -> Vec<u8> {
    ok(&["cat", s(archive), name]).stdout
}

/// The names `list --json` gives, in entry order.
fn listed_names(archive: &Path) -> Vec<String> {
    let json: serde_json::Value =
        serde_json::from_slice(&ok(&["list", "--json", s(archive)]).stdout).unwrap();
    json.as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_changed_file_changes_only_its_entry() {
    let dir = Scratch::new("edit-changed");
    for (name, bytes) in [
        ("a.rsli", samples::all_methods()),
        ("b.nres", samples::nres()),
    ] {
        let archive = written(&dir, name, &bytes);
        let folder = dir.join(format!("{name}.d"));
        ok(&["unpack", s(&archive), "-o", s(&folder)]);
        let entries = listed_names(&archive);
        for changed in [0, entries.len() / 2, entries.len() - 1] {
            let file = folder.join(ngi_name_file(&folder, changed));
            let old = fs::read(&file).unwrap();
            let new_bytes = format!(
                "changed entry {changed}: {}",
                "new text ".repeat(changed * 40)
            )
            .into_bytes();
            fs::write(&file, &new_bytes).unwrap();
            let out = dir.join(format!("{name}.{changed}"));
            ok(&["pack", s(&folder), "-o", s(&out)]);
            fs::write(&file, &old).unwrap();
            ok(&["verify", s(&out)]);
            for (i, entry) in entries.iter().enumerate() {
                let got = cat(&out, entry);
                if i == changed {
                    assert_eq!(got, new_bytes, "{name}: {entry}");
                } else {
                    assert_eq!(got, cat(&archive, entry), "{name}: {entry} as before");
                }
            }
        }
        // Back as it was: the original bytes.
        let again = dir.join(format!("{name}.again"));
        ok(&["pack", s(&folder), "-o", s(&again)]);
        assert_same(name, &fs::read(&again).unwrap(), &bytes);
    }
}

/// A new method for an entry of the unpacked library replaces its packed bytes where they
/// were: the old ones went on being held (the span of the record was worked out with the
/// new method's rule, and reached over the next entry's bytes), left in the file as bytes
/// no entry reads. A record with no method, whose flags name one, is packed with that one.
#[test]
fn a_new_method_replaces_the_packed_bytes_in_place() {
    let dir = Scratch::new("edit-method");
    let (archive, folder) = unpacked(&dir, "s.rsli", samples::rsli(), "d");
    // DEFLATE.TXT (entry 5, 4784 bytes packed in 474 at offset 555) stored instead.
    edit_manifest(&folder, |m| {
        entry_mut(m, 5).insert("method".into(), "stored".into());
    });
    let out = dir.join("stored.rsli");
    ok(&["pack", s(&folder), "-o", s(&out)]);
    let verified = ok(&["verify", s(&out)]);
    assert!(
        !String::from_utf8_lossy(&verified.stdout).contains("note"),
        "{verified:?}"
    );
    let listed: serde_json::Value =
        serde_json::from_slice(&ok(&["list", "--json", s(&out)]).stdout).unwrap();
    let deflate = &listed[5];
    assert_eq!(
        (
            &deflate["method"],
            &deflate["offset"],
            &deflate["packed_size"]
        ),
        (&"stored".into(), &555.into(), &4784.into())
    );
    let len = fs::metadata(&out).unwrap().len();
    assert_eq!(len, samples::rsli().len() as u64 - 474 + 4784);
    for name in ["README.TXT", "SECRET.TXT", "DEFLATE.TXT", "LZHUF.TXT"] {
        assert_eq!(cat(&out, name), cat(&archive, name), "{name}");
    }

    // SECRET.TXT (entry 1, flags 0x20) changed, its method line gone: still XOR.
    ok(&["unpack", s(&archive), "-o", s(&folder), "--force"]);
    edit_manifest(&folder, |m| {
        entry_mut(m, 1).remove("method");
    });
    fs::write(folder.join(ngi_name_file(&folder, 1)), b"new secret").unwrap();
    let out = dir.join("xor.rsli");
    ok(&["pack", s(&folder), "-o", s(&out), "--force"]);
    let listed: serde_json::Value =
        serde_json::from_slice(&ok(&["list", "--json", s(&out)]).stdout).unwrap();
    assert_eq!(listed[1]["method"], "xor");
    assert_eq!(cat(&out, "SECRET.TXT"), b"new secret");
}

/// An RsLi whose entries 1 (XOR), 2 (XOR) and 4 (stored) share packed bytes, each read
/// with its own key: nothing an edit does may change what any of them decodes to.
#[test]
fn entries_that_share_packed_bytes_keep_them_through_every_edit() {
    let dir = Scratch::new("edit-shared");
    let (presorted, _) = hostile::shared_bytes_library();
    // Without the presorted flag the keys are worked out from the names (a rename or a
    // removal in the manifest changes them, not the bytes'); then with stored values the
    // engine ignores, so that unpack records each key.
    let mut computed = presorted.clone();
    computed[14..16].fill(0);
    let mut ignored = computed.clone();
    hostile::patch_rsli(&mut ignored, |i, e| e.file_sort_index = 100 + i as u16);
    for (variant, bytes) in [
        ("presorted", presorted),
        ("computed", computed),
        ("ignored", ignored),
    ] {
        shared_bytes_through_every_edit(&dir.join(variant), &bytes);
    }
}

fn shared_bytes_through_every_edit(dir: &Path, bytes: &[u8]) {
    fs::create_dir(dir).unwrap();
    let names = ["A.TXT", "B.TXT", "C.TXT", "D.TXT", "E.TXT"];
    let (folder, packed) = round_trip(dir, "shared.rsli", bytes, &[]);
    // Before, `pack` took the XOR entries' bytes before XOR as the archive's, so the
    // three files disagreed on the shared bytes and one version won.
    assert_same("unpack then pack", &packed, bytes);
    let archive = dir.join("shared.rsli");
    let before: Vec<Vec<u8>> = names.iter().map(|n| cat(&archive, n)).collect();

    // A new first name moves the keys of B and C (before: refused, "its packed bytes are
    // shared with entry 1, so they cannot be re-keyed"); so does taking A out.
    let keep = folder.join("ngi.toml.kept");
    fs::copy(folder.join("ngi.toml"), &keep).unwrap();
    for edit in ["rename", "remove"] {
        fs::copy(&keep, folder.join("ngi.toml")).unwrap();
        edit_manifest(&folder, |m| match edit {
            "rename" => _ = entry_mut(m, 0).insert("name".into(), "Q.TXT".into()),
            _ => _ = m["entry"].as_array_mut().unwrap().remove(0),
        });
        let out = dir.join(format!("{edit}.rsli"));
        ok(&["pack", s(&folder), "-o", s(&out)]);
        ok(&["verify", s(&out)]);
        for (i, name) in names.iter().enumerate() {
            match (i, edit) {
                (0, "remove") => assert!(ngi(&["cat", s(&out), name]).stdout.is_empty()),
                (0, _) => assert_eq!(cat(&out, "Q.TXT"), before[i], "pack, {edit}: Q.TXT"),
                _ => assert_eq!(cat(&out, name), before[i], "pack, {edit}: {name}"),
            }
        }
    }
    fs::copy(&keep, folder.join("ngi.toml")).unwrap();

    let removed = written(dir, "removed.rsli", bytes);
    ok(&["rm", s(&removed), "A.TXT"]);
    ok(&["verify", s(&removed)]);
    for (i, name) in names.iter().enumerate().skip(1) {
        assert_eq!(cat(&removed, name), before[i], "rm: {name}");
    }

    // A file whose recorded SHA-256 matches it but whose bytes are not the shared ones.
    let e = folder.join(ngi_name_file(&folder, 4));
    fs::write(&e, b"not the bytes B.TXT holds").unwrap();
    let digest = format!("{:x}", Sha256::digest(b"not the bytes B.TXT holds"));
    edit_manifest(&folder, |m| {
        entry_mut(m, 4).insert("sha256".into(), digest.into());
    });
    let out = dir.join("disagree.rsli");
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains(
            r#"entry 1 ("B.TXT") and entry 4 ("E.TXT"): they share the packed bytes at offset 200"#
        ),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
}

/// A canonical rebuild gives every entry bytes of its own, so entries that shared theirs
/// each get a copy, and a line says how many bytes were written again: a hostile archive
/// of records sharing one payload grows by their number, and nothing said why.
#[test]
fn repack_says_how_many_shared_bytes_it_writes_again() {
    let dir = Scratch::new("edit-repack-shared");
    let (bytes, shared) = hostile::shared_bytes_library();
    let archive = written(&dir, "shared.rsli", &bytes);
    let names = ["A.TXT", "B.TXT", "C.TXT", "D.TXT", "E.TXT"];
    let before: Vec<Vec<u8>> = names.iter().map(|n| cat(&archive, n)).collect();
    let o = ok(&["repack", s(&archive)]);
    let said = String::from_utf8_lossy(&o.stderr);
    // B, C and E read the shared bytes: two of them get copies.
    let again = 2 * shared.len();
    assert!(
        said.contains(&format!(
            "note: {again} bytes that entries shared in the archive are written again for \
             each entry that reads them"
        )),
        "{said}"
    );
    ok(&["verify", s(&archive)]);
    for (name, was) in names.iter().zip(&before) {
        assert_eq!(&cat(&archive, name), was, "{name}");
    }
    // Nothing is shared any more, nor said.
    let o = ok(&["repack", s(&archive)]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("shared"));
}

/// An `AO` trailer inside an entry's packed bytes (a stored entry that reads nothing and
/// whose `packed_size` covers the trailer) goes with them when the entry is removed: a
/// line says so, where it went without a word.
#[test]
fn an_edit_that_takes_the_trailer_away_says_so() {
    let dir = Scratch::new("edit-trailer-lost");
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"hello").unwrap();
    builder.add(b"E", Method::Stored, b"").unwrap();
    builder.media_trailer(Some(0));
    let mut bytes = builder.build().unwrap();
    assert_eq!(&bytes[bytes.len() - 6..], b"AO\0\0\0\0");
    hostile::patch_rsli(&mut bytes, |i, e| {
        if i == 1 {
            e.packed_size = 6;
        }
    });
    let archive = written(&dir, "a.rsli", &bytes);
    let o = ok(&["rm", s(&archive), "E"]);
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains("note: the \"AO\" media trailer the archive ended with (value 0) is not at its end any more"),
        "{said}"
    );
    let after = fs::read(&archive).unwrap();
    assert_ne!(&after[after.len() - 6..], b"AO\0\0\0\0");
    assert_eq!(cat(&archive, "A"), b"hello");
    // An edit that keeps it says nothing of it.
    fs::write(&archive, &bytes).unwrap();
    let o = ok(&["rename", s(&archive), "A", "B"]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("trailer"));
}

/// A library whose last entry reads from the payloads into the `AO` trailer after them
/// (read with the trailer's overlay): the manifest keeps the trailer apart, so `pack`
/// refused the folder `unpack` had written. `unpack` now refuses it first, naming the
/// entry, and writes nothing.
#[test]
fn unpack_refuses_an_entry_that_reads_into_the_trailer() {
    let dir = Scratch::new("edit-into-trailer");
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"hello").unwrap();
    builder.add(b"B", Method::Stored, b"world").unwrap();
    builder.media_trailer(Some(50));
    let mut bytes = builder.build().unwrap();
    let trailer_at = bytes.len() - 6;
    hostile::patch_rsli(&mut bytes, |i, e| {
        if i == 1 {
            (e.unpacked_size, e.packed_size) = (11, 11);
        }
    });
    let archive = written(&dir, "a.rsli", &bytes);
    let mut read = b"world".to_vec();
    read.extend_from_slice(&bytes[trailer_at..]);
    assert_eq!(
        ok(&["cat", "--media-trailer", s(&archive), "B"]).stdout,
        read
    );
    let folder = dir.join("d");
    let err = fails(&["unpack", "--media-trailer", s(&archive), "-o", s(&folder)]);
    assert!(
        err.contains(&format!(
            "entry 1 (\"B\"): what it reads at offset 101 (11 bytes) runs past the payloads' \
             end ({trailer_at}) into the \"AO\" media trailer"
        )),
        "{err}"
    );
    assert!(!folder.exists());
    // One whose packed_size alone runs into it reads inside the payloads, and packs back.
    hostile::patch_rsli(&mut bytes, |i, e| {
        if i == 1 {
            e.unpacked_size = 5;
        }
    });
    fs::write(&archive, &bytes).unwrap();
    ok(&["unpack", "--media-trailer", s(&archive), "-o", s(&folder)]);
    let packed = dir.join("packed.rsli");
    ok(&["pack", s(&folder), "-o", s(&packed)]);
    assert_eq!(fs::read(&packed).unwrap(), bytes);
}

/// A name beyond ASCII given to `add` or `rename` goes in as its UTF-8 bytes, and a line
/// says so, as `pack` says it of a manifest's; one given as `\xNN` escapes is no news.
#[test]
fn names_beyond_ascii_are_said_by_add_and_rename() {
    let dir = Scratch::new("edit-non-ascii");
    let archive = written(&dir, "a.nres", samples::nres());
    let file = written(&dir, "\u{fc}ber.txt", b"over");
    let said = |o: Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let note = "written as the UTF-8 bytes of its characters beyond ASCII";
    let added = said(ok(&["add", s(&archive), s(&file)]));
    assert!(
        added.contains(&format!("note: name \"\\xc3\\xbcber.txt\" {note}")),
        "{added}"
    );
    let renamed = said(ok(&[
        "rename",
        s(&archive),
        "\\xc3\\xbcber.txt",
        "caf\u{e9}",
    ]));
    assert!(renamed.contains(note), "{renamed}");
    assert_eq!(cat(&archive, "caf\\xc3\\xa9"), b"over");
    let escaped = said(ok(&["rename", s(&archive), "caf\\xc3\\xa9", "caf\\xe9"]));
    assert!(!escaped.contains(note), "{escaped}");
    assert_eq!(cat(&archive, "caf\\xe9"), b"over");
}

/// A name the format refuses is refused as such, even where the engine's lookup reads it
/// as another entry's name: `find` stops at a NUL, and RsLi's upper-cases the query, so
/// `add --name lower.txt` beside `LOWER.TXT` said "already named" and sent the user to
/// `rm` an entry that was never in the way.
#[test]
fn a_name_the_format_refuses_is_said_before_one_it_matches() {
    let dir = Scratch::new("edit-refused-before-matched");
    let (nres, rsli) = (dir.join("a.nres"), dir.join("a.rsli"));
    fs::write(&nres, samples::nres()).unwrap();
    fs::write(&rsli, samples::rsli()).unwrap();
    let file = written(&dir, "f", b"new");
    let lower = "the name holds a lower-case letter, so rsFind (which upper-cases queries) \
                 could never find it";
    for (archive, name, why) in [
        (&nres, "readme.txt\\x00b", "the name contains a NUL byte"),
        (&rsli, "README.TXT\\x00", "the name holds a NUL byte"),
        (&rsli, "readme.txt", lower),
    ] {
        let err = fails(&["add", s(archive), s(&file), "--name", name]);
        let want = format!("ngi: {}: {}: entry \"{name}\": ", s(archive), s(&file));
        assert!(err.starts_with(&want), "{name}: {err}");
        assert!(err.contains(why), "{name}: {err}");
        assert!(!err.contains("already named"), "{name}: {err}");
    }
    let err = fails(&["rename", s(&rsli), "SECRET.TXT", "readme.txt"]);
    assert!(
        err.ends_with(&format!(
            ": entry 1 (\"SECRET.TXT\") cannot be renamed \"readme.txt\": {lower}\n"
        )),
        "{err}"
    );
    let err = fails(&["rename", s(&nres), "sky.tex", "readme.txt\\x00b"]);
    assert!(
        err.contains("cannot be renamed \"readme.txt\\x00b\": "),
        "{err}"
    );
    assert!(!err.contains("already named"), "{err}");
    assert_eq!(fs::read(&nres).unwrap(), samples::nres(), "nothing written");
    assert_eq!(fs::read(&rsli).unwrap(), samples::rsli(), "nothing written");
}

/// The file of the manifest's entry `index`.
fn ngi_name_file(folder: &Path, index: usize) -> String {
    let manifest: toml::Table = fs::read_to_string(folder.join("ngi.toml"))
        .unwrap()
        .parse()
        .unwrap();
    manifest["entry"].as_array().unwrap()[index]["file"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Rewrites the manifest of `folder` with `edit`.
fn edit_manifest(folder: &Path, edit: impl FnOnce(&mut toml::Table)) {
    let path = folder.join("ngi.toml");
    let mut manifest: toml::Table = fs::read_to_string(&path).unwrap().parse().unwrap();
    edit(&mut manifest);
    fs::write(&path, toml::to_string(&manifest).unwrap()).unwrap();
}

fn entry_mut(manifest: &mut toml::Table, index: usize) -> &mut toml::Table {
    manifest["entry"].as_array_mut().unwrap()[index]
        .as_table_mut()
        .unwrap()
}

#[test]
fn a_file_added_to_the_manifest_becomes_an_entry_and_a_removed_one_goes() {
    let dir = Scratch::new("edit-added");
    let (archive, folder) = unpacked(&dir, "s.nres", samples::nres(), "d");
    fs::write(folder.join("new.txt"), b"a new entry").unwrap();
    edit_manifest(&folder, |m| {
        let entries = m["entry"].as_array_mut().unwrap();
        let removed = entries.remove(1);
        assert_eq!(removed["name"].as_str(), Some("Steel.mat"));
        let mut new = toml::Table::new();
        new.insert("file".into(), "new.txt".into());
        new.insert("name".into(), "new.txt".into());
        new.insert("type_id".into(), 0x54584554.into());
        entries.insert(2, toml::Value::Table(new));
    });
    let out = dir.join("out.nres");
    ok(&["pack", s(&folder), "-o", s(&out)]);
    ok(&["verify", s(&out)]);
    let names = listed_names(&out);
    assert_eq!(names[2], "new.txt");
    assert!(!names.iter().any(|n| n == "Steel.mat"));
    assert_eq!(cat(&out, "new.txt"), b"a new entry");
    // "Steel.mat" and "STEEL.MAT" are one name to lookups: what is left is entry 6's.
    assert_eq!(
        cat(&out, "STEEL.MAT"),
        ok(&["cat", "--index", "6", s(&archive)]).stdout
    );
    // The removed payload's bytes are cut, not left as a hole.
    let steel = ok(&["cat", "--index", "1", s(&archive)]).stdout;
    assert!(
        !fs::read(&out)
            .unwrap()
            .windows(steel.len())
            .any(|w| w == steel.as_slice())
    );
}

/// A canonical NRes table is unpacked as `lookup = "canonical"`, with no `index` lines,
/// so that an entry renamed in the manifest is packed where the engine's binary search
/// looks for it. Unpacked "as-stored" (a mutation no test killed), the renamed entry kept
/// its old place in the table, and the packed archive's table was out of order.
#[test]
fn a_canonical_table_is_rebuilt_after_a_rename_in_the_manifest() {
    let dir = Scratch::new("edit-canonical-rename");
    let (_, folder) = unpacked(&dir, "s.nres", samples::nres(), "d");
    let text = fs::read_to_string(folder.join("ngi.toml")).unwrap();
    assert!(text.contains("lookup = \"canonical\""), "{text}");
    assert!(!text.contains("\nindex = "), "{text}");
    edit_manifest(&folder, |m| {
        let sky = entry_mut(m, 2);
        assert_eq!(sky["name"].as_str(), Some("sky.tex"));
        sky.insert("name".into(), "aaa.tex".into());
    });
    let out = dir.join("out.nres");
    ok(&["pack", s(&folder), "-o", s(&out)]);
    let bytes = fs::read(&out).unwrap();
    let packed = nres::Archive::open(&bytes).unwrap();
    assert_eq!(packed.lookup_table(), nres::LookupTable::Canonical);
    assert_eq!(packed.find(b"aaa.tex"), Some(2));
    assert_eq!(cat(&out, "aaa.tex"), cat(&dir.join("s.nres"), "sky.tex"));
}

/// Padding that is not zero is a gap, kept in `ngi-gaps.bin`, also where an entry has
/// that name (it is saved under another) and where the directory's order is not the
/// payloads' (the gap's end is the next payload's start, whatever its record's place).
/// Two mutants no test killed: the name not kept from entries (unpack failed: "already
/// exists"), and the payloads looked through unsorted (a gap of 156 bytes over other
/// entries, which pack refused).
#[test]
fn a_gap_beside_an_entry_named_like_its_file_and_out_of_order_payloads_round_trips() {
    let dir = Scratch::new("edit-gap-named");
    let archive = written(&dir, "g.nres", samples::nres());
    ok(&["rename", s(&archive), "Steel.mat", "ngi-gaps.bin"]);
    ok(&["sort", s(&archive), "type"]);
    let mut bytes = fs::read(&archive).unwrap();
    let parsed = nres::Archive::open(&bytes).unwrap();
    let offsets: Vec<u32> = parsed.entries().map(|e| e.data_offset).collect();
    assert!(offsets.windows(2).any(|w| w[0] > w[1]), "{offsets:?}");
    // readme.txt's 164 bytes from 16 end at 180; the padding up to 184 is zeros.
    assert_eq!((offsets[0], parsed.entry(0).unwrap().size), (16, 164));
    assert_eq!(bytes[180..184], [0; 4]);
    bytes[180..184].copy_from_slice(b"GAP!");
    let (folder, packed) = round_trip(&dir, "gap.nres", &bytes, &[]);
    assert_same("gap.nres", &packed, &bytes);
    let manifest = fs::read_to_string(folder.join("ngi.toml")).unwrap();
    assert!(
        manifest.contains("[[gap]]\noffset = 180\nlen = 4\n"),
        "{manifest}"
    );
    assert_eq!(fs::read(folder.join("ngi-gaps.bin")).unwrap(), b"GAP!");
}

/// The zero padding after a payload is implied, not a gap, also where a payload nested in
/// an earlier one ends before it: unpack looked the padding's start up among the
/// payloads' ends unsorted, missed it, and listed the padding as a gap.
#[test]
fn padding_after_a_payload_holding_another_is_no_gap() {
    let dir = Scratch::new("edit-nested");
    let mut bytes = b"NRes".to_vec();
    let put = |bytes: &mut Vec<u8>, values: &[u32]| {
        for v in values {
            bytes.extend_from_slice(&v.to_le_bytes());
        }
    };
    put(&mut bytes, &[0x100, 3, 304]);
    // "a" at 16..100 holds "b" at 20..50; its padding, then "c" at 104..112.
    bytes.extend((16..100).map(|i| i as u8));
    bytes.extend_from_slice(&[0; 4]);
    bytes.extend_from_slice(b"c's data");
    for (name, size, offset, sort_index) in
        [(b'a', 84, 16, 0), (b'b', 30, 20, 1), (b'c', 8, 104, 2)]
    {
        put(&mut bytes, &[0, 0, 0, size, 0]);
        let mut field = [0u8; 36];
        field[0] = name;
        bytes.extend_from_slice(&field);
        put(&mut bytes, &[offset, sort_index]);
    }
    assert_eq!(bytes.len(), 304);
    let (folder, packed) = round_trip(&dir, "nested.nres", &bytes, &[]);
    let manifest = fs::read_to_string(folder.join("ngi.toml")).unwrap();
    let manifest: toml::Table = manifest.parse().unwrap();
    assert!(manifest.get("gap").is_none(), "{manifest}");
    assert_same("nested.nres", &packed, &bytes);
}

/// Several entries taken out of an unpacked library's manifest all go, the rest keeping
/// their bytes: one at a time, the table slots they leave were dropped in the wrong order
/// ("no entry 6 (the library has 6)") and no test took out more than one.
#[test]
fn several_entries_taken_out_of_a_library_manifest_go() {
    let dir = Scratch::new("edit-removed-rsli");
    let (archive, folder) = unpacked(&dir, "m.rsli", samples::all_methods(), "d");
    edit_manifest(&folder, |m| {
        let entries = m["entry"].as_array_mut().unwrap();
        entries.remove(2);
        entries.remove(1);
    });
    let out = dir.join("out.rsli");
    ok(&["pack", s(&folder), "-o", s(&out)]);
    let kept: Vec<&str> = samples::ALL_METHODS
        .iter()
        .map(|(name, _)| std::str::from_utf8(name).unwrap())
        .filter(|&name| name != "XOR.TXT" && name != "LZSS.TXT")
        .collect();
    assert_eq!(listed_names(&out), kept);
    for name in kept {
        assert_eq!(cat(&out, name), cat(&archive, name), "{name}");
    }
}

/// New entries listed before, between and after the old ones land where the manifest
/// lists them, in both formats, each entry with its own bytes.
#[test]
fn new_entries_take_their_places_in_the_list() {
    let dir = Scratch::new("edit-new-places");
    for (name, bytes) in [("s.nres", samples::nres()), ("s.rsli", samples::rsli())] {
        let archive = written(&dir, name, &bytes);
        let folder = dir.join(format!("d-{name}"));
        ok(&["unpack", s(&archive), "-o", s(&folder)]);
        let rsli = name.ends_with("rsli");
        let mut listed = Vec::new();
        edit_manifest(&folder, |m| {
            let entries = m["entry"].as_array_mut().unwrap();
            let old = entries.len();
            listed = (0..old).map(Some).collect::<Vec<_>>();
            for (k, at) in [(0, 0), (1, 2), (2, old + 2)] {
                let file = format!("new{k}.bin");
                fs::write(folder.join(&file), format!("new entry {k}").repeat(k + 1)).unwrap();
                let mut new = toml::Table::new();
                new.insert("file".into(), file.clone().into());
                new.insert("name".into(), file.to_uppercase().into());
                if rsli {
                    new.insert("method".into(), ["lzhuf", "stored", "deflate"][k].into());
                }
                entries.insert(at, toml::Value::Table(new));
                listed.insert(at, None);
            }
        });
        let out = dir.join(format!("out-{name}"));
        ok(&["pack", s(&folder), "-o", s(&out)]);
        ok(&["verify", s(&out)]);
        let mut new = 0;
        for (i, was) in listed.iter().enumerate() {
            let got = ok(&["cat", "--index", &i.to_string(), s(&out)]).stdout;
            let want = match was {
                Some(j) => ok(&["cat", "--index", &j.to_string(), s(&archive)]).stdout,
                None => {
                    new += 1;
                    format!("new entry {}", new - 1).repeat(new).into_bytes()
                }
            };
            assert_eq!(got, want, "{name}: entry {i} ({was:?})");
        }
        assert_eq!(new, 3);
    }
}

/// The sample archives unpacked afresh, and `pack` of a folder that must fail: the
/// fixture of the tests of bad folders.
struct BadFolders {
    dir: Scratch,
    out: PathBuf,
}

impl BadFolders {
    fn new(name: &str) -> BadFolders {
        let dir = Scratch::new(name);
        fs::write(dir.join("s.rsli"), samples::rsli()).unwrap();
        fs::write(dir.join("s.nres"), samples::nres()).unwrap();
        let out = dir.join("out.bin");
        BadFolders { dir, out }
    }

    /// The sample of `format` ("rsli", "nres") unpacked into a folder of its own.
    fn fresh(&self, format: &str) -> PathBuf {
        let folder = self.dir.join(format!("d-{format}"));
        let _ = fs::remove_dir_all(&folder);
        let source = self.dir.join(format!("s.{format}"));
        ok(&["unpack", s(&source), "-o", s(&folder)]);
        folder
    }

    /// `pack` of `folder` fails with a message holding every one of `wants`, and writes
    /// nothing.
    fn check(&self, folder: &Path, wants: &[&str]) {
        let err = fails(&["pack", s(folder), "-o", s(&self.out)]);
        for want in wants {
            assert!(err.contains(want), "{err:?} lacks {want:?}");
        }
        assert!(!self.out.exists(), "nothing written: {err}");
    }
}

/// An NRes record whose `file` line is gone and whose payload, edited, starts in the data
/// region and runs past its end: its bytes there, in no gap, were cut from under it (exit
/// 0, an archive `verify` failed). Refused; the same record as `unpack` writes it, its
/// bytes kept as a gap, packs byte for byte.
#[test]
fn an_nres_record_without_its_file_keeps_its_bytes_or_is_refused() {
    let t = BadFolders::new("edit-bad-crossing");
    let folder = t.fresh("nres");
    edit_manifest(&folder, |m| {
        let entry = entry_mut(m, 5);
        assert_eq!(entry["name"].as_str(), Some("spark.fx"));
        entry.remove("file");
        entry.insert("size".into(), 113.into());
    });
    t.check(
        &folder,
        &["entry 5 (\"spark.fx\")", "file: missing", "from offset 288"],
    );

    // The archive that record describes: unpack keeps the bytes as a gap.
    let mut crossing = samples::nres();
    let count = u32::from_le_bytes(crossing[8..12].try_into().unwrap()) as usize;
    let record = crossing.len() - (count - 5) * 64;
    crossing[record + 12..record + 16].copy_from_slice(&113u32.to_le_bytes());
    let (archive, folder) = (t.dir.join("crossing.nres"), t.dir.join("crossing"));
    fs::write(&archive, &crossing).unwrap();
    ok(&["unpack", s(&archive), "-o", s(&folder)]);
    let out = t.dir.join("again.nres");
    ok(&["pack", s(&folder), "-o", s(&out)]);
    assert!(fs::read(&out).unwrap() == crossing, "packed byte for byte");

    // One that starts in the header reads no data bytes, whatever is cut: removing
    // another entry still packs (it was refused as if its bytes were cut from under it).
    let mut in_header = samples::nres();
    in_header[record + 12..record + 16].copy_from_slice(&300u32.to_le_bytes());
    in_header[record + 56..record + 60].copy_from_slice(&0u32.to_le_bytes());
    let (archive, folder) = (t.dir.join("in-header.nres"), t.dir.join("in-header"));
    fs::write(&archive, &in_header).unwrap();
    ok(&["unpack", s(&archive), "-o", s(&folder)]);
    edit_manifest(&folder, |m| {
        let entries = m["entry"].as_array_mut().unwrap();
        entries.retain(|e| e["name"].as_str() != Some("A_"));
    });
    ok(&["pack", s(&folder), "-o", s(&out), "--force"]);
}

#[test]
fn bad_folders_are_one_line_and_nothing_is_written() {
    let t = BadFolders::new("edit-bad");
    let (fresh, check) = (|f: &str| t.fresh(f), |d: &Path, w: &[&str]| t.check(d, w));
    let (archive, out) = (t.dir.join("s.rsli"), t.out.clone());
    let folder = fresh("rsli");
    fs::write(
        folder.join("ngi.toml"),
        "format = \"rsli\"\n[[entry]\nname = 1\n",
    )
    .unwrap();
    check(
        &folder,
        &[
            "ngi.toml",
            "line 2: [[entry] is no [[entry]] or [[gap]] header",
        ],
    );
    fs::write(
        folder.join("ngi.toml"),
        "format = \"rsli\"\n[[entry]]\nname = 1\n",
    )
    .unwrap();
    check(
        &folder,
        &[
            "ngi.toml",
            "line 1: does not parse: missing field `ngi_manifest`",
        ],
    );

    let folder = fresh("rsli");
    fs::remove_file(folder.join("LZSS.TXT")).unwrap();
    check(&folder, &["entry 4 (\"LZSS.TXT\")", "file", "LZSS.TXT"]);

    // A media overlay is the trailer's value: with none, or another, the core's editor
    // refused it naming no field of the manifest.
    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        drop(m.insert("media_overlay".into(), 16.into()))
    });
    check(
        &folder,
        &["media_overlay: 16, but there is no trailer to say it"],
    );
    edit_manifest(&folder, |m| {
        m.insert("trailer".into(), "414f20000000".into());
    });
    check(&folder, &["media_overlay: 16, but trailer says 32"]);

    // An entry whose `file` line is gone, its packed bytes in the data region: they
    // would come back as zeros (they did, exit 0, for RsLi).
    for (format, index, name) in [("rsli", 5, "DEFLATE.TXT"), ("rsli", 1, "SECRET.TXT")] {
        let folder = fresh(format);
        edit_manifest(&folder, |m| {
            entry_mut(m, index).remove("file");
        });
        check(
            &folder,
            &[&format!("entry {index} (\"{name}\")"), "file: missing"],
        );
    }

    // An NRes size edited while its file stays as it was: the payload would be cut.
    let folder = fresh("nres");
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("size".into(), 100.into());
    });
    check(&folder, &["entry 0", "size: 100", "holds 164 bytes"]);

    // A gap over an entry's bytes would overwrite them, its SHA-256 none the wiser.
    let folder = fresh("rsli");
    fs::write(folder.join("ngi-gaps.bin"), b"XXXXXXXXXX").unwrap();
    edit_manifest(&folder, |m| {
        m.insert("gaps".into(), "ngi-gaps.bin".into());
        let mut gap = toml::Table::new();
        gap.insert("offset".into(), 300.into());
        gap.insert("len".into(), 10.into());
        m.insert(
            "gap".into(),
            toml::Value::Array(vec![toml::Value::Table(gap)]),
        );
    });
    check(&folder, &["gap 0", "10 bytes at 300", "overlap"]);

    // An RsLi offset edited: the entry's old bytes are nobody's, and the full table has
    // no slot to drop them through (before: "data_start: a table of 7 entries cannot
    // hold the 7 listed", as if the table were at fault).
    let folder = fresh("rsli");
    let mut old_offset = 0;
    edit_manifest(&folder, |m| {
        let entry = entry_mut(m, 4);
        old_offset = entry["offset"].as_integer().unwrap();
        entry.insert("offset".into(), (old_offset + 1).into());
    });
    check(
        &folder,
        &[
            &format!("belong to no listed entry or gap now (1 at offset {old_offset})"),
            "the table has 0 (7 slots, 7 entries listed)",
            "keep the offsets and sizes, and the gaps (`[[gap]]`, `gaps` and its file), that unpack wrote",
        ],
    );

    // An existing archive is refused without --force, kept as it was.
    let folder = fresh("rsli");
    fs::write(&out, b"precious").unwrap();
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(err.contains("--force"), "{err}");
    assert_eq!(fs::read(&out).unwrap(), b"precious");
    ok(&["pack", s(&folder), "-o", s(&out), "--force"]);
    assert_eq!(fs::read(&out).unwrap(), samples::rsli());
    // unpack over an existing manifest too.
    let err = fails(&["unpack", s(&archive), "-o", s(&folder)]);
    assert!(err.contains("ngi.toml") && err.contains("--force"), "{err}");
}

/// Names and methods a manifest gives that the format cannot take: one line each, naming
/// the entry and the field, and nothing written.
#[test]
fn bad_names_and_methods_are_one_line_and_nothing_is_written() {
    let t = BadFolders::new("edit-bad-names");
    let (fresh, check) = (|f: &str| t.fresh(f), |d: &Path, w: &[&str]| t.check(d, w));
    // A control byte written raw in the manifest is shown escaped, as `list` shows it.
    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        entry_mut(m, 2).insert("name".into(), "\u{1b}[31mRED".into());
        entry_mut(m, 2).insert("method".into(), "zstd".into());
    });
    check(&folder, &["entry 2 (\"\\x1b[31mRED\")", "method"]);

    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        entry_mut(m, 2).insert("method".into(), "zstd".into());
    });
    check(&folder, &["entry 2 (\"MISSION.DAT\")", "method", "zstd"]);

    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("name".into(), "THIRTEEN.CHRS".into());
    });
    check(&folder, &["entry 0", "name", "13 bytes", "at most 12"]);

    let folder = fresh("nres");
    edit_manifest(&folder, |m| {
        entry_mut(m, 1).insert("name".into(), "x".repeat(36).into());
    });
    check(&folder, &["entry 1", "name", "36 bytes", "at most 35"]);

    // A new entry may not take a name the archive has.
    let folder = fresh("nres");
    fs::write(folder.join("dup.txt"), b"dup").unwrap();
    edit_manifest(&folder, |m| {
        let mut new = toml::Table::new();
        new.insert("file".into(), "dup.txt".into());
        new.insert("name".into(), "README.TXT".into());
        m["entry"]
            .as_array_mut()
            .unwrap()
            .push(toml::Value::Table(new));
    });
    check(&folder, &["entry 8 (\"README.TXT\")", "name", "entry 0"]);
}

/// Folders that would have pack read too much, write over its own inputs, or drop or
/// misname a field: refused, saying which.
#[test]
fn hostile_folders_are_refused_before_anything_is_read() {
    let t = BadFolders::new("edit-hostile");
    let (fresh, check) = (|f: &str| t.fresh(f), |d: &Path, w: &[&str]| t.check(d, w));
    let out = t.out.clone();
    // Sizes are checked before a byte is read: a kept stream of the wrong length, and an
    // entry's file larger than any entry (both sparse, refused at once: the file was
    // hashed whole, and the stream read whole, 3 GiB of memory, before).
    let folder = fresh("rsli");
    let huge = fs::File::create(folder.join("P")).unwrap();
    huge.set_len(3 << 30).unwrap();
    edit_manifest(&folder, |m| {
        entry_mut(m, 5).insert("packed".into(), "P".into());
    });
    // Under 256 MiB of address space: the 3 GiB read aborted the process.
    let o = run_under_256_mib(&["pack", s(&folder), "-o", s(&out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("entry 5 (\"DEFLATE.TXT\"): packed:")
            && err.contains(
                "3221225472 bytes, but the entry's packed bytes in the data region are 474"
            ),
        "{err}"
    );
    assert!(!out.exists());
    // An unchanged stored entry's unpacked_size edited: the fields that give its bytes
    // are named (the hint spoke only of the method).
    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("unpacked_size".into(), 4_000_000_000i64.into());
    });
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains("entry 0 (\"README.TXT\")")
            && err.contains("are 927 (by offset 256 and size 49, and unpacked_size 4000000000"),
        "{err}"
    );
    assert!(!out.exists());
    let folder = fresh("nres");
    let file = folder.join(ngi_name_file(&folder, 0));
    fs::File::create(&file).unwrap().set_len(5 << 30).unwrap();
    check(
        &folder,
        &[
            "entry 0",
            "5368709120 bytes, more than the 4294967295 an entry may hold",
        ],
    );

    // A line break in the folder's name stays out of the manifest's first comment (it
    // ended the comment, and pack refused what unpack wrote).
    let folder = t.dir.join("nl\n[x] = 1");
    ok(&["unpack", s(&t.dir.join("s.rsli")), "-o", s(&folder)]);
    ok(&["pack", s(&folder), "-o", s(&out)]);
    assert_eq!(fs::read(&out).unwrap(), samples::rsli());
    fs::remove_file(&out).unwrap();

    // A manifest dense with values is refused before it is parsed, naming the line (a
    // 10 MB line of them took 470 MB to parse, and aborted pack under a 1 GB address
    // space).
    let folder = fresh("rsli");
    let mut text = fs::read_to_string(folder.join("ngi.toml")).unwrap();
    text.push_str(&format!("x = [{}]\n", "0,".repeat(100_000)));
    fs::write(folder.join("ngi.toml"), text).unwrap();
    check(&folder, &["ngi.toml", "'[' outside a string"]);

    // What a manifest says is quoted with its control characters escaped.
    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("file".into(), "x\u{1b}]0;title\u{7}".into());
    });
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains("x\\x1b]0;title\\x07") && !err.contains('\u{1b}'),
        "{err:?}"
    );

    // The field at fault is the one named.
    let folder = fresh("nres");
    edit_manifest(&folder, |m| {
        m.insert("data_end".into(), 0.into());
    });
    check(&folder, &["data_end: 0 is before the data's start at 16"]);
    let folder = fresh("nres");
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("name_field".into(), "00".repeat(36).into());
    });
    check(&folder, &["entry 0", "name_field: holds a NUL byte"]);

    // A field of the other format's records would be dropped with no word: refused.
    let folder = fresh("nres");
    edit_manifest(&folder, |m| {
        entry_mut(m, 2).insert("flags".into(), 0x20.into());
    });
    check(&folder, &["entry 2", "flags: only RsLi entries have one"]);
    let folder = fresh("nres");
    edit_manifest(&folder, |m| {
        m.insert("seed".into(), 7.into());
    });
    check(&folder, &["seed: only an RsLi manifest has one"]);
    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("attr2".into(), 1.into());
    });
    check(&folder, &["entry 0", "attr2: only NRes entries have one"]);

    // Not even --force writes the archive over a file the folder gives pack.
    let folder = fresh("rsli");
    for own in ["ngi.toml", "README.TXT"] {
        let target = folder.join(own);
        let before = fs::read(&target).unwrap();
        let err = fails(&["pack", s(&folder), "-o", s(&target), "--force"]);
        assert!(err.contains("which pack reads"), "{err}");
        assert_eq!(fs::read(&target).unwrap(), before, "{own}");
    }
}

/// Manifest edits that pack dropped or misread with exit 0 (or refused for a wrong
/// reason): each is refused now, naming the field, and nothing is written. Found by a
/// probe of unpack and pack.
#[test]
fn manifest_edits_pack_would_drop_are_refused() {
    let t = BadFolders::new("edit-dropped");
    dropped_rsli_methods_flags_and_digests(&t);
    dropped_fields_of_new_rsli_entries(&t);
    dropped_nres_name_fields(&t);
    dropped_gaps_and_text(&t);
}

/// RsLi methods, flags and digests of entries unpacked.
fn dropped_rsli_methods_flags_and_digests(t: &BadFolders) {
    let (fresh, check) = (|f: &str| t.fresh(f), |d: &Path, w: &[&str]| t.check(d, w));
    // README.TXT, stored (flags 0), given LZSS in method and flags together: flags says
    // how it was packed in the archive unpacked, so this is refused for that.
    let folder = fresh("rsli");
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("method".into(), "lzss".into());
        entry_mut(m, 0).insert("flags".into(), 0x40.into());
    });
    check(
        &folder,
        &[
            "entry 0 (\"README.TXT\")",
            "packing the file again with lzss gives 56 bytes",
            "the method bits of flags say how the entry was packed",
        ],
    );
    // LZSS in flags alone reads as "was LZSS, now stored" (flags say how the entry was
    // unpacked): packed again as stored, which a line says, where nothing did; and flags
    // that name no method are said too (nothing was).
    for (flags, said_of_flags) in [
        (
            0x40,
            "0x0040, say lzss: the method it was unpacked with, unless they were edited",
        ),
        (0x1C0, "0x01c0, name no method"),
    ] {
        let folder = fresh("rsli");
        edit_manifest(&folder, |m| {
            entry_mut(m, 0).insert("flags".into(), flags.into());
        });
        let packed = ok(&["pack", s(&folder), "-o", s(&t.out)]);
        let said = String::from_utf8_lossy(&packed.stderr);
        let line = format!(
            "entry 0 (\"README.TXT\"): packed again with stored, as its `method` says (its \
             flags, {said_of_flags}; their method bits follow `method`)"
        );
        assert!(said.contains(&line), "{said}");
        assert_eq!(fs::read(&t.out).unwrap(), samples::rsli());
        fs::remove_file(&t.out).unwrap();
    }
    // A malformed or missing digest made the file count as changed, and a kept packed
    // stream was dropped.
    for edit in [Some("x".repeat(64)), Some("ab".into()), None] {
        let folder = fresh("rsli");
        edit_manifest(&folder, |m| match &edit {
            Some(sha) => drop(entry_mut(m, 5).insert("sha256".into(), sha.clone().into())),
            None => drop(entry_mut(m, 5).remove("sha256")),
        });
        let want = match edit {
            Some(_) => "sha256: not 32 bytes of hex",
            None => "sha256: missing",
        };
        check(&folder, &["entry 5 (\"DEFLATE.TXT\")", want]);
    }
}

/// Fields of a new RsLi entry that it would not have, and those it may keep.
fn dropped_fields_of_new_rsli_entries(t: &BadFolders) {
    let (fresh, check) = (|f: &str| t.fresh(f), |d: &Path, w: &[&str]| t.check(d, w));
    // Fields of a new RsLi entry that the entry would not have.
    let new_rsli = |field: &str, value: toml::Value| {
        let folder = fresh("rsli");
        fs::write(folder.join("new.bin"), b"hello hello hello").unwrap();
        edit_manifest(&folder, |m| {
            let mut new = toml::Table::new();
            new.insert("file".into(), "new.bin".into());
            new.insert("name".into(), "NEW.BIN".into());
            new.insert("method".into(), "lzss".into());
            new.insert(field.into(), value);
            m["entry"].as_array_mut().unwrap().push(new.into());
        });
        folder
    };
    for (field, value, want) in [
        (
            "flags",
            0x41.into(),
            "flags: 0x0041, but a new entry's are its method's (0x0040)",
        ),
        (
            "reserved",
            "ffffffff".into(),
            "reserved: a new entry's are zero",
        ),
        (
            "unpacked_size",
            5.into(),
            "unpacked_size: 5, but the file holds 17 bytes",
        ),
        (
            "key",
            3.into(),
            "key: only an entry of the archive unpacked has one",
        ),
        (
            "name_tail",
            "41".into(),
            "name_tail: a new entry's name field is zeros",
        ),
        (
            "packed",
            "README.TXT".into(),
            "packed: a new entry is packed from its file",
        ),
        // It was dropped with no word.
        (
            "sha256",
            "00".repeat(32).into(),
            "sha256: a new entry's file is packed whatever it holds",
        ),
    ] {
        check(&new_rsli(field, value), &["entry 7 (\"NEW.BIN\")", want]);
    }
    // Flags that name no method are said to be that.
    let folder = new_rsli("flags", 0x1e0.into());
    edit_manifest(&folder, |m| drop(entry_mut(m, 7).remove("method")));
    check(&folder, &["method: the flags 0x01e0 name no method"]);
    // The values it gets anyway may stay.
    let folder = new_rsli("flags", 0x40.into());
    edit_manifest(&folder, |m| {
        let new = entry_mut(m, 7);
        new.insert("unpacked_size".into(), 17.into());
        new.insert("reserved".into(), "00000000".into());
        new.insert("name_tail".into(), "0000".into());
    });
    ok(&["pack", s(&folder), "-o", s(&t.out)]);
    assert_eq!(cat(&t.out, "NEW.BIN"), b"hello hello hello");
    fs::remove_file(&t.out).unwrap();
}

/// NRes name fields with no NUL.
fn dropped_nres_name_fields(t: &BadFolders) {
    let (fresh, check) = (|f: &str| t.fresh(f), |d: &Path, w: &[&str]| t.check(d, w));
    // An NRes name field with no NUL, renamed in name: the field, written as it is, undid
    // the rename. A new entry may not have such a field.
    let archive = t.dir.join("nonul.nres");
    let mut writer = Writer::new();
    writer
        .add(
            NewEntry {
                name: b"A",
                ..NewEntry::default()
            },
            b"payload",
        )
        .unwrap();
    let mut bytes = writer.finish();
    let name_at = bytes.len() - 64 + 20;
    bytes[name_at..name_at + 36].fill(b'A');
    fs::write(&archive, &bytes).unwrap();
    let folder = t.dir.join("nonul");
    ok(&["unpack", s(&archive), "-o", s(&folder)]);
    edit_manifest(&folder, |m| {
        entry_mut(m, 0).insert("name".into(), "fixed".into());
    });
    check(&folder, &["entry 0", "name: not the name name_field holds"]);
    let folder = fresh("nres");
    fs::write(folder.join("new.bin"), b"new").unwrap();
    edit_manifest(&folder, |m| {
        let mut new = toml::Table::new();
        new.insert("file".into(), "new.bin".into());
        new.insert("name".into(), "new".into());
        new.insert("name_field".into(), "41".repeat(36).into());
        m["entry"].as_array_mut().unwrap().push(new.into());
    });
    check(
        &folder,
        &["name_field: only an entry of the archive unpacked has one"],
    );
}

/// Gap lists, and a manifest that is not UTF-8.
fn dropped_gaps_and_text(t: &BadFolders) {
    let (fresh, check) = (|f: &str| t.fresh(f), |d: &Path, w: &[&str]| t.check(d, w));
    // Gaps listed out of offset order took each other's bytes; a gap file with no gap
    // list was dropped.
    let mut writer = Writer::new();
    for name in [&b"a"[..], b"b", b"c"] {
        writer
            .add(
                NewEntry {
                    name,
                    ..NewEntry::default()
                },
                b"1234",
            )
            .unwrap();
    }
    let mut bytes = writer.finish();
    // Non-zero bytes in the padding after "a" and "b" (payloads at 16, 24, 32): two gaps.
    assert_eq!(&bytes[16..28], b"1234\0\0\0\x001234");
    for at in [20, 28] {
        bytes[at..at + 4].copy_from_slice(b"GAP!");
    }
    let archive = t.dir.join("gaps.nres");
    fs::write(&archive, &bytes).unwrap();
    let folder = t.dir.join("gaps");
    ok(&["unpack", s(&archive), "-o", s(&folder)]);
    edit_manifest(&folder, |m| {
        m["gap"].as_array_mut().unwrap().reverse();
    });
    check(&folder, &["gap 1: at 20, before the end of gap 0 (32)"]);
    ok(&["unpack", s(&archive), "-o", s(&folder), "--force"]);
    edit_manifest(&folder, |m| drop(m.remove("gap")));
    check(&folder, &["gaps:", "holds 8 bytes, the gap list 0"]);
    // A gap over an entry's bytes, listed after one that lies before every entry ("a"
    // taken out): the first ended the search.
    ok(&["unpack", s(&archive), "-o", s(&folder), "--force"]);
    edit_manifest(&folder, |m| {
        m["entry"].as_array_mut().unwrap().remove(0);
        m["gap"][1]
            .as_table_mut()
            .unwrap()
            .insert("offset".into(), 24.into());
    });
    check(
        &folder,
        &["gap 1: 4 bytes at 24 overlap the bytes of entry \"b\" (24..28)"],
    );
    // A gap in the header, of one byte or of four.
    for (len, said) in [(1, "1 byte at 0 is"), (4, "4 bytes at 0 are")] {
        ok(&["unpack", s(&archive), "-o", s(&folder), "--force"]);
        edit_manifest(&folder, |m| {
            let gap = m["gap"][0].as_table_mut().unwrap();
            gap.insert("offset".into(), 0.into());
            gap.insert("len".into(), len.into());
        });
        let want = format!("gap 0: {said} not inside the data region");
        check(&folder, &[&want]);
    }
    // A gap in the padding after a payload that grows is not kept (the editor writes a
    // changed payload's padding anew): a line says so, where nothing did. The other
    // gap stays.
    ok(&["unpack", s(&archive), "-o", s(&folder), "--force"]);
    fs::write(folder.join("a"), b"0123456789").unwrap();
    let packed = ok(&["pack", s(&folder), "-o", s(&t.out)]);
    let said = String::from_utf8_lossy(&packed.stderr);
    assert!(
        said.contains("gap 0 (4 bytes at 20) not kept: it lay after a payload")
            && !said.contains("gap 1"),
        "{said}"
    );
    let written = fs::read(&t.out).unwrap();
    assert_eq!(written.windows(4).filter(|w| w == b"GAP!").count(), 1);
    assert_eq!(cat(&t.out, "a"), b"0123456789");
    fs::remove_file(&t.out).unwrap();

    // A manifest that is not UTF-8 is named by its line.
    let folder = fresh("rsli");
    let mut text = fs::read(folder.join("ngi.toml")).unwrap();
    let lines = text.iter().filter(|&&b| b == b'\n').count();
    text.extend_from_slice(b"x = \"\xff\"\n");
    fs::write(folder.join("ngi.toml"), text).unwrap();
    check(&folder, &[&format!("line {}: not UTF-8", lines + 1)]);
}

/// A manifest edited so that a record of the unpacked archive no longer points at its
/// entry's bytes, or without a field unpack wrote, is refused and nothing is written: the
/// archive written is read back, and every entry with a file must decode to its bytes.
/// Each case below packed with exit 0 before, losing or changing the entry's data.
#[test]
fn records_that_no_longer_fit_their_files_are_refused() {
    let dir = Scratch::new("edit-records");
    let out = dir.join("out.bin");
    let mut cases: Vec<(&str, usize, &str, toml::Value, &[&str])> = vec![
        // Its bytes cut as nobody's, the record left past the directory.
        (
            "nres",
            2,
            "size",
            u32::MAX.into(),
            &["entry 2 (\"sky.tex\")", "past the directory"],
        ),
        (
            "nres",
            2,
            "offset",
            8.into(),
            &["entry 2 (\"sky.tex\")", "inside the 16-byte header"],
        ),
        // MISSION.DAT's 16 bytes decoded as 10.
        (
            "rsli",
            2,
            "unpacked_size",
            10.into(),
            &[
                "entry 2 (\"MISSION.DAT\")",
                "other bytes",
                "did its file change while pack ran",
            ],
        ),
    ];
    // Every field unpack writes for a record with an offset, each left out: once filled
    // with 0 (README.TXT decoded as 0 bytes, an NRes entry retyped).
    let each = [
        ("nres", "type_id"),
        ("nres", "attr1"),
        ("nres", "attr2"),
        ("nres", "attr3"),
        ("nres", "sort_index"),
        ("rsli", "flags"),
        ("rsli", "unpacked_size"),
        ("rsli", "sort_index"),
    ];
    for (format, field) in each {
        cases.push((format, 0, field, toml::Value::from(false), &["missing"]));
    }
    for (n, (format, index, field, value, wants)) in cases.into_iter().enumerate() {
        let archive = dir.join(format!("s.{format}"));
        let bytes = if format == "nres" {
            samples::nres()
        } else {
            samples::rsli()
        };
        fs::write(&archive, bytes).unwrap();
        let folder = dir.join(format!("d{n}"));
        ok(&["unpack", s(&archive), "-o", s(&folder)]);
        edit_manifest(&folder, |m| {
            let entry = entry_mut(m, index);
            // `false` stands for "taken out".
            if value.as_bool() == Some(false) {
                entry.remove(field);
            } else {
                entry.insert(field.into(), value.clone());
            }
        });
        let err = fails(&["pack", s(&folder), "-o", s(&out)]);
        let missing = format!("{field}: missing");
        let left_out = value.as_bool() == Some(false);
        for want in wants
            .iter()
            .chain(&[field])
            .chain(left_out.then_some(&&*missing))
        {
            assert!(
                err.contains(want),
                "{format} {field}: {err:?} lacks {want:?}"
            );
        }
        assert!(!out.exists(), "{format} {field}: written: {err}");
    }
    // The data region moved: README.TXT's record points into the table, which a larger
    // data_start makes of its bytes (it decoded to SECRET.TXT's, and verify passed).
    let folder = dir.join("moved");
    ok(&["unpack", s(&dir.join("s.rsli")), "-o", s(&folder)]);
    edit_manifest(&folder, |m| {
        m.insert("data_start".into(), 288.into());
    });
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains("entry 0 (\"README.TXT\")") && err.contains("data_start"),
        "{err}"
    );
    // A field naming a folder is named itself (it was "file:" for every field).
    fs::create_dir_all(folder.join("adir")).unwrap();
    edit_manifest(&folder, |m| {
        entry_mut(m, 1).insert("packed".into(), "adir".into());
    });
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains("packed: \"adir\" is not a regular file"),
        "{err}"
    );
    edit_manifest(&folder, |m| {
        entry_mut(m, 1).remove("packed");
    });
    // A data_end no 32-bit offset reaches (an NRes one wrapped to a "total size 575").
    edit_manifest(&folder, |m| {
        m.insert("data_start".into(), 256.into());
        m.insert("data_end".into(), i64::MAX.into());
    });
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains("data_end: 9223372036854775807 is past"),
        "{err}"
    );
    let left: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temporary files left: {left:?}");
}

#[test]
fn in_place_edits_add_rm_rename_sort_and_repack() {
    let dir = Scratch::new("edit-inplace");
    let archive = dir.join("s.nres");
    let old = samples::nres();
    fs::write(&archive, &old).unwrap();
    let old_archive = nres::Archive::open(&old).unwrap();
    let file = written(&dir, "hello.txt", b"hello, world");
    let o = ok(&[
        "add",
        s(&archive),
        s(&file),
        "--type",
        "0x54584554",
        "--attr2",
        "9",
    ]);
    let new = fs::read(&archive).unwrap();
    let said = String::from_utf8(o.stdout).unwrap();
    let want = format!(
        "{}: 1 entry added; 9 entries (was 8), {} bytes\n",
        s(&archive),
        new.len()
    );
    assert_eq!(said, want);
    let a = nres::Archive::open(&new).unwrap();
    // niCreateResFile: every old payload byte where it was.
    let data_end = old_archive.directory_offset() as usize;
    assert_eq!(new[16..data_end], old[16..data_end]);
    let added = a.find(b"HELLO.TXT").unwrap();
    let e = a.entry(added).unwrap();
    assert_eq!(
        (e.type_id, e.attr2, e.data_offset as usize),
        (0x54584554, 9, data_end)
    );
    assert_eq!(cat(&archive, "hello.txt"), b"hello, world");

    let err = fails(&["add", s(&archive), s(&file)]);
    assert!(err.contains("already named \"hello.txt\""), "{err}");
    // By the entry's own name, not the query that matched it.
    let err = fails(&["add", s(&archive), s(&file), "--name", "HELLO.TXT"]);
    assert!(err.contains("already named \"hello.txt\""), "{err}");
    let err = fails(&["add", s(&archive), s(&file), "--name", &"n".repeat(36)]);
    assert!(err.contains("36 bytes"), "{err}");
    // A file whose name is too long for an entry: the file named and --name suggested,
    // not the index the entry would have had ("entry 8: name of 40 bytes ...").
    let long = written(&dir, "l".repeat(40), b"x");
    let err = fails(&["add", s(&archive), s(&long)]);
    let want = format!(
        "{}: entry \"{}\": name of 40 bytes is longer than 35 (give it another with --name)",
        s(&long),
        "l".repeat(40)
    );
    assert!(err.contains(&want), "{err}");
    // Options the archive's format has no field for are usage errors (exit 2), as a
    // command line clap refuses is; they were exit 1, like a bad archive. Each points to
    // its command's help, where the option is explained (they all said 'ngi --help').
    let lib = written(&dir, "s.rsli", samples::rsli());
    for (args, want) in [
        (
            &["add", s(&archive), s(&file), "--method", "lzss"][..],
            "--method applies to RsLi; NRes payloads are stored as they are (see 'ngi add --help')",
        ),
        (
            &["add", s(&lib), s(&file), "--type", "1"],
            "--type and --attr1..3 apply to NRes; RsLi entries have flags (see 'ngi add --help')",
        ),
        (
            &["add", s(&archive), "--name", "N", s(&file), s(&file)],
            "--name needs exactly one FILE",
        ),
        (
            &["sort", s(&lib), "name"],
            "sort applies to NRes; an RsLi library's order is its table's (see 'ngi sort --help')",
        ),
        (
            &["sort", s(&archive), "12"],
            "invalid value '12' for '<MODE>': is 0 to 11 or the name of a mode (see 'ngi sort \
             --help')",
        ),
    ] {
        let o = ngi(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(want) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    assert_eq!(fs::read(&lib).unwrap(), samples::rsli());
    assert_eq!(
        fs::read(&archive).unwrap(),
        new,
        "refused edits write nothing"
    );

    let o = ok(&["rename", s(&archive), "HELLO.TXT", "greeting.txt"]);
    assert_eq!(cat(&archive, "greeting.txt"), b"hello, world");
    // The count is the same: no "(was 9)".
    let said = String::from_utf8(o.stdout).unwrap();
    let size = fs::metadata(&archive).unwrap().len();
    let want = format!(
        "{}: entry 8 renamed \"greeting.txt\"; 9 entries, {size} bytes\n",
        s(&archive)
    );
    assert_eq!(said, want);
    // The entry in the way is named by its own name, not the query that matched it.
    let err = fails(&["rename", s(&archive), "greeting.txt", "README.TXT"]);
    assert!(
        err.ends_with(
            ": entry 8 (\"greeting.txt\") cannot be renamed \"README.TXT\": entry 0 is \
             already named \"readme.txt\"\n"
        ),
        "{err}"
    );
    // A name the format refuses: the entry, its name and the new one, so that the old
    // name is not taken for the one at fault ("entry 0: the name holds a lower-case
    // letter" was all it said).
    let err = fails(&["rename", s(&lib), "README.TXT", "lower.txt"]);
    assert!(
        err.ends_with(
            ": entry 0 (\"README.TXT\") cannot be renamed \"lower.txt\": the name holds a \
             lower-case letter, so rsFind (which upper-cases queries) could never find it\n"
        ),
        "{err}"
    );
    assert_eq!(fs::read(&lib).unwrap(), samples::rsli());
    ok(&["sort", s(&archive), "type-name"]);
    let sorted = fs::read(&archive).unwrap();
    let a = nres::Archive::open(&sorted).unwrap();
    let types: Vec<u32> = a.entries().map(|e| e.type_id).collect();
    assert!(types.windows(2).all(|w| w[0] <= w[1]), "{types:?}");
    assert_eq!(a.lookup_table(), nres::LookupTable::Canonical);
    ok(&["rm", s(&archive), "greeting.txt", "sky.tex"]);
    ok(&["verify", s(&archive)]);
    let err = fails(&["rm", s(&archive), "sky.tex"]);
    assert!(err.contains("no entry named \"sky.tex\""), "{err}");
    let a = fs::read(&archive).unwrap();
    assert_eq!(
        nres::Archive::open(&a).unwrap().len(),
        old_archive.len() - 1
    );
}

/// `repack` writes the canonical form, which verify passes without a note; an RsLi
/// library takes an entry of any method in place, and an unknown sort mode is a usage
/// error.
#[test]
fn repack_is_canonical_and_rsli_adds_any_method() {
    let dir = Scratch::new("edit-repack-add");
    let archive = written(&dir, "s.nres", samples::nres());
    let file = written(&dir, "hello.txt", b"hello, world");

    let odd = written(&dir, "odd.nres", samples::odd_nres());
    let canonical = dir.join("canonical.nres");
    ok(&["repack", s(&odd), "-o", s(&canonical)]);
    let v = ok(&["verify", s(&canonical)]);
    assert!(
        v.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&v.stderr)
    );
    let bytes = fs::read(&canonical).unwrap();
    assert_eq!(
        nres::Archive::open(&bytes).unwrap().lookup_table(),
        nres::LookupTable::Canonical
    );
    for name in ["B.DAT", "a.dat", "c.dat"] {
        assert_eq!(cat(&canonical, name), cat(&odd, name));
    }
    let err = fails(&["repack", s(&odd), "-o", s(&canonical)]);
    assert!(err.contains("--force"), "{err}");

    // RsLi: add with a method, sort refused.
    let lib = written(&dir, "s.rsli", samples::all_methods());
    ok(&["add", s(&lib), s(&file), "--method", "xor-lzhuf"]);
    assert_eq!(cat(&lib, "HELLO.TXT"), b"hello, world");
    for (name, method) in samples::ALL_METHODS {
        let name = std::str::from_utf8(name).unwrap();
        assert_eq!(cat(&lib, name), samples::all_methods_text(method), "{name}");
    }
    ok(&["verify", s(&lib)]);
    let o = ngi(&["sort", s(&archive), "by-size"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A folder its user may write in and not list: an edit's rename needs only the first,
/// and the flush of the folder after it, which opens the folder, fails. The archive is
/// replaced, so the edit is done and the flush's failure said, exit 0: it was "not
/// written", exit 1, and a retried `rm --index 2` removed a second entry. Run as root, the
/// edit runs as `nobody`, whom the folder's mode keeps out as it keeps out its owner.
#[cfg(target_os = "linux")]
#[test]
fn an_edit_whose_folder_cannot_be_flushed_is_done_and_said() {
    use std::os::unix::fs::{PermissionsExt, chown};
    use std::os::unix::process::CommandExt;
    // Not the tests' temporary folder, which `nobody` may not enter.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("edit-unlistable");
    if dir.exists() {
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }
    fs::create_dir_all(&dir).unwrap();
    let archive = written(&dir, "a.nres", samples::nres());
    let entries = |archive: &Path| {
        let o = ok(&["list", s(archive), "--json"]);
        let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        rows.as_array().unwrap().len()
    };
    let before = entries(&archive);
    let root = rustix::process::getuid().is_root();
    if root {
        chown(&dir, Some(65534), Some(65534)).unwrap();
        chown(&archive, Some(65534), Some(65534)).unwrap();
    }
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o300)).unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_ngi"));
    command.args(["rm", "--index", "2", s(&archive)]);
    if root {
        command.uid(65534).gid(65534);
    }
    let o = command.output().unwrap();
    fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("a.nres: written, but its folder could not be flushed to disk"),
        "{err}"
    );
    assert_eq!(entries(&archive), before - 1);
    fs::remove_dir_all(&dir).unwrap();
}

/// SHA-256-free identity: length and a sampled checksum would do, but the files are small
/// enough to compare whole.
fn same_file(path: &Path, want: &[u8]) -> bool {
    fs::read(path).is_ok_and(|got| got == want)
}

#[test]
fn pack_killed_at_any_moment_leaves_the_old_archive_or_the_new() {
    // A 64 MiB NRes: 64 entries of 1 MiB.
    let dir = Scratch::new("edit-kill");
    let mut writer = Writer::new();
    let mut rng = Rng::new(64);
    for i in 0..64u32 {
        let name = format!("chunk{i:02}.bin");
        let entry = NewEntry {
            name: name.as_bytes(),
            ..NewEntry::default()
        };
        writer.add(entry, &rng.bytes(1 << 20)).unwrap();
    }
    let a_bytes = writer.finish();
    let (_, folder) = unpacked(&dir, "source.nres", &a_bytes, "d");
    // B: one file changed in place of A's.
    let changed = folder.join("chunk00.bin");
    let a_file = fs::read(&changed).unwrap();
    let b_file: Vec<u8> = a_file.iter().map(|b| b ^ 0x5A).collect();
    fs::write(&changed, &b_file).unwrap();
    let target = dir.join("target.nres");
    let said = ok(&["pack", s(&folder), "-o", s(&target)]).stdout;
    let said = String::from_utf8_lossy(&said);
    assert!(said.contains(" (1 changed, 0 added), "), "{said}");
    let b_bytes = fs::read(&target).unwrap();
    assert_ne!(a_bytes, b_bytes);
    fs::write(&target, &a_bytes).unwrap();

    // How long one pack takes, to kill within it; measured again every tenth round,
    // which runs to its end: a machine that got busier after the first measure made
    // every kill land before the rename (a helper's run, moved onto a loaded core).
    let start = Instant::now();
    ok(&["pack", s(&folder), "-o", s(&target), "--force"]);
    let mut full = start.elapsed().max(Duration::from_millis(20));
    let mut states = [0usize; 2];
    let mut rng = Rng::new(9);
    let deadline = Instant::now() + Duration::from_secs(600);
    let mut round = 0;
    while round < 100 || states.contains(&0) {
        assert!(
            Instant::now() < deadline && round < 300,
            "the loop is bounded in time and rounds: kills landed {states:?} before and \
             after the rename"
        );
        // Alternate which archive the folder makes, so each run replaces the other.
        let (file, want_new) = if round % 2 == 0 {
            (&a_file, &a_bytes)
        } else {
            (&b_file, &b_bytes)
        };
        fs::write(&changed, file).unwrap();
        let old = fs::read(&target).unwrap();
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_ngi"))
            .args(["pack", s(&folder), "-o", s(&target), "--force"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let measure = round % 10 == 9;
        if measure {
            assert!(child.wait().unwrap().success());
            // The latest, not the longest: one slow run would make every kill land late.
            full = started.elapsed().max(Duration::from_millis(20));
        } else {
            std::thread::sleep(full.mul_f64(rng.below(1200) as f64 / 1000.0));
            let _ = child.kill(); // SIGKILL
            child.wait().unwrap();
        }
        let now_old = same_file(&target, &old);
        let now_new = same_file(&target, want_new);
        assert!(
            now_old || now_new,
            "round {round}: the target is neither the old nor the new archive"
        );
        assert!(
            now_new || !measure,
            "round {round}: a whole run left the old"
        );
        if !measure {
            states[usize::from(now_new && !now_old)] += 1;
        }
        // A killed run leaves its temporary file; nothing else.
        for entry in fs::read_dir(&dir).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".tmp") {
                assert!(name.starts_with(".target.nres.%ngi-"), "{name}");
                fs::remove_file(entry.path()).unwrap();
            }
        }
        round += 1;
    }
    println!(
        "killed runs: {} left the old archive, {} the new",
        states[0], states[1]
    );
}

#[test]
fn add_to_a_2_gib_archive_stays_under_64_mib() {
    let dir = Scratch::new("edit-big");
    let path = dir.join("big.nres");
    // Sparse: a 2 GiB payload of zeros, then a 1 KiB one, then the directory.
    const BIG: u64 = 2 << 30;
    let small: Vec<u8> = (0..1024u32).map(|i| (i * 7) as u8).collect();
    let len = 16 + BIG + 1024 + 2 * 64;
    write_sparse_nres(
        &path,
        len,
        &[
            (b"zeros.bin", BIG as u32, 16, &[]),
            (b"small.bin", 1024, (16 + BIG) as u32, &small),
        ],
    );
    let added = written(&dir, "added.txt", b"one more");
    let (_, peak) =
        ngi_tests::peak::run_measured(env!("CARGO_BIN_EXE_ngi"), &["add", s(&path), s(&added)]);
    println!("ngi add to a {len}-byte archive: peak RSS {peak} KiB");
    assert!(peak < 64 * 1024, "peak {peak} KiB");
    assert_eq!(fs::metadata(&path).unwrap().len(), len + 8 + 64);
    assert_eq!(cat(&path, "added.txt"), b"one more");
    assert_eq!(cat(&path, "small.bin"), small);

    // SIGTERM while the 2 GiB are copied: the edit stops, its temporary file goes and the
    // archive is as it was (the kill left a temporary file as large as the archive).
    #[cfg(unix)]
    {
        let before = fs::metadata(&path).unwrap();
        let child = Command::new(env!("CARGO_BIN_EXE_ngi"))
            .args(["add", s(&path), s(&added), "--name", "again.txt"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        signal(child.id(), "TERM");
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("stopped by a signal"), "{err}");
        let after = fs::metadata(&path).unwrap();
        assert_eq!(
            (after.len(), after.modified().unwrap()),
            (before.len(), before.modified().unwrap())
        );
        let left: Vec<_> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "{left:?}");
    }
}

/// Ctrl-C or SIGTERM during `extract`: the file being written goes (under `--force` the
/// old one stays as it was), the files done stay, and the run says it stopped. With
/// `-j 2` the entry after the large one is written by the other job before the signal,
/// and the run says so (it said only where it stopped, as if nothing after was there).
#[cfg(unix)]
#[test]
fn extract_stopped_by_a_signal_leaves_no_partial_file() {
    let dir = Scratch::new("extract-signal");
    let path = dir.join("big.nres");
    // Sparse: a small entry, 2 GiB of zeros, and a small entry sharing the first's bytes.
    const BIG: u64 = 2 << 30;
    let len = 16 + 8 + BIG + 64 * 3;
    write_sparse_nres(
        &path,
        len,
        &[
            (b"a.txt", 5, 16, b"first"),
            (b"zeros.bin", BIG as u32, 24, &[]),
            (b"b.txt", 5, 16, b"first"),
        ],
    );
    for (force, signal_name, jobs) in [(false, "INT", "1"), (true, "TERM", "2")] {
        let out = dir.join(format!("out-{force}"));
        fs::create_dir_all(&out).unwrap();
        let target = out.join("zeros.bin");
        if force {
            fs::write(&target, b"old").unwrap();
        }
        let mut args = vec![
            "extract",
            s(&path),
            "-o",
            s(&out),
            "-j",
            jobs,
            "--max-entry-size",
            "4G",
        ];
        if force {
            args.push("--force");
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_ngi"))
            .args(&args)
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Once 64 MiB of the large entry are written (within a minute, or the run is too
        // slow for the signal to be known to land mid-entry).
        let deadline = Instant::now() + Duration::from_secs(60);
        let written = || {
            fs::read_dir(&out)
                .unwrap()
                .filter_map(|e| e.unwrap().metadata().ok())
                .any(|m| m.len() >= 64 << 20)
        };
        while !written() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if !written() {
            let _ = child.kill();
            panic!("extract wrote no 64 MiB of the entry within a minute");
        }
        signal(child.id(), signal_name);
        let o = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("extraction stopped at entry 1 (\"zeros.bin\"): stopped by a signal"),
            "{err}"
        );
        assert_eq!(fs::read(out.join("a.txt")).unwrap(), b"first");
        let mut left: Vec<_> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        if force {
            assert!(
                err.contains("1 entry chosen after entry 1 extracted all the same")
                    && err.contains("1 of 3 entries not extracted"),
                "{err}"
            );
            assert_eq!(left, ["a.txt", "b.txt", "zeros.bin"]);
            assert_eq!(fs::read(&target).unwrap(), b"old");
        } else {
            assert!(
                !err.contains("all the same") && err.contains("2 of 3 entries not extracted"),
                "{err}"
            );
            assert_eq!(left, ["a.txt"]);
        }
    }
}

/// A gap of the data region no entry holds goes to `ngi-gaps.bin` a piece at a time:
/// unpack held all of it in memory, and a 300 MiB gap aborted it under a 256 MiB address
/// space. Pack gives the archive back byte for byte.
#[cfg(unix)]
#[test]
fn a_large_gap_is_unpacked_and_packed_in_bounded_memory() {
    let dir = Scratch::new("edit-gap");
    let path = dir.join("gap.nres");
    const GAP: u64 = 300 << 20;
    let len = 16 + GAP + 8 + 64;
    write_sparse_nres(&path, len, &[(b"a.txt", 5, (16 + GAP) as u32, b"hello")]);
    let folder = dir.join("d");
    under_256_mib(&["unpack", s(&path), "-o", s(&folder)]);
    assert_eq!(
        fs::metadata(folder.join("ngi-gaps.bin")).unwrap().len(),
        GAP
    );
    let out = dir.join("again.nres");
    under_256_mib(&["pack", s(&folder), "-o", s(&out)]);
    let same = Command::new("cmp").arg(&path).arg(&out).status().unwrap();
    assert!(same.success(), "packed again byte for byte");
}

/// Runs `ngi args` under 256 MiB of address space (`ulimit -v`, through `sh`).
fn run_under_256_mib(args: &[&str]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 262144 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_ngi"))
        .args(args)
        .output()
        .unwrap()
}

/// [`run_under_256_mib`], which must succeed.
#[cfg(unix)]
fn under_256_mib(args: &[&str]) {
    let o = run_under_256_mib(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// A sparse file of `len` bytes, `head` at its start and `tail` at its end.
#[cfg(unix)]
fn sparse_file(path: &Path, len: u64, head: &[u8], tail: &[u8]) {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = fs::File::create(path).unwrap();
    f.set_len(len).unwrap();
    f.write_all(head).unwrap();
    f.seek(SeekFrom::Start(len - tail.len() as u64)).unwrap();
    f.write_all(tail).unwrap();
}

/// `pack` copies an unchanged stored RsLi entry from its file as it writes the library,
/// whether unpack wrote it decoded (200 MiB) or kept its packed bytes (300 MiB, past the
/// default --max-entry-size): it read each whole (and copied it once more), so either
/// aborted it under 256 MiB of address space, changed files or not.
#[cfg(unix)]
#[test]
fn pack_copies_unchanged_stored_rsli_payloads() {
    use std::io::Write;
    let dir = Scratch::new("edit-pack-rsli-large");
    for (big, kept) in [(200u32 << 20, "BIG.BIN"), (300 << 20, "BIG.BIN.packed")] {
        let path = dir.join("big.rsli");
        let entries = [
            hostile::rentry(b"A.TXT", 0, 0, 5, 96, 5),
            hostile::rentry(b"BIG.BIN", 0, 1, big, 101, big),
        ];
        let head = hostile::rsli_file(7, false, &entries, b"hello", None);
        let mut f = fs::File::create(&path).unwrap();
        f.write_all(&head).unwrap();
        f.set_len(101 + u64::from(big)).unwrap();
        drop(f);
        let folder = dir.join("d");
        under_256_mib(&["unpack", s(&path), "-o", s(&folder), "--force"]);
        assert!(folder.join(kept).exists(), "{kept}");
        let out = dir.join("again.rsli");
        under_256_mib(&["pack", s(&folder), "-o", s(&out), "--force"]);
        let same = Command::new("cmp").arg(&path).arg(&out).status().unwrap();
        assert!(same.success(), "packed again byte for byte");
        fs::remove_dir_all(&folder).unwrap();
    }
}

/// Whether entry `name` of `archive` reads as `file`, compared by `cmp` through a pipe
/// (for entries larger than a test should hold).
#[cfg(unix)]
fn reads_as(archive: &Path, name: &str, file: &Path) -> bool {
    Command::new("sh")
        .arg("-c")
        .arg("\"$0\" cat \"$1\" \"$2\" | cmp - \"$3\"")
        .arg(env!("CARGO_BIN_EXE_ngi"))
        .args([s(archive), name, s(file)])
        .status()
        .unwrap()
        .success()
}

/// `add` copies a large file into a stored or XOR RsLi entry as it writes the library: it
/// read the file whole and packed a copy of it (395 MB for 200 MB), which aborted under
/// 256 MiB of address space. The entry reads back as the file, and the library verifies.
#[cfg(unix)]
#[test]
fn add_copies_a_large_stored_or_xor_rsli_file() {
    let dir = Scratch::new("edit-add-rsli-large");
    let file = dir.join("big.bin");
    let big = 200u64 << 20;
    let head: Vec<u8> = (0..4096u32).map(|i| (i * 13 + 5) as u8).collect();
    sparse_file(&file, big, &head, b"the end");
    for (method, name) in [("stored", "BIG.BIN"), ("xor", "AAA.BIN")] {
        let path = written(&dir, "lib.rsli", samples::all_methods());
        under_256_mib(&[
            "add",
            s(&path),
            s(&file),
            "--name",
            name,
            "--method",
            method,
        ]);
        let listed = String::from_utf8(ok(&["list", s(&path)]).stdout).unwrap();
        assert!(listed.contains(name), "{method}: {listed}");
        assert!(
            reads_as(&path, name, &file),
            "{method}: the entry reads as the file"
        );
        ok(&["verify", s(&path)]);
    }
}

/// `pack` copies a new or changed stored or XOR RsLi entry's file as it writes the
/// library: it read each whole and packed a copy, so a 200 MiB one aborted under 256 MiB
/// of address space. Each entry reads back as its file.
#[cfg(unix)]
#[test]
fn pack_copies_new_and_changed_stored_or_xor_rsli_files() {
    let dir = Scratch::new("edit-pack-rsli-new");
    let (path, folder) = unpacked(&dir, "lib.rsli", samples::rsli(), "d");
    let big = 200u64 << 20;
    // A changed XOR entry, and a new stored one.
    sparse_file(&folder.join("SECRET.TXT"), big, b"changed", b"its end");
    sparse_file(&folder.join("NEW.BIN"), big, b"new", b"the end");
    let mut manifest = fs::read_to_string(folder.join("ngi.toml")).unwrap();
    manifest.push_str("\n[[entry]]\nfile = \"NEW.BIN\"\nname = \"NEW.BIN\"\n");
    fs::write(folder.join("ngi.toml"), manifest).unwrap();
    let out = dir.join("out.rsli");
    under_256_mib(&["pack", s(&folder), "-o", s(&out)]);
    ok(&["verify", s(&out)]);
    for name in ["SECRET.TXT", "NEW.BIN"] {
        assert!(reads_as(&out, name, &folder.join(name)), "{name}");
    }
    assert_eq!(cat(&out, "README.TXT"), cat(&path, "README.TXT"));
}

/// `unpack` decodes a large packed RsLi entry where memory is short: 200 MiB of zeros from
/// a 1.3 MB Deflate stream, under 256 MiB of address space. Its decoded bytes grew by
/// doubling (a 256 MiB step) and packing them again to compare took half as much once
/// more, so the process aborted; they are now reserved once, fallibly, and the stream,
/// which miniz_oxide does not make again, is kept as `.packed`. `pack` gives the library
/// back byte for byte.
#[cfg(unix)]
#[test]
fn unpack_decodes_a_large_packed_rsli_entry_where_memory_is_short() {
    let dir = Scratch::new("edit-unpack-rsli-large");
    let size: usize = 200 << 20;
    let library = zeros_library(size);
    let path = written(&dir, "zeros.rsli", &library);
    let folder = dir.join("d");
    under_256_mib(&["unpack", s(&path), "-o", s(&folder)]);
    let file = fs::metadata(folder.join("ZEROS.BIN")).unwrap();
    assert_eq!(file.len(), size as u64);
    assert!(folder.join("ZEROS.BIN.packed").exists(), "the stream kept");
    let out = dir.join("again.rsli");
    under_256_mib(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        fs::read(&out).unwrap() == library,
        "packed again byte for byte"
    );

    // 300 MiB cannot be held at all: not decoded, its stream kept, one line, exit 0.
    fs::write(&path, zeros_library(300 << 20)).unwrap();
    let folder = dir.join("d300");
    let o = run_under_256_mib(&[
        "unpack",
        s(&path),
        "-o",
        s(&folder),
        "--max-entry-size",
        "1G",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("are more than the memory there is"), "{err}");
    // Said as done: the stream kept, not the record alone (a mutant no test killed).
    let kept = "entry 0 (\"ZEROS.BIN\") not decoded, its packed bytes kept: ";
    assert!(err.contains(kept), "{err}");
    assert!(folder.join("ZEROS.BIN.packed").exists(), "the stream kept");
    assert!(
        !folder.join("ZEROS.BIN").exists(),
        "no file for what was not decoded"
    );
}

/// An RsLi library of one Deflate entry of `size` zeros: a zero, then matches of it at
/// distance 1, in one fixed-Huffman block (1.3 MB for 200 MiB).
fn zeros_library(size: usize) -> Vec<u8> {
    use ngi_tests::deflate_bits::Bits;
    let mut bits = Bits::default();
    bits.put(1, 1).put(1, 2).fixed(0);
    let mut left = size - 1;
    while left > 0 {
        // Never leave less than a match's 3 bytes for the last one.
        let len = if left > 258 && left - 258 < 3 {
            left - 3
        } else {
            left.min(258)
        };
        bits.fixed_match(len, 1);
        left -= len;
    }
    let stream = bits.fixed(256).done();
    let entries = [hostile::rentry(
        b"ZEROS.BIN",
        0x100,
        0,
        size as u32,
        64,
        stream.len() as u32,
    )];
    hostile::rsli_file(7, false, &entries, &stream, None)
}

/// `pack` reads an NRes entry's new or changed file as it writes the archive, as it
/// copies unchanged ones: it held each in memory until the archive was written, so a
/// 300 MiB file aborted it under 256 MiB of address space.
#[cfg(unix)]
#[test]
fn pack_streams_new_and_changed_nres_payloads() {
    let dir = Scratch::new("edit-pack-large");
    let (archive, folder) = unpacked(&dir, "s.nres", samples::nres(), "d");
    const LEN: u64 = 300 << 20;
    sparse_file(&folder.join("big.bin"), LEN, b"the new one", b"its end");
    let mut changed = String::new();
    edit_manifest(&folder, |m| {
        changed = entry_mut(m, 0)["file"].as_str().unwrap().to_owned();
        let mut new = toml::Table::new();
        new.insert("file".into(), "big.bin".into());
        new.insert("name".into(), "big.bin".into());
        m["entry"]
            .as_array_mut()
            .unwrap()
            .insert(1, toml::Value::Table(new));
    });
    sparse_file(&folder.join(&changed), LEN, b"changed", b"the end");
    let out = dir.join("out.nres");
    under_256_mib(&["pack", s(&folder), "-o", s(&out)]);
    // Past the default 256 MiB an entry may decode to.
    let big = ["--max-entry-size", "1G"];
    ok(&[&["verify", s(&out)], &big[..]].concat());
    for (index, head, tail) in [
        ("0", &b"changed"[..], &b"the end"[..]),
        ("1", b"the new one", b"its end"),
    ] {
        let got = ok(&[&["cat", "--index", index, s(&out)], &big[..]].concat()).stdout;
        assert_eq!(got.len() as u64, LEN, "entry {index}");
        assert!(
            got.starts_with(head) && got.ends_with(tail),
            "entry {index}"
        );
        assert!(
            got[head.len()..got.len() - tail.len()]
                .iter()
                .all(|&b| b == 0)
        );
    }
    // The entries after them are as they were.
    let before = ok(&["cat", "--index", "3", s(&archive)]).stdout;
    assert_eq!(ok(&["cat", "--index", "4", s(&out)]).stdout, before);
}

/// `add` copies an NRes payload from its file as the archive is written, and refuses a
/// file the archive cannot take before reading it: each was read whole first (4.2 GB of
/// memory to refuse a 4 GB file, an abort where memory was short). An RsLi payload to
/// pack is read; where memory is short that is one line and exit 1, not an abort (a stored
/// one is copied: `add_copies_a_large_stored_or_xor_rsli_file`).
#[cfg(unix)]
#[test]
fn add_copies_nres_payloads_and_fails_cleanly_where_memory_is_short() {
    let dir = Scratch::new("edit-add-large");
    let nres_path = written(&dir, "s.nres", samples::nres());
    const LEN: u64 = 300 << 20;
    let big = dir.join("big.bin");
    sparse_file(&big, LEN, b"head", b"tail");
    under_256_mib(&["add", s(&nres_path), s(&big)]);
    let got = ok(&["cat", "--max-entry-size", "1G", s(&nres_path), "big.bin"]).stdout;
    assert_eq!(got.len() as u64, LEN);
    assert!(got.starts_with(b"head") && got.ends_with(b"tail"));
    ok(&["verify", "--max-entry-size", "1G", s(&nres_path)]);

    let under_256_mib_fails = |args: &[&str]| -> String {
        let o = run_under_256_mib(args);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        err
    };
    let before = fs::read(&nres_path).unwrap();
    let near_4_gib = dir.join("near4g.bin");
    sparse_file(&near_4_gib, 4_294_967_000, b"x", b"y");
    let err = under_256_mib_fails(&["add", s(&nres_path), s(&near_4_gib)]);
    assert!(err.contains("would exceed 4294967295 bytes"), "{err}");
    assert!(fs::read(&nres_path).unwrap() == before, "nothing written");

    let rsli_path = written(&dir, "s.rsli", samples::rsli());
    let err = under_256_mib_fails(&["add", s(&rsli_path), s(&big), "--method", "lzss"]);
    assert!(err.contains("more than the memory there is"), "{err}");
    assert_eq!(fs::read(&rsli_path).unwrap(), samples::rsli());
    // 200 MiB is read, but its stream is more than is left: packing it aborted the
    // process ("memory allocation of 235929601 bytes failed").
    let two_hundred = dir.join("200.bin");
    sparse_file(&two_hundred, 200 << 20, b"head", b"tail");
    let add = |method| ["add", s(&rsli_path), s(&two_hundred), "--method", method];
    let err = under_256_mib_fails(&add("lzss"));
    assert!(err.contains("needs more memory than there is"), "{err}");
    assert_eq!(fs::read(&rsli_path).unwrap(), samples::rsli());
    // A stream that fits is packed (LZHUF grows it as it goes; LZSS reserves its worst
    // case, 1/8 more than the data).
    under_256_mib(&add("xor-lzhuf"));
    ok(&["verify", s(&rsli_path)]);
}

/// A read-only archive (`chmod a-w`) is not edited, nor replaced by `-o --force`: the
/// edit renames a new file over it, which only needs the folder's permission, so it was
/// rewritten. An archive whose name is near the 255-byte limit can be edited: the
/// temporary file's name, the archive's and 20 bytes more, was too long for it.
#[cfg(unix)]
#[test]
fn read_only_archives_are_refused_and_long_names_edited() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("edit-read-only");
    let path = written(&dir, "ro.nres", samples::nres());
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    let err = fails(&["rm", s(&path), "AB"]);
    assert!(
        err.contains("read-only") && err.contains("nothing written"),
        "{err}"
    );
    let other = written(&dir, "other.nres", samples::nres());
    let err = fails(&["repack", s(&other), "-o", s(&path), "--force"]);
    assert!(err.contains("read-only"), "{err}");
    assert_eq!(fs::read(&path).unwrap(), samples::nres(), "untouched");
    fs::set_permissions(&path, fs::Permissions::from_mode(0o644)).unwrap();
    ok(&["rm", s(&path), "AB"]);

    let long = written(&dir, format!("{}.nres", "n".repeat(245)), samples::nres());
    ok(&["rm", s(&long), "AB"]);
    ok(&["repack", s(&other), "-o", s(&long), "--force"]);
    assert_eq!(fs::read(&long).unwrap(), fs::read(&other).unwrap());
}

/// A refusal names an entry by its index in the archive as `ngi list` showed it, not as
/// the edit renumbered it (after `rm S`, the entry listed as 1 was "entry 0"); `repack`'s
/// refusals name the entry too; and two files of one `add` with one name are said to be
/// that, not an entry the archive does not have.
#[test]
fn refusals_number_entries_as_they_were_listed() {
    let dir = Scratch::new("edit-numbering");
    let mut builder = Builder::new();
    builder.add(b"S", Method::Stored, b"PAYLOAD!").unwrap();
    builder
        .add(b"T", Method::Stored, b"sixteen bytes!!!")
        .unwrap();
    let mut bytes = builder.build().unwrap();
    // T's bytes now lie inside the table: an edit that rewrites the table is refused.
    hostile::patch_rsli(&mut bytes, |i, e| {
        if i == 1 {
            e.data_offset = 40;
        }
    });
    let path = written(&dir, "t.rsli", &bytes);
    let err = fails(&["rm", s(&path), "S"]);
    assert!(err.contains("entry 1 (\"T\")"), "{err}");
    let err = fails(&["repack", s(&path)]);
    assert!(err.contains("entry 1 (\"T\")"), "{err}");
    assert!(
        err.ends_with("; remove that entry first, or leave the archive as it is\n"),
        "{err}"
    );
    assert_eq!(fs::read(&path).unwrap(), bytes, "nothing written");
    // A name with no NUL in its 36 bytes, which repack cannot write: the refusal says to
    // rename it (the last record's name, at byte 20 of the last 64).
    let mut unterminated = samples::nres();
    let name_at = unterminated.len() - 64 + 20;
    unterminated[name_at..name_at + 36].fill(b'N');
    let unterminated_path = written(&dir, "unterminated.nres", &unterminated);
    let err = fails(&["repack", s(&unterminated_path)]);
    assert!(err.ends_with("; rename that entry first\n"), "{err}");

    let nres_path = written(&dir, "s.nres", samples::nres());
    let (a, b) = (dir.join("a"), dir.join("b"));
    fs::create_dir_all(&a).unwrap();
    fs::create_dir_all(&b).unwrap();
    fs::write(a.join("same.txt"), b"one").unwrap();
    fs::write(b.join("same.txt"), b"two").unwrap();
    let err = fails(&[
        "add",
        s(&nres_path),
        s(&a.join("same.txt")),
        s(&b.join("same.txt")),
    ]);
    assert!(
        err.contains("is the name of a file added before it by this command"),
        "{err}"
    );
}

/// `add` of many files copied as the archive is written opens one at a time (each was
/// kept open: 300 files failed under `ulimit -n 100`), and a file whose size says less
/// than it holds (under /proc, 0) is added with what it holds.
#[cfg(target_os = "linux")]
#[test]
fn add_opens_one_file_at_a_time_and_reads_what_files_hold() {
    let dir = Scratch::new("edit-add-many");
    let path = written(&dir, "s.nres", samples::nres());
    let files = dir.join("files");
    fs::create_dir_all(&files).unwrap();
    let mut args = vec!["add".to_string(), s(&path).to_string()];
    for i in 0..200 {
        let file = files.join(format!("f{i:03}"));
        sparse_file(&file, 64 << 10, format!("file {i}").as_bytes(), b"end");
        args.push(s(&file).to_string());
    }
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 64 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_ngi"))
        .args(&args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for i in [0, 117, 199] {
        let got = ok(&["cat", s(&path), &format!("f{i:03}")]).stdout;
        assert_eq!(got.len(), 64 << 10);
        assert!(got.starts_with(format!("file {i}").as_bytes()) && got.ends_with(b"end"));
    }

    let want = fs::read("/proc/version").unwrap();
    assert_eq!(
        fs::metadata("/proc/version").unwrap().len(),
        0,
        "its size says 0"
    );
    ok(&["add", s(&path), "/proc/version"]);
    assert_eq!(ok(&["cat", s(&path), "version"]).stdout, want);
}

/// An RsLi entry whose bytes run from the end of the table into the payloads: the folder
/// `unpack` writes packs back byte for byte. `pack` rebuilt the `sort_index` values a
/// canonical manifest asks for even when they were the engine's already, which counted as
/// an edit, and an edit refuses such an entry.
#[test]
fn a_library_with_an_entry_across_the_table_end_packs_back() {
    let dir = Scratch::new("edit-straddle");
    let mut builder = Builder::new();
    builder.add(b"X", Method::Stored, b"xxxxxxxx").unwrap();
    builder.add(b"Y", Method::Stored, b"data").unwrap();
    let mut bytes = builder.build().unwrap();
    // The table ends at 32 + 2 * 32 = 96: X now reads 92..100.
    hostile::patch_rsli(&mut bytes, |i, e| {
        if i == 0 {
            e.data_offset = 92;
        }
    });
    let (_, folder) = unpacked(&dir, "straddle.rsli", &bytes, "d");
    let out = dir.join("out.rsli");
    ok(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        fs::read(&out).unwrap() == bytes,
        "packed back byte for byte"
    );
}

/// Sends signal `name` (`TERM`, `INT`) to process `pid`.
#[cfg(unix)]
fn signal(pid: u32, name: &str) {
    let status = Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

#[cfg(unix)]
#[test]
fn links_and_limits_are_handled_as_a_user_expects() {
    let dir = Scratch::new("edit-links");
    // An in-place edit through a symbolic link edits the archive it names; the link stays.
    let real = written(&dir, "real.rsli", samples::rsli());
    let link = dir.join("link.rsli");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(&["rm", s(&link), "README.TXT"]);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let o = ngi(&["cat", s(&real), "README.TXT"]);
    assert_eq!(o.status.code(), Some(1), "removed from the real file");

    // pack does not follow a link a folder holds in place of an entry's file.
    let folder = dir.join("d");
    ok(&["unpack", s(&real), "-o", s(&folder)]);
    let secret = written(&dir, "secret", b"not for the archive");
    let entry_file = dir.join("lzss");
    fs::rename(folder.join("LZSS.TXT"), &entry_file).unwrap();
    std::os::unix::fs::symlink(&secret, folder.join("LZSS.TXT")).unwrap();
    let out = dir.join("out.rsli");
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains("LZSS.TXT") && err.contains("not a regular file"),
        "{err}"
    );
    assert!(!out.exists());
    // Nor one in place of the manifest (the entry file put back, so that only the
    // manifest is in the way).
    fs::remove_file(folder.join("LZSS.TXT")).unwrap();
    fs::rename(&entry_file, folder.join("LZSS.TXT")).unwrap();
    let manifest = dir.join("manifest.toml");
    fs::rename(folder.join("ngi.toml"), &manifest).unwrap();
    std::os::unix::fs::symlink(&manifest, folder.join("ngi.toml")).unwrap();
    let err = fails(&["pack", s(&folder), "-o", s(&out)]);
    assert!(
        err.contains("ngi.toml") && err.contains("links are not followed"),
        "{err}"
    );
    assert!(!out.exists());
    fs::remove_file(folder.join("ngi.toml")).unwrap();
    fs::rename(&manifest, folder.join("ngi.toml")).unwrap();
    ok(&["pack", s(&folder), "-o", s(&out)]);
    assert_eq!(fs::read(&out).unwrap(), fs::read(&real).unwrap());

    // An NRes payload unpack cannot write out fails the unpack instead of coming back as
    // zeros.
    let nres_file = written(&dir, "s.nres", samples::nres());
    let err = fails(&[
        "unpack",
        s(&nres_file),
        "-o",
        s(&dir.join("n")),
        "--max-entry-size",
        "16",
    ]);
    assert!(err.contains("--max-entry-size"), "{err}");
    assert!(
        !dir.join("n").exists(),
        "a failed unpack leaves no folder it made"
    );
}

/// An archive whose manifest pack could never read is refused before a file is written:
/// 800 000 empty entries were all written out first (a million took 210 s and 1.2 GB),
/// and refused at the end.
#[test]
fn unpack_refuses_a_manifest_too_large_before_writing() {
    let dir = Scratch::new("edit-huge-manifest");
    let mut writer = Writer::new();
    for i in 0..800_000u32 {
        let name = format!("e{i:06}");
        let entry = NewEntry {
            name: name.as_bytes(),
            ..NewEntry::default()
        };
        writer.add(entry, b"").unwrap();
    }
    let archive = written(&dir, "huge.nres", writer.finish());
    let out = dir.join("out");
    let err = fails(&["unpack", s(&archive), "-o", s(&out)]);
    assert!(
        err.contains("the manifest of its 800000 entries would be at least ")
            && err.contains("bytes, more than the 67108864 pack reads"),
        "{err}"
    );
    assert!(!out.exists());
}

/// An unpack that fails leaves nothing of its own behind: a limit that would stop it
/// midway is refused before a file is written, and a failure on the way removes the
/// files written before it (a folder of entry files without a manifest is no unpacked
/// archive, and it is in the way of the next try). What was in the folder before stays.
#[test]
fn a_failed_unpack_leaves_nothing_behind() {
    let dir = Scratch::new("edit-unpack-fails");
    let lib = written(&dir, "s.rsli", samples::rsli());

    // README.TXT 49 + SECRET.TXT 51 + MISSION.DAT 16 + EMPTY 0 + LZSS.TXT 232 > 300.
    let folder = dir.join("limited");
    let err = fails(&["unpack", s(&lib), "-o", s(&folder), "--max-total", "300"]);
    assert!(
        err.contains("entry 4 (\"LZSS.TXT\")") && err.contains("--max-total"),
        "{err}"
    );
    assert!(!folder.exists(), "{err}");
    // With a limit of all its entries' bytes (5364), the same folder unpacks in full.
    ok(&["unpack", s(&lib), "-o", s(&folder), "--max-total", "5364"]);
    assert!(folder.join("ngi.toml").is_file());

    // A folder in the way of entry 4's file: entries 0-3 are written, then removed; the
    // user's own file and folder stay.
    let folder = dir.join("in-the-way");
    fs::create_dir_all(folder.join("LZSS.TXT")).unwrap();
    fs::write(folder.join("mine.txt"), b"mine").unwrap();
    let err = fails(&["unpack", s(&lib), "-o", s(&folder)]);
    assert!(
        err.contains("entry 4 (\"LZSS.TXT\")") && err.contains("the 4 files written were removed"),
        "{err}"
    );
    let mut left: Vec<String> = fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["LZSS.TXT", "mine.txt"], "{err}");
    assert_eq!(fs::read(folder.join("mine.txt")).unwrap(), b"mine");

    // With --force over an earlier unpack, the files it would have replaced stay as they
    // were, an edit included: replacements wait for the whole unpack (a failed run once
    // removed them, then left the archive's versions over the user's edits, which a
    // later pack would have taken for the entries).
    let folder = dir.join("again");
    ok(&["unpack", s(&lib), "-o", s(&folder)]);
    fs::remove_file(folder.join("LZSS.TXT")).unwrap();
    fs::create_dir(folder.join("LZSS.TXT")).unwrap();
    fs::write(folder.join("README.TXT"), b"my edit").unwrap();
    let err = fails(&["unpack", s(&lib), "-o", s(&folder), "--force"]);
    assert!(
        err.contains("the 4 files --force would have replaced left as they were")
            && !err.contains("ngi.toml is still"),
        "{err}"
    );
    assert_eq!(fs::read(folder.join("README.TXT")).unwrap(), b"my edit");
    let temporary = fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.starts_with('.'))
        .collect::<Vec<_>>();
    assert!(temporary.is_empty(), "temporary files left: {temporary:?}");
    for file in [
        "README.TXT",
        "SECRET.TXT",
        "MISSION.DAT",
        "EMPTY",
        "ngi.toml",
    ] {
        assert!(folder.join(file).is_file(), "{file}: {err}");
    }

    // Every folder the run made goes, not only the innermost (a write past `ulimit -f`
    // fails DEFLATE.TXT, the first entry larger than the limit).
    let nested = dir.join("p1");
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 2 && exec \"$0\" unpack \"$1\" -o \"$2\"")
        .args([env!("CARGO_BIN_EXE_ngi"), s(&lib), s(&nested.join("p2/p3"))])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("DEFLATE.TXT") && err.contains("p1 removed"),
        "{err}"
    );
    assert!(!nested.exists(), "{err}");
}

/// A write past the file size limit (`ulimit -f`) is an error like any other: the edit
/// says so on one line, exits 1, leaves the archive as it was and no temporary file. It
/// was a kill by SIGXFSZ (exit 153 in a shell, no message) that left the temporary file.
#[cfg(unix)]
#[test]
fn a_write_past_the_file_size_limit_is_an_error_not_a_kill() {
    let dir = Scratch::new("edit-fsize");
    let archive = written(&dir, "a.nres", samples::nres());
    let big = written(&dir, "big.bin", Rng::new(7).bytes(200_000));
    // 50 blocks of 1024 bytes (POSIX `ulimit -f` counts in 512-byte blocks in some shells,
    // 1024 in others; either is far below the 200 000 bytes added).
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 50 && exec \"$0\" add \"$1\" \"$2\"")
        .args([env!("CARGO_BIN_EXE_ngi"), s(&archive), s(&big)])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("not written") && err.contains("too large"),
        "{err}"
    );
    assert_eq!(fs::read(&archive).unwrap(), samples::nres());
    let names: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(
        names.len(),
        2,
        "only the archive and the added file: {names:?}"
    );
}

/// `rm` and `rename` take `--index N`: the only way, but for unpack and pack, to the later
/// of two entries whose names the engine's rules take as one ("Steel.mat" and "STEEL.MAT"
/// in the sample, entries 1 and 6: by name, both commands reach entry 1).
#[test]
fn the_later_of_two_entries_of_one_name_is_reached_by_index() {
    let dir = Scratch::new("edit-index");
    let archive = dir.join("a.nres");
    let steel = |index: &str| ok(&["cat", "--index", index, s(&archive)]).stdout;
    fs::write(&archive, samples::nres()).unwrap();
    let (first, later) = (steel("1"), steel("6"));
    assert_ne!(first, later);

    ok(&["rm", "--index", "6", s(&archive)]);
    assert!(!listed_names(&archive).contains(&"STEEL.MAT".to_string()));
    assert_eq!(cat(&archive, "STEEL.MAT"), first);

    fs::write(&archive, samples::nres()).unwrap();
    ok(&["rename", "--index", "6", s(&archive), "OTHER.MAT"]);
    assert_eq!(listed_names(&archive)[6], "OTHER.MAT");
    assert_eq!(cat(&archive, "OTHER.MAT"), later);
    assert_eq!(cat(&archive, "STEEL.MAT"), first);

    // Both at once, an index past the end, and rename's two forms mixed up.
    fs::write(&archive, samples::nres()).unwrap();
    ok(&["rm", "--index", "0", s(&archive), "sky.tex", "--index", "6"]);
    assert_eq!(listed_names(&archive).len(), 5);
    let err = fails(&["rm", "--index", "9", s(&archive)]);
    assert!(
        err.contains("no entry with index 9 (the archive has 5 entries)"),
        "{err}"
    );
    for args in [
        &["rename", "--index", "1", s(&archive), "A", "B"][..],
        &["rename", s(&archive), "NEW.TXT"],
    ] {
        let o = ngi(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
    assert_eq!(listed_names(&archive).len(), 5);
}

/// An edit after which a lookup by name gives another entry than before says so. Of two
/// entries whose names the engine takes as one, the lookup table's binary search decides
/// which a name gives, and every edit that adds or removes entries rebuilds the table as
/// the engine does: adding an unrelated file can change which the game loads (it said
/// nothing). `cat NAME` before and after each addition is the model; the note is said
/// exactly when what it gives changed.
#[test]
fn an_edit_that_changes_what_a_name_gives_says_so() {
    let dir = Scratch::new("edit-lookup-moved");
    let mut library = Builder::new();
    for (i, name) in ["DUP", "AAA", "DUP", "ZZZ"].into_iter().enumerate() {
        let data = format!("payload {i}");
        library
            .add(name.as_bytes(), Method::Stored, data.as_bytes())
            .unwrap();
    }
    for (name, bytes, dup) in [
        ("a.nres", samples::nres(), "steel.mat"),
        ("a.rsli", library.build().unwrap(), "DUP"),
    ] {
        let archive = written(&dir, name, &bytes);
        let mut moves = 0;
        for k in 0..8 {
            let file = written(&dir, format!("x{k}.bin"), [k]);
            let before = cat(&archive, dup);
            let err = String::from_utf8(ok(&["add", s(&archive), s(&file)]).stderr).unwrap();
            let moved = cat(&archive, dup) != before;
            assert_eq!(
                err.contains("note: a lookup of"),
                moved,
                "{name}, x{k}: {err}"
            );
            assert!(err.lines().count() <= 1, "{err}");
            moves += usize::from(moved);
        }
        assert!(
            moves > 0,
            "{name}: no addition moved the lookup; the test tests nothing"
        );
    }
    // Removing the entry a name gives makes the other the one given.
    let archive = written(&dir, "a.nres", samples::nres());
    let err = String::from_utf8(ok(&["rm", "--index", "1", s(&archive)]).stderr).unwrap();
    assert!(
        err.contains(
            "a.nres: note: a lookup of \"STEEL.MAT\" gave entry 1 (\"Steel.mat\") before this \
             edit (numbered as then), and now gives entry 5 (\"STEEL.MAT\") (the engine takes \
             the names as one)"
        ),
        "{err}"
    );
    // An edit that moves no lookup says nothing.
    let err = String::from_utf8(ok(&["rename", s(&archive), "sky.tex", "sea.tex"]).stderr).unwrap();
    assert_eq!(err, "");
}

/// `rename` of an entry whose record another entry's bytes lie in (an entry that points
/// into the table) is refused, naming that entry, and the file is left as it was; an
/// edit that leaves those bytes alone goes through. Before, the rename exited 0 and the
/// other entry read other bytes.
#[test]
fn an_edit_that_would_change_an_entry_reading_the_table_is_refused() {
    let dir = Scratch::new("edit-in-table");
    let mut builder = Builder::new();
    for (name, data) in [(&b"A.TXT"[..], &b"A's bytes"[..]), (b"B.TXT", b"B's bytes")] {
        builder.add(name, ngi_core::Method::Stored, data).unwrap();
    }
    let mut bytes = builder.build().unwrap();
    // B reads 8 bytes of A's record (its name, encrypted).
    hostile::patch_rsli(&mut bytes, |i, e| {
        if i == 1 {
            (e.data_offset, e.packed_size, e.unpacked_size) = (32, 8, 8);
        }
    });
    let archive = written(&dir, "lib.rlb", &bytes);
    let before = cat(&archive, "B.TXT");
    assert_eq!(before, bytes[32..40]);

    let err = fails(&["rename", s(&archive), "A.TXT", "Q.TXT"]);
    assert!(
        err.contains("entry 1 (\"B.TXT\"): its packed bytes at offset 32 lie outside")
            && err.contains("remove that entry first"),
        "{err}"
    );
    assert!(same_file(&archive, &bytes), "left as it was");
    // B's own record is not what it reads: renaming B (in the same place of the order)
    // goes through, and it reads as before.
    ok(&["rename", s(&archive), "B.TXT", "C.TXT"]);
    assert_eq!(cat(&archive, "C.TXT"), before);
    ok(&["rm", s(&archive), "C.TXT"]);
    assert_eq!(cat(&archive, "A.TXT"), b"A's bytes");
}

/// Two edits of one archive at once: the second is refused while the first holds the
/// file (an advisory lock), instead of both reading the old archive and the later save
/// dropping the earlier one's entry with both exiting 0. The test holds the lock itself.
#[cfg(target_os = "linux")]
#[test]
fn an_edit_under_way_keeps_others_out() {
    use rustix::fs::{FlockOperation, flock};
    let dir = Scratch::new("edit-locked");
    let archive = written(&dir, "a.nres", samples::nres());
    let file = written(&dir, "new.txt", b"new");
    let before = fs::read(&archive).unwrap();
    let (other, folder) = unpacked(&dir, "other.nres", samples::nres(), "unpacked");
    let held = fs::File::open(&archive).unwrap();
    flock(&held, FlockOperation::NonBlockingLockExclusive).unwrap();
    for args in [
        &["add", s(&archive), s(&file)][..],
        &["rm", s(&archive), "sky.tex"],
        &["rename", s(&archive), "sky.tex", "sea.tex"],
        &["sort", s(&archive), "1"],
        &["repack", s(&archive)],
        // `-o` naming the archive itself is an edit in place too.
        &["repack", s(&archive), "-o", s(&archive), "--force"],
        // Replacing it whole while it is edited: the edit's save would come after.
        &["repack", s(&other), "-o", s(&archive), "--force"],
        &["pack", s(&folder), "-o", s(&archive), "--force"],
    ] {
        let err = fails(args);
        assert!(
            err.contains("another edit of this archive is under way"),
            "{err}"
        );
        assert!(same_file(&archive, &before), "{args:?}");
    }
    // Repacking into another file reads the archive alone.
    ok(&["repack", s(&archive), "-o", s(&dir.join("copy.nres"))]);
    drop(held);
    ok(&["add", s(&archive), s(&file)]);
    assert_eq!(cat(&archive, "new.txt"), b"new");
    // `-o` a link to the archive itself, with --force: repacked in place through the link
    // (it was refused as "not a regular file").
    let link = dir.join("link.nres");
    std::os::unix::fs::symlink(&archive, &link).unwrap();
    ok(&["repack", s(&archive), "-o", s(&link), "--force"]);
    assert!(
        fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(cat(&archive, "new.txt"), b"new");
}

/// Writes a sparse NRes archive of `len` bytes at `path`: `entries` are (name, size,
/// data_offset, the bytes written at data_offset; the rest of each payload reads as
/// zeros), the directory at the end and its sort slots in name order.
fn write_sparse_nres(path: &Path, len: u64, entries: &[(&[u8], u32, u32, &[u8])]) {
    use std::io::{Seek, SeekFrom, Write};
    let mut f = fs::File::create(path).unwrap();
    f.set_len(len).unwrap();
    let header = nres::Header {
        entry_count: entries.len() as u32,
        total_size: len as u32,
    };
    f.write_all(&header.to_bytes()).unwrap();
    let mut order: Vec<usize> = (0..entries.len()).collect();
    order.sort_by_key(|&i| entries[i].0.to_ascii_lowercase());
    f.seek(SeekFrom::Start(len - 64 * entries.len() as u64))
        .unwrap();
    for (slot, &(name, size, at, _)) in entries.iter().enumerate() {
        let mut field = [0u8; 36];
        field[..name.len()].copy_from_slice(name);
        let e = nres::Entry {
            index: 0,
            type_id: 0,
            attr1: 0,
            attr2: 0,
            size,
            attr3: 0,
            name_field: &field,
            data_offset: at,
            sort_index: order[slot] as u32,
        };
        f.write_all(&e.to_bytes()).unwrap();
    }
    for &(_, _, at, bytes) in entries {
        f.seek(SeekFrom::Start(u64::from(at))).unwrap();
        f.write_all(bytes).unwrap();
    }
}

/// An output that ends in a slash (or `/.`, `..`) names a folder: refused as a usage
/// error before anything is read. `x/` and `x/.` were read as the file `x` by the write
/// but not by the checks before it, so a probe's existing file `x`, read-only, and the
/// folder's own manifest were replaced without `--force`.
#[test]
fn an_output_ending_in_a_slash_is_refused() {
    let dir = Scratch::new("edit-output-slash");
    let (archive, folder) = unpacked(&dir, "a.nres", samples::nres(), "mod");
    let kept = written(&dir, "kept.txt", "keep");
    let manifest = folder.join("ngi.toml");
    let manifest_text = fs::read(&manifest).unwrap();
    for out in [
        format!("{}/", s(&kept)),
        format!("{}/.", s(&kept)),
        format!("{}/", s(&manifest)),
        format!("{}/..", s(&folder)),
    ] {
        for args in [
            vec!["pack", s(&folder), "-o", &out],
            vec!["repack", s(&archive), "-o", &out],
        ] {
            let o = ngi(&args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
            assert!(err.contains("names a folder, not a file to write"), "{err}");
        }
    }
    assert_eq!(fs::read(&kept).unwrap(), b"keep");
    assert_eq!(fs::read(&manifest).unwrap(), manifest_text);
    assert_eq!(fs::read(&archive).unwrap(), samples::nres());
}

/// With `lookup = "as-stored"` the manifest's `sort_index` values are written as given,
/// until entries are added, removed or reordered: the values are entry indices, and the
/// table is rebuilt then, which is said (it was silent). A new entry's own value, which
/// the rebuilt table would drop, is refused (RsLi and NRes alike).
#[test]
fn as_stored_sort_index_is_kept_or_its_rebuild_said() {
    let dir = Scratch::new("edit-as-stored");
    for (name, bytes, new_name) in [
        ("a.nres", samples::nres(), "new.bin"),
        ("a.rsli", samples::rsli(), "NEW.BIN"),
    ] {
        let archive = written(&dir, name, &bytes);
        let folder = dir.join(format!("{name}.d"));
        ok(&["unpack", s(&archive), "-o", s(&folder)]);
        let manifest = folder.join("ngi.toml");
        // The first two entries' values swapped, as-stored: written as given.
        let text = fs::read_to_string(&manifest)
            .unwrap()
            .replace("lookup = \"canonical\"", "lookup = \"as-stored\"");
        let values: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("sort_index = "))
            .collect();
        let (first, second) = (values[0].to_string(), values[1].to_string());
        assert_ne!(first, second);
        let swapped = text
            .replacen(&first, "SWAP", 1)
            .replacen(&second, &first, 1)
            .replacen("SWAP", &second, 1);
        fs::write(&manifest, &swapped).unwrap();
        let out = dir.join(format!("out-{name}"));
        let o = ok(&["pack", s(&folder), "-o", s(&out)]);
        assert!(!String::from_utf8_lossy(&o.stderr).contains("rebuilt"));
        let written = ngi_core::archive::Catalog::open(
            &fs::read(&out).unwrap()[..],
            ngi_core::OpenOptions::DEFAULT,
        )
        .unwrap()
        .entries()
        .iter()
        .map(|e| match e.native {
            ngi_core::archive::Native::Nres(r) => r.entry().sort_index,
            ngi_core::archive::Native::Rsli(r) => u32::from(r.file_sort_index),
        })
        .collect::<Vec<u32>>();
        let number = |line: &str| line["sort_index = ".len()..].parse::<u32>().unwrap();
        assert_eq!(written[..2], [number(&second), number(&first)], "{name}");
        // A new entry with a value of its own: refused.
        fs::write(folder.join("new.bin"), "new").unwrap();
        let added = format!(
            "{swapped}\n[[entry]]\nfile = \"new.bin\"\nname = \"{new_name}\"\nsort_index = 77\n"
        );
        fs::write(&manifest, &added).unwrap();
        let err = fails(&["pack", s(&folder), "-o", s(&out), "--force"]);
        assert!(
            err.contains("sort_index: a new entry's comes from the lookup table"),
            "{err}"
        );
        // Without it, the table is rebuilt, and that is said.
        fs::write(&manifest, added.replace("sort_index = 77\n", "")).unwrap();
        let o = ok(&["pack", s(&folder), "-o", s(&out), "--force"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("lookup table rebuilt, ") && err.contains("sort_index values not kept"),
            "{name}: {err}"
        );
    }
}

/// `pack` writes what the manifest says, also where a lookup then fails, and says so as
/// `verify` would: an RsLi entry renamed to lower case or to another entry's name, and a
/// presorted flag set over as-stored values that are no entry indices (SPEC 2.5: the
/// engine takes them as indices unchecked). It said nothing, exit 0.
#[test]
fn pack_says_what_lookups_the_manifest_breaks() {
    let dir = Scratch::new("edit-pack-lookups");
    let (_, folder) = unpacked(&dir, "a.rsli", samples::rsli(), "a.rsli.d");
    let names: Vec<String> =
        ngi_core::archive::Catalog::open(&samples::rsli()[..], ngi_core::OpenOptions::DEFAULT)
            .unwrap()
            .entries()
            .iter()
            .map(|e| String::from_utf8(e.name().to_vec()).unwrap())
            .collect();
    let out = dir.join("out.rsli");
    let pack = |edit: &dyn Fn(&mut toml::Table)| {
        let manifest = folder.join("ngi.toml");
        let kept = fs::read(&manifest).unwrap();
        edit_manifest(&folder, edit);
        let o = ok(&["pack", s(&folder), "-o", s(&out), "--force"]);
        fs::write(&manifest, kept).unwrap();
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    // Nothing broken: nothing said.
    assert_eq!(pack(&|_| {}), "");
    let lower = names[1].to_ascii_lowercase();
    let err = pack(&|m| {
        entry_mut(m, 1).insert("name".into(), lower.clone().into());
    });
    assert!(
        err.contains(&format!(
            "out.rsli: note: entry 1 (\"{lower}\") cannot be found by its name: rsFind \
             upper-cases every query\n"
        )),
        "{err}"
    );
    let err = pack(&|m| {
        entry_mut(m, 1).insert("name".into(), names[0].clone().into());
    });
    assert!(
        err.contains("out.rsli: note: entry 1 (") && err.contains("cannot be found by its name"),
        "{err}"
    );
    let err = pack(&|m| {
        m.insert("lookup".into(), "as-stored".into());
        m.insert("presorted_flag".into(), 0xABBA.into());
        entry_mut(m, 0).insert("sort_index".into(), 99.into());
    });
    assert!(
        err.contains("out.rsli: note: lookup table at offset 50: presorted (0xABBA), entry 0 has sort_index 99 out of range")
            && err.contains("(a problem to `ngi verify`; lookup = \"canonical\" rebuilds the table)"),
        "{err}"
    );
    assert_eq!(ngi(&["verify", s(&out)]).status.code(), Some(1));
    // A name typed beyond ASCII is said to be written as UTF-8 (unpack writes \xNN).
    let err = pack(&|m| {
        entry_mut(m, 2).insert("name".into(), "ТЕСТ.TXT".into());
    });
    assert!(
        err.contains(
            "entry 2 (\"\\xd0\\xa2\\xd0\\x95\\xd0\\xa1\\xd0\\xa2.TXT\"): name written as \
             the UTF-8 bytes of its characters beyond ASCII (the engine reads single bytes, in \
             the game's code page; write others as \\xNN)"
        ),
        "{err}"
    );
    // Files no record lists are said not to be packed (a record forgotten gave "0
    // added" alone); hidden ones are not.
    fs::write(folder.join("NEW.BIN"), "new").unwrap();
    fs::write(folder.join("zz.txt"), "zz").unwrap();
    fs::write(folder.join(".hidden"), "h").unwrap();
    let err = pack(&|_| {});
    assert_eq!(
        err,
        format!(
            "ngi: {}: 2 files in the folder no record lists, not packed: NEW.BIN, zz.txt\n",
            folder.join("ngi.toml").display()
        )
    );
    // The archive written into the folder itself is no file a record forgot (it was said
    // to be one, though it was not there before the run).
    let inside = folder.join("y.rsli");
    let o = ngi(&["pack", s(&folder), "-o", s(&inside)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8(o.stderr).unwrap();
    assert_eq!(
        err,
        format!(
            "ngi: {}: 2 files in the folder no record lists, not packed: NEW.BIN, zz.txt\n",
            folder.join("ngi.toml").display()
        )
    );
}

/// `add` does not write an archive its own command line would refuse to open: it went
/// past `--max-entries` (the default's million too), exit 0.
#[test]
fn add_keeps_within_max_entries() {
    let dir = Scratch::new("edit-add-limit");
    let archive = written(&dir, "a.nres", samples::nres());
    let file = written(&dir, "new.bin", "new");
    let err = fails(&["add", s(&archive), s(&file), "--max-entries", "8"]);
    assert!(
        err.contains("1 entry would make it 9 entries, above the limit of 8 (--max-entries)"),
        "{err}"
    );
    assert_eq!(fs::read(&archive).unwrap(), samples::nres());
    ok(&["add", s(&archive), s(&file), "--max-entries", "9"]);
    ok(&["list", s(&archive), "--max-entries", "9"]);
}

/// An RsLi entry kept as `FILE.packed` alone, past a `data_end` lowered in the manifest:
/// `pack` wrote the archive without its bytes, exit 0; refused now, as an entry that
/// `data_end` cuts partway is.
#[test]
fn pack_refuses_kept_bytes_past_the_end_it_writes() {
    let dir = Scratch::new("edit-kept-past-end");
    // GOOD, stored, 4 bytes at 96; BROKEN, LZSS claiming 100 bytes from 3 at 100.
    let entries = [
        hostile::rentry(b"GOOD", 0, 0, 4, 96, 4),
        hostile::rentry(b"BROKEN", 0x40, 0, 100, 100, 3),
    ];
    let bytes = hostile::rsli_file(0, false, &entries, b"good\xffAB", None);
    // And with a media trailer, which the lowered data_end puts where the bytes were.
    let trailed = hostile::rsli_file(0, false, &entries, b"good\xffAB", Some(0));
    for (name, bytes, options) in [
        ("f.rsli", bytes, &[][..]),
        ("t.rsli", trailed, &["--media-trailer"]),
    ] {
        let archive = written(&dir, name, &bytes);
        let folder = dir.join(format!("{name}.d"));
        ok(&[&["unpack", s(&archive), "-o", s(&folder)][..], options].concat());
        assert!(folder.join("BROKEN.packed").exists());
        let same = dir.join(format!("same-{name}"));
        ok(&["pack", s(&folder), "-o", s(&same)]);
        assert_eq!(fs::read(&same).unwrap(), bytes, "{name}");
        let manifest = folder.join("ngi.toml");
        let text = fs::read_to_string(&manifest).unwrap();
        assert!(text.contains("data_end = 103\n"), "{text}");
        let lowered = text.replace("data_end = 103\n", "data_end = 100\n");
        fs::write(&manifest, lowered).unwrap();
        let out = dir.join(format!("out-{name}"));
        let err = fails(&["pack", s(&folder), "-o", s(&out)]);
        assert!(
            err.contains("packed: its 3 bytes would lie at 100, past the data region written"),
            "{name}: {err}"
        );
        assert!(!out.exists());
    }
}

/// `rm` drops the bytes of no entry's after the payload it removes, as `pack` does after a
/// removed entry; `pack` says so, and now `rm` does too (it was silent).
#[test]
fn rm_says_which_gap_it_does_not_keep() {
    let dir = Scratch::new("edit-rm-gap");
    // Payloads A, B, C of 8 bytes, each followed by a gap of 8 bytes (no padding: 8-aligned).
    let mut region = Vec::new();
    let mut directory = Vec::new();
    for (i, (name, gap)) in [(b'A', b"GGGG"), (b'B', b"HHHH"), (b'C', b"\0\0\0\0")]
        .into_iter()
        .enumerate()
    {
        let mut name_field = [0u8; 36];
        name_field[0] = name;
        let record = nres::Entry {
            index: i as u32,
            type_id: 1,
            attr1: 0,
            attr2: 0,
            size: 8,
            attr3: 0,
            name_field: &name_field,
            data_offset: 16 + region.len() as u32,
            sort_index: i as u32,
        };
        directory.extend_from_slice(&record.to_bytes());
        region.extend_from_slice(&[name; 8]);
        region.extend_from_slice(gap);
        region.extend_from_slice(&[0; 4]);
    }
    let header = nres::Header {
        entry_count: 3,
        total_size: (16 + region.len() + directory.len()) as u32,
    };
    let bytes = [&header.to_bytes()[..], &region, &directory].concat();
    let archive = written(&dir, "g.nres", &bytes);
    let o = ok(&["rm", s(&archive), "B"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "a gap (8 bytes at 40) not kept: it lay after a payload that was changed or removed"
        ),
        "{err}"
    );
    assert_eq!(err.matches(") not kept:").count(), 1, "{err}");
    let written = fs::read(&archive).unwrap();
    assert!(!written.windows(4).any(|w| w == b"HHHH"));
    assert!(written.windows(4).any(|w| w == b"GGGG"));
}

/// `bytes` unpacked to `dir/name.d` as-stored: the folder, its manifest and its text.
fn unpacked_as_stored(dir: &Path, name: &str, bytes: &[u8]) -> (PathBuf, PathBuf, String) {
    let archive = written(dir, name, bytes);
    let folder = dir.join(format!("{name}.d"));
    ok(&["unpack", s(&archive), "-o", s(&folder)]);
    let manifest = folder.join("ngi.toml");
    let text = fs::read_to_string(&manifest).unwrap();
    assert!(text.contains("lookup = \"as-stored\""), "{text}");
    (folder, manifest, text)
}

/// The manifest `text` with its `[[entry]]` blocks changed by `edit`.
fn with_entries(text: &str, edit: impl FnOnce(&mut Vec<&str>)) -> String {
    let (head, blocks) = text.split_once("\n[[entry]]").unwrap();
    let mut blocks: Vec<&str> = blocks.split("\n[[entry]]").collect();
    edit(&mut blocks);
    format!("{head}\n[[entry]]{}", blocks.join("\n[[entry]]"))
}

/// Packs `folder` to `out`, which must say the table was rebuilt and pass `verify`.
fn packs_with_the_table_rebuilt(folder: &Path, out: &Path) {
    let o = ok(&["pack", s(folder), "-o", s(out)]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("lookup table rebuilt, "), "{err}");
    let o = ngi(&["verify", s(out)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Entries listed in another order than they stood in, with `lookup = "as-stored"`: the
/// stored values are entry indices, so the table is rebuilt and that is said. It was
/// written as given, a table the engine's binary search misses names in. `unpack` writes
/// each entry's `index` for it; a new entry may have none.
#[test]
fn as_stored_entries_moved_get_a_rebuilt_table() {
    let dir = Scratch::new("edit-as-stored-moved");
    // sample.nres with the slots of its tie (Steel.mat, STEEL.MAT) swapped: still sorted,
    // not the canonical table, so unpacked as-stored.
    let mut bytes = samples::nres();
    let directory = bytes.len() - 8 * 64;
    let slot = |i: usize| directory + i * 64 + 60;
    let (six, seven) = (slot(6), slot(7));
    let six_value: [u8; 4] = bytes[six..six + 4].try_into().unwrap();
    bytes.copy_within(seven..seven + 4, six);
    bytes[seven..seven + 4].copy_from_slice(&six_value);
    let (folder, manifest, text) = unpacked_as_stored(&dir, "tie.nres", &bytes);
    assert_eq!(text.matches("\nindex = ").count(), 8, "{text}");
    // Unchanged, it packs back byte for byte.
    let same = dir.join("same.nres");
    ok(&["pack", s(&folder), "-o", s(&same)]);
    assert_eq!(fs::read(&same).unwrap(), bytes);
    // The first two entries swapped.
    let moved = with_entries(&text, |blocks| blocks.swap(0, 1));
    fs::write(&manifest, &moved).unwrap();
    let out = dir.join("moved.nres");
    packs_with_the_table_rebuilt(&folder, &out);
    // A new entry has no index to give.
    fs::write(folder.join("new.bin"), "new").unwrap();
    let added = format!("{moved}\n[[entry]]\nfile = \"new.bin\"\nname = \"new.bin\"\nindex = 8\n");
    fs::write(&manifest, &added).unwrap();
    let err = fails(&["pack", s(&folder), "-o", s(&out), "--force"]);
    assert!(
        err.contains("index: only an entry of the archive unpacked"),
        "{err}"
    );

    // An empty entry removed leaves no bytes to take out, so the editor saw no removal:
    // X, E (empty), x, Z, with the tie X/x the other way in the table.
    let mut writer = Writer::new();
    for name in [&b"X"[..], b"E", b"x", b"Z"] {
        let payload: &[u8] = if name == b"E" { b"" } else { name };
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        writer.add(entry, payload).unwrap();
    }
    let mut bytes = writer.finish();
    let slot = |i: usize| bytes.len() - 4 * 64 + i * 64 + 60;
    let (one, two) = (slot(1), slot(2));
    assert_eq!(bytes[one..one + 4], 0u32.to_le_bytes(), "slots E, X, x, Z");
    bytes[one..one + 4].copy_from_slice(&2u32.to_le_bytes());
    bytes[two..two + 4].copy_from_slice(&0u32.to_le_bytes());
    let (folder, manifest, text) = unpacked_as_stored(&dir, "empty.nres", &bytes);
    let removed = with_entries(&text, |blocks| {
        assert!(blocks[1].contains("name = \"E\""), "{}", blocks[1]);
        blocks.remove(1);
    });
    fs::write(&manifest, removed).unwrap();
    packs_with_the_table_rebuilt(&folder, &dir.join("removed.nres"));
}

/// `unpack --force` stopped by SIGTERM once every file is written, as the replacements
/// are being put in place: the folder is either as it was (the edits kept, the old
/// manifest) or wholly the new unpack (every file and its manifest), never the new files
/// beside the old manifest. A review's run stopped so during the commit of 20 000
/// replacements lost every edit.
#[cfg(unix)]
#[test]
fn unpack_force_stopped_at_its_commit_is_all_or_nothing() {
    const COUNT: usize = 5_000;
    let dir = Scratch::new("edit-unpack-commit");
    let mut w = Writer::new();
    let names: Vec<String> = (0..COUNT).map(|i| format!("e{i:05}.bin")).collect();
    for name in &names {
        let new = NewEntry {
            name: name.as_bytes(),
            ..NewEntry::default()
        };
        w.add(new, name.as_bytes()).unwrap();
    }
    let (archive, folder) = unpacked(&dir, "many.nres", w.finish(), "out");
    let old_manifest = fs::read(folder.join("ngi.toml")).unwrap();
    // The manifest's own file name in the next run's comment is the same: mark the old
    // one to tell them apart.
    let marked = [&b"# old\n"[..], &old_manifest].concat();
    fs::write(folder.join("ngi.toml"), &marked).unwrap();
    for name in &names {
        fs::write(folder.join(name), "EDIT").unwrap();
    }
    let temporaries = || {
        fs::read_dir(&folder)
            .map(|d| {
                d.filter(|e| {
                    e.as_ref()
                        .is_ok_and(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
                })
                .count()
            })
            .unwrap_or(0)
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_ngi"))
        .args(["unpack", s(&archive), "-o", s(&folder), "--force"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once the replacements are all written (one temporary file each), the commit is
    // next: the signal goes then, or at the end if the run is too fast to catch.
    let deadline = Instant::now() + Duration::from_secs(60);
    while temporaries() < COUNT && Instant::now() < deadline {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    signal(child.id(), "TERM");
    let status = child.wait().unwrap();
    let edited = names
        .iter()
        .filter(|name| fs::read(folder.join(name)).unwrap() == b"EDIT")
        .count();
    let manifest = fs::read(folder.join("ngi.toml")).unwrap();
    assert_eq!(temporaries(), 0, "temporary files left");
    if manifest == marked {
        assert_eq!(
            edited, COUNT,
            "the old manifest, but edits lost ({status:?})"
        );
    } else {
        assert_eq!(edited, 0, "the new manifest, but edits left ({status:?})");
        assert!(status.success(), "{status:?}");
    }
}
