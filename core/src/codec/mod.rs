//! The codecs behind RsLi's packing methods, under one resumable contract.
//!
//! Every decoder implements [`Decoder`]: it is built with what the format says (the
//! expected output size, the XOR key if any) and then fed input and output slices the
//! caller owns. Each call reports exactly how many bytes it consumed and produced and a
//! typed [`Status`]. A decoder may stop and resume at any byte boundary of either slice:
//! 1-byte slices give the same bytes as one large call. Only when the caller says the input
//! has ended may a decoder conclude the stream is truncated. Decoders never allocate, never
//! write past the expected size, and once failed keep returning the same error.
//!
//! [`Unpacker`] dispatches over the methods by enum (no `dyn`, no allocation); a host that
//! needs one method can use that decoder type directly. Packing goes the other way:
//! [`pack`][pack] (feature `alloc`) picks the encoder of a method.
//!
//! | method | flags | decoder | state size |
//! |---|---:|---|---:|
//! | stored | 0x000 | [`StoredDecoder`] | 32 bytes |
//! | XOR | 0x020 | [`XorDecoder`] | 32 bytes |
//! | LZSS, XOR+LZSS | 0x040, 0x060 | [`LzssDecoder`] | 4 152 bytes (4 KiB ring) |
//! | LZHUF, XOR+LZHUF | 0x080, 0x0A0 | [`LzhufDecoder`] | 9 792 bytes (ring + tree) |
//! | Deflate | 0x100 | [`InflateDecoder`] | 42 648 bytes (32 KiB window + tables) |
//!
//! Deflate and LZHUF also decode **in place** ([`InPlace`], [`InPlaceUnpacker`]): the
//! window is the caller's buffer, the bytes before each call's room, so the decoder keeps
//! none, copies nothing into one, and runs its one-shot loop. A caller that decodes into
//! a buffer and writes the bytes on from there (a file, a pipe, a socket) saves the
//! window's upkeep: 3-16 % of the time (BENCHMARKS.md).
//!
//! | method | flags | in-place decoder | state size |
//! |---|---:|---|---:|
//! | LZHUF, XOR+LZHUF | 0x080, 0x0A0 | [`lzhuf::InPlaceDecoder`] | 8 592 bytes |
//! | Deflate | 0x100 | [`inflate::InPlaceDecoder`] | 9 616 bytes |
//!
//! (Sizes on 64-bit targets; each is asserted by a test.) The XOR of methods 0x60/0xA0 is
//! applied to the packed bytes as the LZ decoders consume them: no second pass and no
//! buffer of the entry.
//!
//! # Layout
//! A codec's files hold only what is its own ([`xor`], [`lzss`], [`lzhuf`], [`inflate`]);
//! what they share lives once, in modules of this one:
//!
//! | module | what it holds | used by |
//! |---|---|---|
//! | `tally` | expected / produced counts and the kept failure, turned into [`Progress`] by the contract's rules | every decoder |
//! | `ring` | the window kept between calls and one call's view of it, generic over size, mirrored tail and fill | LZSS, LZHUF, Deflate |
//! | `copy` | the byte-exact overlapping match copy | LZSS, LZHUF, Deflate |
//! | `match_tree` | `LZSS.C`'s binary match tree and parse loop (feature `alloc`) | the LZSS and LZHUF encoders |
//! | `in_place` | the [`InPlace`] contract and [`InPlaceUnpacker`] | Deflate, LZHUF |
//! | `pack` | [`Method`] to encoder (feature `alloc`) | the RsLi builder |
//! | `error` | [`DecodeError`], [`UnsupportedMethod`] | everything |
//!
#![cfg_attr(feature = "alloc", doc = "[pack]: pack()")]
#![cfg_attr(not(feature = "alloc"), doc = "[pack]: self")]

mod copy;
mod error;
mod in_place;
pub mod inflate;
pub mod lzhuf;
pub mod lzss;
#[cfg(feature = "alloc")]
mod match_tree;
#[cfg(feature = "alloc")]
mod pack;
mod ring;
mod tally;
pub mod xor;

pub use error::{DecodeError, UnsupportedMethod};
pub use in_place::{InPlace, InPlaceUnpacker};
pub use inflate::InflateDecoder;
pub use lzhuf::LzhufDecoder;
pub use lzss::LzssDecoder;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use pack::{DEFAULT_DEFLATE_LEVEL, MAX_DEFLATE_LEVEL, PackError, PackOptions, pack};
pub use xor::{StoredDecoder, XorDecoder, XorStream};

/// `Debug` for decoders: how far they are, not their state (a window and tables printed
/// whole took 120 000 characters of a log line; the XOR decoder's is its keystream).
macro_rules! debug_as_progress {
    ($progress:path => $($decoder:ty),+) => {$(
        impl fmt::Debug for $decoder {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($decoder))
                    .field("produced", &<$decoder as $progress>::produced_total(self))
                    .field("expected", &<$decoder as $progress>::expected_len(self))
                    .finish_non_exhaustive()
            }
        }
    )+};
}
debug_as_progress!(Decoder => StoredDecoder, XorDecoder, LzssDecoder, LzhufDecoder, InflateDecoder);
debug_as_progress!(InPlace => lzhuf::InPlaceDecoder, inflate::InPlaceDecoder);

use core::fmt;

/// The bits of RsLi `flags` that select the packing method (SPEC 2.6).
pub const METHOD_MASK: u16 = 0x1E0;

/// What a decoder needs next, returned with every successful call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// All the input given was consumed and more is needed to go on.
    NeedInput,
    /// The output slice is full and more output is to come.
    OutputFull,
    /// The whole expected output has been produced and the stream has ended: input not
    /// consumed by this or earlier calls is not part of it. Producing every expected byte
    /// is not enough: a Deflate stream may still hold the end of its final block (even
    /// empty blocks after it), so stop on `Done`, not on
    /// [`produced_total`](Decoder::produced_total) reaching
    /// [`expected_len`](Decoder::expected_len), or `consumed` comes short and the stream's
    /// end goes unchecked.
    Done,
}

/// The outcome of one [`Decoder::decode`] call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// Bytes of `input` used (always a prefix of it).
    pub consumed: usize,
    /// Bytes written to the start of `output`.
    pub produced: usize,
    /// What the decoder needs next. A call that stopped for want of room reports
    /// [`Status::OutputFull`], even if the input ran out at the same time. One that went
    /// on with no room left, reading what gives no output, and then ran out of input
    /// reports [`Status::NeedInput`]: Deflate does so between blocks, reading the next
    /// block's header. With a full slice, either may come; a caller gives what is asked.
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
    ///
    /// # Errors
    ///
    /// What the contract above requires of every implementation:
    ///
    /// * [`DecodeError::Truncated`] when `input_ended` is set and the stream needs bytes
    ///   past `input`;
    /// * once a call has failed, the same error from every later call.
    ///
    /// A codec that can tell a corrupt stream reports it too: this crate's Deflate decoder
    /// as [`DecodeError::Inflate`] (stored, XOR, LZSS and LZHUF streams have no invalid
    /// input).
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

/// An RsLi packing method, from `flags & 0x1E0` (SPEC 2.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u16)]
pub enum Method {
    /// 0x000: stored, copied as is.
    Stored = 0x000,
    /// 0x020: XOR-encrypted with the entry's key.
    Xor = 0x020,
    /// 0x040: Okumura LZSS.
    Lzss = 0x040,
    /// 0x060: XOR, then LZSS.
    XorLzss = 0x060,
    /// 0x080: LZSS with adaptive Huffman coding (LZHUF).
    Lzhuf = 0x080,
    /// 0x0A0: XOR, then LZHUF.
    XorLzhuf = 0x0A0,
    /// 0x100: raw Deflate (RFC 1951).
    Deflate = 0x100,
}

impl Method {
    /// Every method, in flag order.
    pub const ALL: [Method; 7] = [
        Method::Stored,
        Method::Xor,
        Method::Lzss,
        Method::XorLzss,
        Method::Lzhuf,
        Method::XorLzhuf,
        Method::Deflate,
    ];

    /// The method an entry's `flags` select; other bits are attributes and are ignored.
    ///
    /// ```
    /// use ngi_core::Method;
    /// assert_eq!(Method::from_flags(0x0061), Ok(Method::XorLzss));
    /// assert!(Method::from_flags(0x0180).is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// * [`UnsupportedMethod`] when `flags & 0x1E0` ([`METHOD_MASK`]) is none of the seven
    ///   methods' bits.
    pub const fn from_flags(flags: u16) -> Result<Method, UnsupportedMethod> {
        Ok(match flags & METHOD_MASK {
            0x000 => Method::Stored,
            0x020 => Method::Xor,
            0x040 => Method::Lzss,
            0x060 => Method::XorLzss,
            0x080 => Method::Lzhuf,
            0x0A0 => Method::XorLzhuf,
            0x100 => Method::Deflate,
            _ => return Err(UnsupportedMethod { flags }),
        })
    }

    /// The method's flag bits.
    pub const fn bits(self) -> u16 {
        self as u16
    }

    /// Whether the packed stream is the data itself, before any XOR: stored and XOR
    /// entries, whose bytes an editor can copy from a file as they are (the RsLi editor's
    /// `add_from_source`, feature `alloc`).
    ///
    /// ```
    /// use ngi_core::Method;
    ///
    /// assert!(Method::Xor.copies_data() && !Method::XorLzss.copies_data());
    /// ```
    pub const fn copies_data(self) -> bool {
        matches!(self, Method::Stored | Method::Xor)
    }

    /// Whether the packed bytes are XOR-encrypted with the entry's data key.
    pub const fn uses_xor(self) -> bool {
        matches!(self, Method::Xor | Method::XorLzss | Method::XorLzhuf)
    }

    /// What the engine's `rsGetPackMethod` reports: `flags & 0x1C0`, i.e. the method
    /// without the XOR bit.
    pub const fn pack_method(self) -> u16 {
        self as u16 & 0x1C0
    }

    /// The stable lower-case name used by the `ngi` command and its JSON output.
    pub const fn name(self) -> &'static str {
        match self {
            Method::Stored => "stored",
            Method::Xor => "xor",
            Method::Lzss => "lzss",
            Method::XorLzss => "xor-lzss",
            Method::Lzhuf => "lzhuf",
            Method::XorLzhuf => "xor-lzhuf",
            Method::Deflate => "deflate",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Allocation-free dispatch over the decoders of every method.
///
/// Its size is that of the largest decoder it holds (the tag fits in a niche): 42 648 bytes on 64-bit
/// targets today, the Deflate state (see the table in [`codec`](self)). A host short of
/// memory that needs one method uses that decoder type directly.
///
/// ```
/// use ngi_core::{Decoder, Method, Status, Unpacker};
///
/// let mut unpacker = Unpacker::new(Method::Stored, 5, 0);
/// let mut out = [0u8; 8];
/// let p = unpacker.decode(b"hello, world", &mut out, true).unwrap();
/// assert_eq!((p.consumed, p.produced, p.status), (5, 5, Status::Done));
/// assert_eq!(&out[..5], b"hello");
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
// Fixed size by design: the whole state lives inline, so that no allocator is needed.
#[allow(clippy::large_enum_variant)]
pub enum Unpacker {
    /// Method 0x000.
    Stored(StoredDecoder),
    /// Method 0x020.
    Xor(XorDecoder),
    /// Methods 0x040 and 0x060 (keyed).
    Lzss(LzssDecoder),
    /// Methods 0x080 and 0x0A0 (keyed).
    Lzhuf(LzhufDecoder),
    /// Method 0x100.
    Inflate(InflateDecoder),
}

impl Unpacker {
    /// A decoder for `method` that must produce exactly `unpacked_size` bytes, keyed by
    /// `key` (used by the XOR methods only).
    ///
    /// Every method the format defines is decoded, so this cannot fail. (Every
    /// constructor takes the size, then the key: a single decoder's, this one's, and
    /// those of the readers over it.)
    pub const fn new(method: Method, unpacked_size: u64, key: u16) -> Self {
        let n = unpacked_size;
        match method {
            Method::Stored => Unpacker::Stored(StoredDecoder::new(n)),
            Method::Xor => Unpacker::Xor(XorDecoder::new(n, key)),
            Method::Lzss => Unpacker::Lzss(LzssDecoder::new(n, None)),
            Method::XorLzss => Unpacker::Lzss(LzssDecoder::new(n, Some(key))),
            Method::Lzhuf => Unpacker::Lzhuf(LzhufDecoder::new(n, None)),
            Method::XorLzhuf => Unpacker::Lzhuf(LzhufDecoder::new(n, Some(key))),
            Method::Deflate => Unpacker::Inflate(InflateDecoder::new(n)),
        }
    }

    /// Makes this the decoder [`new`](Unpacker::new) gives for these arguments, in place.
    /// `*self = Unpacker::new(..)` builds the new state apart and moves it in, which can
    /// take as much stack again as the state (42 648 bytes for Deflate); this writes it
    /// where it is. A decoder of another method is first set to a state of zero bytes of
    /// that method's (a memset, no constant held by the program), then reset in place.
    /// The compiler may still build a smaller state apart before it moves it (on
    /// thumbv7em it does for LZSS and LZHUF: `reset` takes 9.8 KiB of stack there,
    /// against 42 KiB and more for a new Deflate state).
    ///
    /// ```
    /// use ngi_core::{Decoder, Method, Unpacker};
    ///
    /// let mut unpacker = Unpacker::new(Method::Deflate, 3, 0);
    /// unpacker.reset(Method::Stored, 5, 0);
    /// let mut out = [0u8; 8];
    /// let p = unpacker.decode(b"hello, world", &mut out, true).unwrap();
    /// assert_eq!(&out[..p.produced], b"hello");
    /// ```
    pub fn reset(&mut self, method: Method, unpacked_size: u64, key: u16) {
        let n = unpacked_size;
        let keyed = |xor: bool| xor.then_some(key);
        match method {
            Method::Stored => *self = Unpacker::Stored(StoredDecoder::new(n)),
            Method::Xor => *self = Unpacker::Xor(XorDecoder::new(n, key)),
            Method::Lzss | Method::XorLzss => {
                if !matches!(self, Unpacker::Lzss(_)) {
                    *self = Unpacker::Lzss(LzssDecoder::ZEROED);
                }
                if let Unpacker::Lzss(d) = self {
                    d.reset(n, keyed(method == Method::XorLzss));
                }
            }
            Method::Lzhuf | Method::XorLzhuf => {
                if !matches!(self, Unpacker::Lzhuf(_)) {
                    *self = Unpacker::Lzhuf(LzhufDecoder::ZEROED);
                }
                if let Unpacker::Lzhuf(d) = self {
                    d.reset(n, keyed(method == Method::XorLzhuf));
                }
            }
            Method::Deflate => {
                if !matches!(self, Unpacker::Inflate(_)) {
                    *self = Unpacker::Inflate(InflateDecoder::ZEROED);
                }
                if let Unpacker::Inflate(d) = self {
                    d.reset(n);
                }
            }
        }
    }

    fn as_decoder(&mut self) -> &mut dyn Decoder {
        match self {
            Unpacker::Stored(d) => d,
            Unpacker::Xor(d) => d,
            Unpacker::Lzss(d) => d,
            Unpacker::Lzhuf(d) => d,
            Unpacker::Inflate(d) => d,
        }
    }

    fn as_decoder_ref(&self) -> &dyn Decoder {
        match self {
            Unpacker::Stored(d) => d,
            Unpacker::Xor(d) => d,
            Unpacker::Lzss(d) => d,
            Unpacker::Lzhuf(d) => d,
            Unpacker::Inflate(d) => d,
        }
    }
}

#[cfg(feature = "alloc")]
impl Unpacker {
    /// The decoder of the method in use, on the heap: only its own state is allocated
    /// (32 bytes for stored and XOR, 4 152 for LZSS, 9 792 for LZHUF, 42 648 for
    /// Deflate), where an `Unpacker` is always the size of the largest. For front-ends
    /// that keep many readers open at once (ngi-tokio).
    ///
    /// ```
    /// use ngi_core::{Decoder, Method, Unpacker};
    ///
    /// let mut d = Unpacker::new(Method::Stored, 2, 0).into_boxed();
    /// let mut out = [0u8; 2];
    /// assert_eq!(d.decode(b"hi", &mut out, true).unwrap().produced, 2);
    /// ```
    pub fn into_boxed(self) -> BoxedDecoder {
        match self {
            Unpacker::Stored(d) => BoxedDecoder(alloc::boxed::Box::new(d)),
            Unpacker::Xor(d) => BoxedDecoder(alloc::boxed::Box::new(d)),
            Unpacker::Lzss(d) => BoxedDecoder(alloc::boxed::Box::new(d)),
            Unpacker::Lzhuf(d) => BoxedDecoder(alloc::boxed::Box::new(d)),
            Unpacker::Inflate(d) => BoxedDecoder(alloc::boxed::Box::new(d)),
        }
    }
}

/// One method's decoder on the heap ([`Unpacker::into_boxed`]): only that method's
/// state is allocated.
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub struct BoxedDecoder(alloc::boxed::Box<dyn Decoder + Send + Sync>);

#[cfg(feature = "alloc")]
impl Decoder for BoxedDecoder {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        self.0.decode(input, output, input_ended)
    }

    fn expected_len(&self) -> u64 {
        self.0.expected_len()
    }

    fn produced_total(&self) -> u64 {
        self.0.produced_total()
    }
}

#[cfg(feature = "alloc")]
impl fmt::Debug for BoxedDecoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoxedDecoder")
            .field("expected_len", &self.0.expected_len())
            .field("produced", &self.0.produced_total())
            .finish_non_exhaustive()
    }
}

impl Decoder for Unpacker {
    fn decode(
        &mut self,
        input: &[u8],
        output: &mut [u8],
        input_ended: bool,
    ) -> Result<Progress, DecodeError> {
        self.as_decoder().decode(input, output, input_ended)
    }

    fn expected_len(&self) -> u64 {
        self.as_decoder_ref().expected_len()
    }

    fn produced_total(&self) -> u64 {
        self.as_decoder_ref().produced_total()
    }
}

// Every decoder is plain data (arrays and integers, no pointers, no interior mutability),
// so a server can move one to another thread or share it read-only. Checked here at
// compile time, so that a field added later cannot take that away unnoticed.
const _: fn() = || {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<StoredDecoder>();
    send_sync::<XorDecoder>();
    send_sync::<XorStream>();
    send_sync::<LzssDecoder>();
    send_sync::<LzhufDecoder>();
    send_sync::<InflateDecoder>();
    send_sync::<Unpacker>();
    #[cfg(feature = "alloc")]
    send_sync::<BoxedDecoder>();
    send_sync::<DecodeError>();
    #[cfg(feature = "alloc")]
    send_sync::<PackError>();
};

/// Decodes a whole packed stream into `output`, whose length is the expected unpacked size,
/// and returns how many bytes of `packed` the stream used (the rest is trailing data).
///
/// The LZ methods take their one-shot paths, which decode straight into `output` with no
/// window copy.
///
/// ```
/// use ngi_core::{codec::unpack_into, Method};
///
/// let mut out = [0u8; 3];
/// assert_eq!(unpack_into(Method::Stored, 0, b"abcdef", &mut out), Ok(3));
/// assert_eq!(&out, b"abc");
/// ```
///
/// # Errors
///
/// * [`DecodeError::Truncated`] when `packed` ends before `output` is full (Deflate:
///   before its final block ends).
/// * [`DecodeError::Inflate`] when a Deflate stream is corrupt, one that would produce
///   more or fewer bytes than `output` holds included.
pub fn unpack_into(
    method: Method,
    key: u16,
    packed: &[u8],
    output: &mut [u8],
) -> Result<usize, DecodeError> {
    let len = output.len() as u64;
    // Each method's own decoder, not an `Unpacker`: that would put its 42 KiB on the
    // stack of every call, a stored entry's too (32 bytes of state).
    match method {
        Method::Stored => decode_whole(StoredDecoder::new(len), packed, output),
        Method::Xor => decode_whole(XorDecoder::new(len, key), packed, output),
        Method::Lzss => lzss::decode_into(packed, None, output),
        Method::XorLzss => lzss::decode_into(packed, Some(key), output),
        Method::Lzhuf => lzhuf::decode_into(packed, None, output),
        Method::XorLzhuf => lzhuf::decode_into(packed, Some(key), output),
        Method::Deflate => inflate::decode_into(packed, output),
    }
}

/// [`unpack_into`] through a streaming decoder, in one call.
fn decode_whole<D: Decoder>(
    mut decoder: D,
    packed: &[u8],
    output: &mut [u8],
) -> Result<usize, DecodeError> {
    let progress = decoder.decode(packed, output, true)?;
    match progress.status {
        Status::Done => Ok(progress.consumed),
        // With the whole input and exactly the expected room, anything but Done is a
        // decoder that stopped early: report it as the truncation it is.
        _ => Err(DecodeError::Truncated {
            produced: decoder.produced_total(),
            expected: output.len() as u64,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every decoder shows how far it is and nothing of its state: no window, no table,
    /// no keystream.
    #[test]
    fn decoders_debug_as_their_progress() {
        extern crate std;
        use std::format;
        let mut xor = XorDecoder::new(10, 0x1234);
        let mut out = [0u8; 4];
        xor.decode(b"abcd", &mut out, false).unwrap();
        assert_eq!(
            format!("{xor:?}"),
            "XorDecoder { produced: 4, expected: 10, .. }"
        );
        for (shown, name) in [
            (format!("{:?}", StoredDecoder::new(3)), "StoredDecoder"),
            (format!("{:?}", LzssDecoder::new(3, Some(1))), "LzssDecoder"),
            (format!("{:?}", LzhufDecoder::new(3, None)), "LzhufDecoder"),
            (format!("{:?}", InflateDecoder::new(3)), "InflateDecoder"),
            (
                format!("{:?}", inflate::InPlaceDecoder::new(3)),
                "inflate::InPlaceDecoder",
            ),
            (
                format!("{:?}", lzhuf::InPlaceDecoder::new(3, None)),
                "lzhuf::InPlaceDecoder",
            ),
        ] {
            assert_eq!(shown, format!("{name} {{ produced: 0, expected: 3, .. }}"));
        }
    }

    #[test]
    fn method_from_every_flag_value() {
        for flags in 0..=u16::MAX {
            let m = Method::from_flags(flags);
            match flags & METHOD_MASK {
                0x000 | 0x020 | 0x040 | 0x060 | 0x080 | 0x0A0 | 0x100 => {
                    assert_eq!(m.map(Method::bits), Ok(flags & METHOD_MASK))
                }
                _ => assert_eq!(m, Err(UnsupportedMethod { flags })),
            }
        }
        assert_eq!(Method::Xor.pack_method(), 0x00);
        assert_eq!(Method::XorLzss.pack_method(), 0x40);
        assert_eq!(Method::XorLzhuf.pack_method(), 0x80);
    }

    /// A stored or XOR entry unpacked in one call took an `Unpacker`'s 42 KiB of stack,
    /// and more in copies (119 KiB in a debug build): now its 32-byte decoder's.
    #[cfg(feature = "std")]
    #[test]
    fn unpacking_a_stored_entry_takes_little_stack() {
        let run = std::thread::Builder::new().stack_size(48 << 10).spawn(|| {
            let mut out = [0u8; 5];
            let stored = unpack_into(Method::Stored, 0, b"hello", &mut out);
            let xor = unpack_into(Method::Xor, 7, b"hello", &mut out);
            (stored, xor)
        });
        let (stored, xor) = run.unwrap().join().unwrap();
        assert_eq!((stored, xor), (Ok(5), Ok(5)));
    }

    /// As `Progress::status` says: with no room left, Deflate reads on into the next
    /// block's header and asks for input when that runs out.
    #[test]
    fn deflate_with_a_full_slice_reads_the_next_header_and_asks_for_input() {
        // Stored blocks "hello", then (final) "world".
        let mut packed = [0x00, 0x05, 0x00, 0xFA, 0xFF].to_vec();
        packed.extend_from_slice(b"hello");
        packed.extend_from_slice(&[0x01, 0x05, 0x00, 0xFA, 0xFF]);
        packed.extend_from_slice(b"world");
        let mut d = Unpacker::new(Method::Deflate, 10, 0);
        let mut out = [0u8; 5];
        let p = d.decode(&packed[..12], &mut out, false).unwrap();
        assert_eq!(
            (p.consumed, p.produced, p.status),
            (12, 5, Status::NeedInput)
        );
        let p = d.decode(&packed[12..], &mut out, false).unwrap();
        assert_eq!((p.consumed, p.produced, p.status), (8, 5, Status::Done));
        assert_eq!(&out, b"world");
    }

    #[test]
    fn stored_in_one_byte_steps_then_truncated() {
        let mut d = Unpacker::new(Method::Stored, 4, 0);
        let mut out = [0u8; 1];
        // A full output slice takes precedence: more input alone could not make progress.
        let p = d.decode(b"a", &mut out, false).unwrap();
        assert_eq!(
            (p.consumed, p.produced, p.status),
            (1, 1, Status::OutputFull)
        );
        let p = d.decode(b"b", &mut [0u8; 2], false).unwrap();
        assert_eq!(
            (p.consumed, p.produced, p.status),
            (1, 1, Status::NeedInput)
        );
        let e = d.decode(b"", &mut out, true).unwrap_err();
        assert_eq!(
            e,
            DecodeError::Truncated {
                produced: 2,
                expected: 4
            }
        );
        assert_eq!(
            d.decode(b"cd", &mut out, false),
            Err(e),
            "a failed decoder stays failed"
        );
    }

    #[test]
    fn xor_decoder_resumes_at_every_byte() {
        let packed: [u8; 100] = core::array::from_fn(|i| (i * 13) as u8);
        let mut whole = [0u8; 100];
        assert_eq!(
            unpack_into(Method::Xor, 0xBEEF, &packed, &mut whole),
            Ok(100)
        );
        let mut d = Unpacker::new(Method::Xor, 100, 0xBEEF);
        let mut out = [0u8; 100];
        for i in 0..100 {
            let p = d
                .decode(&packed[i..i + 1], &mut out[i..i + 1], false)
                .unwrap();
            assert_eq!((p.consumed, p.produced), (1, 1));
            assert_eq!(p.status == Status::Done, i == 99);
        }
        assert_eq!(out, whole);
        let mut reference = packed;
        XorStream::new(0xBEEF).apply(&mut reference);
        assert_eq!(whole, reference);
    }

    #[test]
    fn every_method_has_its_decoder() {
        for method in Method::ALL {
            let decoder = Unpacker::new(method, 1, 0);
            assert_eq!(decoder.expected_len(), 1, "{method}");
            let ours = match method {
                Method::Stored => matches!(decoder, Unpacker::Stored(_)),
                Method::Xor => matches!(decoder, Unpacker::Xor(_)),
                Method::Lzss | Method::XorLzss => matches!(decoder, Unpacker::Lzss(_)),
                Method::Lzhuf | Method::XorLzhuf => matches!(decoder, Unpacker::Lzhuf(_)),
                Method::Deflate => matches!(decoder, Unpacker::Inflate(_)),
            };
            assert!(ours, "{method}");
        }
    }

    #[test]
    fn every_lz_method_dispatches_to_its_decoder() {
        for (method, lz) in [
            (Method::Lzss, true),
            (Method::XorLzss, true),
            (Method::Lzhuf, false),
            (Method::XorLzhuf, false),
        ] {
            let unpacker = Unpacker::new(method, 3, 7);
            assert_eq!(unpacker.expected_len(), 3);
            assert_eq!(matches!(unpacker, Unpacker::Lzss(_)), lz, "{method}");
        }
    }

    #[test]
    fn empty_entry_is_done_at_once() {
        let mut d = Unpacker::new(Method::Xor, 0, 1);
        let p = d.decode(b"", &mut [], true).unwrap();
        assert_eq!(p.status, Status::Done);
    }
}

#[cfg(test)]
mod state_size {
    use super::*;
    use core::mem::size_of;

    /// The sizes the module docs state; a change must update them.
    #[test]
    fn state_sizes_are_as_documented() {
        assert_eq!(size_of::<StoredDecoder>(), 32);
        assert_eq!(size_of::<XorDecoder>(), 32);
        #[cfg(target_pointer_width = "64")]
        assert_eq!(size_of::<InflateDecoder>(), 42648);
        #[cfg(target_pointer_width = "64")]
        assert_eq!(size_of::<Unpacker>(), 42648);
    }
}
