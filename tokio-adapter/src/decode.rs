//! A caller's packed stream, decoded: [`DecodeReader`].

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use ngi_core::codec::BoxedDecoder;
use ngi_core::io::StreamDecoder;
use ngi_core::{Method, Unpacker};
use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};

use crate::poll::{Decoding, ViaTokio};

/// Decodes one packed stream read from `R`, an `AsyncBufRead` (tokio's, or futures-io's
/// with feature `futures-io`), into exactly its unpacked size: `AsyncRead +
/// AsyncBufRead` of the same family.
///
/// For callers who hold a packed stream themselves (a socket, an HTTP body through
/// `tokio_util::io::StreamReader`); an [`Archive`](crate::Archive)'s entries are read
/// with [`Archive::reader`](crate::Archive::reader). It takes from `R` only the bytes
/// of the stream: what follows stays in `R` ([`into_inner`](DecodeReader::into_inner)).
/// The rules are [`EntryReader`](crate::EntryReader)'s: `UnexpectedEof` when `R` ends
/// early, `InvalidData` for corrupt data (the core's
/// [`StreamError`](ngi_core::io::StreamError) as inner error), sticky errors, `Ok(0)`
/// only at the end, bounded work per poll. `R` must be `Unpin` (`Box::pin` one that is
/// not).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use ngi_core::codec::{PackOptions, pack};
/// use tokio::io::AsyncReadExt;
///
/// let text = b"the same words, the same words, the same words";
/// let packed = pack(ngi_tokio::Method::Lzss, 0, text, &PackOptions::default()).unwrap();
/// let mut reader =
///     ngi_tokio::DecodeReader::new(&packed[..], ngi_tokio::Method::Lzss, text.len() as u64, 0);
/// let mut out = Vec::new();
/// reader.read_to_end(&mut out).await?;
/// assert_eq!(out, text);
/// # Ok(())
/// # }
/// ```
///
/// # Memory
/// The decoder of `method` on the heap (see [`EntryReader`](crate::EntryReader)), and up
/// to 16 KiB of decoded bytes once `poll_fill_buf` is used.
///
/// # Cancel safety
/// Reads may be dropped at any point: decoded bytes are returned or kept for the next
/// read, and `R`'s unconsumed input stays in `R`.
#[derive(Debug)]
pub struct DecodeReader<R> {
    decoding: Decoding<R>,
}

impl<R> DecodeReader<R> {
    /// A reader decoding `inner`'s bytes by `method` into exactly `unpacked_size` bytes
    /// (keyed by `key`, which the XOR methods use). Faults are placed from offset 0 of
    /// the stream.
    pub fn new(inner: R, method: Method, unpacked_size: u64, key: u16) -> DecodeReader<R> {
        let codec = Unpacker::new(method, unpacked_size, key).into_boxed();
        DecodeReader::from_stream(inner, StreamDecoder::from_decoder(codec))
    }

    /// A reader driving `core`: e.g. one from
    /// [`Catalog::boxed_stream_decoder`](ngi_core::archive::Catalog::boxed_stream_decoder),
    /// whose faults name the entry and its file offsets.
    pub fn from_stream(inner: R, core: StreamDecoder<BoxedDecoder>) -> DecodeReader<R> {
        DecodeReader {
            decoding: Decoding::new(inner, core),
        }
    }

    /// The source.
    pub fn get_ref(&self) -> &R {
        self.decoding.input()
    }

    /// The source, mutably (reading from it yourself breaks the stream).
    pub fn get_mut(&mut self) -> &mut R {
        self.decoding.input_mut()
    }

    /// The source, with what follows the stream still in it once the stream is complete
    /// (a read returned `Ok(0)`, or [`decoder`](DecodeReader::decoder)`().is_done()`: a
    /// Deflate stream may still hold its end-of-block code after its last byte is out).
    pub fn into_inner(self) -> R {
        self.decoding.into_input()
    }

    /// The decoder: bytes produced and consumed, its fault if it has one.
    pub fn decoder(&self) -> &StreamDecoder<BoxedDecoder> {
        self.decoding.core()
    }

    #[cfg(feature = "futures-io")]
    pub(crate) fn decoding_mut(&mut self) -> &mut Decoding<R> {
        &mut self.decoding
    }
}

impl<R: AsyncBufRead + Unpin> AsyncRead for DecodeReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        self.get_mut().decoding.poll_read_buf::<ViaTokio>(cx, buf)
    }
}

impl<R: AsyncBufRead + Unpin> AsyncBufRead for DecodeReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().decoding.poll_fill_buf::<ViaTokio>(cx)
    }

    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().decoding.consume(amount);
    }
}
