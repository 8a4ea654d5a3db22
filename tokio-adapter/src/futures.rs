//! futures-io's `AsyncRead` and `AsyncBufRead` (feature `futures-io`): the same poll loop
//! as the tokio traits, reached through the futures family's input trait.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncBufRead, AsyncRead};

use crate::poll::{Direct, ViaFutures};
use crate::{DecodeReader, EntryReader};

impl<R: AsyncBufRead + Unpin> AsyncRead for DecodeReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut()
            .decoding_mut()
            .poll_read::<ViaFutures>(cx, buf)
    }
}

impl<R: AsyncBufRead + Unpin> AsyncBufRead for DecodeReader<R> {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut()
            .decoding_mut()
            .poll_fill_buf::<ViaFutures>(cx)
    }

    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().decoding_mut().consume(amount);
    }
}

impl AsyncRead for EntryReader {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().decoding_mut().poll_read::<Direct>(cx, buf)
    }
}

impl AsyncBufRead for EntryReader {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().decoding_mut().poll_fill_buf::<Direct>(cx)
    }

    fn consume(self: Pin<&mut Self>, amount: usize) {
        self.get_mut().decoding_mut().consume(amount);
    }
}
