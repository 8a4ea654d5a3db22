//! One NRes and one RsLi archive laid out byte by byte here, by hand, and read back: the
//! writers are not their own only reference.

use ngi_core::Method;
use ngi_core::nres::{self, Archive};
use ngi_core::rsli::{Library, LookupTable, OpenOptions};

fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

/// SPEC 2.3 exactly as written, one byte at a time: the reader's reference.
fn spec_xor(key: u16, data: &mut [u8]) {
    let (mut lo, mut hi) = ((key & 0xFF) as u8, (key >> 8) as u8);
    for b in data {
        // The u8 shift drops bit 7, which is the spec's `& 0xFF`.
        lo = hi ^ (lo << 1);
        *b ^= lo;
        hi = lo ^ (hi >> 1);
    }
}

fn nres_record(
    type_id: &[u8; 4],
    attrs: [u32; 3],
    size: u32,
    name_field: &[u8],
    offset: u32,
    sort: u32,
) -> Vec<u8> {
    let mut r = Vec::new();
    r.extend_from_slice(type_id);
    r.extend_from_slice(&le32(attrs[0]));
    r.extend_from_slice(&le32(attrs[1]));
    r.extend_from_slice(&le32(size));
    r.extend_from_slice(&le32(attrs[2]));
    let mut name = [0u8; 36];
    name[..name_field.len()].copy_from_slice(name_field);
    r.extend_from_slice(&name);
    r.extend_from_slice(&le32(offset));
    r.extend_from_slice(&le32(sort));
    assert_eq!(r.len(), 64);
    r
}

#[test]
fn handmade_nres_reads_back() {
    // 16 header + "hello" at 16 (3 bytes padding) + "WORLD!!!" at 24 + 2*64 directory.
    let mut file = Vec::new();
    file.extend_from_slice(b"NRes");
    file.extend_from_slice(&le32(0x100));
    file.extend_from_slice(&le32(2));
    file.extend_from_slice(&le32(160));
    file.extend_from_slice(b"hello\0\0\0");
    file.extend_from_slice(b"WORLD!!!");
    // Sorted names: "Alpha" (entry 1), "zeta" (entry 0): slot 0 holds 1, slot 1 holds 0.
    // Entry 0's name field has bytes after its NUL: not part of the name.
    file.extend(nres_record(b"Texm", [1, 2, 3], 5, b"zeta\0junk", 16, 1));
    file.extend(nres_record(b"MAT0", [4, 5, 6], 8, b"Alpha", 24, 0));
    assert_eq!(file.len(), 160);

    let archive = Archive::open(&file).unwrap();
    assert_eq!(archive.len(), 2);
    assert_eq!(archive.directory_offset(), 32);
    assert_eq!(
        archive.header(),
        Some(nres::Header {
            entry_count: 2,
            total_size: 160
        })
    );
    assert_eq!(archive.lookup_table(), nres::LookupTable::Canonical);
    let e0 = archive.entry(0).unwrap();
    assert_eq!(e0.name(), b"zeta");
    assert_eq!(&e0.name_field[..9], b"zeta\0junk");
    assert_eq!(e0.type_id, u32::from_le_bytes(*b"Texm"));
    assert_eq!((e0.attr1, e0.attr2, e0.attr3, e0.size), (1, 2, 3, 5));
    assert_eq!((e0.data_offset, e0.sort_index), (16, 1));
    let e1 = archive.entry(1).unwrap();
    assert_eq!(
        (e1.name(), e1.attr1, e1.attr2, e1.attr3),
        (&b"Alpha"[..], 4, 5, 6)
    );
    assert_eq!(archive.payload(0).unwrap(), b"hello");
    assert_eq!(archive.payload(1).unwrap(), b"WORLD!!!");
    for (query, want) in [
        (&b"ZETA"[..], Some(0)),
        (b"zeta", Some(0)),
        (b"ALPHA", Some(1)),
    ] {
        assert_eq!(archive.find(query), want);
    }
    assert_eq!(archive.find(b"alph"), None);
    assert_eq!(archive.problems().count(), 0);
    // Entry records read back to the very bytes they were read from.
    assert_eq!(&e0.to_bytes()[..], &file[32..96]);
}

fn rsli_record(name: &[u8], flags: u16, sort: u16, size: u32, offset: u32, packed: u32) -> Vec<u8> {
    let mut r = vec![0u8; 16];
    r[..name.len()].copy_from_slice(name);
    r.extend_from_slice(&flags.to_le_bytes());
    r.extend_from_slice(&sort.to_le_bytes());
    r.extend_from_slice(&le32(size));
    r.extend_from_slice(&le32(offset));
    r.extend_from_slice(&le32(packed));
    assert_eq!(r.len(), 32);
    r
}

#[test]
fn handmade_rsli_reads_back_with_engine_keys() {
    // Three entries, no 0xABBA: the engine sorts ALPHA (2), MID (0), ZED (1), so
    // entries[0..3].sort_index become 2, 0, 1, overwriting the garbage stored here, and the
    // XOR entries are keyed by those computed values.
    let mid_plain = *b"middle";
    let alpha_plain = *b"first!!";
    let mut mid_packed = mid_plain;
    spec_xor(2, &mut mid_packed);
    let mut alpha_packed = alpha_plain;
    spec_xor(1, &mut alpha_packed);
    let table_start = 32;
    let data_start = table_start + 3 * 32; // 128
    let mut table = Vec::new();
    table.extend(rsli_record(b"MID", 0x0020, 0x7777, 6, data_start, 6));
    table.extend(rsli_record(b"ZED", 0x0000, 0x5555, 4, data_start + 6, 4));
    table.extend(rsli_record(b"ALPHA", 0x0020, 0xFFFF, 7, data_start + 10, 7));
    spec_xor(0x1234, &mut table);

    let mut file = Vec::new();
    file.extend_from_slice(b"NL\x00\x01");
    file.extend_from_slice(&3i16.to_le_bytes());
    file.extend_from_slice(&[0; 8]);
    file.extend_from_slice(&0u16.to_le_bytes()); // not presorted
    file.extend_from_slice(&[0; 4]);
    file.extend_from_slice(&le32(0xCAFE_1234)); // only the low 16 bits key the table
    file.extend_from_slice(&[0; 8]);
    assert_eq!(file.len(), 32);
    file.extend(table);
    file.extend_from_slice(&mid_packed);
    file.extend_from_slice(b"zed!");
    file.extend_from_slice(&alpha_packed);

    let lib = Library::open_with(&file, OpenOptions::default()).unwrap();
    assert_eq!(lib.len(), 3);
    assert_eq!(lib.header().key(), 0x1234);
    assert!(!lib.header().is_presorted());
    assert_eq!(lib.lookup_table(), LookupTable::Computed);
    let names: Vec<&[u8]> = lib.entries().iter().map(|e| e.name()).collect();
    assert_eq!(names, [&b"MID"[..], b"ZED", b"ALPHA"]);
    let sort: Vec<u16> = lib.entries().iter().map(|e| e.sort_index).collect();
    assert_eq!(sort, [2, 0, 1]);
    let stored: Vec<u16> = lib.entries().iter().map(|e| e.file_sort_index).collect();
    assert_eq!(stored, [0x7777, 0x5555, 0xFFFF]);
    assert_eq!(lib.entry(0).unwrap().method(), Ok(Method::Xor));
    assert_eq!(lib.entry(1).unwrap().method(), Ok(Method::Stored));

    let mut out = [0u8; 6];
    lib.unpack_into(0, &mut out).unwrap();
    assert_eq!(&out, b"middle");
    let mut out = [0u8; 4];
    lib.unpack_into(1, &mut out).unwrap();
    assert_eq!(&out, b"zed!");
    let mut out = [0u8; 7];
    lib.unpack_into(2, &mut out).unwrap();
    assert_eq!(&out, b"first!!");

    for (query, want) in [
        (&b"alpha"[..], Some(2)),
        (b"MID", Some(0)),
        (b"zed", Some(1)),
    ] {
        assert_eq!(lib.find(query), want, "{}", String::from_utf8_lossy(query));
    }
    assert_eq!(lib.find(b"NOPE"), None);
    assert_eq!(lib.problems().count(), 0);
}
