//! Iteration over the entries of an archive.

use core::iter::FusedIterator;

use super::{Archive, Entry};

/// The entries of an archive in directory order, parsed on demand; returned by
/// [`Archive::entries`].
///
/// ```
/// use ngi_core::nres::Archive;
///
/// let archive = Archive::open_raw(b"any bytes")?;
/// let names: Vec<&[u8]> = archive.entries().map(|e| e.name()).collect();
/// assert_eq!(names, [b"RAW"]);
/// # Ok::<(), ngi_core::nres::NresError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Entries<'a> {
    archive: Archive<'a>,
    front: usize,
    back: usize,
}

impl<'a> Entries<'a> {
    pub(super) fn new(archive: Archive<'a>) -> Entries<'a> {
        let back = archive.len();
        Entries {
            archive,
            front: 0,
            back,
        }
    }
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        if self.front >= self.back {
            return None;
        }
        let entry = self.archive.entry(self.front);
        self.front += 1;
        entry
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.back.saturating_sub(self.front);
        (n, Some(n))
    }

    fn nth(&mut self, n: usize) -> Option<Entry<'a>> {
        // Entries are addressable, so skipping is O(1).
        self.front = self.front.saturating_add(n).min(self.back);
        self.next()
    }
}

impl DoubleEndedIterator for Entries<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        if self.front >= self.back {
            return None;
        }
        self.back -= 1;
        self.archive.entry(self.back)
    }
}

impl ExactSizeIterator for Entries<'_> {}

impl FusedIterator for Entries<'_> {}

#[cfg(test)]
mod tests {
    extern crate std;
    use crate::nres::Archive;
    use crate::nres::testutil::named_archive;
    use std::vec::Vec;

    #[test]
    fn both_ends_and_exact_size() {
        let bytes = named_archive(&[b"a", b"b", b"c", b"d"], &[0, 1, 2, 3]);
        let a = Archive::open(&bytes).unwrap();
        let mut it = a.entries();
        assert_eq!(it.len(), 4);
        assert_eq!(it.next().map(|e| (e.index, e.name())), Some((0, &b"a"[..])));
        assert_eq!(
            it.next_back().map(|e| (e.index, e.name())),
            Some((3, &b"d"[..]))
        );
        assert_eq!(it.len(), 2);
        let rest: Vec<u32> = it.clone().map(|e| e.index).collect();
        assert_eq!(rest, [1, 2]);
        assert_eq!(it.nth(1).map(|e| e.index), Some(2));
        assert_eq!(it.next(), None);
        assert_eq!(it.next_back(), None);
        let reversed: Vec<u32> = a.entries().rev().map(|e| e.index).collect();
        assert_eq!(reversed, [3, 2, 1, 0]);
        assert_eq!(a.entries().nth(usize::MAX), None);
    }
}
