//! Hand-built archives for the tests, assembled field by field without the writer, so the
//! reader is not only tested against its own writer.

extern crate std;

use std::vec::Vec;

use super::compare_names;

/// One directory record with full control over every field.
#[derive(Clone, Copy)]
pub(crate) struct Rec<'n> {
    /// Copied to the start of the 36-byte name field; the rest is zero.
    pub name_field: &'n [u8],
    pub type_id: u32,
    pub size: u32,
    pub data_offset: u32,
    pub sort_index: u32,
}

impl Rec<'_> {
    pub(crate) fn named(name: &[u8]) -> Rec<'_> {
        Rec {
            name_field: name,
            type_id: 0,
            size: 0,
            data_offset: 16,
            sort_index: 0,
        }
    }

    pub(crate) fn bytes(&self) -> [u8; 64] {
        let mut r = [0u8; 64];
        r[0..4].copy_from_slice(&self.type_id.to_le_bytes());
        r[4..8].copy_from_slice(&0xA1A1_A1A1u32.to_le_bytes());
        r[8..12].copy_from_slice(&0xA2A2_A2A2u32.to_le_bytes());
        r[12..16].copy_from_slice(&self.size.to_le_bytes());
        r[16..20].copy_from_slice(&0xA3A3_A3A3u32.to_le_bytes());
        r[20..20 + self.name_field.len()].copy_from_slice(self.name_field);
        r[56..60].copy_from_slice(&self.data_offset.to_le_bytes());
        r[60..64].copy_from_slice(&self.sort_index.to_le_bytes());
        r
    }
}

/// A header with raw field values.
pub(crate) fn header(count: i32, total: u32) -> [u8; 16] {
    let mut h = [0u8; 16];
    h[..4].copy_from_slice(b"NRes");
    h[4..8].copy_from_slice(&0x100u32.to_le_bytes());
    h[8..12].copy_from_slice(&count.to_le_bytes());
    h[12..].copy_from_slice(&total.to_le_bytes());
    h
}

/// Header, then `body` (the bytes from offset 16 up to the directory), then the records;
/// `total_size` is the real length.
pub(crate) fn archive(body: &[u8], recs: &[Rec<'_>]) -> Vec<u8> {
    let total = 16 + body.len() + 64 * recs.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&header(recs.len() as i32, total as u32));
    out.extend_from_slice(body);
    for r in recs {
        out.extend_from_slice(&r.bytes());
    }
    out
}

/// The records of entries with these names and sort indices (empty payloads at 16).
pub(crate) fn recs<'n>(names: &[&'n [u8]], sort: &[u32]) -> Vec<Rec<'n>> {
    names
        .iter()
        .zip(sort)
        .map(|(&name, &sort_index)| Rec {
            sort_index,
            ..Rec::named(name)
        })
        .collect()
}

/// Just the directory bytes of [`recs`].
pub(crate) fn directory(names: &[&[u8]], sort: &[u32]) -> Vec<u8> {
    recs(names, sort).iter().flat_map(|r| r.bytes()).collect()
}

/// An archive of empty entries with these names and sort indices.
pub(crate) fn named_archive(names: &[&[u8]], sort: &[u32]) -> Vec<u8> {
    archive(&[], &recs(names, sort))
}

/// SPEC 1.5 the slow, obvious way: an insertion sort, which is stable.
pub(crate) fn canonical_sort(names: &[&[u8]]) -> Vec<u32> {
    let mut order: Vec<u32> = Vec::new();
    for i in 0..names.len() {
        let at = order
            .iter()
            .position(|&j| compare_names(names[i], names[j as usize]).is_lt())
            .unwrap_or(order.len());
        order.insert(at, i as u32);
    }
    order
}

/// A small deterministic generator for piece sizes and mutations.
pub(crate) struct XorShift(pub u64);

impl XorShift {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
