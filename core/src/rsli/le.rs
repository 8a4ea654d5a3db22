//! Little-endian fields of fixed-size records, read and written without any indexing that
//! could panic: a field that does not fit reads as zeros and is not written. Callers pass
//! constant offsets inside their records, so that case never arises in practice.

/// `N` bytes of `bytes` from `at`.
pub(super) fn array<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    bytes
        .get(at..)
        .and_then(|rest| rest.get(..N))
        .and_then(|field| field.try_into().ok())
        .unwrap_or([0; N])
}

pub(super) fn u16_at(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes(array(bytes, at))
}

pub(super) fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(array(bytes, at))
}

/// Writes `field` into `bytes` at `at`.
pub(super) fn put(bytes: &mut [u8], at: usize, field: &[u8]) {
    if let Some(dst) = bytes
        .get_mut(at..)
        .and_then(|rest| rest.get_mut(..field.len()))
    {
        dst.copy_from_slice(field);
    }
}
