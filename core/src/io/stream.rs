//! The decoding readers' engine without I/O: one codec behind the rules every reader keeps.

use core::fmt;

use crate::archive::{Catalog, EntryStore, Error};
use crate::codec::{Decoder, InPlace, InPlaceUnpacker, Method, Progress, Status, Unpacker};
use crate::error::DecodeError;

/// One packed stream's decoder behind the rules every reader of ngi keeps, with no I/O of
/// its own: [`DecodeReader`](super::DecodeReader) drives it from a `BufRead`, and async
/// front-ends (ngi-tokio) from their poll loops, so those rules live here once:
///
/// * errors are **sticky**: after one, every call returns the same [`StreamError`];
/// * input that ends early is [`DecodeError::Truncated`], never a short success;
/// * a call that makes **no progress** with input and room at hand, or that asks for more
///   once the input has ended (a codec that broke its contract: the codecs report a
///   stream that runs out as [`DecodeError::Truncated`] themselves), is
///   [`StreamError::Stalled`], never a spin;
/// * faults name the **file offset**: the offset of the stream's first byte
///   ([`at`](StreamDecoder::at)) plus how far into the stream it was.
///
/// It holds its codec `D` inline and a few counters; nothing is allocated. `D` is the
/// [`Unpacker`] by default (42 648 bytes on 64-bit targets: the Deflate state, whatever
/// the method); a host short of memory that reads one method uses that decoder
/// ([`from_decoder`](StreamDecoder::from_decoder)): a stored entry then costs 32 bytes
/// of codec state.
///
/// ```
/// use ngi_core::io::StreamDecoder;
/// use ngi_core::{Method, Status};
///
/// let mut decoder = StreamDecoder::new(Method::Stored, 5, 0).at(Some(2), 1000);
/// let mut out = [0u8; 8];
/// let p = decoder.decode(b"hel", false, &mut out)?;
/// assert_eq!((p.consumed, p.produced, p.status), (3, 3, Status::NeedInput));
/// let err = decoder.decode(b"", true, &mut out).unwrap_err();
/// assert_eq!((err.entry(), err.offset()), (Some(2), 1003));
/// assert!(err.is_truncated());
/// assert_eq!(decoder.decode(b"lo", true, &mut out), Err(err), "sticky");
/// # Ok::<(), ngi_core::io::StreamError>(())
/// ```
#[derive(Debug, Clone)]
pub struct StreamDecoder<D = Unpacker> {
    codec: D,
    entry: Option<u32>,
    start: u64,
    consumed: u64,
    fault: Option<StreamError>,
    /// The codec has said `Done`: the stream is complete (for a stream of size 0 that
    /// takes one call, which may consume the bytes of an empty stream).
    done: bool,
    /// No call yet, or the last stopped for want of room: the next may give output with
    /// no input ([`may_go_on_without_input`](StreamDecoder::may_go_on_without_input)).
    room_first: bool,
}

impl StreamDecoder {
    /// What [`placed`](StreamDecoder::placed) of `Unpacker::new(method, unpacked_size,
    /// key)` gives, written in place ([`Unpacker::reset`]).
    #[cfg_attr(not(feature = "embedded-io"), allow(dead_code))]
    pub(crate) fn restart(
        &mut self,
        method: Method,
        unpacked_size: u64,
        key: u16,
        entry: Option<u32>,
        offset: u64,
    ) {
        let StreamDecoder {
            codec,
            entry: named,
            start,
            consumed,
            fault,
            done,
            room_first,
        } = self;
        codec.reset(method, unpacked_size, key);
        (*named, *start, *consumed) = (entry, offset, 0);
        (*fault, *done, *room_first) = (None, false, true);
    }

    /// A decoder of `method` that must produce exactly `unpacked_size` bytes, keyed by
    /// `key` (the XOR methods use it); faults are placed from offset 0 until
    /// [`at`](StreamDecoder::at) says otherwise.
    pub fn new(method: Method, unpacked_size: u64, key: u16) -> StreamDecoder {
        StreamDecoder::from_decoder(Unpacker::new(method, unpacked_size, key))
    }
}

impl<D> StreamDecoder<D> {
    /// The rules around one codec of the caller's choice, e.g.
    /// `StreamDecoder::from_decoder(StoredDecoder::new(size))`, or an
    /// in-place codec ([`InPlaceUnpacker`], or one of its decoders; driven by
    /// [`decode_in_place`](StreamDecoder::decode_in_place)).
    pub fn from_decoder(codec: D) -> StreamDecoder<D> {
        StreamDecoder::placed(codec, None, 0)
    }

    /// [`from_decoder`](StreamDecoder::from_decoder) and [`at`](StreamDecoder::at) in
    /// one value, for constructions that must not move the codec.
    #[inline(always)]
    pub(crate) const fn placed(codec: D, entry: Option<u32>, offset: u64) -> StreamDecoder<D> {
        StreamDecoder {
            codec,
            entry,
            start: offset,
            consumed: 0,
            fault: None,
            done: false,
            room_first: true,
        }
    }

    /// The same decoder, its faults naming `entry` and placed from `offset`, the file
    /// offset of the stream's first byte.
    pub fn at(mut self, entry: Option<u32>, offset: u64) -> StreamDecoder<D> {
        self.entry = entry;
        self.start = offset;
        self
    }

    /// One codec call under the rules: `call` runs the codec on `input` (whose room is
    /// empty when `!room`); `produced` reads its count for a stall's report.
    fn call(
        &mut self,
        input: &[u8],
        input_ended: bool,
        room: bool,
        call: impl FnOnce(&mut D) -> Result<Progress, DecodeError>,
        produced: impl FnOnce(&D) -> u64,
    ) -> Result<Progress, StreamError> {
        if let Some(fault) = self.fault {
            return Err(fault);
        }
        if self.is_done() {
            return Ok(Progress {
                consumed: 0,
                produced: 0,
                status: Status::Done,
            });
        }
        let progress = match call(&mut self.codec) {
            Ok(progress) => progress,
            // The caller's buffer did not hold the window: nothing was decoded, and the
            // call may be made again with the right one.
            Err(error @ DecodeError::HistoryMismatch { .. }) => {
                return Err(StreamError::Decode {
                    entry: self.entry,
                    offset: self.start.saturating_add(self.consumed),
                    error,
                });
            }
            Err(error) => {
                let within =
                    error.offset_in_stream(self.consumed.saturating_add(input.len() as u64));
                return Err(self.fail(StreamError::Decode {
                    entry: self.entry,
                    offset: self.start.saturating_add(within),
                    error,
                }));
            }
        };
        self.consumed = self.consumed.saturating_add(progress.consumed as u64);
        self.done = progress.status == Status::Done;
        self.room_first = progress.status == Status::OutputFull;
        let idle = progress.consumed == 0 && progress.produced == 0;
        // The codecs report a stream that runs out themselves (`Truncated` once the input
        // has ended); one that neither goes on nor ends with input or the end at hand has
        // broken its contract, and is stopped here rather than spun on.
        let wanting = progress.status != Status::Done && room;
        let stuck = (idle && (!input.is_empty() || input_ended))
            || (input_ended && progress.status == Status::NeedInput);
        if wanting && stuck {
            let produced = produced(&self.codec);
            return Err(self.fail(StreamError::Stalled {
                entry: self.entry,
                offset: self.start.saturating_add(self.consumed),
                produced,
            }));
        }
        Ok(progress)
    }

    fn fail(&mut self, fault: StreamError) -> StreamError {
        self.fault = Some(fault);
        fault
    }

    /// Whether a call with no input may still give output or end the stream: before the
    /// first call (a stream of size 0 ends with none), and after one that stopped for want
    /// of room (the codec holds output, the rest of a match say). A reader makes that call
    /// before it waits on its source: a source that stays open without sending (a socket
    /// whose peer waits for an answer) would otherwise keep the stream's last bytes in.
    pub fn may_go_on_without_input(&self) -> bool {
        self.room_first && !self.done && self.fault.is_none()
    }

    /// Whether the stream is complete: every byte is out and the codec said so.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The packed bytes consumed so far: once done, the length of the stream (what
    /// follows is not part of it).
    pub fn consumed(&self) -> u64 {
        self.consumed
    }

    /// The entry its faults name ([`at`](StreamDecoder::at)), if any.
    pub fn entry(&self) -> Option<u32> {
        self.entry
    }

    /// The file offset of the next packed byte it needs: where the stream starts
    /// ([`at`](StreamDecoder::at)) plus what it consumed. A reader asks its source for
    /// more only once the codec has consumed all it was given, so when the source fails,
    /// this is where the read that failed was to start.
    pub fn offset(&self) -> u64 {
        self.start.saturating_add(self.consumed)
    }

    /// The error it failed with, if it did.
    pub fn fault(&self) -> Option<StreamError> {
        self.fault
    }

    /// The codec, for what it can tell (an in-place codec's counts, say).
    pub fn codec(&self) -> &D {
        &self.codec
    }
}

impl<D: Decoder> StreamDecoder<D> {
    /// One codec call: decodes from `input` (the bytes the source has at hand;
    /// `input_ended` when they are its last) into `output`. The caller consumes
    /// `consumed` bytes of `input` and passes the rest again.
    ///
    /// # Errors
    ///
    /// Errors are sticky: once it failed, every call returns the same error.
    ///
    /// * [`StreamError::Decode`] with the codec's error (a truncated or corrupt stream),
    ///   naming the entry and the file offset of the fault.
    /// * [`StreamError::Stalled`] when the codec makes no progress with input and room at
    ///   hand, or asks for more input once it has ended.
    pub fn decode(
        &mut self,
        input: &[u8],
        input_ended: bool,
        output: &mut [u8],
    ) -> Result<Progress, StreamError> {
        let room = !output.is_empty();
        self.call(
            input,
            input_ended,
            room,
            |codec| codec.decode(input, output, input_ended),
            |codec| codec.produced_total(),
        )
    }

    /// The bytes the stream must produce.
    pub fn expected_len(&self) -> u64 {
        self.codec.expected_len()
    }

    /// The bytes produced so far.
    pub fn produced(&self) -> u64 {
        self.codec.produced_total()
    }
}

/// A stream decoded with its window in the caller's buffer (an [`InPlace`] codec), under
/// the same rules: what [`Catalog::in_place_decoder`] gives for a Deflate or LZHUF entry.
/// Its counts are the codec's, [`codec`](StreamDecoder::codec)`().produced_total()` and
/// `.expected_len()` (methods of the [`Decoder`] form's names would clash with those).
///
/// ```
/// use ngi_core::codec::inflate::{InPlaceDecoder, WINDOW_SIZE};
/// use ngi_core::io::StreamDecoder;
///
/// // zlib's fixed-Huffman block for "aaaaaa", cut short after its first byte.
/// let mut d = StreamDecoder::from_decoder(InPlaceDecoder::new(6)).at(Some(3), 500);
/// let mut buf = vec![0u8; WINDOW_SIZE + 64];
/// let p = d.decode_in_place(&[0x4B], false, &mut buf, 0)?;
/// let e = d.decode_in_place(&[], true, &mut buf, p.produced).unwrap_err();
/// assert!(e.is_truncated());
/// assert_eq!((e.entry(), e.offset()), (Some(3), 501));
/// # Ok::<(), ngi_core::io::StreamError>(())
/// ```
impl<D: InPlace> StreamDecoder<D> {
    /// One call of [`InPlace::decode`]: decodes from `input` into `buf[at..]`, reading
    /// matches from `buf[..at]`, the last bytes decoded. When the buffer is full, go on
    /// after [`slide`](StreamDecoder::slide); the
    /// buffer must be longer than the codec's [`window`](InPlace::window) (32 KiB for
    /// Deflate, 4 KiB for LZHUF), or a slide keeps it whole and, as a call with no room
    /// decodes nothing, a loop that slides and calls again spins (see `slide`).
    ///
    /// # Errors
    ///
    /// * [`StreamError::Decode`] with [`DecodeError::HistoryMismatch`] when `buf[..at]`
    ///   cannot hold the window. Nothing was decoded, and it is not kept, as the codec
    ///   does not keep it.
    /// * Otherwise as [`decode`](StreamDecoder::decode): the fault it failed with before,
    ///   [`StreamError::Decode`] for a truncated or corrupt stream, or
    ///   [`StreamError::Stalled`]; each of these is kept.
    pub fn decode_in_place(
        &mut self,
        input: &[u8],
        input_ended: bool,
        buf: &mut [u8],
        at: usize,
    ) -> Result<Progress, StreamError> {
        let room = at < buf.len();
        self.call(
            input,
            input_ended,
            room,
            |codec| codec.decode(input, buf, at, input_ended),
            |codec| codec.produced_total(),
        )
    }

    /// [`InPlace::slide`]: the last window of `buf[..end]` moved to its front; the `at`
    /// to go on with.
    pub fn slide(&mut self, buf: &mut [u8], end: usize, rest: &[u8]) -> usize {
        self.codec.slide(buf, end, rest)
    }

    /// [`InPlace::retain`]: how many of the bytes before `end` to copy to the front of
    /// the next buffer.
    pub fn retain(&mut self, end: usize, rest: &[u8]) -> usize {
        self.codec.retain(end, rest)
    }
}

/// Why a packed stream could not be decoded, and where.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamError {
    /// The codec reported a fault: the stream is truncated
    /// ([`DecodeError::Truncated`]) or corrupt.
    Decode {
        /// The entry the stream belongs to, when known.
        entry: Option<u32>,
        /// The file offset of the fault: where a truncated stream ran out, or the byte
        /// holding the last bit read of a corrupt one.
        offset: u64,
        /// What the codec said (its text is part of this error's, and
        /// [`source`](core::error::Error::source) is `None`, so that a report that walks
        /// the chain says it once).
        error: DecodeError,
    },
    /// The codec made no progress with input and room at hand (a broken contract,
    /// reported rather than spun on).
    Stalled {
        /// The entry the stream belongs to, when known.
        entry: Option<u32>,
        /// The file offset it stopped at.
        offset: u64,
        /// The bytes it had produced.
        produced: u64,
    },
}

impl StreamError {
    /// The entry the stream belongs to, when known.
    pub fn entry(&self) -> Option<u32> {
        match *self {
            StreamError::Decode { entry, .. } | StreamError::Stalled { entry, .. } => entry,
        }
    }

    /// The file offset of the fault.
    pub fn offset(&self) -> u64 {
        match *self {
            StreamError::Decode { offset, .. } | StreamError::Stalled { offset, .. } => offset,
        }
    }

    /// Whether the stream ended before its last byte: an `UnexpectedEof` rather than
    /// `InvalidData` for `std::io`.
    pub fn is_truncated(&self) -> bool {
        matches!(
            self,
            StreamError::Decode {
                error: DecodeError::Truncated { .. },
                ..
            }
        )
    }

    /// The codec's error, for [`StreamError::Decode`].
    pub fn decode_error(&self) -> Option<DecodeError> {
        match *self {
            StreamError::Decode { error, .. } => Some(error),
            StreamError::Stalled { .. } => None,
        }
    }
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(entry) = self.entry() {
            write!(f, "entry {entry}: ")?;
        }
        match self {
            StreamError::Decode { offset, error, .. } => {
                write!(f, "at offset {offset}: {error}")
            }
            StreamError::Stalled {
                offset, produced, ..
            } => write!(
                f,
                "at offset {offset}: the decoder made no progress after {}",
                crate::count::decoded_bytes(*produced)
            ),
        }
    }
}

/// No `source`: the [`DecodeError`] is written out in the error's own text, and a report
/// that walks the chain (`anyhow`'s `{:#}`) said it twice.
impl core::error::Error for StreamError {}

#[cfg(feature = "std")]
impl From<StreamError> for std::io::Error {
    /// `UnexpectedEof` for a truncated stream, `InvalidData` otherwise; the
    /// [`StreamError`] is the `io::Error`'s inner error (`get_ref`), and the codec's error
    /// is in it ([`decode_error`](StreamError::decode_error)) and in its text, not its
    /// `source()`, which is `None`.
    fn from(e: StreamError) -> Self {
        let kind = if e.is_truncated() {
            std::io::ErrorKind::UnexpectedEof
        } else {
            std::io::ErrorKind::InvalidData
        };
        std::io::Error::new(kind, e)
    }
}

impl<S: EntryStore> Catalog<S> {
    /// A [`StreamDecoder`] for entry `index` (its method and key, its decoded size, faults
    /// placed from its packed range's start), once the range passes
    /// [`packed_range`](Catalog::packed_range).
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s.
    pub fn stream_decoder(&self, index: usize) -> Result<StreamDecoder, Error> {
        self.entry_stream(index).map(|(_, core)| core)
    }

    /// [`stream_decoder`](Catalog::stream_decoder) with only the method in use on the
    /// heap ([`Unpacker::into_boxed`](crate::Unpacker::into_boxed)): a few dozen bytes
    /// inline, for front-ends that keep many readers open (ngi-tokio).
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s.
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn boxed_stream_decoder(
        &self,
        index: usize,
    ) -> Result<StreamDecoder<crate::codec::BoxedDecoder>, Error> {
        self.entry_stream_of(index, Unpacker::into_boxed)
            .map(|(_, core)| core)
    }

    /// For a Deflate or LZHUF entry, a [`StreamDecoder`] of an [`InPlaceUnpacker`] (its
    /// window in the caller's buffer, so matches are read where the bytes are; 9 616 bytes
    /// of state against the [`Unpacker`]'s 42 648), its faults named and placed as those
    /// of [`stream_decoder`](Catalog::stream_decoder); `None` for the other methods. Its
    /// buffer must be longer than the method's window (32 KiB for Deflate, 4 KiB for
    /// LZHUF; see [`decode_in_place`](StreamDecoder::decode_in_place)).
    ///
    /// # Errors
    ///
    /// [`packed_range`](Catalog::packed_range)'s.
    pub fn in_place_decoder(
        &self,
        index: usize,
    ) -> Result<Option<StreamDecoder<InPlaceUnpacker>>, Error> {
        let (range, entry, method) = self.decoding_method(index)?;
        Ok(InPlaceUnpacker::new(method, entry.size, entry.key)
            .map(|codec| StreamDecoder::from_decoder(codec).at(Some(entry.index), range.start)))
    }

    /// Entry `index`'s checked packed range and its [`StreamDecoder`], for the entry
    /// readers.
    pub(super) fn entry_stream(
        &self,
        index: usize,
    ) -> Result<(core::ops::Range<u64>, StreamDecoder), Error> {
        self.entry_stream_of(index, |unpacker| unpacker)
    }

    /// Entry `index`'s checked packed range and a [`StreamDecoder`] around `codec` of
    /// its [`Unpacker`], faults named and placed in the file.
    fn entry_stream_of<D: Decoder>(
        &self,
        index: usize,
        codec: impl FnOnce(Unpacker) -> D,
    ) -> Result<(core::ops::Range<u64>, StreamDecoder<D>), Error> {
        let (range, entry, unpacker) = self.decoding(index)?;
        let core = StreamDecoder::from_decoder(codec(unpacker)).at(Some(entry.index), range.start);
        Ok((range, core))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::inflate::InPlaceDecoder;

    #[test]
    fn a_stream_that_ends_early_is_truncated_not_stalled() {
        // A stored stream given nothing and told it ended: the codec says Truncated.
        let mut d = StreamDecoder::new(Method::Stored, 2, 0).at(Some(1), 10);
        let e = d.decode(b"", true, &mut [0; 4]).unwrap_err();
        assert!(e.is_truncated());
        assert_eq!(e.offset(), 10);
    }

    /// A codec that breaks the contract: every call reports `progress`, whatever it is
    /// given, and the total it says it produced.
    struct Broken {
        progress: Progress,
        produced: u64,
    }

    impl Decoder for Broken {
        fn decode(&mut self, _: &[u8], _: &mut [u8], _: bool) -> Result<Progress, DecodeError> {
            Ok(self.progress)
        }

        fn expected_len(&self) -> u64 {
            10
        }

        fn produced_total(&self) -> u64 {
            self.produced
        }
    }

    /// Each way of neither going on nor ending is an error naming the offset reached and
    /// the bytes produced, and is kept; the same calls with nothing to go on are not.
    #[test]
    fn a_codec_that_makes_no_progress_is_stalled() {
        let (nothing, input, ended) = (Status::NeedInput, &b"abc"[..], true);
        let idle = |status| Progress {
            consumed: 0,
            produced: 0,
            status,
        };
        let some = Progress {
            consumed: 2,
            produced: 1,
            status: nothing,
        };
        // Idle with input at hand; idle at the end; wanting input after the end.
        for (progress, input, input_ended) in [
            (idle(nothing), input, !ended),
            (idle(Status::OutputFull), input, !ended),
            (idle(nothing), &b""[..], ended),
            (some, input, ended),
        ] {
            let codec = Broken {
                progress,
                produced: 4,
            };
            let mut d = StreamDecoder::from_decoder(codec).at(Some(3), 100);
            let e = d.decode(input, input_ended, &mut [0; 4]).unwrap_err();
            let consumed = progress.consumed as u64;
            let stalled = StreamError::Stalled {
                entry: Some(3),
                offset: 100 + consumed,
                produced: 4,
            };
            assert_eq!(e, stalled, "{progress:?}, ended {input_ended}");
            assert_eq!(d.decode(b"", true, &mut [0; 4]), Err(e), "kept");
        }
        // Idle with neither input nor its end, or without room: waiting, not stalled.
        for (input, room) in [(&b""[..], 4), (input, 0)] {
            let codec = Broken {
                progress: idle(nothing),
                produced: 4,
            };
            let mut d = StreamDecoder::from_decoder(codec);
            let mut output = [0u8; 4];
            assert!(d.decode(input, false, &mut output[..room]).is_ok());
        }
    }

    #[test]
    fn done_streams_take_nothing_more() {
        let mut d = StreamDecoder::new(Method::Xor, 2, 0);
        let p = d.decode(b"abcd", false, &mut [0; 4]).unwrap();
        assert_eq!((p.consumed, p.produced, p.status), (2, 2, Status::Done));
        assert!(d.is_done());
        let p = d.decode(b"cd", true, &mut [0; 4]).unwrap();
        assert_eq!((p.consumed, p.produced, p.status), (0, 0, Status::Done));
        assert_eq!(d.consumed(), 2);
    }

    #[test]
    fn inflate_faults_are_placed_in_the_file() {
        // Block type 3 is reserved: a fault at the stream's first byte.
        let mut d = StreamDecoder::new(Method::Deflate, 4, 0).at(None, 500);
        let e = d.decode(&[0x07, 0, 0], true, &mut [0; 4]).unwrap_err();
        assert_eq!((e.offset(), e.entry()), (500, None));
        assert!(!e.is_truncated() && e.decode_error().is_some());
    }

    #[test]
    fn in_place_faults_are_the_window_keeping_ones_and_kept() {
        // Block type 3 is reserved: the same fault at the same offset from either form.
        let stream = [0x07, 0, 0];
        let mut keeping = StreamDecoder::new(Method::Deflate, 4, 0).at(Some(2), 500);
        let expected = keeping.decode(&stream, true, &mut [0; 4]).unwrap_err();
        let mut d = StreamDecoder::from_decoder(InPlaceDecoder::new(4)).at(Some(2), 500);
        let mut buf = [0u8; 40_000];
        assert_eq!(d.decode_in_place(&stream, true, &mut buf, 0), Err(expected));
        assert_eq!(d.fault(), Some(expected), "kept");
        assert_eq!(d.decode_in_place(&[], true, &mut buf, 0), Err(expected));
    }

    #[test]
    fn an_in_place_history_mismatch_is_not_kept() {
        // zlib's fixed-Huffman block for "aaaaaa".
        let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00];
        let mut d = StreamDecoder::from_decoder(InPlaceDecoder::new(6)).at(Some(1), 100);
        let mut buf = [0u8; 8];
        // Two bytes said to be decoded before the room, where none were.
        let e = d.decode_in_place(&packed, true, &mut buf, 2).unwrap_err();
        assert!(matches!(
            e.decode_error(),
            Some(DecodeError::HistoryMismatch { given: 2, .. })
        ));
        assert_eq!((e.entry(), e.offset()), (Some(1), 100));
        assert_eq!(d.fault(), None);
        let p = d.decode_in_place(&packed, true, &mut buf, 0).unwrap();
        assert_eq!((p.produced, p.status), (6, Status::Done));
        assert_eq!(&buf[..6], b"aaaaaa");
        assert_eq!((d.consumed(), d.codec().produced_total()), (5, 6));
        assert_eq!(d.codec().expected_len(), 6);
    }

    #[test]
    fn an_in_place_decoder_without_room_is_not_stalled() {
        let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00];
        let mut d = StreamDecoder::from_decoder(InPlaceDecoder::new(6));
        let mut buf = [0u8; 8];
        let p = d.decode_in_place(&packed, true, &mut buf[..0], 0).unwrap();
        assert_eq!((p.produced, p.status), (0, Status::OutputFull));
        // Again: the codec consumes nothing more either, which is no stall while it has
        // no room (the first call consumed the block header).
        let rest = &packed[p.consumed..];
        let p = d.decode_in_place(rest, true, &mut buf[..0], 0).unwrap();
        assert_eq!((p.consumed, p.produced), (0, 0));
        assert_eq!(d.fault(), None);
        // Room but no input once it has ended: the codec's own truncation.
        let mut d = StreamDecoder::from_decoder(InPlaceDecoder::new(6)).at(None, 7);
        let e = d.decode_in_place(&[], true, &mut buf, 0).unwrap_err();
        assert!(e.is_truncated());
        assert_eq!(e.offset(), 7);
    }

    #[test]
    fn an_in_place_stream_slides_in_one_buffer() {
        // "aaaaaa" four bytes at a time: the first four slid to the front, then the rest.
        let packed = [0x4B, 0x4C, 0x04, 0x01, 0x00];
        let mut d = StreamDecoder::from_decoder(InPlaceDecoder::new(6));
        let mut buf = [0u8; 8];
        let p = d.decode_in_place(&packed, true, &mut buf[..4], 0).unwrap();
        assert_eq!((p.produced, p.status), (4, Status::OutputFull));
        buf[4..].fill(0xEE);
        let at = d.slide(&mut buf, 8, &packed[p.consumed..]);
        assert_eq!((at, &buf[..4]), (4, &b"aaaa"[..]));
        let q = d
            .decode_in_place(&packed[p.consumed..], true, &mut buf, at)
            .unwrap();
        assert_eq!((q.produced, q.status), (2, Status::Done));
        assert_eq!(&buf[..6], b"aaaaaa");
        assert_eq!(
            (d.codec().produced_total(), d.codec().expected_len()),
            (6, 6)
        );
    }
}
