//! The `AO` media trailer (SPEC 2.8): present or absent, honoured or ignored.

use super::*;

const HONOUR: OpenOptions = OpenOptions::DEFAULT.with_media_trailer(true);

#[test]
fn absent() {
    let file = raw_file(0, true, &[entry(b"A", 0, 64, 2)], b"hi", None);
    for options in [OpenOptions::default(), HONOUR] {
        let library = open(&file, options);
        assert_eq!((library.trailer(), library.overlay()), (None, None));
        assert_eq!(library.effective_offset(0), Ok(64));
        assert_eq!(library.packed(0), Ok(&b"hi"[..]));
    }
}

#[test]
fn present_ignored_or_honoured() {
    // data_offset 24 + overlay 40 = 64, where the payload is.
    let file = raw_file(0x99, false, &[entry(b"A", 0, 24, 2)], b"hi", Some(40));
    let ignored = open(&file, OpenOptions::default());
    assert_eq!((ignored.trailer(), ignored.overlay()), (Some(40), None));
    assert_eq!(ignored.effective_offset(0), Ok(24));
    assert_ne!(ignored.packed(0), Ok(&b"hi"[..]));
    let honoured = open(&file, HONOUR);
    assert_eq!(
        (honoured.trailer(), honoured.overlay()),
        (Some(40), Some(40))
    );
    assert_eq!(honoured.effective_offset(0), Ok(64));
    assert_eq!(honoured.packed(0), Ok(&b"hi"[..]));
}

#[test]
fn only_the_last_six_bytes_count() {
    // "AO" elsewhere is not a trailer; the last 6 bytes are one, whatever they belong to
    // (here the end of a payload), as the engine sees it.
    let file = raw_file(0, true, &[entry(b"A", 0, 64, 7)], b"AO\x05\0\0\0\0", None);
    assert_eq!(open(&file, HONOUR).trailer(), None);
    let file = raw_file(0, true, &[entry(b"A", 0, 64, 7)], b"xAO\x05\0\0\0", None);
    let library = open(&file, HONOUR);
    assert_eq!((library.trailer(), library.overlay()), (Some(5), Some(5)));
}

#[test]
fn builder_round_trip_with_overlay() {
    let mut rng = Lcg(0x0A0A);
    for overlay in [0u32, 1, 17, 32 + 32 * 3] {
        let mut builder = Builder::new();
        builder.seed(rng.next()).media_trailer(Some(overlay));
        let data: Vec<Vec<u8>> = (0..3).map(|i| rng.bytes(10 + i * 7)).collect();
        for (i, d) in data.iter().enumerate() {
            let method = [Method::Stored, Method::Xor][i % 2];
            builder.add(&[b'N', b'0' + i as u8], method, d).unwrap();
        }
        let file = builder.build().unwrap();
        assert_eq!(&file[file.len() - 6..][..2], b"AO");
        let library = open(&file, HONOUR);
        assert_eq!(library.overlay(), Some(overlay));
        let mut position = 32 + 32 * 3;
        for (i, d) in data.iter().enumerate() {
            let e = library.entries()[i];
            assert_eq!(u64::from(e.data_offset) + u64::from(overlay), position);
            assert_eq!(library.effective_offset(i), Ok(position));
            let mut out = alloc::vec![0u8; d.len()];
            library.unpack_into(i, &mut out).unwrap();
            assert_eq!(&out, d, "overlay {overlay}, entry {i}");
            position += d.len() as u64;
        }
        assert_eq!(position + 6, file.len() as u64);
        assert_eq!(library.problems().count(), 0);
        // Ignoring the trailer, every offset is `overlay` short.
        let ignored = open(&file, OpenOptions::default());
        assert_eq!(ignored.trailer(), Some(overlay));
        assert_eq!(ignored.overlay(), None);
        for i in 0..3 {
            assert_eq!(
                ignored.effective_offset(i).unwrap() + u64::from(overlay),
                library.effective_offset(i).unwrap()
            );
        }
    }
}

#[test]
fn builder_without_trailer() {
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, b"xy").unwrap();
    let file = builder.build().unwrap();
    assert_eq!(file.len(), 32 + 32 + 2);
    let library = open(&file, HONOUR);
    assert_eq!((library.trailer(), library.overlay()), (None, None));
    assert_eq!(library.entries()[0].data_offset, 64);
}
