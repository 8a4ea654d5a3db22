//! Driving a [`Decoder`] with input and output pieces of chosen sizes, to show that a
//! codec resumes at any byte boundary with the same result.

use ngi_core::Method;
use ngi_core::codec::{Decoder, InPlace, InPlaceUnpacker, Progress, Status};
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

/// An in-place decoder ([`InPlaceUnpacker`]) behind the [`Decoder`] contract, for the
/// drivers above: it decodes into a buffer of its own (a window and `room` bytes), slides
/// it when full, and copies each call's bytes out. A call is served by as many calls of
/// the decoder as the buffer's room needs, so its outcome is the one [`Decoder::decode`]
/// promises.
#[derive(Debug)]
pub struct InPlaceDriver {
    decoder: InPlaceUnpacker,
    buf: Vec<u8>,
    at: usize,
}

impl InPlaceDriver {
    /// A Deflate decoder of `expected` bytes with a window and `room` bytes of buffer.
    pub fn inflate(expected: u64, room: usize) -> InPlaceDriver {
        InPlaceDriver::new(Method::Deflate, expected, 0, room).expect("Deflate decodes in place")
    }

    /// The in-place decoder of `method` of `expected` bytes (keyed by `key`) with a window
    /// and `room` bytes of buffer; `None` for a method without one.
    pub fn new(method: Method, expected: u64, key: u16, room: usize) -> Option<InPlaceDriver> {
        let decoder = InPlaceUnpacker::new(method, expected, key)?;
        Some(InPlaceDriver {
            buf: vec![0; decoder.window() + room],
            decoder,
            at: 0,
        })
    }
}

impl Decoder for InPlaceDriver {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        let (mut consumed, mut produced) = (0, 0);
        loop {
            if self.at == self.buf.len() {
                self.at = self
                    .decoder
                    .slide(&mut self.buf, self.at, &input[consumed..]);
                // Else the next call has no room and this loop would spin.
                assert!(self.at < self.buf.len(), "a slide kept the whole buffer");
            }
            let want = (output.len() - produced).min(self.buf.len() - self.at);
            let before = self.decoder.produced_total();
            let r = self.decoder.decode(
                &input[consumed..],
                &mut self.buf[..self.at + want],
                self.at,
                input_ended,
            );
            // A failing call still counts the bytes it wrote before the fault: they go
            // out too, as a decoder writing straight into `output` leaves them there.
            let Ok(p) = r else {
                let n = (self.decoder.produced_total() - before) as usize;
                output[produced..produced + n].copy_from_slice(&self.buf[self.at..self.at + n]);
                self.at += n;
                return r;
            };
            output[produced..produced + p.produced]
                .copy_from_slice(&self.buf[self.at..self.at + p.produced]);
            self.at += p.produced;
            consumed += p.consumed;
            produced += p.produced;
            // Full for want of this buffer's room alone: slide and go on (a decoder that
            // reported full with room left goes back to the driver, which fails on it).
            if p.status != Status::OutputFull || produced == output.len() || p.produced < want {
                return Ok(Progress {
                    consumed,
                    produced,
                    status: p.status,
                });
            }
        }
    }

    fn expected_len(&self) -> u64 {
        self.decoder.expected_len()
    }

    fn produced_total(&self) -> u64 {
        self.decoder.produced_total()
    }
}
