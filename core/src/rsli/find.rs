//! `rsFind`, the engine's lookup by name (SPEC 2.5).

use super::permutation::Table;
use super::{Entry, Library};
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
    /// entry order. A presorted library's stored values may be out of range
    /// ([`PresortedOutOfRange`](super::LookupTable::PresortedOutOfRange)): the binary
    /// search stops at the first such slot it probes (the engine reads outside its table
    /// there, so its answer is not defined) and the scan decides; a search that never
    /// probes one is the engine's.
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
        find_in(self.entries(), name)
    }
}

/// [`Library::find`] over a table settled by
/// [`settle_sort_index`](super::settle_sort_index), for hosts that decode the table
/// without holding the whole file.
pub fn find_in(entries: &[Entry], name: &[u8]) -> Option<usize> {
    find_by(entries, name)
}

/// [`find_in`] over any [`Table`].
pub(crate) fn find_by<T: Table + ?Sized>(entries: &T, name: &[u8]) -> Option<usize> {
    let buffer = engine_query(name);
    let query = buffer.split(|&b| b == 0).next().unwrap_or_default();
    // Only a presorted library's stored values can be out of range
    // (`LookupTable::PresortedOutOfRange`); the engine's search meets such a slot only
    // on some paths, and reads outside its table there: the search stops, and the scan
    // decides.
    let mut outside = false;
    let searched = midpoint_search(entries.count(), |slot| {
        let target = entries.at(slot).map_or(usize::MAX, |e| e.sort_index.into());
        match entries.at(target) {
            Some(e) => (target, query.cmp(e.name())),
            None => {
                outside = true;
                (target, core::cmp::Ordering::Equal)
            }
        }
    });
    searched.filter(|_| !outside).or_else(|| {
        (0..entries.count()).find(|&i| entries.at(i).is_some_and(|e| e.name() == query))
    })
}

/// The query buffer `rsFind` builds: `strncpy(buf, name, 16)`, `buf[15] = 0`, `_strupr`
/// (ASCII letters only).
pub(super) fn engine_query(name: &[u8]) -> [u8; QUERY_LEN] {
    let mut buffer = [0u8; QUERY_LEN];
    let copied = name.iter().take_while(|&&b| b != 0);
    for (dst, &src) in buffer.iter_mut().zip(copied) {
        *dst = src;
    }
    if let Some(last) = buffer.last_mut() {
        *last = 0;
    }
    buffer.make_ascii_uppercase();
    buffer
}

#[cfg(test)]
mod tests {
    use super::*;

    // Names hold at most 12 bytes, so the 15-byte cut cannot show through `find`; the
    // buffer itself shows it.
    #[test]
    fn query_buffer_is_strncpy_16_then_nul_then_strupr() {
        assert_eq!(&engine_query(b"abcdefghijklmnopqrst"), b"ABCDEFGHIJKLMNO\0");
        assert_eq!(&engine_query(b"abcdefghijklmno"), b"ABCDEFGHIJKLMNO\0");
        assert_eq!(&engine_query(b"ab\0cd"), b"AB\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
        // Only ASCII letters change: `{|}~` are not folded to `[\\]^`, high bytes stay.
        assert_eq!(&engine_query(b"a_{|}~`\xe0")[..9], b"A_{|}~`\xe0\0");
    }

    #[test]
    fn strcmp_order_around_the_underscore_differs_from_nres() {
        // strcmp: "AB" < "A_" (0x42 < 0x5F); NRes's lower-case folding puts "A_" first.
        let mut entries = [Entry::default(); 4];
        for (e, name) in entries.iter_mut().zip([&b"A_"[..], b"AB", b"A[", b"A{"]) {
            e.name[..name.len()].copy_from_slice(name);
        }
        super::super::compute_permutation(&mut entries);
        // Sorted: "AB"(1), "A["(2), "A_"(0), "A{"(3).
        assert_eq!(entries.map(|e| e.sort_index), [1, 2, 0, 3]);
        let find = |q: &[u8]| find_in(&entries, q);
        assert_eq!(find(b"a_"), Some(0));
        assert_eq!(find(b"ab"), Some(1));
        assert_eq!(find(b"a["), Some(2));
        assert_eq!(find(b"A{"), Some(3));
        assert_eq!(find(b"a{"), Some(3), "`{{` is no letter: unchanged");
        assert_eq!(find(b"A["), Some(2));
        assert_eq!(find(b"a\\"), None, "`\\` is not `|` folded");
    }
}
