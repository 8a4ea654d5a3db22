//! `std::io::Read` and `BufRead` for [`DecodeReader`] over a `std::io::BufRead`.

use std::io;

use super::DecodeReader;
use super::reader::{Fault, Source};
use crate::codec::Decoder;

/// The packed source as `std::io` sees it.
struct Std;

impl<R: io::BufRead> Source<R> for Std {
    type Error = io::Error;
    fn fill(inner: &mut R) -> Result<&[u8], io::Error> {
        inner.fill_buf()
    }
    fn consume(inner: &mut R, amount: usize) {
        inner.consume(amount);
    }
}

fn to_io(fault: Fault<io::Error>) -> io::Error {
    match fault {
        Fault::Stream(e) => e.into(),
        Fault::Source(e) => e,
    }
}

/// Decoded bytes; see [`DecodeReader`] for the rules.
impl<R: io::BufRead, const N: usize, D: Decoder> io::Read for DecodeReader<R, N, D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.read_from::<Std>(buf).map_err(to_io)
    }
}

/// Decoded bytes through the reader's own `N`-byte buffer.
impl<R: io::BufRead, const N: usize, D: Decoder> io::BufRead for DecodeReader<R, N, D> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.fill_from::<Std>().map_err(to_io)
    }
    fn consume(&mut self, amount: usize) {
        self.consume_buffered(amount);
    }
}
