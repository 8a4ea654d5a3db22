//! How a command fails: the exit status and the one line that explains it.

use std::fmt::Display;
use std::io;

/// A command's failure.
#[derive(Debug)]
pub enum Failure {
    /// The archive, an entry, or the file system said no (exit status 1).
    Bad(String),
    /// The problems were already printed, one line each (exit status 1).
    Reported,
}

impl Failure {
    /// A failure about `path`, with the library's explanation.
    pub fn about(path: &str, error: impl Display) -> Failure {
        Failure::Bad(format!("{path}: {error}"))
    }
}

/// Writing to stdout failed: a closed pipe still means the output is incomplete.
pub fn output_failed(error: io::Error) -> Failure {
    Failure::Bad(format!("cannot write output: {error}"))
}
