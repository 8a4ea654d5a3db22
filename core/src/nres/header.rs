//! The 16-byte NRes header (SPEC 1.2).

use super::{ENTRY_LEN, HEADER_LEN, MAGIC, NresError, VERSION};

/// The parsed NRes header: how many directory entries there are and how long the file
/// claims to be.
///
/// ```
/// use ngi_core::nres::Header;
///
/// let header = Header { entry_count: 2, total_size: 16 + 128 };
/// let bytes = header.to_bytes();
/// assert_eq!(&bytes[..4], b"NRes");
/// assert_eq!(Header::parse(&bytes), Ok(header));
/// assert_eq!(header.directory_offset(), Ok(16));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    /// Number of 64-byte directory entries. On disk a signed `i32`, so [`Header::parse`]
    /// only yields values up to `i32::MAX`.
    pub entry_count: u32,
    /// Length of the whole file as the header declares it.
    pub total_size: u32,
}

impl Header {
    /// Parses the first 16 bytes of `bytes`: the magic, the version and a non-negative
    /// entry count. Does not compare `total_size` with anything, since only the caller
    /// knows the real length.
    ///
    /// # Errors
    ///
    /// The first rule broken, in this order:
    ///
    /// * [`NresError::TooShort`] when `bytes` holds fewer than 16 bytes;
    /// * [`NresError::BadMagic`] when it does not start with `NRes`;
    /// * [`NresError::BadVersion`] when the version is not `0x100`;
    /// * [`NresError::NegativeEntryCount`] when the entry count is negative.
    pub fn parse(bytes: &[u8]) -> Result<Header, NresError> {
        let Some(&head) = bytes.first_chunk::<HEADER_LEN>() else {
            return Err(NresError::TooShort {
                len: bytes.len() as u64,
            });
        };
        let [
            m0,
            m1,
            m2,
            m3,
            v0,
            v1,
            v2,
            v3,
            c0,
            c1,
            c2,
            c3,
            t0,
            t1,
            t2,
            t3,
        ] = head;
        let magic = [m0, m1, m2, m3];
        if magic != MAGIC {
            return Err(NresError::BadMagic { found: magic });
        }
        let version = u32::from_le_bytes([v0, v1, v2, v3]);
        if version != VERSION {
            return Err(NresError::BadVersion { found: version });
        }
        let count = i32::from_le_bytes([c0, c1, c2, c3]);
        let Ok(entry_count) = u32::try_from(count) else {
            return Err(NresError::NegativeEntryCount { count });
        };
        Ok(Header {
            entry_count,
            total_size: u32::from_le_bytes([t0, t1, t2, t3]),
        })
    }

    /// Where the directory starts: `total_size - 64 * entry_count`. Computed in 64 bits,
    /// so no count can wrap it into range.
    ///
    /// # Errors
    ///
    /// * [`NresError::DirectoryOutOfBounds`] when that is below 16 (negative included):
    ///   the directory would overlap the header.
    pub fn directory_offset(&self) -> Result<u64, NresError> {
        let directory_len = i64::from(self.entry_count) * ENTRY_LEN as i64;
        let offset = i64::from(self.total_size) - directory_len;
        match u64::try_from(offset) {
            Ok(offset) if offset >= HEADER_LEN as u64 => Ok(offset),
            _ => Err(NresError::DirectoryOutOfBounds {
                entry_count: self.entry_count,
                total_size: self.total_size,
            }),
        }
    }

    /// The 16 bytes of this header as they are written to disk.
    pub fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let fields = MAGIC
            .into_iter()
            .chain(VERSION.to_le_bytes())
            .chain(self.entry_count.to_le_bytes())
            .chain(self.total_size.to_le_bytes());
        let mut out = [0; HEADER_LEN];
        for (dst, src) in out.iter_mut().zip(fields) {
            *dst = src;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header_bytes(magic: &[u8; 4], version: u32, count: i32, total: u32) -> [u8; 16] {
        let mut b = [0; 16];
        b[..4].copy_from_slice(magic);
        b[4..8].copy_from_slice(&version.to_le_bytes());
        b[8..12].copy_from_slice(&count.to_le_bytes());
        b[12..].copy_from_slice(&total.to_le_bytes());
        b
    }

    #[test]
    fn too_short() {
        let full = header_bytes(b"NRes", 0x100, 0, 16);
        for len in 0..16 {
            assert_eq!(
                Header::parse(&full[..len]),
                Err(NresError::TooShort { len: len as u64 })
            );
        }
    }

    #[test]
    fn bad_magic() {
        assert_eq!(
            Header::parse(&header_bytes(b"NReS", 0x100, 0, 16)),
            Err(NresError::BadMagic { found: *b"NReS" })
        );
        // The RsLi magic is not NRes either.
        assert_eq!(
            Header::parse(&header_bytes(b"NL\0\x01", 0x100, 0, 16)),
            Err(NresError::BadMagic {
                found: *b"NL\0\x01"
            })
        );
    }

    #[test]
    fn bad_version() {
        for version in [0, 0xFF, 0x101, 0x1_0000, u32::MAX] {
            assert_eq!(
                Header::parse(&header_bytes(b"NRes", version, 0, 16)),
                Err(NresError::BadVersion { found: version })
            );
        }
    }

    #[test]
    fn negative_entry_count() {
        for count in [-1, -64, i32::MIN] {
            assert_eq!(
                Header::parse(&header_bytes(b"NRes", 0x100, count, 16)),
                Err(NresError::NegativeEntryCount { count })
            );
        }
    }

    #[test]
    fn parses_fields_and_ignores_what_follows() {
        let mut b = [0xAA; 20];
        b[..16].copy_from_slice(&header_bytes(b"NRes", 0x100, i32::MAX, 0xDEAD_BEEF));
        assert_eq!(
            Header::parse(&b),
            Ok(Header {
                entry_count: i32::MAX as u32,
                total_size: 0xDEAD_BEEF
            })
        );
    }

    #[test]
    fn directory_offset_bounds() {
        let at = |entry_count, total_size| {
            Header {
                entry_count,
                total_size,
            }
            .directory_offset()
        };
        assert_eq!(at(0, 16), Ok(16));
        assert_eq!(at(1, 80), Ok(16));
        assert_eq!(at(3, u32::MAX), Ok(u64::from(u32::MAX) - 192));
        for (entry_count, total_size) in [
            (0, 15),
            (1, 79),
            (1, 16),
            (1, 0),
            (i32::MAX as u32, u32::MAX),
            (i32::MAX as u32, 16),
            (u32::MAX, u32::MAX),
        ] {
            assert_eq!(
                at(entry_count, total_size),
                Err(NresError::DirectoryOutOfBounds {
                    entry_count,
                    total_size
                })
            );
        }
    }

    #[test]
    fn round_trips() {
        let b = header_bytes(b"NRes", 0x100, 5, 1234);
        assert_eq!(Header::parse(&b).map(|h| h.to_bytes()), Ok(b));
    }
}
