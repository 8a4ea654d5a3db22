//! Error types, one per concern. Every variant carries what failed and where (entry index,
//! absolute file offset, the offending value), but for a caller's own source failing under
//! a reader, whose error is passed through as it came (the reader's decoder tells the entry
//! and the offset: `StreamDecoder::entry` and `offset`); and every type implements
//! [`core::error::Error`]. Under the `std` feature each converts into `std::io::Error`.
//!
//! The codecs' errors are defined in [`codec`](crate::codec), beside the decoders that
//! raise them (so that `codec/` depends on nothing above it), and re-exported here.

pub use crate::codec::{DecodeError, UnsupportedMethod};
pub use crate::nres::NresError;
pub use crate::rsli::RsliError;
