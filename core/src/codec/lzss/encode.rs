//! Okumura's `LZSS.C` encoder (1989), byte for byte: the parse is the shared port of its
//! match finder and `Encode()` loop ([`match_tree`], `F = 18`,
//! the first longest match the tree walk meets, `LZSS.C`'s ring prefill); this file packs
//! the units as `LZSS.C` does, eight to a flag byte.

use super::{MAX_MATCH, MIN_MATCH};
use crate::codec::match_tree::{self, Unit};
use alloc::collections::TryReserveError;
use alloc::vec::Vec;

/// Compresses `data` into an LZSS stream exactly as `LZSS.C`'s `Encode()` does. The
/// stream decodes to `data` with [`decode_into`](super::decode_into) given
/// `data.len()` bytes of room (the format has no end marker: the length is the entry's).
///
/// ```
/// use ngi_core::codec::lzss;
///
/// let data = b"hello hello hello world";
/// let packed = lzss::encode(data);
/// let mut out = vec![0u8; data.len()];
/// assert_eq!(lzss::decode_into(&packed, None, &mut out), Ok(packed.len()));
/// assert_eq!(out, data);
/// ```
///
/// # Time
///
/// Linear in `data.len()`, but with a constant the data chooses: each position is
/// inserted into `LZSS.C`'s binary search trees over the last 4096 bytes, which have no
/// depth bound (a bound would change the matches, and so the bytes). Ordinary data
/// packs at about 10 MB/s (1 MiB of text, or of an x86-64 executable, on the virtual
/// machine this project is tested on); input crafted so that thousands of window
/// positions share long prefixes takes up to about a hundred times longer (seconds per
/// MB), as `LZSS.C` itself does. Bound the input, or the time, when packing data from
/// untrusted hands.
///
/// # Memory
///
/// Where there is no memory for the stream, the process aborts, as a `Vec` that cannot
/// grow does; [`pack`](crate::codec::pack) says so as an error instead.
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(worst_case(data.len()));
    encode_into(data, &mut out);
    out
}

/// [`encode`], its output reserved without aborting where memory is short: the whole
/// stream's worst case at once, so nothing grows after.
pub(crate) fn try_encode(data: &[u8]) -> Result<Vec<u8>, TryReserveError> {
    let mut out = Vec::new();
    out.try_reserve_exact(worst_case(data.len()))?;
    encode_into(data, &mut out);
    Ok(out)
}

/// The longest stream `len` bytes can give: every byte a literal, and a flag byte for
/// every eight.
fn worst_case(len: usize) -> usize {
    len.saturating_add(len / 8 + 1)
}

/// The body of [`encode`], appending to `out` (within its capacity, when that is the
/// worst case).
fn encode_into(data: &[u8], out: &mut Vec<u8>) {
    // code_buf[1..17] holds up to eight units; code_buf[0] their flags, 1 = literal.
    let mut code_buf = [0u8; 17];
    let mut code_buf_ptr = 1;
    let mut mask = 1u8;
    match_tree::parse::<MAX_MATCH, false>(data, |unit| {
        match unit {
            Unit::Literal(byte) => {
                code_buf[0] |= mask;
                code_buf[code_buf_ptr] = byte;
                code_buf_ptr += 1;
            }
            Unit::Match { offset, len, .. } => {
                // SPEC 3.1: `lo` = the position's low byte, `hi` = its high 4 bits above
                // the length - 3.
                code_buf[code_buf_ptr] = offset as u8;
                code_buf[code_buf_ptr + 1] = ((offset >> 4) & 0xF0) as u8 | (len - MIN_MATCH) as u8;
                code_buf_ptr += 2;
            }
        }
        mask <<= 1;
        if mask == 0 {
            out.extend_from_slice(&code_buf[..code_buf_ptr]);
            code_buf[0] = 0;
            code_buf_ptr = 1;
            mask = 1;
        }
    });
    if code_buf_ptr > 1 {
        out.extend_from_slice(&code_buf[..code_buf_ptr]);
    }
}
