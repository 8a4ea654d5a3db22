//! `DecodeReader`: a packed stream read from a `BufRead`, decoded as it is read.

use super::{StreamDecoder, StreamError};
use crate::codec::{Decoder, Method, Status, Unpacker};

/// Default length of a [`DecodeReader`]'s own buffer, used by its `BufRead` side only.
pub const DEFAULT_BUFFER_LEN: usize = 4096;

/// Reads a packed stream from `inner` (a `BufRead` of packed bytes) and yields its decoded
/// bytes: `std::io::Read` + `BufRead` for an `R: std::io::BufRead` (feature `std`),
/// `embedded_io::Read` + `BufRead` for an `R: embedded_io::BufRead` (feature
/// `embedded-io`, no allocation).
///
/// The rules, the same for both:
/// * it consumes from `inner` exactly the bytes the codec used: once the last decoded byte
///   is out, whatever follows the stream is still in `inner` ([`into_inner`]);
/// * a read returns `Ok(0)` only at the end of the stream or for an empty buffer; a read
///   into a 1-byte buffer works;
/// * `inner` running dry before `unpacked_size` bytes is an error
///   ([`StreamError::Decode`] with [`DecodeError::Truncated`](crate::error::DecodeError::Truncated):
///   `UnexpectedEof` for `std::io`), corrupt input `InvalidData`; the [`StreamError`] names
///   the file offset ([`for_entry`]) and carries the codec's error in its variant (in
///   its text too; `source()` is `None`, so that a report of the chain says it once);
/// * decoding errors are sticky: every later read returns the same error (errors of
///   `inner` itself are passed through and not kept, so a read can be retried after
///   `Interrupted`);
/// * a zero-length read changes nothing.
///
/// Its state is fixed: the codec `D` behind the stream's rules ([`StreamDecoder`]; the
/// [`Unpacker`] by default, 42 648 bytes on 64-bit targets with Deflate's window, or one
/// decoder of the caller's choice through [`from_stream`](DecodeReader::from_stream)), `N`
/// bytes of buffer for `BufRead` (`Read` decodes straight into the caller's buffer; `N`
/// is at least 1), and `inner`.
///
/// ```
/// # #[cfg(feature = "std")] {
/// use std::io::Read;
/// use ngi_core::io::DecodeReader;
/// use ngi_core::Method;
///
/// // LZSS: a literal 'a', then a 17-byte copy of it; then bytes that are not the stream's.
/// let packed: &[u8] = &[0b0000_0001, b'a', 0xEE, 0xFE, b'n', b'e', b'x', b't'];
/// let mut reader = DecodeReader::new(packed, Method::Lzss, 18, 0);
/// let mut out = Vec::new();
/// reader.read_to_end(&mut out)?;
/// assert_eq!(out, [b'a'; 18]);
/// assert_eq!(reader.into_inner(), b"next"); // what follows the stream is still there
/// # }
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// [`into_inner`]: DecodeReader::into_inner
/// [`for_entry`]: DecodeReader::for_entry
#[derive(Clone)]
// With neither `std` nor `embedded-io` no I/O trait reads it: the buffer then sits unused.
#[cfg_attr(not(any(feature = "std", feature = "embedded-io")), allow(dead_code))]
pub struct DecodeReader<R, const N: usize = DEFAULT_BUFFER_LEN, D = Unpacker> {
    inner: R,
    core: StreamDecoder<D>,
    buffer: [u8; N],
    /// Decoded bytes in `buffer`: `pos..filled` are yet to be read.
    pos: usize,
    filled: usize,
}

impl<R: core::fmt::Debug, const N: usize, D: core::fmt::Debug> core::fmt::Debug
    for DecodeReader<R, N, D>
{
    // The decoded bytes waiting in the buffer are counted, not printed.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DecodeReader")
            .field("inner", &self.inner)
            .field("core", &self.core)
            .field("buffered", &self.filled.saturating_sub(self.pos))
            .finish()
    }
}

impl<R> DecodeReader<R> {
    /// A reader decoding the packed stream in `inner` with `method` into exactly
    /// `unpacked_size` bytes (keyed by `key` for the XOR methods), with a buffer of
    /// [`DEFAULT_BUFFER_LEN`] bytes for `BufRead`.
    pub fn new(inner: R, method: Method, unpacked_size: u64, key: u16) -> DecodeReader<R> {
        DecodeReader::with_buffer(inner, method, unpacked_size, key)
    }
}

impl<R, const N: usize> DecodeReader<R, N> {
    /// [`new`](DecodeReader::new) with a `BufRead` buffer of `N` bytes: name it as
    /// `DecodeReader::<_, 512>::with_buffer(...)`. `N` is at least 1, checked when it
    /// compiles:
    ///
    /// ```
    /// use ngi_core::{Method, io::DecodeReader};
    /// let _ = DecodeReader::<_, 1>::with_buffer(&b"a"[..], Method::Stored, 1, 0);
    /// ```
    /// ```compile_fail,E0080
    /// use ngi_core::{Method, io::DecodeReader};
    /// let _ = DecodeReader::<_, 0>::with_buffer(&b"a"[..], Method::Stored, 1, 0);
    /// ```
    pub fn with_buffer(inner: R, method: Method, unpacked_size: u64, key: u16) -> Self {
        DecodeReader::from_stream(inner, StreamDecoder::new(method, unpacked_size, key))
    }
}

impl<R, const N: usize> DecodeReader<R, N> {
    /// A reader of an entry's stream of `method`, built in one expression rather than by
    /// functions that each return the state by value: fewer copies of the 42 KiB Deflate
    /// state on the stack (how many is the compiler's choice; `restart` makes none).
    #[inline(always)]
    #[cfg_attr(not(feature = "embedded-io"), allow(dead_code))]
    pub(crate) const fn for_entry_stream(
        inner: R,
        method: Method,
        unpacked_size: u64,
        key: u16,
        entry: Option<u32>,
        offset: u64,
    ) -> Self {
        DecodeReader {
            inner,
            core: StreamDecoder::placed(Unpacker::new(method, unpacked_size, key), entry, offset),
            buffer: [0; N],
            pos: 0,
            filled: 0,
        }
    }

    /// The reader of another stream of the same source, in place: `reset` resets the
    /// decoder (`StreamDecoder::restart`), and decoded bytes not read yet are dropped; the
    /// source is the caller's to point at the new range.
    #[cfg_attr(not(feature = "embedded-io"), allow(dead_code))]
    pub(crate) fn restart_with(&mut self, reset: impl FnOnce(&mut StreamDecoder)) {
        reset(&mut self.core);
        (self.pos, self.filled) = (0, 0);
    }
}

#[cfg_attr(not(any(feature = "std", feature = "embedded-io")), allow(dead_code))]
impl<R, const N: usize, D: Decoder> DecodeReader<R, N, D> {
    /// A reader over `inner` driving `core`: a
    /// [`Catalog::stream_decoder`](crate::archive::Catalog::stream_decoder), or a
    /// [`StreamDecoder::from_decoder`] of one codec to keep the state small. The buffer's
    /// length `N` is not inferred from its default: name it, as `DecodeReader::<_, 16, _>`
    /// does below (`DecodeReader::<_, DEFAULT_BUFFER_LEN, _>` for the default), or give
    /// the binding a type.
    ///
    /// ```
    /// # #[cfg(feature = "std")] {
    /// use std::io::Read;
    /// use ngi_core::codec::StoredDecoder;
    /// use ngi_core::io::{DecodeReader, StreamDecoder};
    ///
    /// let core = StreamDecoder::from_decoder(StoredDecoder::new(5));
    /// let mut reader = DecodeReader::<_, 16, _>::from_stream(&b"hello, world"[..], core);
    /// let mut out = String::new();
    /// reader.read_to_string(&mut out)?;
    /// assert_eq!(out, "hello");
    /// assert!(core::mem::size_of_val(&reader) < 256);
    /// # }
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn from_stream(inner: R, core: StreamDecoder<D>) -> Self {
        const {
            assert!(
                N > 0,
                "a DecodeReader's BufRead buffer holds at least one byte"
            )
        };
        DecodeReader {
            inner,
            core,
            buffer: [0; N],
            pos: 0,
            filled: 0,
        }
    }

    /// The same reader, its errors naming entry `entry` and placed in the file from
    /// `offset`, where the packed stream starts.
    pub fn for_entry(mut self, entry: u32, offset: u64) -> Self {
        self.core = self.core.at(Some(entry), offset);
        self
    }

    /// The packed source.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The packed source, to change (reading from it directly desynchronises the stream).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The packed source, positioned right after the bytes the codec consumed. Decoded
    /// bytes still in the `BufRead` buffer are dropped.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The codec state: bytes produced and consumed so far, whether it is done or failed.
    pub fn decoder(&self) -> &StreamDecoder<D> {
        &self.core
    }

    /// The decoded bytes buffered for `BufRead`, not yet consumed.
    fn buffered(&self) -> &[u8] {
        self.buffer.get(self.pos..self.filled).unwrap_or_default()
    }

    /// `Read::read` over any source: first what `BufRead` left buffered, then straight
    /// into `out`.
    pub(super) fn read_from<S: Source<R>>(
        &mut self,
        out: &mut [u8],
    ) -> Result<usize, Fault<S::Error>> {
        if let Some(fault) = self.core.fault() {
            return Err(Fault::Stream(fault));
        }
        let buffered = self.buffered();
        if !buffered.is_empty() {
            let n = buffered.len().min(out.len());
            out.iter_mut().zip(buffered).for_each(|(d, &s)| *d = s);
            self.pos += n;
            return Ok(n);
        }
        pump::<R, S, D>(&mut self.core, &mut self.inner, out)
    }

    /// `BufRead::fill_buf` over any source.
    pub(super) fn fill_from<S: Source<R>>(&mut self) -> Result<&[u8], Fault<S::Error>> {
        if let Some(fault) = self.core.fault() {
            return Err(Fault::Stream(fault));
        }
        if self.pos >= self.filled {
            let n = pump::<R, S, D>(&mut self.core, &mut self.inner, &mut self.buffer)?;
            (self.pos, self.filled) = (0, n);
        }
        Ok(self.buffered())
    }

    /// `BufRead::consume`.
    pub(super) fn consume_buffered(&mut self, amount: usize) {
        self.pos = self.pos.saturating_add(amount).min(self.filled);
    }
}

#[cfg_attr(not(any(feature = "std", feature = "embedded-io")), allow(dead_code))]
/// A `BufRead` of packed bytes as the read loop sees it, whichever I/O traits it has.
pub(super) trait Source<R> {
    /// The source's own error.
    type Error;
    /// `fill_buf`: the bytes at hand, empty at the end.
    fn fill(inner: &mut R) -> Result<&[u8], Self::Error>;
    /// `consume`.
    fn consume(inner: &mut R, amount: usize);
}

#[cfg_attr(not(any(feature = "std", feature = "embedded-io")), allow(dead_code))]
/// Why a read failed: the stream, or the source (its error `E`).
pub(super) enum Fault<E> {
    Stream(StreamError),
    Source(E),
}

impl<E> From<StreamError> for Fault<E> {
    fn from(e: StreamError) -> Self {
        Fault::Stream(e)
    }
}

#[cfg_attr(not(any(feature = "std", feature = "embedded-io")), allow(dead_code))]
/// Decodes into `out` until at least one byte is out, the stream is done, or an error:
/// the one read loop of every reader. Each pass either consumes input, produces output,
/// or fails, so it ends with any finite source.
fn pump<R, S: Source<R>, D: Decoder>(
    core: &mut StreamDecoder<D>,
    inner: &mut R,
    out: &mut [u8],
) -> Result<usize, Fault<S::Error>> {
    if out.is_empty() || core.is_done() {
        // Nothing asked for, or nothing more to give (a stream of size 0 still gets its
        // one codec call below, so that its bytes are consumed).
        return Ok(0);
    }
    if core.may_go_on_without_input() {
        // Before the source is asked, which may block until it has more to give.
        let progress = core.decode(&[], false, out)?;
        if progress.produced > 0 || progress.status == Status::Done {
            return Ok(progress.produced);
        }
    }
    loop {
        let input = S::fill(inner).map_err(Fault::Source)?;
        let ended = input.is_empty();
        let progress = core.decode(input, ended, out)?;
        S::consume(inner, progress.consumed);
        if progress.produced > 0 || progress.status == Status::Done {
            return Ok(progress.produced);
        }
    }
}
