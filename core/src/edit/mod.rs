//! Saving an edited archive (feature `alloc`): the editors ([`nres::Editor`],
//! [`rsli::Editor`]) do not write bytes themselves, they describe the new file as a
//! [`Plan`] — a list of [`Piece`]s, each either bytes the plan holds or a range to copy
//! from the save's source (the archive being edited, and whatever the caller joins after
//! it for payloads given as ranges) — so that a save streams the old payloads through a small
//! buffer instead of holding the archive in memory, and the same plan serves a `std` file,
//! an embedded flash writer or a test that checks the layout.
//!
//! [`write_plan`][write-plan] (feature `std`) runs a plan from any
//! [`ReadAt`][read-at] source into any [`std::io::Write`][write]; without `std`,
//! [`Plan::to_vec`] runs one in memory and [`Plan::rekeying`] shows how to run one in
//! bounded memory into anything.
//!
//! The layout rules both editors share live in `layout`: payloads that were not touched
//! keep their bytes and the bytes around them (gaps, padding), a payload whose size
//! changes shifts every later one, new payloads go after the old ones.
//!
//! [`nres::Editor`]: crate::nres::Editor
//! [`rsli::Editor`]: crate::rsli::Editor
#![cfg_attr(
    feature = "std",
    doc = "[write-plan]: write_plan\n[read-at]: crate::io::ReadAt\n[write]: std::io::Write"
)]
// Without `std` those items do not exist: the links point at the crate's features.
#![cfg_attr(
    not(feature = "std"),
    doc = "[write-plan]: crate#features\n[read-at]: crate#features\n[write]: crate#features"
)]

pub(crate) mod layout;
pub(crate) mod order;
mod plan;
#[cfg(feature = "std")]
mod write;

pub use plan::{Held, Piece, Plan, Rekey, Rekeying, SourceMismatch, ToVecError};
#[cfg(feature = "std")]
pub use write::{COPY_CHUNK, write_plan};

use alloc::vec::Vec;

/// Where an added or replacing payload's bytes are, in either editor.
#[derive(Debug, Clone)]
pub(crate) enum NewBytes {
    /// In the editor.
    Held(Vec<u8>),
    /// In the save's source, `len` bytes from `offset` (copied when the plan is written,
    /// so the editor never holds them).
    Source { offset: u64, len: u64 },
}

impl NewBytes {
    pub(crate) fn len(&self) -> u64 {
        match self {
            NewBytes::Held(bytes) => bytes.len() as u64,
            NewBytes::Source { len, .. } => *len,
        }
    }

    /// The plan's piece that writes them.
    pub(crate) fn piece(&self) -> Piece<'_> {
        match *self {
            NewBytes::Held(ref bytes) => Piece::Borrowed(bytes),
            NewBytes::Source { offset, len } => Piece::Copy { offset, len },
        }
    }
}
