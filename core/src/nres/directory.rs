//! Incremental decoding of the directory for callers that stream the file.

use super::{ENTRY_LEN, Header, NresError, Record};

/// Decodes the directory from bytes fed in pieces of any size, down to one byte.
///
/// Construct it from the parsed header, then feed it the bytes of the directory region,
/// starting at [`directory_offset`](DirectoryDecoder::directory_offset). It holds one
/// partial record (64 bytes) and a few counters, and never consumes bytes past the last
/// record. The records are not validated: [`Entry::check`](super::Entry::check) does that
/// with the directory offset.
///
/// ```
/// use ngi_core::nres::{DirectoryDecoder, Header};
///
/// let header = Header { entry_count: 2, total_size: 16 + 128 };
/// let mut decoder = DirectoryDecoder::new(&header)?;
/// assert_eq!(decoder.directory_offset(), 16);
/// let directory = [0u8; 128 + 3]; // three bytes beyond the directory
/// let mut seen = 0;
/// for piece in directory.chunks(10) {
///     let mut input = piece;
///     while let Some(record) = decoder.next_record(&mut input) {
///         assert_eq!(record.index, seen);
///         seen += 1;
///     }
/// }
/// assert!(decoder.is_done());
/// assert_eq!(seen, 2);
/// # Ok::<(), ngi_core::nres::NresError>(())
/// ```
#[derive(Debug, Clone)]
pub struct DirectoryDecoder {
    partial: [u8; ENTRY_LEN],
    filled: usize,
    next_index: u32,
    entry_count: u32,
    directory_offset: u64,
}

impl DirectoryDecoder {
    /// A decoder for the directory `header` describes. Whether `total_size` is the real
    /// length only the caller can tell.
    ///
    /// # Errors
    ///
    /// * [`NresError::DirectoryOutOfBounds`] when the header's directory offset is below
    ///   16 (SPEC 1.2, [`Header::directory_offset`]).
    pub fn new(header: &Header) -> Result<DirectoryDecoder, NresError> {
        Ok(DirectoryDecoder {
            partial: [0; ENTRY_LEN],
            filled: 0,
            next_index: 0,
            entry_count: header.entry_count,
            directory_offset: header.directory_offset()?,
        })
    }

    /// Takes bytes from the front of `*input`, advancing it, and returns the next record
    /// once it is complete. Returns `None` when `*input` is used up before that, or when
    /// every record is out (then nothing is taken). Call it again with the same slice to
    /// get the following records.
    pub fn next_record(&mut self, input: &mut &[u8]) -> Option<Record> {
        if self.is_done() {
            return None;
        }
        let free = self.partial.get_mut(self.filled..).unwrap_or_default();
        let bytes: &[u8] = input;
        let (taken, rest) = bytes.split_at_checked(free.len()).unwrap_or((bytes, &[]));
        for (dst, &src) in free.iter_mut().zip(taken) {
            *dst = src;
        }
        *input = rest;
        self.filled += taken.len();
        if self.filled < ENTRY_LEN {
            return None;
        }
        self.filled = 0;
        let record = Record {
            index: self.next_index,
            bytes: self.partial,
        };
        self.next_index += 1;
        Some(record)
    }

    /// Whether every record has been returned.
    pub fn is_done(&self) -> bool {
        self.remaining() == 0
    }

    /// How many records are still to come.
    pub fn remaining(&self) -> u32 {
        self.entry_count.saturating_sub(self.next_index)
    }

    /// The absolute file offset where the directory starts.
    pub fn directory_offset(&self) -> u64 {
        self.directory_offset
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::nres::testutil::{Rec, XorShift, archive};
    use crate::nres::{Archive, Entry};
    use std::vec::Vec;

    fn sample() -> Vec<u8> {
        let long = [b'L'; 36];
        let recs = [
            Rec {
                size: 3,
                sort_index: 1,
                ..Rec::named(b"b")
            },
            Rec {
                data_offset: 19,
                size: 5,
                ..Rec::named(b"a")
            },
            Rec {
                data_offset: 0,
                sort_index: 9,
                ..Rec::named(&long)
            },
            Rec::named(b"last\0\x01\x02"),
        ];
        archive(b"abcdefgh", &recs)
    }

    fn decode_in_pieces(bytes: &[u8], mut piece: impl FnMut() -> usize) -> Vec<Record> {
        let header = Header::parse(bytes).unwrap();
        let mut decoder = DirectoryDecoder::new(&header).unwrap();
        let mut region = &bytes[decoder.directory_offset() as usize..];
        let mut out = Vec::new();
        while !region.is_empty() {
            let n = piece().clamp(1, region.len());
            let (mut input, rest) = region.split_at(n);
            region = rest;
            while let Some(record) = decoder.next_record(&mut input) {
                out.push(record);
            }
            assert!(
                input.is_empty(),
                "every byte of the region belongs to a record"
            );
        }
        assert!(decoder.is_done());
        assert_eq!(decoder.remaining(), 0);
        out
    }

    fn assert_matches_archive(bytes: &[u8], records: &[Record]) {
        let archive = Archive::open(bytes).unwrap();
        let decoded: Vec<Entry<'_>> = records.iter().map(Record::entry).collect();
        let listed: Vec<Entry<'_>> = archive.entries().collect();
        assert_eq!(decoded, listed);
    }

    #[test]
    fn one_byte_at_a_time() {
        let bytes = sample();
        let records = decode_in_pieces(&bytes, || 1);
        assert_eq!(records.len(), 4);
        assert_matches_archive(&bytes, &records);
    }

    #[test]
    fn random_pieces() {
        let bytes = sample();
        let mut rng = XorShift(0x0123_4567_89AB_CDEF);
        for _ in 0..500 {
            let records = decode_in_pieces(&bytes, || rng.below(150) as usize);
            assert_matches_archive(&bytes, &records);
        }
        let whole = decode_in_pieces(&bytes, || usize::MAX);
        assert_matches_archive(&bytes, &whole);
    }

    #[test]
    fn stops_at_the_last_record() {
        let bytes = sample();
        let header = Header::parse(&bytes).unwrap();
        let mut decoder = DirectoryDecoder::new(&header).unwrap();
        let mut directory = Vec::from(&bytes[decoder.directory_offset() as usize..]);
        directory.extend_from_slice(b"trailer");
        let mut input = &directory[..];
        let mut n = 0;
        while let Some(record) = decoder.next_record(&mut input) {
            assert_eq!(record.index, n);
            n += 1;
            assert_eq!(decoder.remaining(), 4 - n);
        }
        assert_eq!(n, 4);
        assert_eq!(input, b"trailer");
        assert_eq!(decoder.next_record(&mut input), None);
        assert_eq!(input, b"trailer", "a finished decoder takes nothing");
    }

    #[test]
    fn empty_input_and_empty_directory() {
        let header = Header {
            entry_count: 0,
            total_size: 16,
        };
        let mut decoder = DirectoryDecoder::new(&header).unwrap();
        assert!(decoder.is_done());
        let mut input = &b"x"[..];
        assert_eq!(decoder.next_record(&mut input), None);
        assert_eq!(input, b"x");

        let header = Header {
            entry_count: 1,
            total_size: 80,
        };
        let mut decoder = DirectoryDecoder::new(&header).unwrap();
        let mut empty: &[u8] = &[];
        assert_eq!(decoder.next_record(&mut empty), None);
        assert_eq!(decoder.remaining(), 1);
    }

    #[test]
    fn rejects_a_directory_out_of_bounds() {
        let header = Header {
            entry_count: i32::MAX as u32,
            total_size: 64,
        };
        assert_eq!(
            DirectoryDecoder::new(&header).map(|_| ()),
            Err(NresError::DirectoryOutOfBounds {
                entry_count: i32::MAX as u32,
                total_size: 64
            })
        );
    }
}
