//! The `ngi` command's contract, run through the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use ngi_core::Method;
use ngi_core::nres::{NewEntry, Writer};
use ngi_core::rsli::Builder;

use ngi_tests::hostile::{rentry, rsli_file};
use ngi_tests::scratch::Scratch;

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples")
}

fn ngi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ngi"))
        .args(args)
        .output()
        .expect("ngi runs")
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Exit status 1 with exactly one line on stderr and no panic.
fn assert_bad(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "stderr: {err}");
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    err
}

fn sample(name: &str) -> String {
    samples().join(name).to_str().unwrap().to_string()
}

#[test]
fn list_json_has_the_contract_fields() {
    let o = ngi(&["list", "--json", &sample("sample.rsli")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 7);
    for (i, row) in rows.iter().enumerate() {
        assert_eq!(row["index"], i);
        for key in [
            "name",
            "size",
            "packed_size",
            "offset",
            "method",
            "sort_index",
            "flags",
        ] {
            assert!(!row[key].is_null(), "{key} in {row}");
        }
    }
    assert_eq!(rows[1]["name"], "SECRET.TXT");
    assert_eq!(rows[1]["method"], "xor");
    assert_eq!(rows[1]["flags"], 0x20);
    assert_eq!(rows[4]["method"], "lzss");
    assert_eq!(rows[5]["name"], "DEFLATE.TXT");
    assert_eq!(rows[5]["method"], "deflate");
    assert_eq!(rows[5]["flags"], 0x100);
    assert_eq!(rows[5]["size"], deflate_text().len());
    assert_eq!(rows[6]["method"], "xor-lzhuf");
    assert_eq!(rows[6]["size"], LZ_TEXT.len());

    let o = ngi(&["list", &sample("sample.nres"), "--json"]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let first = &rows[0];
    assert_eq!(first["method"], "stored");
    for key in ["type_id", "attr1", "attr2", "attr3"] {
        assert!(first[key].is_u64(), "{key}");
    }
    assert_eq!(rows.as_array().unwrap().len(), 8);
}

#[test]
fn list_escapes_names() {
    let dir = Scratch::new("cli-escape");
    let mut w = Writer::new();
    w.add(
        NewEntry {
            name: b"a\\b\xe9\x01",
            ..NewEntry::default()
        },
        b"x",
    )
    .unwrap();
    let path = write(&dir, "odd.nres", &w.finish());
    let o = ngi(&["list", "--json", &path]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows[0]["name"], "a\\\\b\\xe9\\x01");
    assert_eq!(rows[0]["name_hex"], "615c62e901");
    // The shown form is accepted back as a NAME.
    let o = ngi(&["cat", &path, "A\\\\B\\xe9\\x01"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"x");
}

/// What the LZ entries of the RsLi sample hold (tests/src/samples.rs).
const LZ_TEXT: &[u8] = b"Packed with Okumura's LZSS (method 0x40) or Yoshizaki's LZHUF \
(method 0x80, here XOR-encrypted first: 0xA0). Packed with Okumura's LZSS or Yoshizaki's \
LZHUF: the second sentence repeats the first, so the encoders find long matches.\n";

/// What the Deflate entry of the RsLi sample holds: the text the sample builder packs.
fn deflate_text() -> Vec<u8> {
    ngi_tests::samples::deflate_text()
}

#[test]
fn cat_decodes_every_method() {
    let lib = sample("sample.rsli");
    for name in ["lzss.txt", "LZHUF.TXT"] {
        let o = ngi(&["cat", &lib, name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(o.stdout, LZ_TEXT, "{name}");
    }
    let o = ngi(&["cat", &lib, "DEFLATE.TXT"]);
    assert!(o.status.success(), "DEFLATE.TXT: {}", stderr(&o));
    assert!(o.stdout == deflate_text(), "DEFLATE.TXT");
    // A packed stream cut short is exit 1 with the entry named, and no partial file.
    let mut cut = std::fs::read(&lib).unwrap();
    cut.truncate(cut.len() - 40);
    let dir = Scratch::new("cli-cut");
    let path = write(&dir, "cut.rsli", &cut);
    let err = assert_bad(&ngi(&["cat", &path, "LZHUF.TXT"]));
    assert!(err.contains("entry 6"), "{err}");
    let out = dir.join("out");
    let o = ngi(&["extract", &path, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.join("LZSS.TXT").exists() && out.join("DEFLATE.TXT").exists());
    assert!(!out.join("LZHUF.TXT").exists());
}

/// `extract --force` over a file of the user's, of an entry that fails while it decodes
/// (a Deflate block of the reserved type 3): that file stays as it was (it was deleted
/// before the entry was decoded), no temporary file is left, and the good entry replaces
/// its file.
#[test]
fn extract_force_keeps_the_old_file_when_the_entry_fails() {
    let mut b = Builder::new();
    b.add(b"GOOD.TXT", Method::Stored, b"good").unwrap();
    b.add(b"BAD.TXT", Method::Stored, &[0b111, 0, 0, 0])
        .unwrap();
    let mut bytes = b.build().unwrap();
    ngi_tests::hostile::patch_rsli(&mut bytes, |i, e| {
        if i == 1 {
            (e.flags, e.unpacked_size) = (0x100, 10);
        }
    });
    let dir = Scratch::new("cli-force-fail");
    let path = write(&dir, "bad.rsli", &bytes);
    let out = dir.join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("BAD.TXT"), b"precious").unwrap();
    std::fs::write(out.join("GOOD.TXT"), b"old").unwrap();
    // A private file stays private when replaced.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let private = std::fs::Permissions::from_mode(0o600);
        std::fs::set_permissions(out.join("GOOD.TXT"), private).unwrap();
    }
    let o = ngi(&["extract", "--force", &path, "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("BAD.TXT"), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("BAD.TXT")).unwrap(), b"precious");
    assert_eq!(std::fs::read(out.join("GOOD.TXT")).unwrap(), b"good");
    assert_eq!(
        std::fs::read_dir(&out).unwrap().count(),
        2,
        "no temporary file"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join("GOOD.TXT"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "the replaced file's mode");
    }
}

#[test]
fn cat_by_name_and_index() {
    let lib = sample("sample.rsli");
    let o = ngi(&["cat", &lib, "secret.txt"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        o.stdout,
        b"XOR-encrypted with this entry's sort index as key.\n"
    );
    let o = ngi(&["cat", "--index", "2", &lib]);
    assert_eq!(o.stdout, (0u8..16).collect::<Vec<u8>>());
    let o = ngi(&["cat", &sample("sample.nres"), "SKY.TEX"]);
    assert_eq!(o.stdout, [0x54, 0x65, 0x78, 0x6D, 4, 0, 4, 0]);
    let o = ngi(&["cat", "--raw", "--index", "0", &lib]);
    assert_eq!(
        o.stdout,
        std::fs::read(&lib).unwrap(),
        "raw mode: the whole file"
    );
}

#[test]
fn missing_entries_and_bad_files_exit_1() {
    let lib = sample("sample.rsli");
    let err = assert_bad(&ngi(&["cat", &lib, "NOPE"]));
    assert!(err.contains("NOPE"), "{err}");
    let err = assert_bad(&ngi(&["cat", "--index", "99", &lib]));
    assert!(err.contains("99"), "{err}");
    let dir = Scratch::new("cli-bad");
    let junk = write(&dir, "junk.bin", b"MZ\x90\x00 not an archive");
    let err = assert_bad(&ngi(&["list", &junk]));
    assert!(err.contains("--raw"), "{err}");
    let mut truncated = std::fs::read(sample("sample.nres")).unwrap();
    truncated.pop();
    let t = write(&dir, "t.nres", &truncated);
    assert_bad(&ngi(&["list", &t]));
    assert_bad(&ngi(&["info", &t]));
    assert_bad(&ngi(&["verify", &t]));
    assert_bad(&ngi(&["list", &dir.join("absent").to_string_lossy()]));
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["bogus"][..],
        &["list"],
        &["cat", "x"],
        &["list", "--frob", "x"],
        &[],
    ] {
        let o = ngi(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: one line");
    }
}

#[test]
fn info_reports_the_header() {
    let o = ngi(&["info", "--json", &sample("sample.rsli")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["format"], "RsLi");
    assert_eq!(info["entries"], 7);
    assert_eq!(info["methods"]["xor"], 2);
    assert_eq!(info["methods"]["stored"], 2);
    assert_eq!(info["methods"]["lzss"], 1);
    assert_eq!(info["methods"]["xor-lzhuf"], 1);
    assert_eq!(info["methods"]["deflate"], 1);
    // Numbers as numbers, states as fixed words (they were sentences, and the version
    // a number for RsLi but "0x100" for NRes).
    assert_eq!(info["version"], 1);
    assert_eq!(info["seed"]["seed"], 0x5EED_1998);
    assert_eq!(info["seed"]["key"], 0x1998);
    assert_eq!(info["presorted_flag"]["value"], 0);
    assert_eq!(info["presorted_flag"]["presorted"], false);
    assert_eq!(info["lookup_table"]["state"], "computed");
    assert_eq!(info["lookup_table"]["search"], "binary");
    assert!(info["media_trailer"].is_null());
    let o = ngi(&["info", "--json", &sample("sample.nres")]);
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["version"], 0x100);
    assert_eq!(info["lookup_table"]["state"], "canonical");
    let o = ngi(&["info", "--json", "--raw", &sample("sample.nres")]);
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["format"], "raw", "a word, not \"NRes, raw mode\"");
    let o = ngi(&["info", &sample("sample.nres")]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("lookup table:") && text.contains("canonical"),
        "{text}"
    );
    // Raw mode in words, not parentheses in parentheses ("(NRes (raw mode))").
    let raw = sample("sample.rsli");
    let o = ngi(&["verify", "--raw", &raw]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        text,
        format!("{raw}: ok, 1 entry verified (NRes, raw mode)\n")
    );
    let o = ngi(&["info", "--raw", &raw]);
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.starts_with("format:           NRes, raw mode\n"),
        "{text}"
    );
    // The presorted flag's value, and what it means (it said "0xabba (0xABBA)"); none
    // where the flag is not set.
    let text = String::from_utf8(ngi(&["info", &raw]).stdout).unwrap();
    assert!(text.contains("\npresorted flag:   0x0000\n"), "{text}");
    let dir = Scratch::new("cli-info-presorted");
    let mut presorted = std::fs::read(&raw).unwrap();
    presorted[14..16].copy_from_slice(&0xABBAu16.to_le_bytes());
    let path = write(&dir, "presorted.rsli", &presorted);
    let text = String::from_utf8(ngi(&["info", &path]).stdout).unwrap();
    assert!(
        text.contains("\npresorted flag:   0xabba (presorted)\n"),
        "{text}"
    );
}

#[test]
fn media_trailer_is_an_explicit_option() {
    let dir = Scratch::new("cli-trailer");
    let mut b = Builder::new();
    b.media_trailer(Some(0x20))
        .add(b"DATA", Method::Stored, b"payload")
        .unwrap();
    let path = write(&dir, "m.rsli", &b.build().unwrap());
    let o = ngi(&["cat", "--media-trailer", &path, "DATA"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout, b"payload");
    // Without the option the offset is taken as written: 0x20 bytes earlier, inside the
    // encrypted table.
    let o = ngi(&["cat", &path, "DATA"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let file = std::fs::read(&path).unwrap();
    assert_eq!(o.stdout, file[64 - 0x20..64 - 0x20 + 7]);
}

#[test]
fn verify_passes_samples_and_names_problems() {
    for s in ["sample.nres", "sample.rsli"] {
        let o = ngi(&["verify", &sample(s)]);
        assert!(o.status.success(), "{s}: {}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("ok"));
    }
    // Two names the engine takes as one: the later entry is reached by index only.
    let o = ngi(&["verify", &sample("sample.nres")]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains(
            "note: entry 6 (\"STEEL.MAT\") cannot be found by its name: the lookup gives entry 1 \
             (\"Steel.mat\"), whose name the engine takes as the same (--index 6 reaches it)"
        ),
        "{out}"
    );
    // An entry whose payload runs into the directory: entry 0's size set past it.
    let mut bad = std::fs::read(sample("sample.nres")).unwrap();
    let dir_offset = bad.len() - 8 * 64;
    bad[dir_offset + 12..dir_offset + 16].copy_from_slice(&0x7FFF_0000u32.to_le_bytes());
    let dir = Scratch::new("cli-verify");
    let path = write(&dir, "bad.nres", &bad);
    let o = ngi(&["verify", &path]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.lines().any(|l| l.contains("entry 0")), "{err}");
    assert!(!err.contains("panicked"));
}

/// `verify --json` holds what `verify` prints, in one object on stdout: the problems of
/// its stderr lines and the notes of its stdout, in their order, each with the entry it
/// names; the exit status is the same and stderr stays empty.
#[test]
fn verify_json_holds_what_verify_prints() {
    let dir = Scratch::new("cli-verify-json");
    // Entry 0's payload runs into the directory: a problem, and a gap before entry 1.
    let mut bad = std::fs::read(sample("sample.nres")).unwrap();
    let dir_offset = bad.len() - 8 * 64;
    bad[dir_offset + 12..dir_offset + 16].copy_from_slice(&0x7FFF_0000u32.to_le_bytes());
    let bad = write(&dir, "bad.nres", &bad);
    let rsli = std::fs::read(sample("sample.rsli")).unwrap();
    let deflate = write(&dir, "deflate.rsli", &reflag(&rsli, 0, 0x100));
    let cases = [
        (sample("sample.nres"), "NRes", 8, 0),
        (sample("sample.rsli"), "RsLi", 7, 0),
        (bad.clone(), "NRes", 8, 1),
        (deflate, "RsLi", 7, 1),
    ];
    for (path, format, entries, problems) in cases {
        let text = ngi(&["verify", "-j", "1", &path]);
        let json = ngi(&["verify", "--json", "-j", "2", &path]);
        assert_eq!(json.status.code(), text.status.code(), "{path}");
        assert!(json.stderr.is_empty(), "{path}: {}", stderr(&json));
        let out = String::from_utf8(json.stdout).unwrap();
        assert_eq!(out.lines().count(), 1, "{out}");
        let report: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(report["archive"], path.as_str());
        assert_eq!(report["format"], format);
        assert_eq!(report["entries"], entries);
        assert_eq!(report["ok"], problems == 0, "{out}");
        // Each finding's entry is the one its message starts with, if any.
        let messages = |key: &str| -> Vec<String> {
            let findings = report[key].as_array().unwrap();
            for f in findings {
                let message = f["message"].as_str().unwrap();
                let named = message.strip_prefix("entry ").map(|rest| {
                    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                    rest[..digits].parse::<u64>().unwrap()
                });
                assert_eq!(f["entry"].as_u64(), named, "{message}");
            }
            findings
                .iter()
                .map(|f| f["message"].as_str().unwrap().to_string())
                .collect()
        };
        let err = stderr(&text);
        let mut said: Vec<&str> = err.lines().collect();
        if problems > 0 {
            // The count of problems ends what text mode says.
            let count = said.pop().unwrap();
            assert!(
                count.ends_with(&format!(": 1 problem in {entries} entries")),
                "{count}"
            );
        }
        let prefix = format!("ngi: {path}: ");
        let said: Vec<String> = said
            .iter()
            .map(|l| l.strip_prefix(&prefix).unwrap().to_string())
            .collect();
        assert_eq!(messages("problems"), said, "{path}");
        assert_eq!(said.len(), problems, "{path}: {err}");
        let noted: Vec<String> = String::from_utf8_lossy(&text.stdout)
            .lines()
            .filter_map(|l| {
                l.strip_prefix(&format!("{path}: note: "))
                    .map(str::to_string)
            })
            .collect();
        assert_eq!(messages("notes"), noted, "{path}");
    }
    // Both kinds of finding, with an entry and without one.
    let report: serde_json::Value =
        serde_json::from_slice(&ngi(&["verify", "--json", &bad]).stdout).unwrap();
    assert_eq!(report["problems"][0]["entry"], 0);
    let notes = report["notes"].as_array().unwrap();
    assert_eq!(notes[0]["entry"], serde_json::Value::Null);
    assert_eq!(
        notes[0]["message"],
        "offset 16: 168 bytes between the header and entry 1"
    );
    assert_eq!(notes[1]["entry"], 6);
}

/// An NRes table sorted no more (two `sort_index` values swapped) is a problem: the
/// engine's binary search may miss names there (SPEC 1.6). ngi's own lookups scan it, so
/// each name still gives its entry; the message says both, where it said "(linear scan)"
/// alone, which read as if the engine scanned too. So is a value out of range.
#[test]
fn verify_fails_an_unsorted_nres_table_that_ngi_still_searches() {
    let mut file = std::fs::read(sample("sample.nres")).unwrap();
    let dir_offset = file.len() - 8 * 64;
    let field = |i: usize| dir_offset + 64 * i + 60;
    let (a, b) = (field(0), field(1));
    let first: [u8; 4] = file[a..a + 4].try_into().unwrap();
    file.copy_within(b..b + 4, a);
    file[b..b + 4].copy_from_slice(&first);
    let dir = Scratch::new("cli-unsorted");
    let path = write(&dir, "unsorted.nres", &file);
    let o = ngi(&["verify", &path]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    let line = format!(
        "ngi: {path}: lookup table at offset {a}: not sorted at slot 0 (the engine's binary \
         search may miss names; ngi scans)\n"
    );
    assert!(err.starts_with(&line), "{err}");
    let o = ngi(&["info", "--json", &path]);
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["lookup_table"]["state"], "unsorted");
    assert_eq!(info["lookup_table"]["search"], "linear");
    for name in ["readme.txt", "Steel.mat"] {
        let o = ngi(&["cat", &path, name]);
        assert!(o.status.success(), "{name}: {}", stderr(&o));
        assert_eq!(o.stdout, ngi(&["cat", &sample("sample.nres"), name]).stdout);
    }
    // A value past the entries: the engine's search would read outside the directory.
    file[b..b + 4].copy_from_slice(&99u32.to_le_bytes());
    let path = write(&dir, "out-of-range.nres", &file);
    let err = stderr(&ngi(&["verify", &path]));
    let line = format!(
        "ngi: {path}: lookup table at offset {b}: entry 1 has sort_index 99 out of range (the \
         engine's binary search may read outside the directory; ngi scans)\n"
    );
    assert!(err.starts_with(&line), "{err}");
    assert_eq!(
        ngi(&["cat", &path, "readme.txt"]).stdout,
        ngi(&["cat", &sample("sample.nres"), "readme.txt"]).stdout
    );
}

/// Where the binary search does not apply, entries of one name were not noted: the
/// lookup reaches one of them only, as on a searchable table.
#[test]
fn verify_notes_a_shared_name_where_the_table_is_not_searchable() {
    let dir = Scratch::new("cli-verify-shared");
    // sample.nres with entry 0's sort_index out of range: a linear scan.
    let mut nres = std::fs::read(sample("sample.nres")).unwrap();
    let sort_index = nres.len() - 8 * 64 + 60;
    nres[sort_index..sort_index + 4].copy_from_slice(&99u32.to_le_bytes());
    // RsLi: X, X, B, presorted (0xABBA) in an order not the engine's.
    let entries = [
        rentry(b"X", 0, 1, 5, 128, 5),
        rentry(b"X", 0, 0, 3, 133, 3),
        rentry(b"B", 0, 2, 1, 136, 1),
    ];
    let rsli = rsli_file(0, true, &entries, b"first2ndb", None);
    for (file, bytes, status, note) in [
        (
            "linear.nres",
            nres,
            1,
            "note: entry 6 (\"STEEL.MAT\") has the name of entry 1 (as the engine compares \
             names): a lookup by it gives one of them only, which one the table decides \
             (--index reaches each)",
        ),
        (
            "presorted.rsli",
            rsli,
            0,
            "note: entry 1 (\"X\") has the name of entry 0 (as the engine compares names): a \
             lookup by it gives one of them only, which one the table decides (--index \
             reaches each)",
        ),
    ] {
        let path = write(&dir, file, &bytes);
        let o = ngi(&["verify", &path]);
        let out = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(status), "{file}: {}", stderr(&o));
        assert_eq!(
            out.matches("has the name of entry").count(),
            1,
            "{file}: {out}"
        );
        assert!(out.contains(note), "{file}: {out}");
    }
}

/// The entries NAME and `--index` choose are extracted in entry order, whatever the order
/// given: under `--max-total` which entries are written depended on it.
#[test]
fn extract_follows_entry_order_whatever_the_order_given() {
    let dir = Scratch::new("cli-extract-order");
    let rsli = sample("sample.rsli");
    let mut seen = Vec::new();
    for (i, chosen) in [
        &["README.TXT", "LZSS.TXT"][..],
        &["LZSS.TXT", "README.TXT"],
        &["--index", "4", "--index", "0"],
    ]
    .into_iter()
    .enumerate()
    {
        let out = dir.join(format!("out{i}"));
        let args = [&["extract", &rsli, "-o", out.to_str().unwrap()][..], chosen].concat();
        let o = ngi(&[&args[..], &["--max-total", "240"]].concat());
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        let mut files: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        let err = stderr(&o).replace(out.to_str().unwrap(), "OUT");
        seen.push((files, err));
    }
    assert_eq!(seen[0].0, ["README.TXT"], "{seen:?}");
    assert!(seen.iter().all(|s| *s == seen[0]), "{seen:?}");
}

#[test]
fn extract_writes_files_and_never_overwrites() {
    let dir = Scratch::new("cli-extract");
    let out = dir.join("out");
    let out_s = out.to_str().unwrap();
    let o = ngi(&["extract", &sample("sample.nres"), "-o", out_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(out.join("sky.tex")).unwrap(),
        [0x54, 0x65, 0x78, 0x6D, 4, 0, 4, 0]
    );
    // "Steel.mat" (entry 1) and "STEEL.MAT" (entry 6) collide ignoring case.
    assert!(out.join("Steel.mat").exists());
    assert_eq!(
        std::fs::read(out.join("STEEL~6.MAT")).unwrap(),
        b"a duplicate name, folded equal\n"
    );
    // Again: every file exists, nothing is replaced, each skip is reported.
    std::fs::write(out.join("sky.tex"), b"mine").unwrap();
    let o = ngi(&["extract", &sample("sample.nres"), "-o", out_s]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).lines().filter(|l| l.contains("skipped")).count() >= 8);
    assert_eq!(std::fs::read(out.join("sky.tex")).unwrap(), b"mine");
    // --force replaces regular files.
    let o = ngi(&[
        "extract",
        "--force",
        &sample("sample.nres"),
        "-o",
        out_s,
        "SKY.TEX",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("sky.tex")).unwrap().len(), 8);
}

#[test]
fn extract_never_overwrites_its_own_files_even_with_force() {
    let dir = Scratch::new("cli-lookalike");
    let mut w = Writer::new();
    for (name, data) in [
        (&b"X.DAT"[..], &b"zero"[..]),
        (b"X~2.DAT", b"one"),
        (b"X.DAT", b"two"),
    ] {
        w.add(
            NewEntry {
                name,
                ..NewEntry::default()
            },
            data,
        )
        .unwrap();
    }
    let path = write(&dir, "x.nres", &w.finish());
    let out = dir.join("out");
    let o = ngi(&["extract", "--force", &path, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("X.DAT")).unwrap(), b"zero");
    assert_eq!(std::fs::read(out.join("X~2.DAT")).unwrap(), b"one");
    assert_eq!(std::fs::read(out.join("X~2~2.DAT")).unwrap(), b"two");
    // --index reaches what no NAME may: each of two entries the engine takes as one
    // ("X.DAT" twice), once however often it is given.
    let by_index = dir.join("by-index");
    let o = ngi(&[
        "extract",
        &path,
        "-o",
        by_index.to_str().unwrap(),
        "--index",
        "0",
        "--index",
        "2",
        "--index",
        "0",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(by_index.join("X.DAT")).unwrap(), b"zero");
    // The name a whole run gives it (entry 1 takes "X~2.DAT"), whatever is chosen.
    assert_eq!(std::fs::read(by_index.join("X~2~2.DAT")).unwrap(), b"two");
    assert_eq!(std::fs::read_dir(&by_index).unwrap().count(), 2);
    let err = assert_bad(&ngi(&[
        "extract",
        &path,
        "-o",
        by_index.to_str().unwrap(),
        "--index",
        "3",
    ]));
    assert!(err.contains("no entry with index 3"), "{err}");
    // The same entry named twice is written once.
    let again = dir.join("again");
    let o = ngi(&[
        "extract",
        &path,
        "-o",
        again.to_str().unwrap(),
        "x~2.dat",
        "X~2.DAT",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read_dir(&again).unwrap().count(), 1);
}

/// An archive inside the output folder under the file name of one of its own entries
/// (or of the manifest) is not replaced by `--force`: a probe lost the archive so, to
/// the entry's bytes. By device and inode, so a hard link is caught as well.
#[test]
fn force_never_replaces_the_archive_being_read() {
    let dir = Scratch::new("cli-force-self");
    let mut w = Writer::new();
    for (name, data) in [(&b"a.bin"[..], &b"one"[..]), (b"b.bin", b"two")] {
        w.add(
            NewEntry {
                name,
                ..NewEntry::default()
            },
            data,
        )
        .unwrap();
    }
    let bytes = w.finish();
    for (command, file) in [
        ("extract", "b.bin"),
        ("unpack", "b.bin"),
        ("unpack", "ngi.toml"),
    ] {
        let out = dir.join(format!("{command}-{file}"));
        std::fs::create_dir(&out).unwrap();
        let archive = write(&out, file, &bytes);
        // The same file under a second name, outside the folder.
        let linked = dir.join(format!("{command}-{file}.nres"));
        std::fs::hard_link(&archive, &linked).unwrap();
        for path in [archive.as_str(), linked.to_str().unwrap()] {
            let o = ngi(&[command, "--force", path, "-o", out.to_str().unwrap()]);
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{command} {file}: {err}");
            assert!(
                err.contains("is the archive being read; not replaced"),
                "{err}"
            );
            assert_eq!(std::fs::read(&archive).unwrap(), bytes, "{command} {file}");
        }
    }
}

/// A file whose permissions allow no write is not replaced by `--force`, as no other
/// command replaces one (`extract` and `unpack` did, keeping its mode 444).
#[cfg(unix)]
#[test]
fn force_never_replaces_a_read_only_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("cli-force-read-only");
    for command in ["extract", "unpack"] {
        let out = dir.join(command);
        std::fs::create_dir(&out).unwrap();
        let kept = out.join("readme.txt");
        std::fs::write(&kept, "mine").unwrap();
        std::fs::set_permissions(&kept, std::fs::Permissions::from_mode(0o444)).unwrap();
        let o = ngi(&[
            command,
            "--force",
            &sample("sample.nres"),
            "-o",
            out.to_str().unwrap(),
        ]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{command}: {err}");
        assert!(
            err.contains("read-only (its permissions allow no write); not replaced"),
            "{err}"
        );
        assert_eq!(std::fs::read(&kept).unwrap(), b"mine", "{command}");
    }
}

/// `--force` is suggested only where it would replace what is in the way: a folder, or a
/// read-only file, was met with "use --force", and then with a refusal under it.
#[cfg(unix)]
#[test]
fn force_is_suggested_only_where_it_would_replace() {
    use std::os::unix::fs::PermissionsExt;
    let dir = Scratch::new("cli-force-hint");
    for command in ["extract", "unpack"] {
        for (kind, why) in [
            ("folder", "readme.txt: exists and is a folder; not replaced"),
            // It said "not a regular file" of a link too.
            (
                "link",
                "readme.txt: exists and is a symbolic link; not replaced",
            ),
            ("read-only", "read-only (its permissions allow no write)"),
        ] {
            let out = dir.join(format!("{command}-{kind}"));
            std::fs::create_dir(&out).unwrap();
            let in_the_way = out.join("readme.txt");
            if kind == "folder" {
                std::fs::create_dir(&in_the_way).unwrap();
            } else if kind == "link" {
                std::os::unix::fs::symlink(dir.join("elsewhere"), &in_the_way).unwrap();
            } else {
                std::fs::write(&in_the_way, "mine").unwrap();
                let read_only = std::fs::Permissions::from_mode(0o444);
                std::fs::set_permissions(&in_the_way, read_only).unwrap();
            }
            for force in [&[][..], &["--force"]] {
                let out_arg = out.to_str().unwrap();
                let nres = sample("sample.nres");
                let args = [&[command, &nres, "-o", out_arg][..], force].concat();
                let o = ngi(&args);
                let err = stderr(&o);
                assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
                assert!(err.contains(why), "{args:?}: {err}");
                assert!(!err.contains("--force"), "{args:?}: {err}");
            }
        }
    }
}

#[test]
fn a_closed_or_full_stdout_is_exit_1_not_a_panic() {
    for args in [
        &["--help"][..],
        &["--version"],
        &["list", &sample("sample.nres")],
    ] {
        let full = std::fs::File::create("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_ngi"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{args:?}");
    }
    let err = assert_bad(&ngi(&["list", "/dev/zero"]));
    assert!(err.contains("not a regular file"), "{err}");
}

/// `file` with entry `index`'s flags set to `flags`, its table re-encrypted.
fn reflag(file: &[u8], index: usize, flags: u16) -> Vec<u8> {
    use ngi_core::codec::xor::XorStream;
    let key = u16::from_le_bytes([file[20], file[21]]);
    let count = usize::from(u16::from_le_bytes([file[4], file[5]]));
    let mut out = file.to_vec();
    let table = &mut out[32..32 + 32 * count];
    XorStream::new(key).apply(table);
    table[32 * index + 16..32 * index + 18].copy_from_slice(&flags.to_le_bytes());
    XorStream::new(key).apply(table);
    out
}

#[test]
fn verify_names_entries_that_do_not_decode_and_unknown_methods() {
    let dir = Scratch::new("cli-methods");
    // Plain text relabelled as Deflate (0x100) is not a valid stream.
    let deflate = reflag(&std::fs::read(sample("sample.rsli")).unwrap(), 0, 0x100);
    let deflate = write(&dir, "deflate.rsli", &deflate);
    let o = ngi(&["verify", &deflate]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.lines().next().unwrap().contains("entry 0"), "{err}");
    assert!(!err.contains("panicked"));
    // cat says which entry it cannot produce.
    let err = assert_bad(&ngi(&["cat", "--index", "0", &deflate]));
    assert!(err.contains("entry 0"), "{err}");
    let bad = write(
        &dir,
        "bad.rsli",
        &reflag(&std::fs::read(sample("sample.rsli")).unwrap(), 1, 0x1E0),
    );
    let o = ngi(&["verify", &bad]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.lines().next().unwrap().contains("entry 1"), "{err}");
    let o = ngi(&["list", "--json", &bad]);
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows[1]["method"], "unsupported");
    // The table's columns stay in line: "unsupported", one letter wider than the method
    // column was, pushed the rest of its row one place right.
    let table = String::from_utf8(ngi(&["list", &bad]).stdout).unwrap();
    let widths: Vec<usize> = table.lines().map(str::len).collect();
    assert!(widths.iter().all(|&w| w == widths[0]), "{table}");
    assert!(
        table.lines().nth(2).unwrap().contains(" unsupported "),
        "{table}"
    );
}

#[test]
fn extract_keeps_hostile_names_inside_the_folder() {
    let dir = Scratch::new("cli-hostile");
    let mut w = Writer::new();
    for name in [&b"../escape"[..], b"..\\win", b"/abs", b"..", b"C:drive"] {
        w.add(
            NewEntry {
                name,
                ..NewEntry::default()
            },
            name,
        )
        .unwrap();
    }
    let path = write(&dir, "h.nres", &w.finish());
    let out = dir.join("out");
    let o = ngi(&["extract", &path, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut files: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        ["%2E%2E", "%2Fabs", "..%2Fescape", "..%5Cwin", "C%3Adrive"]
    );
    assert!(!dir.join("escape").exists());
    assert_eq!(
        std::fs::read(out.join("..%2Fescape")).unwrap(),
        b"../escape"
    );
}

#[test]
fn completions_are_printed_for_each_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = ngi(&["completions", shell]);
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{shell}: {}", stderr(&o));
        let script = String::from_utf8(o.stdout).unwrap();
        for word in [
            "ngi",
            "list",
            "info",
            "cat",
            "extract",
            "verify",
            "max-total",
        ] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    let o = ngi(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(o.stdout.is_empty());
    assert!(!stderr(&o).contains("panicked"));
    assert_eq!(stderr(&o).lines().count(), 1, "one line: {}", stderr(&o));
    assert!(stderr(&o).starts_with("ngi: ") && stderr(&o).contains("tcsh"));
    // A closed stdout is exit 1, not a panic.
    let full = std::fs::File::create("/dev/full").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_ngi"))
        .args(["completions", "bash"])
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn help_and_version_go_to_stdout() {
    for args in [&["--help"][..], &["-h"], &["help"], &["extract", "--help"]] {
        let o = ngi(args);
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        assert!(o.stderr.is_empty(), "{args:?}");
        let text = String::from_utf8(o.stdout).unwrap();
        assert!(text.contains("Usage: ngi"), "{args:?}: {text}");
    }
    let help = String::from_utf8(ngi(&["--help"]).stdout).unwrap();
    for word in [
        "list",
        "info",
        "cat",
        "extract",
        "verify",
        "completions",
        "Exit status",
    ] {
        assert!(help.contains(word), "no {word}: {help}");
    }
    let o = ngi(&["-V"]);
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        format!("ngi {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn options_only_where_they_apply_are_usage_errors() {
    let lib = sample("sample.rsli");
    for args in [
        &["cat", "--json", &lib, "README.TXT"][..],
        &["list", "--index", "0", &lib],
        &["info", "--force", &lib],
        &["cat", &lib, "README.TXT", "--index", "0"],
        &["cat", &lib, "A", "B"],
        &["extract", &lib],
        &["list", "--max-entries", "8G", &lib],
        &["cat", "--max-total=lots", &lib, "README.TXT"],
        // The limits on decoding belong to the commands that decode.
        &["list", "--max-entry-size", "1K", &lib],
        &["info", "--max-total", "1K", &lib],
        &[
            "repack",
            "--max-total",
            "10",
            &lib,
            "-o",
            "/nonexistent/x.rsli",
        ],
        &["rm", &lib, "NO.SUCH", "--max-entry-size", "10"],
    ] {
        let o = ngi(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
    }
}

/// Non-zero bytes in the padding after the last NRes payload are a note, as between
/// payloads (they passed without one).
#[test]
fn non_zero_padding_before_the_directory_is_a_note() {
    let mut w = Writer::new();
    for (name, data) in [(&b"a"[..], &b"abcde"[..]), (b"b", b"xyz")] {
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        w.add(entry, data).unwrap();
    }
    let mut bytes = w.finish();
    // Payloads at 16 (5 bytes, padded to 24) and 24 (3 bytes, padded to 32).
    let dir = Scratch::new("cli-tail-padding");
    let clean = write(&dir, "clean.nres", &bytes);
    let o = ngi(&["verify", &clean]);
    assert!(
        o.status.success() && o.stdout.ends_with(b"(NRes)\n"),
        "{o:?}"
    );
    assert!(!String::from_utf8_lossy(&o.stdout).contains("note"));
    bytes[27..32].copy_from_slice(b"GARBG");
    // With no payload, bytes before the directory follow the header.
    let mut empty = Writer::new().finish();
    assert_eq!(empty.len(), 16);
    empty.extend_from_slice(&[0; 8]);
    empty[12..16].copy_from_slice(&24u32.to_le_bytes());
    for (name, archive, note) in [
        (
            "tail.nres",
            bytes,
            "offset 27: non-zero padding before the directory",
        ),
        (
            "empty.nres",
            empty,
            "offset 16: 8 bytes between the header and the directory",
        ),
    ] {
        let path = write(&dir, name, &archive);
        let o = ngi(&["verify", &path]);
        assert!(o.status.success(), "{}", stderr(&o));
        let notes = String::from_utf8(o.stdout).unwrap();
        let expected = format!("{path}: note: {note}");
        assert_eq!(notes.lines().next(), Some(expected.as_str()), "{notes}");
    }
}

/// Where an RsLi library's packed bytes lie is checked as for NRes: bytes in the table,
/// payloads that overlap and bytes no entry reads are notes (all passed without one).
#[test]
fn rsli_layout_notes() {
    let mut b = Builder::new();
    for (name, data) in [
        (&b"A"[..], &b"0123456789"[..]),
        (b"B", b"bbbb"),
        (b"C", b"cccc"),
    ] {
        b.add(name, Method::Stored, data).unwrap();
    }
    let mut bytes = b.build().unwrap();
    // Payloads at 128 (A, 10 bytes), 138 (B) and 142 (C); the file is 146 bytes.
    assert_eq!(bytes.len(), 146);
    ngi_tests::hostile::patch_rsli(&mut bytes, |i, e| match i {
        1 => e.data_offset = 40,
        2 => e.data_offset = 130,
        _ => {}
    });
    let dir = Scratch::new("cli-rsli-layout");
    let path = write(&dir, "odd.rsli", &bytes);
    let o = ngi(&["verify", &path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let notes = String::from_utf8(o.stdout).unwrap();
    for want in [
        "entry 1 (\"B\") at offset 40: its packed bytes lie in the header or table",
        "entry 2 (\"C\") at offset 130: packed bytes overlap entry 0's",
        "offset 138: 8 bytes no entry reads, after entry 0",
    ] {
        assert!(
            notes.contains(&format!("{path}: note: {want}\n")),
            "{want}: {notes}"
        );
    }
    let o = ngi(&["verify", &sample("sample.rsli")]);
    assert!(
        !String::from_utf8_lossy(&o.stdout).contains("note"),
        "{o:?}"
    );
    // The bytes of an `AO` trailer are no entry's, even where the last payload runs into
    // them (the rest of the trailer was "bytes no entry reads").
    let mut b = Builder::new();
    b.add(b"A", Method::Stored, b"0123456789").unwrap();
    let mut bytes = b.build().unwrap();
    bytes.extend_from_slice(b"AO\0\0\0\0");
    ngi_tests::hostile::patch_rsli(&mut bytes, |_, e| {
        (e.unpacked_size, e.packed_size) = (13, 13);
    });
    let path = write(&dir, "into-trailer.rsli", &bytes);
    let o = ngi(&["verify", &path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let notes = String::from_utf8(o.stdout).unwrap();
    assert!(!notes.contains("no entry reads"), "{notes}");
    assert!(notes.contains("media trailer"), "{notes}");
    // An entry that runs past the end of the file is a problem, and the bytes from its
    // offset on are its, not bytes no entry reads; nor do the payloads after its offset
    // each overlap it (one note per later entry of a large library).
    for (past, name) in [(1, "B"), (0, "A")] {
        let mut b = Builder::new();
        b.add(b"A", Method::Stored, b"0123456789").unwrap();
        b.add(b"B", Method::Stored, b"bbbb").unwrap();
        b.add(b"C", Method::Stored, b"cccc").unwrap();
        let mut bytes = b.build().unwrap();
        ngi_tests::hostile::patch_rsli(&mut bytes, |i, e| {
            if i == past {
                (e.unpacked_size, e.packed_size) = (100_000, 100_000);
            }
        });
        let path = write(&dir, "past-the-end.rsli", &bytes);
        let o = ngi(&["verify", &path]);
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        let err = stderr(&o);
        assert!(err.contains(&format!("entry {past} (\"{name}\")")), "{err}");
        let notes = String::from_utf8(o.stdout).unwrap();
        assert!(!notes.contains("no entry reads"), "{notes}");
        assert!(!notes.contains("overlap"), "{notes}");
    }
    // A claim between two payloads that overlap hides nothing: C still overlaps A.
    let mut b = Builder::new();
    b.add(b"A", Method::Stored, b"0123456789").unwrap();
    b.add(b"B", Method::Stored, b"bbbb").unwrap();
    b.add(b"C", Method::Stored, b"cccc").unwrap();
    let mut bytes = b.build().unwrap();
    ngi_tests::hostile::patch_rsli(&mut bytes, |i, e| match i {
        1 => (e.data_offset, e.unpacked_size, e.packed_size) = (129, 100_000, 100_000),
        2 => e.data_offset = 132,
        _ => {}
    });
    let path = write(&dir, "claim-between.rsli", &bytes);
    let o = ngi(&["verify", &path]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let notes = String::from_utf8(o.stdout).unwrap();
    let overlaps: Vec<_> = notes.lines().filter(|l| l.contains("overlap")).collect();
    assert_eq!(overlaps.len(), 1, "{notes}");
    assert!(
        overlaps[0].ends_with("entry 2 (\"C\") at offset 132: packed bytes overlap entry 0's"),
        "{notes}"
    );
}

/// Bytes after the NUL of an NRes name field (which a canonical writer zeroes) are a note
/// of `verify`, naming the entry and the field's offset; `repack` zeroes them, and the
/// note goes.
#[test]
fn stray_bytes_after_an_nres_name_are_a_note() {
    let mut w = Writer::new();
    for name in [&b"abc"[..], b"clean.dat"] {
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        w.add(entry, b"payload").unwrap();
    }
    let mut bytes = w.finish();
    // The directory is the last 2 x 64 bytes; entry 0's name field starts 20 bytes in.
    let field = bytes.len() - 128 + 20;
    bytes[field + 4..field + 8].copy_from_slice(b"JUNK");
    let dir = Scratch::new("cli-name-tail");
    let path = write(&dir, "tail.nres", &bytes);
    let o = ngi(&["verify", &path]);
    assert!(o.status.success() && o.stderr.is_empty(), "{}", stderr(&o));
    let notes = String::from_utf8(o.stdout).unwrap();
    let expected = format!(
        "{path}: note: entry 0 (\"abc\") at offset {field}: 4 non-zero bytes after the name's NUL"
    );
    assert_eq!(notes.lines().next(), Some(expected.as_str()), "{notes}");
    assert!(!notes.contains("entry 1"), "{notes}");
    let repacked = dir.join("repacked.nres");
    let repacked = repacked.to_str().unwrap();
    assert!(ngi(&["repack", &path, "-o", repacked]).status.success());
    let o = ngi(&["verify", repacked]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!String::from_utf8_lossy(&o.stdout).contains("NUL"));
}

/// An output folder that is a file, or inside one, is said to be so, naming the file, by
/// extract and unpack, and the file is left as it was.
#[test]
fn an_output_folder_that_is_a_file_is_one_line() {
    let lib = sample("sample.rsli");
    let dir = Scratch::new("cli-not-a-folder");
    let file = write(&dir, "file", b"mine");
    for command in ["extract", "unpack"] {
        for target in [file.clone(), format!("{file}/sub/deeper")] {
            let o = ngi(&[command, &lib, "-o", &target]);
            let err = assert_bad(&o);
            let expected = format!("ngi: {file}: not a folder");
            assert_eq!(err.trim_end(), expected, "{command} -o {target}");
            assert_eq!(std::fs::read(&file).unwrap(), b"mine");
        }
    }
    // serve's folder: a file is not one, and a missing one is said to be missing.
    let err = assert_bad(&ngi(&["serve", &file]));
    assert_eq!(err.trim_end(), format!("ngi: {file}: not a folder"));
    let missing = format!("{file}-missing");
    let err = assert_bad(&ngi(&["serve", &missing]));
    assert!(
        err.starts_with(&format!("ngi: {missing}: No such file or directory")),
        "{err}"
    );
    // A symbolic link to nothing was "File exists".
    #[cfg(unix)]
    {
        let link = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("missing"), &link).unwrap();
        let link = link.to_str().unwrap();
        for command in ["extract", "unpack"] {
            let err = assert_bad(&ngi(&[command, &lib, "-o", link]));
            let expected = format!("ngi: {link}: a symbolic link to nothing");
            assert!(err.starts_with(&expected), "{command}: {err}");
            assert!(!dir.join("missing").exists(), "{command}: not followed");
        }
        // A loop of links is not one to nothing: the system's own words.
        let (a, b) = (dir.join("loop-a"), dir.join("loop-b"));
        std::os::unix::fs::symlink(&b, &a).unwrap();
        std::os::unix::fs::symlink(&a, &b).unwrap();
        let err = assert_bad(&ngi(&["extract", &lib, "-o", a.to_str().unwrap()]));
        assert!(!err.contains("link to nothing"), "{err}");
    }
}

/// A FIFO given as the archive or as a file to add is refused at once, by every command
/// (each opened it before checking, and waited for a writer), with one line.
#[cfg(target_os = "linux")]
#[test]
fn a_fifo_is_refused_without_waiting() {
    let dir = Scratch::new("cli-fifo");
    let fifo = dir.join("fifo");
    let mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
    rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, mode).unwrap();
    let fifo = fifo.to_str().unwrap();
    let lib = write(
        &dir,
        "a.rsli",
        &std::fs::read(sample("sample.rsli")).unwrap(),
    );
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    for args in [
        &["list", fifo][..],
        &["verify", fifo],
        &["rm", fifo, "X"],
        &["repack", fifo],
        &["unpack", fifo, "-o", out],
        &["add", &lib, fifo],
    ] {
        // `timeout` ends a run that waits (exit 124).
        let o = Command::new("timeout")
            .arg("10")
            .arg(env!("CARGO_BIN_EXE_ngi"))
            .args(args)
            .output()
            .expect("timeout runs");
        let err = assert_bad(&o);
        assert!(err.contains("not a regular file"), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read(&lib).unwrap(),
        std::fs::read(sample("sample.rsli")).unwrap()
    );
}

/// A line about an entry names it once, with its name: the library's own "entry N: " is
/// not repeated after the command's `entry N ("NAME")`.
#[test]
fn a_failing_entry_is_named_once() {
    let lib = sample("sample.rsli");
    let dir = Scratch::new("cli-named-once");
    let (x, u) = (dir.join("x"), dir.join("u"));
    let (x, u) = (x.to_str().unwrap(), u.to_str().unwrap());
    for args in [
        &["verify", &lib][..],
        &["extract", &lib, "-o", x],
        &["unpack", &lib, "-o", u],
    ] {
        let o = ngi(&[args, &["--max-entry-size", "100"]].concat());
        let err = stderr(&o);
        for (index, name) in [(4, "LZSS.TXT"), (5, "DEFLATE.TXT"), (6, "LZHUF.TXT")] {
            let named = format!("entry {index} (\"{name}\")");
            let line = err.lines().find(|l| l.contains(&named));
            let line = line.unwrap_or_else(|| panic!("{args:?}: no line names {named}: {err}"));
            let once = format!("entry {index}");
            assert_eq!(line.matches(&once).count(), 1, "{args:?}: {line}");
            assert!(line.contains("unpacked size"), "{args:?}: {line}");
        }
    }
    let o = ngi(&["cat", &lib, "LZSS.TXT", "--max-entry-size", "100"]);
    let err = assert_bad(&o);
    assert!(
        err.contains("entry 4 (\"LZSS.TXT\"): unpacked size")
            && err.matches("entry 4").count() == 1,
        "{err}"
    );
}

/// Offsets in every message are decimal, as `list` shows them (`verify` gave its own in
/// hex, beside the library's decimal ones: "at offset 0x22b: at offset 563: ...").
#[test]
fn offsets_in_messages_are_decimal_as_list_shows_them() {
    let dir = Scratch::new("cli-decimal");
    let lib = dir.join("corrupt.rsli");
    let mut bytes = std::fs::read(sample("sample.rsli")).unwrap();
    let list: serde_json::Value =
        serde_json::from_slice(&ngi(&["list", "--json", &sample("sample.rsli")]).stdout).unwrap();
    let at = list[5]["offset"].as_u64().unwrap() as usize;
    assert_eq!(list[5]["name"], "DEFLATE.TXT");
    // Its dynamic block's code-length code, over-subscribed 8 bytes in.
    for b in &mut bytes[at + 5..at + 45] {
        *b ^= 0x5a;
    }
    std::fs::write(&lib, &bytes).unwrap();
    let lib = lib.to_str().unwrap();
    let fault = format!(
        "at offset {}: corrupt Deflate stream at packed byte 8",
        at + 8
    );
    let verify = stderr(&ngi(&["verify", lib]));
    assert!(
        verify.contains(&format!(
            "entry 5 (\"DEFLATE.TXT\"), packed at {at}: {fault}"
        )),
        "{verify}"
    );
    let cat = assert_bad(&ngi(&["cat", lib, "DEFLATE.TXT"]));
    assert!(
        cat.contains(&format!("entry 5 (\"DEFLATE.TXT\"): {fault}")),
        "{cat}"
    );
    for err in [verify, cat] {
        assert!(!err.contains("0x"), "{err}");
    }
}

/// `ngi cat` into a pipe asks for a 1 MiB pipe buffer (Linux's default 64 KiB made the
/// decoder wait on the reader every chunk) and still writes the entry's bytes, whole.
#[cfg(target_os = "linux")]
#[test]
fn cat_into_a_pipe_widens_it_and_writes_every_byte() {
    use std::io::Read;
    let max: usize = std::fs::read_to_string("/proc/sys/fs/pipe-max-size")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0);
    let mut child = Command::new(env!("CARGO_BIN_EXE_ngi"))
        .args(["cat", &sample("sample.rsli"), "--index", "0"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("ngi runs");
    let mut out = child.stdout.take().expect("piped");
    let mut bytes = Vec::new();
    out.read_to_end(&mut bytes).expect("reads");
    assert!(child.wait().expect("ends").success());
    let want = ngi(&["cat", &sample("sample.rsli"), "--index", "0"]).stdout;
    assert!(!want.is_empty() && bytes == want);
    let size = rustix::pipe::fcntl_getpipe_size(&out).expect("a pipe");
    if max >= 1 << 20 {
        assert_eq!(size, 1 << 20, "the pipe was not widened");
    }
}

/// An NRes `sort_index` table with every value in range that names one entry twice is no
/// permutation (SPEC 1.5): another entry is in no slot, and the engine's binary search may
/// not find it. `verify` fails on it; it passed with two notes when the table's order was
/// otherwise sorted.
#[test]
fn verify_fails_a_lookup_table_that_is_no_permutation() {
    let dir = Scratch::new("cli-permutation");
    let mut bytes = ngi_tests::samples::nres();
    let directory = bytes.len() - 8 * 64;
    // Slot 1 names what slot 0 names.
    let slot0: [u8; 4] = bytes[directory + 60..directory + 64].try_into().unwrap();
    bytes[directory + 64 + 60..directory + 64 + 64].copy_from_slice(&slot0);
    let file = write(&dir, "np.nres", &bytes);
    let o = ngi(&["verify", &file]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let field = directory + 64 + 60;
    assert!(
        err.contains(&format!(
            "lookup table at offset {field}: sort_index is no permutation: slots 0 and 1 \
             both name entry 3 (\"A_\"), so 1 entry is in no slot, the first entry 4 (\"AB\")"
        )),
        "{err}"
    );
    assert!(err.contains(": 1 problem in 8 entries\n"), "{err}");
    // info said "sorted", a mere departure from the canonical table.
    let o = ngi(&["info", "--json", &file]);
    let info: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(info["lookup_table"]["state"], "not-a-permutation");
    let o = ngi(&["info", &sample("sample.nres")]);
    let info: serde_json::Value =
        serde_json::from_slice(&ngi(&["info", "--json", &sample("sample.nres")]).stdout).unwrap();
    assert_eq!(info["lookup_table"]["state"], "canonical", "{o:?}");
    // The sample as it is passes.
    let o = ngi(&["verify", &sample("sample.nres")]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// Found by an audit of verify against SPEC: a rule problem named the entry by index
/// alone where every other message names it; an NRes whose last payload is not padded
/// (its directory off the 8-byte grid) and RsLi bytes after the table when no entry has
/// packed bytes passed without a note, though repack rewrites both.
#[test]
fn verify_names_the_entry_and_notes_an_unpadded_directory_and_lone_bytes() {
    let dir = Scratch::new("cli-verify-audit");
    // One NRes entry of 3 bytes, the directory right after them, at 19.
    let mut bytes = b"NRes".to_vec();
    for v in [0x100u32, 1, 16 + 3 + 64] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.extend_from_slice(b"XYZ");
    for v in [0u32, 0, 0, 3, 0] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let mut field = [0u8; 36];
    field[0] = b'a';
    bytes.extend_from_slice(&field);
    for v in [16u32, 0] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    let file = write(&dir, "unpadded.nres", &bytes);
    let o = ngi(&["verify", &file]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("note: directory at offset 19: not aligned to 8 bytes"),
        "{out}"
    );
    // The entry's offset moved into the header: a problem, with the entry's name.
    let mut bad = bytes.clone();
    let at = bad.len() - 8;
    bad[at..at + 4].copy_from_slice(&8u32.to_le_bytes());
    let file = write(&dir, "bad.nres", &bad);
    let o = ngi(&["verify", &file]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("entry 0 (\"a\"): data offset 8 lies inside the 16-byte header"),
        "{err}"
    );
    // An RsLi of no entries, 8 bytes after its header, or one ("1 byte").
    for (junk, counted) in [(&b"junkjunk"[..], "8 bytes"), (b"j", "1 byte")] {
        let mut library = Builder::new().build().unwrap();
        library.extend_from_slice(junk);
        let file = write(&dir, "junk.rsli", &library);
        let o = ngi(&["verify", &file]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout);
        let want = format!("note: offset 32: {counted} no entry reads, after the table\n");
        assert!(out.contains(&want), "{out}");
    }
    // A Deflate entry one byte past the end of the file (SPEC 2.7's retail entry):
    // accepted, and noted; a stored one, whose packed_size the engine does not read, not.
    let one_past = |method: Method, name: &str| {
        let mut builder = Builder::new();
        builder.add(b"A", method, &b"retail ".repeat(20)).unwrap();
        let mut library = builder.build().unwrap();
        ngi_tests::hostile::patch_rsli(&mut library, |_, e| e.packed_size += 1);
        let o = ngi(&["verify", &write(&dir, name, &library)]);
        assert!(o.status.success(), "{}", stderr(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = one_past(Method::Deflate, "past.rsli");
    assert!(
        out.contains("entry 0 (\"A\") at offset 64: its packed_size reaches one byte past"),
        "{out}"
    );
    let out = one_past(Method::Stored, "stored.rsli");
    assert!(!out.contains("one byte past"), "{out}");
}

/// `repack` sizes packed bytes as the builder does (README): a stored entry whose
/// `packed_size` took its neighbour's first byte (copied with it, twice in the file) and a
/// Deflate entry one byte past the end of the file come back as the builder wrote them.
#[test]
fn repack_sizes_packed_bytes_as_the_builder_does() {
    let dir = Scratch::new("cli-repack-sizes");
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"first").unwrap();
    builder
        .add(b"B", Method::Deflate, &b"retail ".repeat(20))
        .unwrap();
    let built = builder.build().unwrap();
    let mut odd = built.clone();
    ngi_tests::hostile::patch_rsli(&mut odd, |_, e| e.packed_size += 1);
    let path = write(&dir, "odd.rsli", &odd);
    let o = ngi(&["verify", &path]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("one byte past"));
    let out = dir.join("canonical.rsli");
    let o = ngi(&["repack", &path, "-o", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), built);
}

/// An empty file is said to be empty (it "started with" nothing), and the line that ends
/// an `extract` with entries left out names the archive and counts as other lines do.
#[test]
fn an_empty_file_and_a_partial_extract_are_said_plainly() {
    let dir = Scratch::new("cli-plain-lines");
    let empty = write(&dir, "empty.nres", b"");
    let err = assert_bad(&ngi(&["list", &empty]));
    assert!(
        err.contains("empty.nres: not an NRes or RsLi archive (it is empty); use --raw"),
        "{err}"
    );
    // Its first bytes, quoted as names are.
    let text = write(&dir, "text.nres", b"hello \"world\"");
    let err = assert_bad(&ngi(&["list", &text]));
    assert!(
        err.contains("text.nres: not an NRes or RsLi archive (it starts with \"hell\"); use --raw"),
        "{err}"
    );
    // The commands that edit or unpack take no --raw, and do not send the user to it.
    let folder = dir.join("unpacked");
    let folder = folder.to_str().unwrap();
    let commands = [
        &["rm", &empty, "A"][..],
        &["repack", &empty],
        &["unpack", &empty, "-o", folder],
    ];
    for command in commands {
        let err = assert_bad(&ngi(command));
        assert!(
            err.contains("(it is empty); there is no directory to edit or unpack")
                && !err.contains("--raw"),
            "{command:?}: {err}"
        );
    }
    let archive = sample("sample.nres");
    let out = dir.join("out");
    let o = ngi(&[
        "extract",
        &archive,
        "-o",
        out.to_str().unwrap(),
        "--index",
        "0",
        "--max-entry-size",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let last = stderr(&o).lines().last().unwrap_or_default().to_string();
    assert_eq!(last, format!("ngi: {archive}: 1 of 1 entry not extracted"));
}

/// Bytes of an RsLi record that the engine ignores and `repack` zeroes (after a name's
/// NUL, the 4 reserved ones) are noted by `verify`, as NRes name tails are: a library
/// that passed with nothing said came out of `repack` 5 bytes different.
#[test]
fn verify_notes_rsli_record_bytes_repack_zeroes() {
    let dir = Scratch::new("cli-rsli-leftovers");
    let mut tailed = rentry(b"README.TXT", 0, 0, 5, 96, 5);
    tailed.name[11] = b'Z';
    let mut reserved = rentry(b"B.TXT", 0, 1, 3, 101, 3);
    reserved.reserved = [0xde, 0xad, 0xbe, 0xef];
    let bytes = rsli_file(0x1234, false, &[tailed, reserved], b"hello abc", None);
    let path = write(&dir, "a.rsli", &bytes);
    let o = ngi(&["verify", &path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    for line in [
        "entry 0 (\"README.TXT\") at offset 32: 1 non-zero byte after the name's NUL",
        "entry 1 (\"B.TXT\") at offset 76: non-zero reserved bytes (deadbeef)",
    ] {
        assert!(said.contains(line), "{line}: {said}");
    }
    let repacked = dir.join("b.rsli");
    let o = ngi(&["repack", &path, "-o", repacked.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ngi(&["verify", repacked.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(!said.contains("note:"), "repack zeroed them: {said}");
}

/// An empty RsLi name, which the builder and `rename` refuse, is noted by `verify`, as an
/// empty NRes name is (`pack` writes one a manifest gives, and it passed with nothing said).
#[test]
fn verify_notes_an_empty_rsli_name() {
    let dir = Scratch::new("cli-rsli-empty-name");
    let entries = [
        rentry(b"A.TXT", 0, 1, 5, 96, 5),
        rentry(b"", 0, 0, 3, 101, 3),
    ];
    let path = write(
        &dir,
        "a.rsli",
        &rsli_file(7, false, &entries, b"hello abc", None),
    );
    let o = ngi(&["verify", &path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    let line = "entry 1 (\"\") at offset 64: its name is empty, which no canonical writer writes";
    assert!(said.contains(line), "{said}");
}

/// Of two entries with one file name, the later in the archive gets `~INDEX`, whatever
/// the order they are chosen in (`--index 6 --index 1` gave it to entry 1).
#[test]
fn extracted_file_names_do_not_depend_on_the_order_chosen() {
    let dir = Scratch::new("cli-extract-names");
    let archive = samples().join("sample.nres");
    let archive = archive.to_str().unwrap();
    for (k, order) in [["1", "6"], ["6", "1"]].iter().enumerate() {
        let out = dir.join(format!("out{k}"));
        let o = ngi(&[
            "extract",
            archive,
            "-o",
            out.to_str().unwrap(),
            "--index",
            order[0],
            "--index",
            order[1],
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        for (file, index) in [("Steel.mat", "1"), ("STEEL~6.MAT", "6")] {
            let want = ngi(&["cat", "--index", index, archive]).stdout;
            let got = std::fs::read(out.join(file)).unwrap_or_default();
            assert_eq!(got, want, "{order:?}: {file}");
        }
    }
}

/// An entry's file is the one a whole run gives it, whichever entries are chosen: of
/// `A.DAT`, `A.DAT` and `A~1.DAT`, the third is `A~1~2.DAT` (the second took `A~1.DAT`).
/// Chosen alone it was `A~1.DAT`, so `extract --force A~1.DAT` into a folder a whole run
/// had filled replaced entry 1's file with entry 2's bytes, exit 0 and nothing said.
#[test]
fn an_entry_s_file_name_does_not_depend_on_what_else_is_chosen() {
    let dir = Scratch::new("cli-extract-chosen");
    let mut writer = Writer::new();
    for (name, data) in [
        ("A.DAT", "entry0"),
        ("A.DAT", "entry1"),
        ("A~1.DAT", "entry2"),
    ] {
        let entry = NewEntry {
            name: name.as_bytes(),
            ..NewEntry::default()
        };
        writer.add(entry, data.as_bytes()).unwrap();
    }
    let archive = dir.join("a.nres");
    std::fs::write(&archive, writer.finish()).unwrap();
    let (archive, out) = (archive.to_str().unwrap(), dir.join("out"));
    let out = out.to_str().unwrap();
    let files = || -> Vec<(String, String)> {
        let mut files: Vec<_> = std::fs::read_dir(out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .map(|p| {
                let name = p.file_name().unwrap().to_str().unwrap().to_string();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let whole = [
        ("A.DAT", "entry0"),
        ("A~1.DAT", "entry1"),
        ("A~1~2.DAT", "entry2"),
    ]
    .map(|(f, d)| (f.to_string(), d.to_string()));
    let o = ngi(&["extract", archive, "-o", out]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files(), whole);
    for chosen in [
        &["A~1.DAT"][..],
        &["--index", "2"],
        &["--index", "1", "--index", "2"],
    ] {
        let mut args = vec!["extract", archive, "-o", out, "--force"];
        args.extend_from_slice(chosen);
        let o = ngi(&args);
        assert!(o.status.success(), "{chosen:?}: {}", stderr(&o));
        assert_eq!(files(), whole, "{chosen:?}");
    }
    std::fs::remove_dir_all(out).unwrap();
    let o = ngi(&["extract", archive, "-o", out, "--index", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(files(), [whole[2].clone()]);
}

/// An NRes of `(name, sort_index)` records, each with a 1-byte payload.
fn nres_of(records: &[(&[u8], i32)]) -> Vec<u8> {
    let mut body = Vec::new();
    let mut directory = Vec::new();
    for (i, &(name, sort_index)) in records.iter().enumerate() {
        body.extend_from_slice(&[b'0' + i as u8, 0, 0, 0, 0, 0, 0, 0]);
        for v in [1u32, 0, 0, 1, 0] {
            directory.extend_from_slice(&v.to_le_bytes());
        }
        let mut field = [0u8; 36];
        field[..name.len()].copy_from_slice(name);
        directory.extend_from_slice(&field);
        directory.extend_from_slice(&(16 + 8 * i as u32).to_le_bytes());
        directory.extend_from_slice(&sort_index.to_le_bytes());
    }
    let total = 16 + body.len() + directory.len();
    let mut file = b"NRes".to_vec();
    for v in [0x100u32, records.len() as u32, total as u32] {
        file.extend_from_slice(&v.to_le_bytes());
    }
    file.extend_from_slice(&body);
    file.extend_from_slice(&directory);
    file
}

/// `verify` notes an empty NRes name (which `repack` refuses), and a table that is no
/// permutation is that problem alone, not also a note calling it "sorted, ties out of
/// index order".
#[test]
fn verify_notes_empty_names_and_does_not_call_a_broken_table_sorted() {
    let dir = Scratch::new("cli-verify-notes");
    let empty = write(&dir, "empty.nres", &nres_of(&[(b"", 0)]));
    let o = ngi(&["verify", &empty]);
    assert!(o.status.success(), "{}", stderr(&o));
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert!(
        all.contains("entry 0 (\"\") at offset") && all.contains("its name is empty"),
        "{all}"
    );

    let twice = write(&dir, "twice.nres", &nres_of(&[(b"a", 0), (b"b", 0)]));
    let o = ngi(&["verify", &twice]);
    let all = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{all}");
    assert!(all.contains("no permutation"), "{all}");
    assert!(!all.contains("lookup table: sorted"), "{all}");
    let info = String::from_utf8_lossy(&ngi(&["info", &twice]).stdout).into_owned();
    assert!(!info.contains("ties out of index order"), "{info}");
}

/// `--max-total` counts the packed bytes a decoder reads when they are more than it
/// decodes: entries that share one Deflate stream of empty fixed blocks decode to nothing,
/// and counted by their decoded sizes alone they kept `verify` and `extract` busy for as
/// long as the entries times the stream (hours for a 2 MiB file of 32 767 entries).
#[test]
fn max_total_counts_the_packed_bytes_read() {
    let mut stream = [0x02u8, 0x08, 0x20, 0x80, 0x00].repeat(2000); // 8000 empty blocks
    stream.extend_from_slice(&[0x03, 0x00]); // an empty final block
    let mut b = Builder::new();
    for i in 0..10 {
        b.add(format!("E{i}").as_bytes(), Method::Stored, b"")
            .unwrap();
    }
    let mut bytes = b.build().unwrap();
    let at = bytes.len() as u32;
    bytes.extend_from_slice(&stream);
    ngi_tests::hostile::patch_rsli(&mut bytes, |_, e| {
        (e.flags, e.data_offset) = (0x100, at);
        (e.unpacked_size, e.packed_size) = (0, stream.len() as u32);
    });
    let dir = Scratch::new("cli-max-total-packed");
    let path = write(&dir, "shared.rsli", &bytes);
    // 10 002 bytes an entry: four fit under 50 000, the fifth does not.
    let o = ngi(&["verify", &path, "--max-total", "50000"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = stderr(&o);
    assert!(
        err.contains("entry 4 (\"E4\"): not decoded, nor any entry after it")
            && err.contains("50010 bytes")
            && err.contains("--max-total"),
        "{err}"
    );
    let out = dir.join("out");
    let o = ngi(&[
        "extract",
        &path,
        "-o",
        out.to_str().unwrap(),
        "--max-total",
        "50000",
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(stderr(&o).contains("E4"), "{}", stderr(&o));
    let mut made: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    made.sort();
    assert_eq!(made, ["E0", "E1", "E2", "E3"]);
    // Within the limit every entry decodes, to nothing.
    let o = ngi(&["verify", &path, "--max-total", "100020"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// An entry the engine's lookup cannot reach by its own name (an RsLi name in lower case:
/// `rsFind` upper-cases the query) is named in the refusal, with the index that reaches it.
/// A NAME with a NUL finds no entry (the lookup stopped at it and found another).
#[test]
fn a_name_the_lookup_cannot_reach_is_pointed_to_by_index() {
    let mut b = Builder::new();
    b.add(b"LOWER", Method::Stored, b"lower-case bytes")
        .unwrap();
    let mut bytes = b.build().unwrap();
    ngi_tests::hostile::patch_rsli(&mut bytes, |_, e| e.name[..5].copy_from_slice(b"lower"));
    let dir = Scratch::new("cli-unreachable-name");
    let path = write(&dir, "lower.rsli", &bytes);
    let o = ngi(&["cat", &path, "lower"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = stderr(&o);
    assert!(
        err.contains("does not reach entry 0 of that very name (--index 0 does)"),
        "{err}"
    );
    let o = ngi(&["cat", &path, "--index", "0"]);
    assert_eq!(o.stdout, b"lower-case bytes", "{}", stderr(&o));
    let o = ngi(&["cat", &path, "other"]);
    assert!(
        stderr(&o).ends_with("no entry named \"other\"\n"),
        "{}",
        stderr(&o)
    );
    // The engine's lookup stops at a NUL: a name with one would find another entry.
    let original = std::fs::read(sample("sample.rsli")).unwrap();
    let sample = write(&dir, "sample.rsli", &original);
    for args in [
        &["cat", &sample, "README.TXT\\x00zz"][..],
        &[
            "extract",
            &sample,
            "-o",
            &dir.join("x").to_string_lossy(),
            "README.TXT\\x00",
        ],
        &["rm", &sample, "README.TXT\\x00zz"],
    ] {
        let o = ngi(args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert!(
            stderr(&o).contains("no entry named \"README.TXT\\x00") && stderr(&o).contains("NUL"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
    assert!(!dir.join("x").exists());
    assert_eq!(
        std::fs::read(&sample).unwrap(),
        original,
        "rm removed nothing"
    );
}

/// `ngi verify` of a two-entry NRes as the writer makes it, A's payload 16 bytes of 'a'
/// and `second`'s `payload` after it, the second entry's offset then set to `offset`.
fn verify_with_second_at(second: (&[u8], &[u8]), offset: u32) -> Output {
    let mut w = Writer::new();
    for (name, data) in [(&b"A"[..], &[b'a'; 16][..]), second] {
        let entry = NewEntry {
            name,
            ..NewEntry::default()
        };
        w.add(entry, data).unwrap();
    }
    let mut bytes = w.finish();
    let record = bytes.len() - 64;
    bytes[record + 56..record + 60].copy_from_slice(&offset.to_le_bytes());
    let dir = Scratch::new("cli-verify-moved");
    ngi(&["verify", &write(&dir, "moved.nres", &bytes)])
}

/// verify's line on success, whole (it was only checked to contain "ok": a wrong count
/// or word passed; a mutation run found it).
#[test]
fn verify_summary_line_is_exact() {
    for (s, n, format) in [("sample.nres", 8, "NRes"), ("sample.rsli", 7, "RsLi")] {
        let path = sample(s);
        let o = ngi(&["verify", &path]);
        assert!(o.status.success(), "{}", stderr(&o));
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let want = format!("{path}: ok, {n} entries verified ({format})");
        assert_eq!(out.lines().last(), Some(want.as_str()), "{out}");
    }
}

/// Once `--max-total` is reached no entry after is decoded, and the stop is said once (a
/// flag set instead of kept said it again, and counted two problems, unseen).
#[test]
fn verify_stops_decoding_at_the_total_once() {
    let mut b = Builder::new();
    for i in 0..6 {
        b.add(format!("E{i}").as_bytes(), Method::Stored, &[b'x'; 1000])
            .unwrap();
    }
    let dir = Scratch::new("cli-verify-total-once");
    let path = write(&dir, "six.rsli", &b.build().unwrap());
    let o = ngi(&["verify", &path, "--max-total", "2500"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 2, "{err}");
    assert!(
        lines[0].contains("entry 2 (\"E2\"): not decoded, nor any entry after it"),
        "{err}"
    );
    assert!(lines[1].ends_with(": 1 problem in 6 entries"), "{err}");
}

/// A payload 4-aligned but not 8-aligned is noted (only the directory's alignment note
/// was tested).
#[test]
fn verify_notes_a_payload_aligned_to_4_not_8() {
    // A at 16..32, B at 32..36; B moved to 36 (a 4-byte gap, zeros, then B).
    let o = verify_with_second_at((b"B", b"bbbb"), 36);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        out.contains("note: entry 1 (\"B\") at offset 36: payload not aligned to 8 bytes"),
        "{out}"
    );
}

/// An empty NRes entry whose offset lies inside another's payload reads no byte of it,
/// and is not noted as overlapping.
#[test]
fn verify_does_not_call_an_empty_nres_payload_an_overlap() {
    let o = verify_with_second_at((b"E", b""), 24);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!out.contains("overlaps"), "{out}");
}

/// The same for an empty RsLi entry.
#[test]
fn verify_does_not_call_an_empty_rsli_payload_an_overlap() {
    let mut b = Builder::new();
    b.add(b"A", Method::Stored, &[b'a'; 16]).unwrap();
    b.add(b"E", Method::Stored, b"").unwrap();
    let mut bytes = b.build().unwrap();
    let mut a_at = 0;
    ngi_tests::hostile::patch_rsli(&mut bytes, |i, e| match i {
        0 => a_at = e.data_offset,
        _ => e.data_offset = a_at + 4,
    });
    let dir = Scratch::new("cli-verify-empty-rsli");
    let path = write(&dir, "e.rsli", &bytes);
    let o = ngi(&["verify", &path]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(!out.contains("overlap"), "{out}");
}

/// The table's size and packed columns agree with `list --json`, where they differ
/// (compressed RsLi entries): no test read the table's numbers.
#[test]
fn list_table_size_and_packed_columns_match_json() {
    let path = sample("sample.rsli");
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&ngi(&["list", "--json", &path]).stdout).unwrap();
    let text = String::from_utf8_lossy(&ngi(&["list", &path]).stdout).into_owned();
    let mut differ = 0;
    for (row, line) in rows.iter().zip(text.lines().skip(1)) {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(cols[2], row["size"].to_string(), "{line}");
        assert_eq!(cols[3], row["packed_size"].to_string(), "{line}");
        differ += usize::from(row["size"] != row["packed_size"]);
    }
    assert_eq!(rows.len(), text.lines().count() - 1);
    assert!(differ > 0, "the sample has compressed entries");
}

/// The JSON's `sort_index` is the record's field (only the key's presence was tested; the
/// same rows are `serve`'s listings).
#[test]
fn list_json_sort_index_is_the_directory_field() {
    let path = sample("sample.nres");
    let bytes = std::fs::read(&path).unwrap();
    let rows: Vec<serde_json::Value> =
        serde_json::from_slice(&ngi(&["list", "--json", &path]).stdout).unwrap();
    let dir = bytes.len() - 64 * rows.len();
    for (i, row) in rows.iter().enumerate() {
        let at = dir + 64 * i + 60;
        let field = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!(row["sort_index"], field, "entry {i}");
    }
}
