//! How a command fails (the exit status and the one line that explains it), and writing
//! to the terminal without ever panicking: `print!` and `eprint!` panic when their stream
//! is closed or full, so nothing here uses them (indicatif ignores a failed write to the
//! terminal, so its progress bar is safe too).

use std::fmt::Display;
use std::io::{self, IsTerminal, Write};

use indicatif::{ProgressBar, ProgressStyle};

/// A command's failure.
#[derive(Debug)]
pub enum Failure {
    /// The archive, an entry, or the file system said no (exit status 1).
    Bad(String),
    /// The problems were already printed, one line each (exit status 1).
    Reported,
    /// The command line asks for what the archive cannot take, found once it is open (an
    /// NRes option for an RsLi library, say): a usage error (exit status 2).
    Usage(String),
}

impl Failure {
    /// The line that explains it (empty when already reported).
    pub fn message(&self) -> &str {
        match self {
            Failure::Bad(m) | Failure::Usage(m) => m,
            Failure::Reported => "",
        }
    }

    /// A failure about `path`, with the library's explanation.
    pub fn about(path: impl Display, error: impl Display) -> Failure {
        Failure::Bad(format!("{path}: {error}"))
    }
}

/// How messages show a path: [`Path::display`] turns every byte that is not UTF-8 into
/// U+FFFD, so that two files showed as one, and a control character escaped by
/// [`printable`] showed as the text of its escape. Here bytes that are not UTF-8 are
/// `\xNN` and a backslash is `\\`, as entry names are shown; the line is escaped for
/// the terminal where it is said.
pub trait ShowPath {
    /// The path as messages show it.
    fn shown(&self) -> ShownPath<'_>;
}

impl ShowPath for std::path::Path {
    fn shown(&self) -> ShownPath<'_> {
        ShownPath(self)
    }
}

/// A path as messages show it ([`ShowPath`]).
pub struct ShownPath<'a>(&'a std::path::Path);

impl Display for ShownPath<'_> {
    #[cfg(unix)]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use std::os::unix::ffi::OsStrExt;
        for chunk in self.0.as_os_str().as_bytes().utf8_chunks() {
            for piece in chunk.valid().split_inclusive('\\') {
                match piece.strip_suffix('\\') {
                    Some(before) => write!(f, "{before}\\\\")?,
                    None => f.write_str(piece)?,
                }
            }
            for byte in chunk.invalid() {
                write!(f, "\\x{byte:02x}")?;
            }
        }
        Ok(())
    }

    // Backslashes separate folders there, and paths are UTF-16: as the system shows them.
    #[cfg(not(unix))]
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.display().fmt(f)
    }
}

/// Writing to stdout failed: a closed pipe still means the output is incomplete.
pub fn output_failed(error: io::Error) -> Failure {
    Failure::Bad(format!("cannot write output: {error}"))
}

/// One line on stdout saying what a command that writes files did. The files are written
/// by then, so a stdout that cannot take the line loses only the line.
pub fn done(line: impl Display) {
    let mut out = io::stdout().lock();
    let _ = writeln!(out, "{}", printable(&line.to_string())).and_then(|()| out.flush());
}

/// One line on stderr, prefixed `ngi: `. A stderr that cannot be written loses the line,
/// which is all that can be done about it.
pub fn say(line: impl Display) {
    let _ = writeln!(io::stderr().lock(), "ngi: {}", printable(&line.to_string()));
}

/// `line` with its control characters escaped (`\x1b`, `\u{85}`), the line and paragraph
/// separators, and the characters that reorder what follows them on screen
/// (bidirectional marks, overrides and isolates):
/// messages quote what files and manifests say (file names, fields), and an escape
/// sequence in one must not reach the terminal, nor a newline break the one line a message
/// is, nor a name display as another. Entry names are escaped before this, as `list` shows
/// them.
pub fn printable(line: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write as _;
    let hidden = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{061c}'
                    | '\u{200e}'
                    | '\u{200f}'
                    | '\u{2028}'..='\u{202e}'
                    | '\u{2066}'..='\u{2069}'
            )
    };
    if !line.chars().any(hidden) {
        return line.into();
    }
    let mut out = String::with_capacity(line.len() + 16);
    for c in line.chars() {
        let code = u32::from(c);
        let _ = match c {
            c if !hidden(c) => out.write_char(c),
            _ if code < 0x80 => write!(out, "\\x{code:02x}"),
            _ => write!(out, "\\u{{{code:x}}}"),
        };
    }
    out.into()
}

/// A progress bar on stderr over `len` steps, drawn by indicatif only when stderr is a
/// terminal and there is more than one step; hidden otherwise, so that stderr then holds
/// exactly the problem lines. Lines said meanwhile go through [`say_over`].
pub fn progress_bar(len: usize) -> ProgressBar {
    if len < 2 || !io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("[{percent:>3}%] {pos}/{len} {wide_msg}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    ProgressBar::new(len as u64).with_style(style)
}

/// [`say`] with `bar` cleared for the line and drawn again after it.
pub fn say_over(bar: &ProgressBar, line: impl Display) {
    bar.suspend(|| say(line));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three files that were shown as two: a byte not UTF-8 is no U+FFFD, and an escape
    /// is not the text of one.
    #[cfg(unix)]
    #[test]
    fn paths_are_shown_without_loss() {
        use std::os::unix::ffi::OsStrExt;
        let shown = |bytes: &[u8]| {
            let path = std::path::Path::new(std::ffi::OsStr::from_bytes(bytes));
            printable(&path.shown().to_string()).into_owned()
        };
        assert_eq!(shown(b"d/p\xff\xfe.nres"), "d/p\\xff\\xfe.nres");
        assert_eq!(shown(b"d/p\xff.nres"), "d/p\\xff.nres");
        assert_eq!(shown(b"d/p\xfe.nres"), "d/p\\xfe.nres");
        assert_eq!(shown(b"q\x1b[1m"), "q\\x1b[1m");
        assert_eq!(shown(b"q\\x1b[1m"), "q\\\\x1b[1m");
        assert_eq!(shown("é/\\".as_bytes()), "é/\\\\");
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(printable("plain: ok \\x41 é"), "plain: ok \\x41 é");
        assert_eq!(
            printable("file: \"x\u{1b}]0;title\u{7}\"\nnext\u{85}"),
            "file: \"x\\x1b]0;title\\x07\"\\x0anext\\u{85}"
        );
        assert_eq!(printable("a\u{202e}txt.exe"), "a\\u{202e}txt.exe");
        // The Arabic letter mark reorders as the other marks do; the separators break a
        // line where a terminal or a log viewer honours them.
        assert_eq!(
            printable("a\u{61c}b\u{2028}c\u{2029}d"),
            "a\\u{61c}b\\u{2028}c\\u{2029}d"
        );
    }
}
