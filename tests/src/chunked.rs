//! Driving a [`Decoder`] with input and output pieces of chosen sizes, to show that a
//! codec resumes at any byte boundary with the same result.

use ngi_core::codec::{Decoder, Status};
use ngi_core::error::DecodeError;

use crate::corpus::Rng;

/// How the pieces are cut.
#[derive(Debug, Clone, Copy)]
pub enum Pieces {
    /// The whole input and the whole output room in one call.
    Whole,
    /// One byte of input and one byte of output room per call.
    OneByte,
    /// Random sizes from 1 to the given bound, drawn from the seed.
    Random(u64, usize),
}

/// Decodes `input` with `decoder` into exactly `out_len` bytes, feeding pieces as
/// `pieces` says. Returns the output and the input bytes consumed. Fails the test on a
/// call that makes no progress although it could (a contract breach), so a broken codec
/// cannot spin.
pub fn decode(
    decoder: &mut dyn Decoder,
    input: &[u8],
    out_len: usize,
    pieces: Pieces,
) -> Result<(Vec<u8>, usize), DecodeError> {
    let mut out = vec![0u8; out_len];
    let (mut consumed, mut produced) = (0usize, 0usize);
    let mut rng = match pieces {
        Pieces::Random(seed, _) => Rng::new(seed),
        _ => Rng::new(0),
    };
    let mut size = |left: usize| -> usize {
        match pieces {
            Pieces::Whole => left,
            Pieces::OneByte => left.min(1),
            Pieces::Random(_, max) => left.min(1 + rng.below(max)),
        }
    };
    loop {
        let in_end = consumed + size(input.len() - consumed);
        let out_end = produced + size(out_len - produced);
        let ended = in_end == input.len();
        let p = decoder.decode(&input[consumed..in_end], &mut out[produced..out_end], ended)?;
        assert!(p.consumed <= in_end - consumed && p.produced <= out_end - produced);
        consumed += p.consumed;
        produced += p.produced;
        match p.status {
            Status::Done => {
                assert_eq!(produced, out_len, "Done before the expected size");
                return Ok((out, consumed));
            }
            Status::OutputFull => assert!(
                p.produced == out_end - (produced - p.produced),
                "OutputFull with room left"
            ),
            Status::NeedInput => assert!(
                !ended && p.consumed == in_end - (consumed - p.consumed),
                "NeedInput with input left or after the end"
            ),
        }
        assert!(
            p.consumed > 0 || p.produced > 0 || (in_end == consumed && out_end == produced),
            "no progress with input and room at hand"
        );
    }
}
