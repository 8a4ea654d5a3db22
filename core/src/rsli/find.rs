//! `rsFind`, the engine's lookup by name (SPEC 2.5).

use super::{Entry, Library, LookupTable};
use crate::lookup::midpoint_search;

/// The engine's query buffer: `strncpy` into 16 bytes, then byte 15 forced to NUL.
const QUERY_LEN: usize = 16;

impl<S: AsRef<[Entry]>> Library<'_, S> {
    /// Finds an entry by name as `rsFind` does and returns its index.
    ///
    /// The query is copied into a 16-byte buffer as `strncpy(16)` then `buf[15] = 0` do
    /// (so it ends at its first NUL and after at most 15 bytes) and ASCII upper-cased;
    /// bytes above 0x7F are kept. Then the engine's midpoint binary search runs over the
    /// permutation comparing with `strcmp`, and if that finds nothing, a linear scan in
    /// entry order. With [`LookupTable::PresortedOutOfRange`] only the scan runs.
    ///
    /// Duplicate names: the binary search returns the first of them it probes, which
    /// depends on where the run of equal names lies in the permutation, not on entry
    /// order (of three entries all named `B`, it is the middle one). The linear scan, when
    /// it runs, returns the first in entry order.
    ///
    /// ```
    /// use ngi_core::rsli::{Entry, Library, OpenOptions};
    ///
    /// // Entries ZETA, ALPHA, ZETA; seed 0 leaves the table in plain text.
    /// let mut file = [0u8; 32 + 3 * 32];
    /// file[..4].copy_from_slice(b"NL\x00\x01");
    /// file[4] = 3;
    /// for (i, name) in [&b"ZETA"[..], b"ALPHA", b"ZETA"].iter().enumerate() {
    ///     let mut entry = Entry::default();
    ///     entry.name[..name.len()].copy_from_slice(name);
    ///     file[32 + 32 * i..][..32].copy_from_slice(&entry.to_bytes());
    /// }
    /// let mut storage = [Entry::default(); 3];
    /// let library = Library::open_in(&file, &mut storage, OpenOptions::default())?;
    /// assert_eq!(library.find(b"alpha"), Some(1));
    /// assert_eq!(library.find(b"ALPHA\0ignored"), Some(1));
    /// assert_eq!(library.find(b"BETA"), None);
    /// // Sorted ALPHA(1), ZETA(0), ZETA(2): the first probe, slot 1, holds entry 0.
    /// assert_eq!(library.find(b"ZETA"), Some(0));
    /// # Ok::<(), ngi_core::rsli::RsliError>(())
    /// ```
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        find_in(self.entries(), self.lookup_table(), name)
    }
}

/// [`Library::find`] over a table settled by
/// [`settle_sort_index`](super::settle_sort_index), for hosts that decode the table
/// without holding the whole file.
pub fn find_in(entries: &[Entry], lookup: LookupTable, name: &[u8]) -> Option<usize> {
    let mut buffer = [0u8; QUERY_LEN];
    let copied = name.iter().take_while(|&&b| b != 0);
    for (dst, &src) in buffer.iter_mut().zip(copied) {
        *dst = src;
    }
    if let Some(last) = buffer.last_mut() {
        *last = 0;
    }
    buffer.make_ascii_uppercase();
    let query = buffer.split(|&b| b == 0).next().unwrap_or_default();

    let searched = match lookup {
        LookupTable::PresortedOutOfRange { .. } => None,
        _ => midpoint_search(entries.len(), |slot| {
            let target = entries
                .get(slot)
                .map_or(usize::MAX, |e| e.sort_index.into());
            // Every value is in range here; a missing target simply never matches.
            let order = entries
                .get(target)
                .map_or(core::cmp::Ordering::Less, |e| query.cmp(e.name()));
            (target, order)
        }),
    };
    searched.or_else(|| entries.iter().position(|e| e.name() == query))
}
