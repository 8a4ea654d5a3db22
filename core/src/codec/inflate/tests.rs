use super::huffman::{DIST_ROOT, LIT_ROOT, build, consumed};
use super::*;

#[test]
fn state_size_is_as_documented() {
    #[cfg(target_pointer_width = "64")]
    assert_eq!(core::mem::size_of::<InflateDecoder>(), 42648);
    assert!(core::mem::size_of::<InflateDecoder>() <= 48 * 1024);
    // The in-place form: the same without the window and its mirror, and one counter.
    #[cfg(target_pointer_width = "64")]
    assert_eq!(core::mem::size_of::<InPlaceDecoder>(), 42648 - 33040 + 8);
}

/// The fast loop shifts and subtracts by whole entries, which is right only while every
/// entry consumes fewer than 64 bits (bits 6-7 clear): true of the fixed codes, of codes
/// as long as the format allows (15 bits, second-level tables) and of the longest extra bits.
#[test]
fn every_entry_consumes_under_64_bits() {
    let mut fixed = [8u8; 288];
    fixed[144..256].fill(9);
    fixed[256..280].fill(7);
    // A complete code with lengths 1..=14 and two of 15: the deepest second-level tables.
    let mut deep = [0u8; 286];
    for (i, l) in deep.iter_mut().take(15).enumerate() {
        *l = (i + 1) as u8;
    }
    deep[15] = 15;
    // The fixed distance code: 0..=29 with every extra-bit count (and 30, 31), 5 bits each.
    let dists = [5u8; 32];
    let mut lit = [0u32; LIT_SIZE];
    let mut dist = [0u32; DIST_SIZE];
    for lens in [&fixed[..], &deep[..]] {
        build(lens, &mut lit, LIT_ROOT, CodeTable::Literals).unwrap();
        assert!(lit.iter().all(|&e| e & 0xC0 == 0));
    }
    build(&dists, &mut dist, DIST_ROOT, CodeTable::Distances).unwrap();
    assert!(dist.iter().all(|&e| e & 0xC0 == 0));
    assert!(dist.iter().any(|&e| consumed(e) == 5 + 13));
}
