//! The 32 KiB window the streaming decoder keeps between calls, and its refresh at the end
//! of each call with the bytes a later match can still reach.
//!
//! The window is a [`Ring`] with its first 272 bytes mirrored after its end, so that a
//! 16-byte word copy of a longest match (258 bytes, read as 17 words) from anywhere in it
//! reads on through its wrap without a test. Its positions are the stream's, from 0.

use super::{Inflater, Phase, WINDOW_SIZE};
use crate::codec::ring::{self, Ring};

/// Masks a stream position into the window.
pub(super) const WMASK: usize = WINDOW_SIZE - 1;
/// Bytes past the window's end that repeat its first bytes (see the module docs).
const MIRROR: usize = 272;
/// The window with its mirrored tail. (Deflate refuses a match reaching before the
/// stream, so the fill is never read.)
pub(super) type InflateRing = Ring<{ WINDOW_SIZE + MIRROR }, MIRROR, 0>;
/// What one call sees of the window.
pub(super) type Window<'a> = ring::Window<'a, { WINDOW_SIZE + MIRROR }, MIRROR, 0>;
/// The window's bytes, as the fast loop reads them.
pub(super) type WindowBytes = [u8; WINDOW_SIZE + MIRROR];

/// Stores in `window` the bytes of a call's `output` a later match can reach: the last
/// 32 KiB of them, all but none once the final block has ended, and inside a stored block
/// only those that the stored bytes known to follow (in `rest`, the input the call did
/// not consume) will not push more than a window back before the next match can come.
/// `before` bytes of the stream preceded the call.
pub(super) fn refresh(
    window: &mut InflateRing,
    core: &Inflater,
    output: &[u8],
    before: u64,
    rest: &[u8],
) {
    let n = output.len();
    let keep = match core.phase {
        Phase::Done => 0,
        Phase::Stored { left } => n.min(WINDOW_SIZE.saturating_sub(stored_ahead(core, left, rest))),
        _ => n.min(WINDOW_SIZE),
    };
    if keep > 0 {
        let at = (before + (n - keep) as u64) as usize;
        window.remember(&output[n - keep..], at);
    }
}

/// In a stored block with `left` bytes to go and `rest` the input not yet consumed: how
/// many bytes of output are sure to come from stored blocks before any Huffman block
/// can, counting the blocks whose headers `rest` already shows (at most 16 of them, and
/// only as far as a window). `usize::MAX` when the final block is among them: no match
/// follows at all. A look ahead only: the bytes are read again when decoded, and a
/// header that does not check out simply ends the count.
pub(super) fn stored_ahead(core: &Inflater, left: u16, rest: &[u8]) -> usize {
    let buffered = (core.nbits / 8) as usize;
    let Some(in_input) = (left as usize).checked_sub(buffered) else {
        return 0;
    };
    let mut ahead = left as usize;
    let mut at = in_input;
    for _ in 0..16 {
        if ahead >= WINDOW_SIZE {
            break;
        }
        // A stored block ends on a byte boundary, so the next header starts a byte.
        let Some(&[h, l0, l1, n0, n1]) = rest.get(at..at + 5) else {
            break;
        };
        let len = u16::from_le_bytes([l0, l1]);
        if (h >> 1) & 3 != 0 || len != !u16::from_le_bytes([n0, n1]) {
            break;
        }
        if h & 1 != 0 {
            return usize::MAX;
        }
        ahead += len as usize;
        at += 5 + len as usize;
    }
    ahead
}
