//! The 32-byte file header (SPEC 2.2).

use super::{ENTRY_LEN, HEADER_LEN, MAGIC, PRESORTED, RsliError, le};

/// The RsLi file header, parsed and checked; `raw` keeps all 32 bytes, reserved ones
/// included, so a rewrite can reproduce them.
///
/// ```
/// use ngi_core::rsli::Header;
///
/// let mut bytes = [0u8; 32];
/// bytes[..4].copy_from_slice(b"NL\x00\x01");
/// bytes[4..6].copy_from_slice(&3i16.to_le_bytes());
/// bytes[14..16].copy_from_slice(&0xABBAu16.to_le_bytes());
/// bytes[20..24].copy_from_slice(&0x0001_BEEFu32.to_le_bytes());
/// let header = Header::parse(&bytes)?;
/// assert_eq!(header.entry_count, 3);
/// assert!(header.is_presorted());
/// assert_eq!(header.key(), 0xBEEF); // only the low 16 bits of the seed count
/// assert_eq!(header.table_len(), 96);
/// # Ok::<(), ngi_core::rsli::RsliError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Entries in the table (a non-negative `i16` in the file, so at most 32 767).
    pub entry_count: u16,
    /// The field at offset 14; [`PRESORTED`] (`0xABBA`) means the stored `sort_index`
    /// values are used as they are.
    pub presorted_flag: u16,
    /// The table's XOR seed (offset 20); only its low 16 bits key the cipher.
    pub seed: u32,
    /// The header exactly as read.
    pub raw: [u8; HEADER_LEN],
}

impl Header {
    /// Parses and checks the first 32 bytes of `bytes` (later bytes are ignored): magic
    /// `NL`, reserved byte 0, version 1, entry count (an `i16`) not negative.
    ///
    /// # Errors
    ///
    /// The first check that fails, in this order:
    ///
    /// * [`RsliError::Truncated`] when `bytes` holds fewer than 32 bytes;
    /// * [`RsliError::BadMagic`] when it does not start with `NL`;
    /// * [`RsliError::BadReserved`] when byte 2 is not 0;
    /// * [`RsliError::BadVersion`] when byte 3 is not 1;
    /// * [`RsliError::NegativeEntryCount`] when the entry count is negative.
    pub fn parse(bytes: &[u8]) -> Result<Header, RsliError> {
        let raw: [u8; HEADER_LEN] = bytes
            .get(..HEADER_LEN)
            .and_then(|head| head.try_into().ok())
            .ok_or(RsliError::Truncated {
                len: bytes.len() as u64,
                needed: HEADER_LEN as u64,
            })?;
        let [m0, m1, reserved, version, c0, c1, ..] = raw;
        if [m0, m1] != MAGIC {
            return Err(RsliError::BadMagic { found: [m0, m1] });
        }
        if reserved != 0 {
            return Err(RsliError::BadReserved { found: reserved });
        }
        if version != 1 {
            return Err(RsliError::BadVersion { found: version });
        }
        let count = i16::from_le_bytes([c0, c1]);
        let entry_count =
            u16::try_from(count).map_err(|_| RsliError::NegativeEntryCount { count })?;
        Ok(Header {
            entry_count,
            presorted_flag: le::u16_at(&raw, 14),
            seed: le::u32_at(&raw, 20),
            raw,
        })
    }

    /// Whether the presorted flag is `0xABBA`.
    pub fn is_presorted(&self) -> bool {
        self.presorted_flag == PRESORTED
    }

    /// The table's XOR key: the low 16 bits of the seed.
    pub fn key(&self) -> u16 {
        self.seed as u16
    }

    /// Bytes of the entry table, `32 * entry_count`.
    pub fn table_len(&self) -> usize {
        // Saturating only matters where usize is 16 bits; a file that long cannot exist.
        usize::from(self.entry_count).saturating_mul(ENTRY_LEN)
    }

    /// Bytes of the header and the table together: where the payloads may start.
    pub fn table_end(&self) -> u64 {
        HEADER_LEN as u64 + u64::from(self.entry_count) * ENTRY_LEN as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(count: i16) -> [u8; 40] {
        let mut bytes = [0u8; 40];
        bytes[..4].copy_from_slice(b"NL\x00\x01");
        bytes[4..6].copy_from_slice(&count.to_le_bytes());
        bytes
    }

    #[test]
    fn truncated_header() {
        let bytes = header(0);
        for len in 0..HEADER_LEN {
            assert_eq!(
                Header::parse(&bytes[..len]),
                Err(RsliError::Truncated {
                    len: len as u64,
                    needed: 32
                })
            );
        }
        assert!(Header::parse(&bytes[..HEADER_LEN]).is_ok());
    }

    #[test]
    fn bad_magic() {
        let mut bytes = header(0);
        bytes[1] = b'M';
        assert_eq!(
            Header::parse(&bytes),
            Err(RsliError::BadMagic { found: *b"NM" })
        );
        bytes[..2].copy_from_slice(b"NR");
        assert_eq!(
            Header::parse(&bytes),
            Err(RsliError::BadMagic { found: *b"NR" })
        );
    }

    #[test]
    fn bad_reserved() {
        let mut bytes = header(0);
        bytes[2] = 7;
        assert_eq!(
            Header::parse(&bytes),
            Err(RsliError::BadReserved { found: 7 })
        );
    }

    #[test]
    fn bad_version() {
        let mut bytes = header(0);
        bytes[3] = 2;
        assert_eq!(
            Header::parse(&bytes),
            Err(RsliError::BadVersion { found: 2 })
        );
        bytes[3] = 0;
        assert_eq!(
            Header::parse(&bytes),
            Err(RsliError::BadVersion { found: 0 })
        );
    }

    #[test]
    fn negative_entry_count() {
        for count in [-1i16, -32768] {
            assert_eq!(
                Header::parse(&header(count)),
                Err(RsliError::NegativeEntryCount { count })
            );
        }
        assert_eq!(
            Header::parse(&header(32767)).map(|h| h.entry_count),
            Ok(32767)
        );
    }

    #[test]
    fn fields_and_raw_bytes() {
        let mut bytes = header(2);
        bytes[6..14].copy_from_slice(b"reserved");
        bytes[14..16].copy_from_slice(&0xABBAu16.to_le_bytes());
        bytes[20..24].copy_from_slice(&0xDEAD_BEEFu32.to_le_bytes());
        bytes[31] = 0x99;
        let h = Header::parse(&bytes).unwrap();
        assert_eq!(
            (h.entry_count, h.presorted_flag, h.seed, h.key()),
            (2, 0xABBA, 0xDEAD_BEEF, 0xBEEF)
        );
        assert!(h.is_presorted());
        assert_eq!((h.table_len(), h.table_end()), (64, 96));
        assert_eq!(&h.raw[..], &bytes[..32]);
        bytes[14] = 0xBB;
        assert!(!Header::parse(&bytes).unwrap().is_presorted());
    }
}
