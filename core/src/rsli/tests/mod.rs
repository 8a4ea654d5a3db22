//! Library-level tests: whole files built by [`Builder`] or by hand, then patched where a
//! test needs what no honest writer produces.

mod find;
mod hostile;
mod invariants;
mod permutation;
mod table;
mod trailer;
mod xor;

use super::{Builder, ENTRY_LEN, Entry, HEADER_LEN, Header, Library, OpenOptions};
use crate::codec::Method;
use crate::codec::xor::XorStream;
use alloc::vec::Vec;

/// Knuth's MMIX LCG: deterministic randomness without a dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    fn below(&mut self, n: usize) -> usize {
        self.next() as usize % n
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// A file laid out by hand: header, `entries` encrypted with `seed`, then `payload`
/// (which a test places with the entries' `data_offset`), then an optional trailer.
fn raw_file(
    seed: u32,
    presorted: bool,
    entries: &[Entry],
    payload: &[u8],
    trailer: Option<u32>,
) -> Vec<u8> {
    let mut out = alloc::vec![0u8; HEADER_LEN];
    out[..4].copy_from_slice(b"NL\x00\x01");
    out[4..6].copy_from_slice(&(entries.len() as u16).to_le_bytes());
    if presorted {
        out[14..16].copy_from_slice(&0xABBAu16.to_le_bytes());
    }
    out[20..24].copy_from_slice(&seed.to_le_bytes());
    for e in entries {
        out.extend_from_slice(&e.to_bytes());
    }
    XorStream::new(seed as u16).apply(&mut out[HEADER_LEN..]);
    out.extend_from_slice(payload);
    if let Some(overlay) = trailer {
        out.extend_from_slice(b"AO");
        out.extend_from_slice(&overlay.to_le_bytes());
    }
    out
}

/// An entry of `method` named `name` whose packed bytes are `offset .. offset + size`.
fn entry(name: &[u8], method: u16, offset: u32, size: u32) -> Entry {
    let mut e = Entry {
        flags: method,
        data_offset: offset,
        packed_size: size,
        unpacked_size: size,
        ..Entry::default()
    };
    e.name[..name.len()].copy_from_slice(name);
    e
}

/// Decrypts the table of `file`, lets `patch` change the entries (as stored: it sees and
/// sets `file_sort_index`), and encrypts it back.
fn patch_table(file: &mut [u8], mut patch: impl FnMut(usize, &mut Entry)) {
    let header = Header::parse(file).unwrap();
    let table = &mut file[HEADER_LEN..][..header.table_len()];
    XorStream::new(header.key()).apply(table);
    for (i, bytes) in table.chunks_exact_mut(ENTRY_LEN).enumerate() {
        let mut e = Entry::from_bytes(&(&*bytes).try_into().unwrap());
        patch(i, &mut e);
        bytes.copy_from_slice(&e.to_bytes());
    }
    XorStream::new(header.key()).apply(table);
}

/// Opens `file` both ways and checks they agree.
fn open(file: &[u8], options: OpenOptions) -> Library<'_, Vec<Entry>> {
    let library = Library::open_with(file, options).unwrap();
    let mut storage = alloc::vec![Entry::default(); library.len() + 3];
    let borrowed = Library::open_in(file, &mut storage, options).unwrap();
    assert_eq!(borrowed.entries(), library.entries());
    assert_eq!(borrowed.lookup_table(), library.lookup_table());
    assert_eq!(borrowed.overlay(), library.overlay());
    library
}

/// A random name of 1..=12 bytes from `alphabet`.
fn name(rng: &mut Lcg, alphabet: &[u8]) -> Vec<u8> {
    let len = 1 + rng.below(12);
    (0..len)
        .map(|_| alphabet[rng.below(alphabet.len())])
        .collect()
}

/// The name and unpacked data of each entry of a built library.
type Items = Vec<(Vec<u8>, Vec<u8>)>;

/// A random library of `count` entries (stored or XOR, duplicates likely) and its items.
fn random_library(rng: &mut Lcg, count: usize, presorted: bool) -> (Vec<u8>, Items) {
    let mut builder = Builder::new();
    builder.seed(rng.next()).presorted(presorted);
    let mut items = Vec::new();
    for _ in 0..count {
        let name = match rng.below(3) {
            0 => name(rng, b"AB"),
            _ => name(rng, b"ABCXYZ_.0\xE9"),
        };
        let data = {
            let len = rng.below(300);
            rng.bytes(len)
        };
        let method = if rng.below(2) == 0 {
            Method::Stored
        } else {
            Method::Xor
        };
        builder.add(&name, method, &data).unwrap();
        items.push((name, data));
    }
    (builder.build().unwrap(), items)
}
