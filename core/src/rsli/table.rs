//! Incremental decoding of the encrypted entry table (SPEC 2.3, 2.4).

use super::{ENTRY_LEN, Entry, Header};
use crate::codec::xor::XorStream;

/// Decrypts the entry table from bytes fed in pieces of any size, one keystream across
/// the whole table. Its state is 38 bytes: the keystream, the entries still to come and
/// the entry being filled.
///
/// The entries it returns carry the stored `sort_index` (`sort_index ==
/// file_sort_index`); settling them as the engine does (SPEC 2.5) needs the whole table,
/// see [`compute_permutation`](super::compute_permutation).
///
/// ```
/// use ngi_core::rsli::{Entry, Header, TableDecoder};
///
/// let mut header = [0u8; 32];
/// header[..4].copy_from_slice(b"NL\x00\x01");
/// header[4] = 2;
/// let header = Header::parse(&header)?;
/// let table = [0u8; 64]; // seed 0: the keystream is all zeros
///
/// let mut decoder = TableDecoder::new(&header);
/// let mut input = &table[..40];
/// assert_eq!(decoder.next_entry(&mut input), Some(Entry::default()));
/// assert_eq!(decoder.next_entry(&mut input), None); // 8 bytes of the second entry held
/// assert!(input.is_empty());
/// let mut input = &table[40..];
/// assert!(decoder.next_entry(&mut input).is_some());
/// assert!(decoder.is_done());
/// # Ok::<(), ngi_core::rsli::RsliError>(())
/// ```
#[derive(Debug, Clone)]
pub struct TableDecoder {
    stream: XorStream,
    remaining: u16,
    entry: [u8; ENTRY_LEN],
    /// Bytes of `entry` received, `0..32`.
    filled: u8,
}

impl TableDecoder {
    /// A decoder for the table `header` describes, keyed by its seed.
    pub fn new(header: &Header) -> TableDecoder {
        TableDecoder {
            stream: XorStream::new(header.key()),
            remaining: header.entry_count,
            entry: [0; ENTRY_LEN],
            filled: 0,
        }
    }

    /// Takes bytes from the front of `*input` (advancing it) and returns the next entry
    /// once its 32 bytes are in. Returns `None` when `*input` is used up first (the bytes
    /// are kept for the next call) or when the table is complete (nothing is taken then,
    /// so `*input` is left at the first byte after the table).
    pub fn next_entry(&mut self, input: &mut &[u8]) -> Option<Entry> {
        if self.remaining == 0 {
            return None;
        }
        let room = self
            .entry
            .get_mut(usize::from(self.filled)..)
            .unwrap_or_default();
        let (piece, rest) = input
            .split_at_checked(room.len().min(input.len()))
            .unwrap_or((&[], input));
        let taken = self.stream.apply_copy(piece, room);
        // `taken` fits: it is at most the room left in a 32-byte entry.
        self.filled = self.filled.saturating_add(taken as u8);
        *input = rest;
        if usize::from(self.filled) < ENTRY_LEN {
            return None;
        }
        self.filled = 0;
        self.remaining -= 1;
        Some(Entry::from_bytes(&self.entry))
    }

    /// Whether every entry has been returned.
    pub fn is_done(&self) -> bool {
        self.remaining == 0
    }

    /// Entries not yet returned (one partly received counts as not returned).
    pub fn remaining(&self) -> u16 {
        self.remaining
    }

    /// Table bytes still to be fed before the decoder is done.
    pub fn bytes_remaining(&self) -> usize {
        usize::from(self.remaining)
            .saturating_mul(ENTRY_LEN)
            .saturating_sub(usize::from(self.filled))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(count: u16, seed: u32) -> Header {
        let mut bytes = [0u8; 32];
        bytes[..4].copy_from_slice(b"NL\x00\x01");
        bytes[4..6].copy_from_slice(&count.to_le_bytes());
        bytes[20..24].copy_from_slice(&seed.to_le_bytes());
        Header::parse(&bytes).unwrap()
    }

    #[test]
    fn one_stream_across_entries_in_any_pieces() {
        let plain: [u8; 96] = core::array::from_fn(|i| (i * 11 + 5) as u8);
        let mut table = plain;
        XorStream::new(0x5A17).apply(&mut table);
        let h = header(3, 0xFFFF_5A17);
        for piece in [1, 2, 5, 31, 32, 33, 96, 200] {
            let mut d = TableDecoder::new(&h);
            let mut got = 0;
            for chunk in table.chunks(piece) {
                let mut input = chunk;
                while let Some(e) = d.next_entry(&mut input) {
                    let want: &[u8; 32] = plain[got * 32..][..32].try_into().unwrap();
                    assert_eq!(e, Entry::from_bytes(want), "piece {piece}, entry {got}");
                    got += 1;
                }
                assert!(input.is_empty());
            }
            assert_eq!((got, d.is_done(), d.remaining()), (3, true, 0));
            assert_eq!(d.bytes_remaining(), 0);
        }
    }

    #[test]
    fn stops_at_the_end_of_the_table() {
        let mut d = TableDecoder::new(&header(1, 0));
        assert_eq!((d.remaining(), d.bytes_remaining()), (1, 32));
        let bytes = [0u8; 40];
        let mut input = &bytes[..];
        assert!(d.next_entry(&mut input).is_some());
        assert_eq!(input.len(), 8);
        assert_eq!(d.next_entry(&mut input), None);
        assert_eq!(input.len(), 8, "bytes after the table are not taken");
        let mut empty = TableDecoder::new(&header(0, 0));
        assert!(empty.is_done());
        assert_eq!(empty.next_entry(&mut input), None);
    }

    #[test]
    fn state_size_is_as_documented() {
        assert_eq!(core::mem::size_of::<TableDecoder>(), 38);
    }
}
