//! The read invariants of SPEC 2.2 and 2.4, one test each, with exact errors.

use super::*;
use crate::error::DecodeError;
use crate::rsli::RsliError;

fn both_ways(file: &[u8]) -> RsliError {
    let owned = Library::open_with(file, OpenOptions::default()).unwrap_err();
    let mut storage = [Entry::default(); 4];
    let borrowed = Library::open_in(file, &mut storage, OpenOptions::default()).unwrap_err();
    assert_eq!(owned, borrowed);
    owned
}

#[test]
fn truncated_header() {
    let file = raw_file(0, false, &[], &[], None);
    assert_eq!(
        both_ways(&file[..31]),
        RsliError::Truncated {
            len: 31,
            needed: 32
        }
    );
    assert_eq!(both_ways(&[]), RsliError::Truncated { len: 0, needed: 32 });
}

#[test]
fn truncated_table() {
    let entries = [entry(b"A", 0, 0, 0); 3];
    let file = raw_file(0x77, false, &entries, &[], None);
    assert_eq!(
        both_ways(&file[..32 + 64]),
        RsliError::Truncated {
            len: 96,
            needed: 128
        }
    );
    assert!(Library::open_with(&file, OpenOptions::default()).is_ok());
    // The largest count with a header-only file: refused before anything is allocated.
    let mut huge = raw_file(0, false, &[], &[], None);
    huge[4..6].copy_from_slice(&32767u16.to_le_bytes());
    assert_eq!(
        both_ways(&huge),
        RsliError::Truncated {
            len: 32,
            needed: 32 + 32 * 32767
        }
    );
}

#[test]
fn bad_magic() {
    let mut file = raw_file(0, false, &[], &[], None);
    file[0] = b'R';
    assert_eq!(both_ways(&file), RsliError::BadMagic { found: *b"RL" });
}

#[test]
fn bad_reserved() {
    let mut file = raw_file(0, false, &[], &[], None);
    file[2] = 0x80;
    assert_eq!(both_ways(&file), RsliError::BadReserved { found: 0x80 });
}

#[test]
fn bad_version() {
    let mut file = raw_file(0, false, &[], &[], None);
    file[3] = 2;
    assert_eq!(both_ways(&file), RsliError::BadVersion { found: 2 });
}

#[test]
fn negative_entry_count() {
    let mut file = raw_file(0, false, &[], &[0; 64], None);
    file[4..6].copy_from_slice(&(-2i16).to_le_bytes());
    assert_eq!(
        both_ways(&file),
        RsliError::NegativeEntryCount { count: -2 }
    );
}

#[test]
fn storage_too_small() {
    let entries = [entry(b"A", 0, 0, 0); 5];
    let file = raw_file(1, true, &entries, &[], None);
    let mut storage = [Entry::default(); 4];
    assert_eq!(
        Library::open_in(&file, &mut storage, OpenOptions::default()).unwrap_err(),
        RsliError::StorageTooSmall { needed: 5, got: 4 }
    );
}

#[test]
fn data_in_bounds_up_to_the_last_byte() {
    let file = raw_file(0, true, &[entry(b"A", 0, 64, 4)], b"abcd", None);
    let library = open(&file, OpenOptions::default());
    assert_eq!(library.packed(0), Ok(&b"abcd"[..]));
    assert_eq!(library.problems().count(), 0);
    assert_eq!(library.packed(1), Err(RsliError::NoSuchEntry { index: 1 }));
    assert_eq!(
        library.effective_offset(usize::MAX),
        Err(RsliError::NoSuchEntry {
            index: usize::MAX as u64
        })
    );
}

#[test]
fn data_out_of_bounds() {
    let entries = [
        entry(b"A", 0, 160, 5), // one byte past the end
        // 0xFFFF_FFF0 + 0x20 wraps to 0x10 in 32 bits, which would look in bounds.
        entry(b"B", 0, 0xFFFF_FFF0, 0x20),
        entry(b"C", 0x20, u32::MAX, u32::MAX),
        entry(b"D", 0, 165, 0), // empty, but starting past the end
    ];
    let file = raw_file(0x1234, true, &entries, b"abcd", None);
    let file_len = file.len() as u64;
    assert_eq!(file_len, 32 + 128 + 4);
    let library = open(&file, OpenOptions::default());
    let want = |entry: u32, offset: u64, size: u32| RsliError::DataOutOfBounds {
        entry,
        offset,
        size,
        file_len,
    };
    let expected = [
        want(0, 160, 5),
        want(1, 0xFFFF_FFF0, 0x20),
        want(2, 0xFFFF_FFFF, u32::MAX),
        want(3, 165, 0),
    ];
    for (i, e) in expected.iter().enumerate() {
        assert_eq!(library.packed(i), Err(*e));
        let mut out = alloc::vec![0u8; entries[i].unpacked_size.min(16) as usize];
        assert_eq!(library.unpack_into(i, &mut out), Err(*e));
        assert_eq!(e.entry(), Some(i as u32));
    }
    assert!(library.problems().eq(expected));
}

#[test]
fn data_out_of_bounds_with_overlay() {
    // In bounds as stored; the overlay moves it out.
    let entries = [
        entry(b"A", 0, 60, 4),
        // 0x10 + 0xFFFF_FFFF wraps to 0x0F in 32 bits.
        entry(b"B", 0, 0x10, 0),
    ];
    let overlay = 0xFFFF_FFFF;
    let file = raw_file(0, false, &entries, b"abcd", Some(overlay));
    let file_len = file.len() as u64;
    let plain = open(&file, OpenOptions::default());
    assert_eq!(plain.problems().count(), 0);
    assert_eq!(plain.effective_offset(1), Ok(0x10));
    let honoured = open(&file, OpenOptions::DEFAULT.with_media_trailer(true));
    assert_eq!(honoured.effective_offset(0), Ok(60 + u64::from(overlay)));
    assert_eq!(
        honoured.packed(1),
        Err(RsliError::DataOutOfBounds {
            entry: 1,
            offset: 0x1_0000_000F,
            size: 0,
            file_len
        })
    );
    assert_eq!(honoured.problems().count(), 2);
}

#[test]
fn unsupported_methods() {
    let entries = [
        entry(b"A", 0x1E0, 32 + 96, 1),
        entry(b"B", 0x0C0, 32 + 96, 1),
        // Attribute bits do not make an undefined method defined; out of bounds too.
        entry(b"C", 0x8141, 1000, 1),
    ];
    let file = raw_file(9, true, &entries, b"x", None);
    let library = open(&file, OpenOptions::default());
    for (i, flags) in [(0u32, 0x1E0u16), (1, 0x0C0), (2, 0x8141)] {
        let want = RsliError::UnsupportedMethod { entry: i, flags };
        let index = i as usize;
        assert_eq!(library.packed(index), Err(want));
        assert_eq!(library.unpacker(index).unwrap_err(), want);
        assert_eq!(library.unpack_into(index, &mut [0u8; 1]), Err(want));
    }
    let problems: Vec<_> = library.problems().collect();
    assert_eq!(
        problems,
        [
            RsliError::UnsupportedMethod {
                entry: 0,
                flags: 0x1E0
            },
            RsliError::UnsupportedMethod {
                entry: 1,
                flags: 0x0C0
            },
            RsliError::UnsupportedMethod {
                entry: 2,
                flags: 0x8141
            },
            RsliError::DataOutOfBounds {
                entry: 2,
                offset: 1000,
                size: 1,
                file_len: file.len() as u64
            },
        ]
    );
}

#[test]
fn deflate_may_overrun_by_one_byte_only() {
    let base = 32 + 6 * 32;
    let entries = [
        entry(b"D1", 0x100, base, 5),         // ends 1 past: accepted, cut to 4
        entry(b"D2", 0x100, base, 6),         // ends 2 past
        entry(b"S1", 0x000, base, 5),         // stored, 1 past
        entry(b"X1", 0x020, base, 5),         // XOR, 1 past
        entry(b"L1", 0x040, base, 5),         // LZSS, 1 past
        entry(b"D0", 0x100 | 1, base + 5, 0), // empty, starting 1 past the end
    ];
    let file = raw_file(0xBEEF, true, &entries, b"defl", None);
    let file_len = file.len() as u64;
    let library = open(&file, OpenOptions::default());
    assert_eq!(library.packed(0), Ok(&b"defl"[..]));
    let oob = |entry: u32, offset: u32, size: u32| RsliError::DataOutOfBounds {
        entry,
        offset: offset.into(),
        size,
        file_len,
    };
    assert_eq!(library.packed(1), Err(oob(1, base, 6)));
    assert_eq!(library.packed(2), Err(oob(2, base, 5)));
    assert_eq!(library.packed(3), Err(oob(3, base, 5)));
    assert_eq!(library.packed(4), Err(oob(4, base, 5)));
    assert_eq!(library.packed(5), Err(oob(5, base + 5, 0)));
    let problems: Vec<_> = library.problems().collect();
    assert_eq!(
        problems,
        [
            oob(1, base, 6),
            oob(2, base, 5),
            oob(3, base, 5),
            oob(4, base, 5),
            oob(5, base + 5, 0)
        ]
    );
}

#[test]
fn output_size_and_short_streams() {
    // Stored and XOR entries read `unpacked_size` bytes whatever `packed_size` says
    // (SPEC 2.7): a short `packed_size` with the data present still decodes in full.
    let mut short = entry(b"S", 0, 64, 3);
    short.unpacked_size = 4;
    let file = raw_file(0, true, &[short], b"abcd", None);
    let library = open(&file, OpenOptions::default());
    assert_eq!(
        library.unpack_into(0, &mut [0u8; 3]),
        Err(RsliError::OutputSize {
            entry: 0,
            expected: 4,
            got: 3
        })
    );
    let mut out = [0u8; 4];
    library.unpack_into(0, &mut out).unwrap();
    assert_eq!(&out, b"abcd");
    assert_eq!(library.entry(0).map(Entry::stream_len), Some(4));
    // The data missing from the file: out of bounds, sized by `unpacked_size`.
    let file = raw_file(0, true, &[short], b"abc", None);
    assert_eq!(
        open(&file, OpenOptions::default()).unpack_into(0, &mut [0u8; 4]),
        Err(RsliError::DataOutOfBounds {
            entry: 0,
            offset: 64,
            size: 4,
            file_len: 67
        })
    );
    // A decoder fed fewer bytes than it needs reports the truncation.
    let mut decoder = library.unpacker(0).unwrap();
    let mut out = [0u8; 4];
    assert_eq!(
        crate::codec::Decoder::decode(&mut decoder, b"abc", &mut out, true),
        Err(DecodeError::Truncated {
            produced: 3,
            expected: 4
        })
    );
    // Longer packed data than needed: the rest is not part of the stream.
    let mut long = entry(b"L", 0x20, 64, 3);
    long.unpacked_size = 2;
    long.sort_index = 0;
    let file = raw_file(0, true, &[long], b"abc", None);
    let mut out = [0u8; 2];
    open(&file, OpenOptions::default())
        .unpack_into(0, &mut out)
        .unwrap();
    // Key 0 (the entry's sort_index) leaves the data as it is.
    assert_eq!(&out, b"ab");
}
