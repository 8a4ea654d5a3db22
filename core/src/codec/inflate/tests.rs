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

/// A call that stops inside a stored block keeps its output in the window unless the
/// stored blocks seen ahead in its input are sure to push it out. The look-ahead must stop
/// at the first header that is not a stored one: here the next block is a final fixed one
/// whose next four bytes happen to read as a matching LEN/NLEN (0xD508 / 0x2AF7). Read as
/// a final stored block, it would leave the first call's bytes out of the window, which
/// the fixed block's match (80 back) reads. (A mutation run found the look-ahead's test
/// of the block type untested.)
#[test]
fn stored_look_ahead_stops_at_a_huffman_block() {
    let stored: [u8; 100] = core::array::from_fn(|i| (i * 37 + 11) as u8);
    // BFINAL 1, BTYPE 01, literals 56 85 47 74 116, a match of 3 from 80 back, EOB.
    let fixed = [0xb3, 0x08, 0xd5, 0xf7, 0x2a, 0x01, 0x9a, 0x07, 0x00];
    let mut stream = [0u8; 5 + 100 + 9];
    stream[..5].copy_from_slice(&[0x00, 100, 0, !100, 0xFF]);
    stream[5..105].copy_from_slice(&stored);
    stream[105..].copy_from_slice(&fixed);
    let mut want = [0u8; 108];
    want[..100].copy_from_slice(&stored);
    want[100..105].copy_from_slice(&[56, 85, 47, 74, 116]);
    want.copy_within(105 - 80..105 - 77, 105);

    let mut d = InflateDecoder::new(want.len() as u64);
    let mut got = [0u8; 108];
    // The first call has room for half the stored block only: its rest shows the next
    // header.
    let first = d.decode(&stream, &mut got[..50], false).unwrap();
    assert_eq!(first.produced, 50);
    let second = d
        .decode(&stream[first.consumed..], &mut got[50..], true)
        .unwrap();
    assert_eq!(50 + second.produced, want.len());
    assert_eq!(got, want);
}
