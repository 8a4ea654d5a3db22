//! LZHUF: arbitrary bytes as a packed stream, with a size and key drawn from the first
//! bytes, decoded one-shot and in pieces; the two must agree. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ngi_core::codec::lzhuf::{self, LzhufDecoder};
use ngi_core::codec::{Decoder, Status};

fuzz_target!(|data: &[u8]| {
    let [a, b, c, step, rest @ ..] = data else {
        return;
    };
    let size = usize::from(u16::from_le_bytes([*a, *b])) % 20_000;
    let key = (*c & 1 == 1).then(|| u16::from_le_bytes([*c, *step]));
    let mut whole = vec![0u8; size];
    let one_shot = lzhuf::decode_into(rest, key, &mut whole);

    let mut decoder = LzhufDecoder::new(size as u64, key);
    let mut pieces = vec![0u8; size];
    let step = usize::from(*step % 64) + 1;
    let (mut pos, mut produced) = (0, 0);
    let streamed = loop {
        let end = (pos + step).min(rest.len());
        let room = (produced + step).min(size);
        match decoder.decode(
            &rest[pos..end],
            &mut pieces[produced..room],
            end == rest.len(),
        ) {
            Err(e) => break Err(e),
            Ok(p) => {
                pos += p.consumed;
                produced += p.produced;
                if p.status == Status::Done {
                    break Ok(pos);
                }
            }
        }
    };
    assert_eq!(one_shot, streamed);
    if one_shot.is_ok() {
        assert_eq!(whole, pieces);
    }
});
