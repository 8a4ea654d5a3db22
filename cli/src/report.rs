//! How a command fails (the exit status and the one line that explains it), and writing
//! to the terminal without ever panicking: `print!` and `eprint!` panic when their stream
//! is closed or full, so nothing here uses them.

use std::fmt::Display;
use std::io::{self, Write};

/// A command's failure.
#[derive(Debug)]
pub enum Failure {
    /// The archive, an entry, or the file system said no (exit status 1).
    Bad(String),
    /// The problems were already printed, one line each (exit status 1).
    Reported,
}

impl Failure {
    /// The line that explains it (empty when already reported).
    pub fn message(&self) -> &str {
        match self {
            Failure::Bad(m) => m,
            Failure::Reported => "",
        }
    }

    /// A failure about `path`, with the library's explanation.
    pub fn about(path: impl Display, error: impl Display) -> Failure {
        Failure::Bad(format!("{path}: {error}"))
    }
}

/// Writing to stdout failed: a closed pipe still means the output is incomplete.
pub fn output_failed(error: io::Error) -> Failure {
    Failure::Bad(format!("cannot write output: {error}"))
}

/// One line on stderr, prefixed `ngi: `. A stderr that cannot be written loses the line,
/// which is all that can be done about it.
pub fn say(line: impl Display) {
    let _ = writeln!(io::stderr().lock(), "ngi: {line}");
}

/// Text on stderr as it is (progress lines); losing it is harmless.
pub fn progress(text: impl Display) {
    let mut err = io::stderr().lock();
    let _ = write!(err, "{text}");
    let _ = err.flush();
}
