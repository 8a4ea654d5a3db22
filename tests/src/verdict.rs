//! How an inflater judged a stream, in the form the differential tests and the
//! `inflate_diff` fuzz target compare: ngi's, zlib-rs's, Python zlib's or miniz_oxide's.

/// A verdict on a raw Deflate stream.
#[derive(Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The final block ended: the output and the bytes consumed (through the byte holding
    /// the final block's last bit).
    Complete(Vec<u8>, usize),
    /// A fault was found, after this output.
    Corrupt(Vec<u8>),
    /// The input ran out first, after this output.
    Truncated(Vec<u8>),
}

impl Verdict {
    /// The bytes produced before the verdict.
    pub fn output(&self) -> &[u8] {
        match self {
            Verdict::Complete(o, _) | Verdict::Corrupt(o) | Verdict::Truncated(o) => o,
        }
    }

    /// 0 complete, 1 corrupt, 2 truncated: an index for counting verdicts.
    pub fn kind(&self) -> usize {
        match self {
            Verdict::Complete(..) => 0,
            Verdict::Corrupt(_) => 1,
            Verdict::Truncated(_) => 2,
        }
    }
}

/// Without the output bytes, which can be many: their count, and the consumed count.
impl std::fmt::Debug for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Complete(o, c) => write!(f, "Complete({} bytes, {c} consumed)", o.len()),
            Verdict::Corrupt(o) => write!(f, "Corrupt(after {} bytes)", o.len()),
            Verdict::Truncated(o) => write!(f, "Truncated(after {} bytes)", o.len()),
        }
    }
}
