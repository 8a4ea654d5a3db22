//! Random tables and damaged files: every call returns, nothing panics.

use super::*;

fn exercise(file: &[u8]) {
    for options in [
        OpenOptions::default(),
        OpenOptions::DEFAULT.with_media_trailer(true),
    ] {
        let Ok(library) = Library::open_with(file, options) else {
            continue;
        };
        let _ = library.problems().count();
        for i in 0..=library.len() {
            let _ = library.effective_offset(i);
            if let Ok(packed) = library.packed(i) {
                assert!(packed.len() <= file.len());
            }
            let _ = library.unpacker(i);
            let size = library.entry(i).map_or(0, |e| e.unpacked_size.min(4096));
            let _ = library.unpack_into(i, &mut alloc::vec![0u8; size as usize]);
            if let Some(e) = library.entry(i) {
                let name = e.name;
                assert!(library.find(&name).is_some() || name.iter().any(u8::is_ascii_lowercase));
            }
        }
        let _ = library.find(b"");
    }
}

#[test]
fn random_tables() {
    let mut rng = Lcg(0xBAD);
    for _ in 0..300 {
        let count = rng.below(20);
        let mut file = alloc::vec![0u8; HEADER_LEN];
        file[..4].copy_from_slice(b"NL\x00\x01");
        file[4..6].copy_from_slice(&(count as u16).to_le_bytes());
        if rng.below(2) == 0 {
            file[14..16].copy_from_slice(&0xABBAu16.to_le_bytes());
        }
        let mut table = rng.bytes(count * ENTRY_LEN);
        // Small sizes and offsets now and then, so that some entries land in the file.
        for e in table.chunks_exact_mut(ENTRY_LEN) {
            if rng.below(2) == 0 {
                let flags = (0x20 * rng.below(9) as u16) | (rng.below(2) as u16 * 0x8000);
                e[16..18].copy_from_slice(&flags.to_le_bytes());
                e[18..20].copy_from_slice(&(rng.below(count + 2) as u16).to_le_bytes());
                for at in [20, 24, 28] {
                    e[at..at + 4].copy_from_slice(&(rng.below(700) as u32).to_le_bytes());
                }
            }
        }
        file.extend_from_slice(&table);
        let tail = rng.below(700);
        file.extend(rng.bytes(tail));
        exercise(&file);
        for cut in [0, 1, 31, 32, 33, file.len() / 2] {
            exercise(&file[..cut.min(file.len())]);
        }
    }
}
