//! Where a catalog keeps its entries: a `Vec`, a caller's slice, a `heapless::Vec`.

use super::Entry;

/// Storage for the entries of a [`Catalog`](super::Catalog), filled by the
/// [`Opener`](super::Opener).
///
/// Implemented for `Vec<Entry>` (feature `alloc`), for [`Slots`] (a caller's `&mut
/// [Entry]`, no allocation), for `heapless::Vec<Entry, N>` (feature `heapless`, no
/// allocation) and for `&mut S` of any of them, so a host can keep its storage and lend
/// it. A store too small for an archive is refused before any entry is read
/// ([`Error::StorageTooSmall`](super::Error::StorageTooSmall)).
pub trait EntryStore {
    /// Empties the store and readies it for `count` entries. A store that grows need not
    /// reserve them all.
    ///
    /// # Errors
    ///
    /// * How many entries it can hold at most, when that is fewer than `count`; the
    ///   opener then fails with [`Error::StorageTooSmall`](super::Error::StorageTooSmall)
    ///   before it reads any entry.
    fn begin(&mut self, count: usize) -> Result<(), usize>;
    /// Appends one entry.
    ///
    /// # Errors
    ///
    /// * `entry`, given back, when the store is full. That must not happen within the
    ///   `count` of a successful [`begin`](EntryStore::begin); the opener reports it as
    ///   [`Error::StorageTooSmall`](super::Error::StorageTooSmall).
    fn push(&mut self, entry: Entry) -> Result<(), Entry>;
    /// The entries pushed since [`begin`](EntryStore::begin).
    fn entries(&self) -> &[Entry];
    /// The same, to change in place (the opener settles RsLi lookup slots there).
    fn entries_mut(&mut self) -> &mut [Entry];
}

/// A caller's slice of [`Entry`] as an [`EntryStore`]: it holds as many entries as the
/// slice is long and never allocates.
///
/// ```
/// use ngi_core::archive::{Catalog, Entry, Slots};
/// use ngi_core::OpenOptions;
///
/// let mut storage = [Entry::EMPTY; 4];
/// let catalog = Catalog::open_in(b"raw bytes", Slots::new(&mut storage), OpenOptions::DEFAULT.with_raw(true))?;
/// assert_eq!(catalog.len(), 1);
/// # Ok::<(), ngi_core::archive::Error>(())
/// ```
#[derive(Debug)]
pub struct Slots<'s> {
    slots: &'s mut [Entry],
    len: usize,
}

impl<'s> Slots<'s> {
    /// An empty store over `slots`.
    pub fn new(slots: &'s mut [Entry]) -> Slots<'s> {
        Slots { slots, len: 0 }
    }

    /// How many entries it can hold.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }
}

impl EntryStore for Slots<'_> {
    fn begin(&mut self, count: usize) -> Result<(), usize> {
        self.len = 0;
        if count > self.slots.len() {
            return Err(self.slots.len());
        }
        Ok(())
    }

    fn push(&mut self, entry: Entry) -> Result<(), Entry> {
        let Some(slot) = self.slots.get_mut(self.len) else {
            return Err(entry);
        };
        *slot = entry;
        self.len += 1;
        Ok(())
    }

    fn entries(&self) -> &[Entry] {
        self.slots.get(..self.len).unwrap_or_default()
    }

    fn entries_mut(&mut self) -> &mut [Entry] {
        self.slots.get_mut(..self.len).unwrap_or_default()
    }
}

impl<S: EntryStore + ?Sized> EntryStore for &mut S {
    fn begin(&mut self, count: usize) -> Result<(), usize> {
        (**self).begin(count)
    }
    fn push(&mut self, entry: Entry) -> Result<(), Entry> {
        (**self).push(entry)
    }
    fn entries(&self) -> &[Entry] {
        (**self).entries()
    }
    fn entries_mut(&mut self) -> &mut [Entry] {
        (**self).entries_mut()
    }
}

/// Entries reserved ahead in a `Vec` at most: beyond this it grows with the entries that
/// actually arrive, so a count the file declares never sizes an allocation alone.
#[cfg(feature = "alloc")]
const RESERVE_AHEAD: usize = 4096;

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
impl EntryStore for alloc::vec::Vec<Entry> {
    fn begin(&mut self, count: usize) -> Result<(), usize> {
        self.clear();
        self.reserve(count.min(RESERVE_AHEAD));
        Ok(())
    }
    fn push(&mut self, entry: Entry) -> Result<(), Entry> {
        alloc::vec::Vec::push(self, entry);
        Ok(())
    }
    fn entries(&self) -> &[Entry] {
        self
    }
    fn entries_mut(&mut self) -> &mut [Entry] {
        self
    }
}

#[cfg(feature = "heapless")]
#[cfg_attr(docsrs, doc(cfg(feature = "heapless")))]
impl<const N: usize> EntryStore for heapless::Vec<Entry, N> {
    fn begin(&mut self, count: usize) -> Result<(), usize> {
        self.clear();
        if count > N {
            return Err(N);
        }
        Ok(())
    }
    fn push(&mut self, entry: Entry) -> Result<(), Entry> {
        heapless::Vec::push(self, entry)
    }
    fn entries(&self) -> &[Entry] {
        self
    }
    fn entries_mut(&mut self) -> &mut [Entry] {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_hold_what_they_have_room_for() {
        let mut storage = [Entry::EMPTY; 2];
        let mut slots = Slots::new(&mut storage);
        assert_eq!(slots.begin(3), Err(2));
        assert_eq!(slots.begin(2), Ok(()));
        let one = Entry {
            index: 1,
            ..Entry::EMPTY
        };
        assert_eq!(slots.push(Entry::EMPTY), Ok(()));
        assert_eq!(slots.push(one), Ok(()));
        assert_eq!(slots.push(one), Err(one), "full");
        assert_eq!(slots.entries().len(), 2);
        assert_eq!(slots.entries_mut()[1].index, 1);
        assert_eq!(slots.begin(0), Ok(()));
        assert!(slots.entries().is_empty(), "begin empties it");
    }

    #[cfg(feature = "heapless")]
    #[test]
    fn heapless_refuses_more_than_its_capacity() {
        let mut v: heapless::Vec<Entry, 2> = heapless::Vec::new();
        assert_eq!(v.begin(3), Err(2));
        assert_eq!(v.begin(2), Ok(()));
        assert!(EntryStore::push(&mut v, Entry::EMPTY).is_ok());
        assert!(EntryStore::push(&mut v, Entry::EMPTY).is_ok());
        assert!(EntryStore::push(&mut v, Entry::EMPTY).is_err());
    }
}
