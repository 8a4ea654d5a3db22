//! How an archive is opened: the one options struct every opener takes.

use crate::limits::Limits;

/// How to open an archive, for every way of opening one: [`nres::Archive::open_with`],
/// [`rsli::Library::open_in`] (and `Library::open_with` with `alloc`), and the
/// format-agnostic [`archive::Opener`] with its drivers.
///
/// Each field is a mode of the engine's open call or a bound of the caller's; a format
/// ignores the fields that are not its own. The struct is `#[non_exhaustive]`, so build it
/// from [`OpenOptions::DEFAULT`] (also [`Default`]) with the `with_*` methods:
///
/// ```
/// use ngi_core::{Limits, OpenOptions};
///
/// let options = OpenOptions::DEFAULT
///     .with_media_trailer(true)
///     .with_limits(Limits::DEFAULT.with_max_entries(4096));
/// assert!(options.media_trailer && !options.raw);
/// assert_eq!(options.limits.max_entries, 4096);
/// ```
///
/// [`nres::Archive::open_with`]: crate::nres::Archive::open_with
/// [`rsli::Library::open_in`]: crate::rsli::Library::open_in
/// [`archive::Opener`]: crate::archive::Opener
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OpenOptions {
    /// What the caller will act on. At open only [`Limits::max_entries`] applies: an
    /// archive with more entries is refused before any entry is read. The opened archive
    /// does not keep the rest: entry sizes and totals are checked by the caller, before an
    /// entry is decoded, with the archive's `check_limits` (such as
    /// [`Catalog::check_limits`](crate::archive::Catalog::check_limits)) and a
    /// [`Budget`](crate::limits::Budget). The readers of `ngi-tokio` do check them.
    pub limits: Limits,
    /// NRes raw mode (SPEC 1.7, engine flag 8): no header check, the whole file is one
    /// entry named `RAW`. For the format-agnostic opener it applies to any file.
    pub raw: bool,
    /// Honour the RsLi `AO` media trailer (SPEC 2.8, engine flag 2): every effective
    /// offset is then `data_offset + overlay`. Off, the trailer is still reported (a
    /// library's [`trailer`](crate::rsli::Library::trailer)) but not used.
    pub media_trailer: bool,
}

impl OpenOptions {
    /// The defaults: [`Limits::DEFAULT`], no raw mode, the media trailer not honoured.
    pub const DEFAULT: OpenOptions = OpenOptions {
        limits: Limits::DEFAULT,
        raw: false,
        media_trailer: false,
    };

    /// These options with [`limits`](OpenOptions::limits) set.
    pub const fn with_limits(self, limits: Limits) -> OpenOptions {
        OpenOptions { limits, ..self }
    }

    /// These options with [`raw`](OpenOptions::raw) set.
    pub const fn with_raw(self, raw: bool) -> OpenOptions {
        OpenOptions { raw, ..self }
    }

    /// These options with [`media_trailer`](OpenOptions::media_trailer) set.
    pub const fn with_media_trailer(self, media_trailer: bool) -> OpenOptions {
        OpenOptions {
            media_trailer,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_documented_one() {
        assert_eq!(OpenOptions::default(), OpenOptions::DEFAULT);
        assert_eq!(OpenOptions::DEFAULT.limits, Limits::DEFAULT);
        let o = OpenOptions::DEFAULT
            .with_raw(true)
            .with_limits(Limits::NONE);
        assert!(o.raw && !o.media_trailer);
        assert_eq!(o.limits, Limits::NONE);
    }
}
