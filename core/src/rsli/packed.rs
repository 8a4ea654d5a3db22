//! Where an entry's packed bytes lie (SPEC 2.7, 2.8), and unpacking them.

use super::error::unpacked_size_offset;
use super::{Entry, Library, RsliError, entry_id};
use crate::codec::{self, Method, Unpacker};
use crate::error::DecodeError;
use crate::limits::Limits;
use core::iter::{Enumerate, FusedIterator};
use core::ops::Range;

impl<'a, S: AsRef<[Entry]>> Library<'a, S> {
    /// Where entry `index`'s packed bytes start: `data_offset + overlay`, in 64 bits so
    /// that no `u32` wraps.
    ///
    /// # Errors
    ///
    /// * [`RsliError::NoSuchEntry`] when there is no entry `index`.
    pub fn effective_offset(&self, index: usize) -> Result<u64, RsliError> {
        let (_, entry) = self.get(index)?;
        Ok(effective_offset(entry, self.overlay()))
    }

    /// The packed bytes of entry `index`: `effective .. effective + packed_size` within
    /// the file.
    ///
    /// For stored and XOR entries (methods 0x000, 0x020) the engine copies or XORs
    /// exactly `unpacked_size` bytes from the offset whatever `packed_size` says (SPEC
    /// 2.7), so their range is `unpacked_size` long ([`Entry::stream_len`]).
    ///
    /// For Deflate (method 0x100) only, a range that ends exactly one byte past the end of
    /// the file is accepted and cut at the file's end, as the engine's data requires
    /// (SPEC 2.7).
    ///
    /// # Errors
    ///
    /// * [`RsliError::NoSuchEntry`] when there is no entry `index`.
    /// * [`RsliError::UnsupportedMethod`] when the flags name no method (checked before
    ///   the range).
    /// * [`RsliError::DataOutOfBounds`] when the range ends past the end of the file, but
    ///   for the Deflate byte above.
    pub fn packed(&self, index: usize) -> Result<&'a [u8], RsliError> {
        let (id, entry) = self.get(index)?;
        let data = self.data();
        let file_len = data.len() as u64;
        let range = packed_range(index, entry, file_len, self.overlay())?;
        // The range lies within `data`, so both ends fit a usize.
        let (start, end) = (range.start as usize, range.end as usize);
        data.get(start..end)
            .ok_or_else(|| out_of_bounds(file_len, self.overlay(), id, entry))
    }

    /// A ready decoder for entry `index`: its method, keyed by its data key, producing
    /// exactly `unpacked_size` bytes. Feed it [`packed`](Library::packed).
    ///
    /// # Errors
    ///
    /// * [`RsliError::NoSuchEntry`] when there is no entry `index`.
    /// * [`RsliError::UnsupportedMethod`] when the flags name no method.
    pub fn unpacker(&self, index: usize) -> Result<Unpacker, RsliError> {
        let (id, entry) = self.get(index)?;
        let method = method(id, entry)?;
        Ok(Unpacker::new(
            method,
            entry.unpacked_size.into(),
            entry.data_key(),
        ))
    }

    /// Unpacks entry `index` into `out`, which must be exactly `unpacked_size` long.
    ///
    /// Packed bytes the stream does not need (past its end) are ignored.
    ///
    /// # Errors
    ///
    /// * [`packed`](Library::packed)'s errors, checked first.
    /// * [`RsliError::OutputSize`] when `out` is not exactly `unpacked_size` long.
    /// * [`RsliError::Decode`] when the stream is truncated or corrupt, with the file
    ///   offset of the fault.
    pub fn unpack_into(&self, index: usize, out: &mut [u8]) -> Result<(), RsliError> {
        let packed = self.packed(index)?;
        let (id, entry) = self.get(index)?;
        if u64::from(entry.unpacked_size) != out.len() as u64 {
            return Err(RsliError::OutputSize {
                entry: id,
                expected: entry.unpacked_size,
                got: out.len() as u64,
            });
        }
        let method = method(id, entry)?;
        codec::unpack_into(method, entry.data_key(), packed, out)
            .map(|_| ())
            .map_err(|error| RsliError::Decode {
                entry: id,
                offset: fault_offset(effective_offset(entry, self.overlay()), packed, &error),
                error,
            })
    }

    /// Checks entry `index`'s `unpacked_size` against [`Limits::max_entry_size`]
    /// ([`check_limits`]): run it before sizing an output buffer from that field.
    ///
    /// # Errors
    ///
    /// * [`RsliError::NoSuchEntry`] when there is no entry `index`.
    /// * [`RsliError::Limit`] when `unpacked_size` is above `limits.max_entry_size`.
    pub fn check_limits(&self, index: usize, limits: &Limits) -> Result<(), RsliError> {
        let (_, entry) = self.get(index)?;
        check_limits(index, entry, limits)
    }

    /// Unpacks entry `index` into a new `Vec` of exactly `unpacked_size` bytes, which is
    /// allocated only after the entry's packed range is in the file
    /// ([`packed`](Library::packed)) and its `unpacked_size` passes
    /// [`Limits::max_entry_size`] ([`check_limits`](Library::check_limits)). So it never
    /// allocates more than `limits.max_entry_size` bytes for a size the file declares;
    /// with [`Limits::NONE`] it allocates whatever the entry says (up to 4 GiB). Entries
    /// of any size can be streamed instead, through [`unpacker`](Library::unpacker) and a
    /// buffer of the caller's size.
    ///
    /// ```
    /// use ngi_core::limits::{LimitError, Limits};
    /// use ngi_core::rsli::{Entry, Library, RsliError};
    ///
    /// // One LZSS entry of 4 packed bytes that claims to unpack to 0xFFFF_FFFF bytes.
    /// let mut file = [0u8; 32 + 32 + 4];
    /// file[..4].copy_from_slice(b"NL\x00\x01");
    /// file[4] = 1;
    /// let entry = Entry {
    ///     flags: 0x40,
    ///     unpacked_size: u32::MAX,
    ///     data_offset: 64,
    ///     packed_size: 4,
    ///     ..Entry::default()
    /// };
    /// file[32..64].copy_from_slice(&entry.to_bytes()); // seed 0: the table is plain text
    /// let library = Library::open(&file)?;
    /// assert_eq!(
    ///     library.unpack_to_vec(0, &Limits::DEFAULT),
    ///     Err(RsliError::Limit {
    ///         error: LimitError::EntryTooLarge { entry: 0, size: u32::MAX.into(), limit: 256 << 20 },
    ///         offset: 32 + 20,
    ///     })
    /// );
    /// # Ok::<(), RsliError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// * [`packed`](Library::packed)'s errors, then [`RsliError::Limit`] when
    ///   `unpacked_size` is above `limits.max_entry_size` (or does not fit a `usize`):
    ///   both before anything is allocated.
    /// * [`RsliError::Decode`] when the stream is truncated or corrupt.
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn unpack_to_vec(
        &self,
        index: usize,
        limits: &Limits,
    ) -> Result<alloc::vec::Vec<u8>, RsliError> {
        self.packed(index)?;
        self.check_limits(index, limits)?;
        let (id, entry) = self.get(index)?;
        // Checked against the limit just above; a size that does not fit a `usize` (a
        // 16-bit target) is refused as being over the address space.
        let len = usize::try_from(entry.unpacked_size).map_err(|_| RsliError::Limit {
            error: crate::limits::LimitError::EntryTooLarge {
                entry: id,
                size: entry.unpacked_size.into(),
                limit: usize::MAX as u64,
            },
            offset: unpacked_size_offset(id),
        })?;
        let mut out = alloc::vec![0u8; len];
        self.unpack_into(index, &mut out)?;
        Ok(out)
    }

    /// Every per-entry problem of the file, in entry order: flags naming no method
    /// ([`RsliError::UnsupportedMethod`]) and packed bytes past the end of the file
    /// ([`RsliError::DataOutOfBounds`], by the same rule as [`packed`](Library::packed)).
    pub fn problems(&self) -> Problems<'_> {
        Problems {
            file_len: self.data().len() as u64,
            overlay: self.overlay(),
            entries: self.entries().iter().enumerate(),
            pending: None,
        }
    }
}

/// The per-entry problems of a library, from [`Library::problems`].
#[derive(Debug, Clone)]
pub struct Problems<'l> {
    file_len: u64,
    overlay: Option<u32>,
    entries: Enumerate<core::slice::Iter<'l, Entry>>,
    /// An entry with both problems reports its method first and keeps its bounds here.
    pending: Option<RsliError>,
}

impl Iterator for Problems<'_> {
    type Item = RsliError;

    fn next(&mut self) -> Option<RsliError> {
        if let Some(problem) = self.pending.take() {
            return Some(problem);
        }
        for (index, entry) in &mut self.entries {
            match entry_problems(self.file_len, self.overlay, index, entry) {
                [Some(first), second] => {
                    self.pending = second;
                    return Some(first);
                }
                [None, Some(only)] => return Some(only),
                [None, None] => {}
            }
        }
        None
    }
}

/// The problems of one entry, in the order [`Library::problems`] reports them: flags naming
/// no method, then packed bytes past the end of the file; `None` where there is none (the
/// first is `None` only when there is no problem or the method is fine).
pub(crate) fn entry_problems(
    file_len: u64,
    overlay: Option<u32>,
    index: usize,
    entry: &Entry,
) -> [Option<RsliError>; 2] {
    let id = entry_id(index);
    let method = method(id, entry);
    let bounds = span(file_len, overlay, id, entry, method.ok()).err();
    match method {
        Err(unsupported) => [Some(unsupported), bounds],
        Ok(_) => [bounds, None],
    }
}

impl FusedIterator for Problems<'_> {}

/// Checks entry `index`'s `unpacked_size` (the bytes a load produces) against
/// [`Limits::max_entry_size`], for hosts that decode the table themselves
/// ([`TableDecoder`](super::TableDecoder)); [`Library::check_limits`] runs it. Nothing
/// here allocates.
///
/// ```
/// use ngi_core::limits::{LimitError, Limits};
/// use ngi_core::rsli::{check_limits, Entry, RsliError};
///
/// let bomb = Entry { flags: 0x100, unpacked_size: u32::MAX, packed_size: 36, ..Entry::default() };
/// assert_eq!(
///     check_limits(2, &bomb, &Limits::DEFAULT),
///     Err(RsliError::Limit {
///         error: LimitError::EntryTooLarge { entry: 2, size: u32::MAX.into(), limit: 256 << 20 },
///         offset: 32 + 2 * 32 + 20,
///     })
/// );
/// assert_eq!(check_limits(2, &bomb, &Limits::NONE), Ok(()));
/// ```
///
/// # Errors
///
/// * [`RsliError::Limit`] when `entry.unpacked_size` is above `limits.max_entry_size`;
///   its offset is that field's in the file, for entry `index`.
pub fn check_limits(index: usize, entry: &Entry, limits: &Limits) -> Result<(), RsliError> {
    let id = entry_id(index);
    limits
        .check_size(id, u64::from(entry.unpacked_size))
        .map_err(|error| RsliError::Limit {
            error,
            offset: unpacked_size_offset(id),
        })
}

/// The file offset of a decoding fault in an entry whose packed bytes start at `start`:
/// the codec's own offset in the stream when it has one, else the end of the bytes it was
/// given (where a truncated stream ran out).
pub(crate) fn fault_offset(start: u64, packed: &[u8], error: &DecodeError) -> u64 {
    start.saturating_add(error.offset_in_stream(packed.len() as u64))
}

pub(crate) fn method(id: u32, entry: &Entry) -> Result<Method, RsliError> {
    entry.method().map_err(|e| RsliError::UnsupportedMethod {
        entry: id,
        flags: e.flags,
    })
}

fn effective_offset(entry: &Entry, overlay: Option<u32>) -> u64 {
    u64::from(entry.data_offset) + u64::from(overlay.unwrap_or(0))
}

/// Where entry `index`'s packed bytes lie in a file of `file_len` bytes, by the rule of
/// [`Library::packed`] (the Deflate allowance included), for hosts that read entries from
/// a file they do not hold in memory. `overlay` is the media overlay in effect.
///
/// ```
/// use ngi_core::rsli::{packed_range, Entry, RsliError};
///
/// let deflate = Entry { flags: 0x100, data_offset: 90, packed_size: 11, ..Entry::default() };
/// assert_eq!(packed_range(0, &deflate, 100, None), Ok(90..100));
/// assert_eq!(
///     packed_range(0, &deflate, 100, Some(1)),
///     Err(RsliError::DataOutOfBounds { entry: 0, offset: 91, size: 11, file_len: 100 })
/// );
/// ```
///
/// # Errors
///
/// * [`RsliError::UnsupportedMethod`] when the flags name no method (checked first).
/// * [`RsliError::DataOutOfBounds`] when the range ends past `file_len`, but for
///   Deflate's one byte.
pub fn packed_range(
    index: usize,
    entry: &Entry,
    file_len: u64,
    overlay: Option<u32>,
) -> Result<Range<u64>, RsliError> {
    let id = entry_id(index);
    let method = method(id, entry)?;
    span(file_len, overlay, id, entry, Some(method))
}

/// The range of [`packed_range`]; `method` is `None` for flags naming no method (no
/// allowance then).
fn span(
    file_len: u64,
    overlay: Option<u32>,
    id: u32,
    entry: &Entry,
    method: Option<Method>,
) -> Result<Range<u64>, RsliError> {
    let start = effective_offset(entry, overlay);
    let len = stream_len(entry, method);
    // Both terms are below 2^33: no overflow.
    let end = start + u64::from(len);
    if end <= file_len {
        return Ok(start..end);
    }
    // `end > file_len`, so `file_len + 1` cannot overflow.
    if method == Some(Method::Deflate) && end == file_len + 1 && len > 0 {
        // INTERF8.TEX: the stream is complete without the byte that is not there.
        return Ok(start..file_len);
    }
    Err(out_of_bounds(file_len, overlay, id, entry))
}

/// The bytes the engine reads for an entry of `method`: see [`Entry::stream_len`].
fn stream_len(entry: &Entry, method: Option<Method>) -> u32 {
    match method {
        Some(Method::Stored | Method::Xor) => entry.unpacked_size,
        _ => entry.packed_size,
    }
}

impl Entry {
    /// How many bytes from the entry's offset the engine reads: `unpacked_size` for the
    /// stored and XOR methods (it copies or XORs exactly that many, SPEC 2.7), else
    /// `packed_size` (flags naming no method included).
    pub fn stream_len(&self) -> u32 {
        stream_len(self, self.method().ok())
    }
}

fn out_of_bounds(file_len: u64, overlay: Option<u32>, id: u32, entry: &Entry) -> RsliError {
    RsliError::DataOutOfBounds {
        entry: id,
        offset: effective_offset(entry, overlay),
        size: entry.stream_len(),
        file_len,
    }
}
