//! Memory of the real binary on archives of about 4 GiB (sparse files, so they cost no
//! disk): `ngi cat` of a 1 KiB entry at the end and `ngi list` stay under 32 MiB of peak
//! resident memory, because only the header, the directory and the entry's packed range
//! are read. The peak is the children's `ru_maxrss`, read by Python's `resource` module
//! (getrusage), which runs the command. A 48 MiB entry written into a pipe (on a thread
//! behind the decoder) stays under the same bound: two chunks are held, not the entry.

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::Path;

use ngi_core::nres;
use ngi_core::rsli;

use ngi_tests::scratch::Scratch;

/// The most resident memory a command may peak at.
const LIMIT_KIB: u64 = 32 * 1024;
/// The archives' length: as close to 4 GiB as the 32-bit sizes allow.
const LEN: u64 = 0xFFFF_FF00;

fn payload() -> Vec<u8> {
    (0..1024u32).map(|i| (i * 7 + 3) as u8).collect()
}

fn write_at(file: &mut File, at: u64, bytes: &[u8]) {
    file.seek(SeekFrom::Start(at)).unwrap();
    file.write_all(bytes).unwrap();
}

/// An NRes of one 1 KiB entry right before its directory, LEN bytes in all.
fn sparse_nres(path: &Path) {
    let mut file = File::create(path).unwrap();
    file.set_len(LEN).unwrap();
    let header = nres::Header {
        entry_count: 1,
        total_size: LEN as u32,
    };
    write_at(&mut file, 0, &header.to_bytes());
    let at = LEN - 64 - 1024;
    write_at(&mut file, at, &payload());
    let mut name = [0u8; 36];
    name[..8].copy_from_slice(b"last.bin");
    let entry = nres::Entry {
        index: 0,
        type_id: 0,
        attr1: 0,
        attr2: 0,
        size: 1024,
        attr3: 0,
        name_field: &name,
        data_offset: at as u32,
        sort_index: 0,
    };
    write_at(&mut file, LEN - 64, &entry.to_bytes());
}

/// An RsLi of `file_len` bytes (sparse) holding one stored entry `name` of `size` bytes
/// at `at` (seed 0: the table is plain); the entry's bytes are left to the caller.
fn stored_rsli(path: &Path, file_len: u64, name: &[u8], size: u32, at: u32) -> File {
    let mut file = File::create(path).unwrap();
    file.set_len(file_len).unwrap();
    let mut header = [0u8; 32];
    header[..4].copy_from_slice(b"NL\x00\x01");
    header[4] = 1;
    write_at(&mut file, 0, &header);
    let mut entry = rsli::Entry::default();
    entry.name[..name.len()].copy_from_slice(name);
    entry.unpacked_size = size;
    entry.packed_size = size;
    entry.data_offset = at;
    write_at(&mut file, 32, &entry.to_bytes());
    file
}

/// An RsLi of one stored 1 KiB entry at its very end.
fn sparse_rsli(path: &Path) {
    let mut file = stored_rsli(path, LEN, b"LAST.BIN", 1024, (LEN - 1024) as u32);
    write_at(&mut file, LEN - 1024, &payload());
}

/// `ngi args` with its peak RSS (KiB), measured by `ngi_tests::peak::run_measured`.
fn run_measured(args: &[&str]) -> (Vec<u8>, u64) {
    ngi_tests::peak::run_measured(env!("CARGO_BIN_EXE_ngi"), args)
}

#[test]
fn cat_and_list_of_a_4_gib_archive_stay_under_32_mib() {
    let dir = Scratch::new("mem-sparse");
    for (name, make) in [
        ("big.nres", sparse_nres as fn(&Path)),
        ("big.rsli", sparse_rsli),
    ] {
        let path = dir.join(name);
        make(&path);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), LEN);
        let path = path.to_str().unwrap();
        let (out, peak) = run_measured(&["cat", "--index", "0", path]);
        println!("{name}: cat peak RSS {peak} KiB");
        assert_eq!(out, payload(), "{name}: the entry's bytes");
        assert!(peak < LIMIT_KIB, "{name}: cat peaked at {peak} KiB");
        let (out, peak) = run_measured(&["list", "--json", path]);
        println!("{name}: list peak RSS {peak} KiB");
        assert!(
            String::from_utf8_lossy(&out).contains("\"size\": 1024"),
            "{name}"
        );
        assert!(peak < LIMIT_KIB, "{name}: list peaked at {peak} KiB");
    }
}

/// An RsLi of one stored entry of `len` zero bytes (a hole in a sparse file).
fn large_stored_rsli(path: &Path, len: u32) {
    stored_rsli(path, 64 + u64::from(len), b"LARGE", len, 64);
}

#[test]
fn cat_of_an_entry_larger_than_the_bound_into_a_pipe_stays_under_it() {
    const ENTRY: u32 = 48 << 20;
    assert!(u64::from(ENTRY) / 1024 > LIMIT_KIB);
    let dir = Scratch::new("mem-large");
    let path = dir.join("large.rsli");
    large_stored_rsli(&path, ENTRY);
    let (out, peak) = run_measured(&["cat", path.to_str().unwrap(), "LARGE"]);
    println!("large.rsli: cat of 48 MiB into a pipe peak RSS {peak} KiB");
    assert_eq!(out.len(), ENTRY as usize);
    assert!(out.iter().all(|&b| b == 0), "the entry's bytes");
    assert!(peak < LIMIT_KIB, "cat peaked at {peak} KiB");
}

/// `unpack` of an RsLi entry that is not decoded (here over `--max-entry-size`) keeps
/// its packed bytes in `FILE.packed`, copied a piece at a time: they were read whole
/// into memory, sized by the record (a probe's 1.5 GB entry aborted the command for
/// want of memory).
#[test]
fn unpack_keeps_packed_bytes_it_does_not_decode_under_the_bound() {
    const ENTRY: u32 = 48 << 20;
    assert!(u64::from(ENTRY) / 1024 > LIMIT_KIB);
    let dir = Scratch::new("mem-unpack-packed");
    let path = dir.join("large.rsli");
    large_stored_rsli(&path, ENTRY);
    let out = dir.join("out");
    let (_, peak) = run_measured(&[
        "unpack",
        "--max-entry-size",
        "1M",
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    println!("large.rsli: unpack keeping 48 MiB of packed bytes peak RSS {peak} KiB");
    let kept = std::fs::read(out.join("LARGE.packed")).unwrap();
    assert_eq!(kept.len(), ENTRY as usize);
    assert!(kept.iter().all(|&b| b == 0), "the entry's bytes");
    assert!(peak < LIMIT_KIB, "unpack peaked at {peak} KiB");
}
