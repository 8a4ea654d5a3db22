//! The match copy every LZ-style decoder needs: `len` bytes from `dist` back within the
//! output, exactly as a byte-by-byte copy would make them, so a source that overlaps its
//! own output repeats its first `dist` bytes (the way LZ77 formats encode runs).
//!
//! The hot loops keep copies of their own where their speed depends on their shape:
//! LZSS's fast loop moves every unit as one 18-byte word, Deflate's copies matches in
//! 16- and 8-byte words with scratch past the end (see their `fast.rs`). Those are not
//! byte-exact copies (they may write past the match), so they cannot be this one.

/// Copies `len` bytes from `dist` back (`1 <= dist <= at`) to `out[at..at + len]` as a
/// byte-by-byte copy would: an overlapping source repeats its first `dist` bytes. `MAX`
/// is the format's longest match, which picks how an overlapping copy runs.
///
/// Overlapping copies of distance 2 and more are runs of a short pattern. Up to 64 bytes
/// (LZSS's 18, LZHUF's 60) a plain loop, each read seeing the byte just written, costs
/// less than the calls of a doubling copy (measured: LZHUF decodes 1 % fewer
/// instructions); Deflate's runs of up to 258 bytes double the pattern with each
/// `copy_within`, a handful of wide moves instead of 258 dependent ones.
#[inline(always)]
pub(crate) fn within<const MAX: usize>(out: &mut [u8], at: usize, dist: usize, len: usize) {
    let from = at - dist;
    if dist >= len {
        out.copy_within(from..from + len, at);
    } else if dist == 1 {
        let byte = out[from];
        out[at..at + len].fill(byte);
    } else if MAX <= 64 {
        let span = &mut out[from..at + len];
        for k in 0..len {
            span[dist + k] = span[k];
        }
    } else {
        // Every copy reads only bytes already final, and the pattern doubles each time.
        let mut done = 0;
        while done < len {
            let n = (len - done).min(dist + done);
            out.copy_within(from..from + n, at + done);
            done += n;
        }
    }
}
