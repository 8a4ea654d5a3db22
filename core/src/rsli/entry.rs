//! One decrypted table entry (SPEC 2.4).

use super::{ENTRY_LEN, NAME_LEN, le};
use crate::codec::Method;
use crate::error::UnsupportedMethod;

/// One entry of the table, decrypted.
///
/// `sort_index` is the value the engine works with once the library is open (SPEC 2.5);
/// `file_sort_index` is what the file stores. They differ only in libraries without the
/// `0xABBA` flag, where the engine overwrites the stored values with its own permutation.
///
/// ```
/// use ngi_core::{Method, rsli::Entry};
///
/// let mut bytes = [0u8; 32];
/// bytes[..4].copy_from_slice(b"LOGO");
/// bytes[16..18].copy_from_slice(&0x0020u16.to_le_bytes()); // XOR
/// bytes[18..20].copy_from_slice(&7u16.to_le_bytes());
/// let entry = Entry::from_bytes(&bytes);
/// assert_eq!(entry.name(), b"LOGO");
/// assert_eq!(entry.method(), Ok(Method::Xor));
/// assert_eq!((entry.sort_index, entry.data_key()), (7, 7));
/// assert_eq!(entry.to_bytes(), bytes);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// The name field: up to 12 bytes, NUL-terminated only when shorter.
    pub name: [u8; NAME_LEN],
    /// The 4 reserved bytes after the name, kept so a rewrite can reproduce them.
    pub reserved: [u8; 4],
    /// Method bits (`flags & 0x1E0`, SPEC 2.6) and attributes.
    pub flags: u16,
    /// The effective `sort_index`: the file's value when the library is presorted, else
    /// the engine's computed permutation value (SPEC 2.5). It is also the data XOR key.
    pub sort_index: u16,
    /// The `sort_index` stored in the file.
    pub file_sort_index: u16,
    /// Bytes a load produces.
    pub unpacked_size: u32,
    /// Offset of the packed bytes in the file, before the media overlay (SPEC 2.8).
    pub data_offset: u32,
    /// Bytes of the packed stream.
    pub packed_size: u32,
}

impl Entry {
    /// The entry in 32 decrypted bytes; `sort_index` starts as the stored value.
    pub fn from_bytes(bytes: &[u8; ENTRY_LEN]) -> Entry {
        let file_sort_index = le::u16_at(bytes, 18);
        Entry {
            name: le::array(bytes, 0),
            reserved: le::array(bytes, 12),
            flags: le::u16_at(bytes, 16),
            sort_index: file_sort_index,
            file_sort_index,
            unpacked_size: le::u32_at(bytes, 20),
            data_offset: le::u32_at(bytes, 24),
            packed_size: le::u32_at(bytes, 28),
        }
    }

    /// The 32 plain-text bytes as the file stores them (with `file_sort_index`).
    pub fn to_bytes(&self) -> [u8; ENTRY_LEN] {
        let mut bytes = [0u8; ENTRY_LEN];
        le::put(&mut bytes, 0, &self.name);
        le::put(&mut bytes, 12, &self.reserved);
        le::put(&mut bytes, 16, &self.flags.to_le_bytes());
        le::put(&mut bytes, 18, &self.file_sort_index.to_le_bytes());
        le::put(&mut bytes, 20, &self.unpacked_size.to_le_bytes());
        le::put(&mut bytes, 24, &self.data_offset.to_le_bytes());
        le::put(&mut bytes, 28, &self.packed_size.to_le_bytes());
        bytes
    }

    /// The name: the bytes before the first NUL, at most 12. The reserved bytes never
    /// extend it, because the engine zeroes them in its copy of the entry.
    pub fn name(&self) -> &[u8] {
        self.name.split(|&b| b == 0).next().unwrap_or_default()
    }

    /// The packing method the flags select.
    ///
    /// # Errors
    ///
    /// * [`UnsupportedMethod`] when `flags & 0x1E0` names no method the format defines
    ///   (SPEC 2.6).
    pub fn method(&self) -> Result<Method, UnsupportedMethod> {
        Method::from_flags(self.flags)
    }

    /// The XOR key of the payload (methods 0x20, 0x60, 0xA0): the effective `sort_index`.
    pub fn data_key(&self) -> u16 {
        self.sort_index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_round_trip() {
        let bytes: [u8; 32] = core::array::from_fn(|i| (i as u8).wrapping_mul(37) | 1);
        let e = Entry::from_bytes(&bytes);
        assert_eq!(
            e.name(),
            &bytes[..12],
            "12 bytes and no NUL: the whole field"
        );
        assert_eq!(e.reserved, bytes[12..16]);
        assert_eq!(e.flags, u16::from_le_bytes([bytes[16], bytes[17]]));
        assert_eq!(
            e.file_sort_index,
            u16::from_le_bytes([bytes[18], bytes[19]])
        );
        assert_eq!(e.sort_index, e.file_sort_index);
        assert_eq!(
            (e.unpacked_size, e.data_offset, e.packed_size),
            (
                u32::from_le_bytes(bytes[20..24].try_into().unwrap()),
                u32::from_le_bytes(bytes[24..28].try_into().unwrap()),
                u32::from_le_bytes(bytes[28..32].try_into().unwrap()),
            )
        );
        assert_eq!(e.to_bytes(), bytes);
        // The effective value is not what the file stores.
        let moved = Entry {
            sort_index: e.sort_index ^ 1,
            ..e
        };
        assert_eq!(moved.to_bytes(), bytes);
        assert_eq!(moved.data_key(), e.sort_index ^ 1);
    }

    #[test]
    fn name_stops_at_the_first_nul() {
        let mut e = Entry::default();
        assert_eq!(e.name(), b"");
        e.name = *b"AB\0CD\0\0\0\0\0\0\0";
        assert_eq!(e.name(), b"AB");
        e.name = *b"ABCDEFGHIJKL";
        e.reserved = *b"MNOP";
        assert_eq!(e.name(), b"ABCDEFGHIJKL");
    }

    #[test]
    fn method_from_flags() {
        let e = Entry {
            flags: 0x0161,
            ..Entry::default()
        };
        assert_eq!(e.method(), Err(UnsupportedMethod { flags: 0x0161 }));
        let e = Entry {
            flags: 0x8101,
            ..Entry::default()
        };
        assert_eq!(e.method(), Ok(Method::Deflate));
    }
}
