//! The codec contract of commit fbbfea1 (`Status`, `Progress`, `Decoder`), trimmed to what
//! the frozen Deflate and LZHUF decoders use.

mod copy;
mod error;
pub mod inflate;
pub mod lzhuf;
mod ring;
mod tally;
pub mod xor;

pub use error::DecodeError;
pub use xor::XorStream;

/// The bits of RsLi `flags` that select the packing method (SPEC 2.6).
pub const METHOD_MASK: u16 = 0x1E0;

/// What a decoder needs next, returned with every successful call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// All the input given was consumed and more is needed to go on.
    NeedInput,
    /// The output slice is full and more output is to come.
    OutputFull,
    /// The whole expected output has been produced. Input not consumed by this or earlier
    /// calls is not part of the stream.
    Done,
}

/// The outcome of one [`Decoder::decode`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of `input` used (always a prefix of it).
    pub consumed: usize,
    /// Bytes written to the start of `output`.
    pub produced: usize,
    /// What the decoder needs next. When the output slice is full and the input is used up
    /// at once, [`Status::OutputFull`] is reported.
    pub status: Status,
}

/// A resumable decoder of one packed stream into exactly its expected size.
///
/// The trait is object safe. Contract for implementors and callers alike:
/// * `consumed <= input.len()`, `produced <= output.len()`, and the total produced never
///   exceeds [`expected_len`](Decoder::expected_len).
/// * With non-empty output room and unconsumed input, a call makes progress.
/// * The input a call did not consume starts the next call's input (a decoder may look at
///   it ahead of time, to plan, but counts it only once consumed).
/// * `input_ended` says `input` holds the last bytes of the stream; a decoder that then
///   runs dry returns [`DecodeError::Truncated`].
/// * After an error, every later call returns the same error.
pub trait Decoder {
    /// Decodes from `input` into `output`.
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError>;

    /// The number of bytes the stream must produce (the entry's `unpacked_size`).
    fn expected_len(&self) -> u64;

    /// The number of bytes produced so far.
    fn produced_total(&self) -> u64;
}
