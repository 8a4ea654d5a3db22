//! From a request's path to a file under the served folder, refusing everything that
//! could reach outside it, and the folder's archives for the index.
//!
//! A path is split on `/` before any percent-decoding, so an encoded slash (`%2F`) never
//! separates folders. Each folder segment, decoded, must be a plain name: not empty, not
//! starting with a dot (so `.`, `..` and hidden files are out), and holding no `/`, `\`
//! or NUL. Every step is resolved with `canonicalize` (symlinks followed) and must stay
//! under the canonical root; the archive must be a regular file. Only then is it handed
//! to the cache, which opens it from the folder's handle so that the open cannot leave
//! the folder, whatever was swapped in since the walk ([`Beneath`]), and refuses anything
//! but a regular file from the handle (a FIFO swapped in afterwards included) and a file
//! without an archive magic (a 404): nothing outside the folder is read or answered for,
//! and no FIFO or device is waited on.

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};

use super::beneath::Beneath;
use crate::report::{ShowPath, printable};

/// What a request path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `/`: the archives under the folder.
    Index,
    /// `/.ngi/status`: the server's counters.
    Status,
    /// `/PATH/` (or `/PATH`): an archive's listing, or an entry by `?index=N`.
    Archive(Located),
    /// `/PATH/NAME`: an entry by name (the percent-decoded bytes).
    Entry(Located, Vec<u8>),
}

/// An archive found under the folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// Its canonical path: what the cache opens.
    pub file: PathBuf,
    /// Its path under the folder as the request gave it, decoded, `/`-separated.
    pub shown: String,
    /// The request's own (percent-encoded) path of it, for links: `/a/b.res`.
    pub href: String,
}

/// Why a path names nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// 404: nothing servable there (missing, outside the folder, hidden, not an archive).
    NotFound(String),
    /// 400: the path cannot be read (bad percent-encoding, no leading `/`).
    Malformed(String),
}

/// The most segments a request's path may have (an entry's name included).
const MAX_SEGMENTS: usize = 2048;

/// The reserved path of the counters; no archive can have it (hidden names are refused).
pub const STATUS_PATH: &str = "/.ngi/status";

/// Resolves `raw` (the request's path, still percent-encoded) under `root` (canonical).
/// Blocking: it looks at the file system.
pub fn resolve(root: &Path, raw: &str) -> Result<Target, Refusal> {
    let Some(rest) = raw.strip_prefix('/') else {
        return Err(Refusal::Malformed(format!(
            "path {raw:?} does not start with /"
        )));
    };
    if rest.is_empty() {
        return Ok(Target::Index);
    }
    if raw == STATUS_PATH {
        return Ok(Target::Status);
    }
    let segments: Vec<&str> = rest.split('/').collect();
    // Each segment costs a `canonicalize`: a link to its own folder let one target of
    // 64 KiB make 30 000 of them. No path the kernel takes (4096 bytes) has more.
    if segments.len() > MAX_SEGMENTS {
        return Err(Refusal::NotFound(format!(
            "no archive at a path of {} segments (at most {MAX_SEGMENTS})",
            segments.len()
        )));
    }
    let mut here = root.to_path_buf();
    let mut shown = Vec::new();
    for (i, segment) in segments.iter().enumerate() {
        // A folder's path with its slash ("/sub/"): the folder, said as one below.
        if segment.is_empty() && i + 1 == segments.len() && i > 0 {
            break;
        }
        let name = decode(segment)?;
        if !is_plain_name(&name) {
            // As written: "sub%2Fa.res" decoded would read as the path "/sub/a.res".
            let mut written = shown.clone();
            written.push((*segment).to_owned());
            return Err(Refusal::NotFound(format!(
                "no archive at /{}: a name that is empty, hidden (starting with a dot) or \
                 holds a slash, a backslash or a NUL is never served",
                written.join("/")
            )));
        }
        shown.push(shown_name(&name));
        let missing =
            |shown: &[String]| Refusal::NotFound(format!("no archive at /{}", shown.join("/")));
        here.push(os_str(&name));
        // Symlinks are followed, and wherever they lead must be inside the folder.
        let Ok(resolved) = here.canonicalize() else {
            return Err(missing(&shown));
        };
        if !resolved.starts_with(root) {
            return Err(missing(&shown));
        }
        let Ok(meta) = std::fs::metadata(&resolved) else {
            return Err(missing(&shown));
        };
        if meta.is_dir() {
            here = resolved;
            continue;
        }
        // Whether it is an archive, the open says (a file that is not is a 404 there):
        // reading its magic here too would cost every request an open.
        if !meta.is_file() {
            return Err(missing(&shown));
        }
        let located = Located {
            file: resolved,
            shown: shown.join("/"),
            href: format!("/{}", segments[..=i].join("/")),
        };
        return match &segments[i + 1..] {
            [] | [""] => Ok(Target::Archive(located)),
            [entry] => Ok(Target::Entry(located, decode(entry)?)),
            _ => Err(Refusal::NotFound(format!(
                "no entry at {raw} (an entry name's slashes are written %2F)"
            ))),
        };
    }
    Err(Refusal::NotFound(format!(
        "/{} is a folder, not an archive",
        shown.join("/")
    )))
}

/// A name that stays in its folder and is not hidden.
fn is_plain_name(name: &[u8]) -> bool {
    !name.is_empty() && name[0] != b'.' && !name.iter().any(|&b| matches!(b, b'/' | b'\\' | 0))
}

/// Whether the file starts with a magic the core's opener knows (`NRes`, `NL`). Opened
/// as the cache opens it, so that a swap since the walk saw it reads nothing outside.
fn archive_magic(folder: &Beneath, path: &Path) -> std::io::Result<bool> {
    let file = folder.open(path)?;
    // What was opened, not what the walk saw: a FIFO or device swapped in since is no
    // archive, and is not read.
    if !file.metadata()?.is_file() {
        return Ok(false);
    }
    let mut head = Vec::with_capacity(4);
    file.take(4).read_to_end(&mut head)?;
    Ok(ngi_core::archive::detect(&head).is_some())
}

/// Strict percent-decoding: `%` must be followed by two hex digits.
pub fn decode(segment: &str) -> Result<Vec<u8>, Refusal> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            // Two hex digits exactly (`from_str_radix` alone would take `+F`).
            let hex = bytes
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            let Some(value) = hex else {
                return Err(Refusal::Malformed(format!(
                    "bad percent-encoding in {segment:?} at byte {i}"
                )));
            };
            out.push(value);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    Ok(out)
}

/// Percent-encodes every byte but RFC 3986's unreserved ones: a path segment that means
/// exactly `bytes`, safe in an HTML attribute too.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(unix)]
fn os_str(bytes: &[u8]) -> &OsStr {
    use std::os::unix::ffi::OsStrExt;
    OsStr::from_bytes(bytes)
}

#[cfg(not(unix))]
fn os_str(bytes: &[u8]) -> &OsStr {
    // Not UTF-8 cannot name a file there; the lossless case is the common one.
    OsStr::new(std::str::from_utf8(bytes).unwrap_or("\u{FFFD}"))
}

#[cfg(unix)]
fn os_bytes(name: &OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    name.as_bytes().to_vec()
}

#[cfg(not(unix))]
fn os_bytes(name: &OsStr) -> Vec<u8> {
    name.to_string_lossy().into_owned().into_bytes()
}

/// A file or folder name under the folder as messages and the index show it, as the
/// CLI's messages show a path (README, "Names"): [`ShowPath`]'s escapes of bytes that are
/// not UTF-8 and of backslashes, then [`printable`]'s of control and reordering
/// characters, which the CLI applies where it says a line and a JSON reply has no such
/// step. `String::from_utf8_lossy` showed every byte that is not UTF-8 as U+FFFD.
fn shown_name(name: &[u8]) -> String {
    let shown = Path::new(os_str(name)).shown().to_string();
    printable(&shown).into_owned()
}

/// One archive under the folder, for the index.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Listed {
    /// Its path under the folder, `/`-separated, each name as [`shown_name`] shows it.
    pub path: String,
    /// Its exact URL: `/` + percent-encoded segments + `/`.
    pub href: String,
}

/// Folders deeper than this are not searched (a bound, and a guard against link loops).
pub const MAX_DEPTH: usize = 32;
/// The index lists at most this many archives.
pub const MAX_LISTED: usize = 100_000;

/// The archives under `folder`, recursively, by path; hidden names skipped,
/// symlinks followed only where they stay inside the folder, each folder visited once.
/// Blocking.
/// Fails only where the listing would be wrong, not merely shorter: a name that went
/// away or may not be read is left out, as before, but a fault of the system (out of
/// file descriptors, say) is an error rather than an index that leaves archives out.
/// With the archives, whether a bound ([`MAX_DEPTH`], [`MAX_LISTED`]) may have left some
/// out.
pub fn archives(folder: &Beneath) -> std::io::Result<(Vec<Listed>, bool)> {
    let root = folder.root();
    let mut found = Vec::new();
    let mut seen = std::collections::HashSet::new();
    seen.insert(root.to_path_buf());
    let mut walker = Walk {
        folder,
        cut: false,
        seen: &mut seen,
        found: &mut found,
        fault: None,
    };
    walker.walk(root, &mut Vec::new());
    if let Some(e) = walker.fault {
        return Err(e);
    }
    let cut = walker.cut;
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok((found, cut))
}

struct Walk<'w> {
    folder: &'w Beneath,
    /// Whether a bound may have left archives out: a folder with something in it at
    /// [`MAX_DEPTH`], or names left once [`MAX_LISTED`] archives are found (telling
    /// whether those are archives would take an open of each).
    cut: bool,
    seen: &'w mut std::collections::HashSet<PathBuf>,
    found: &'w mut Vec<Listed>,
    fault: Option<std::io::Error>,
}

impl Walk<'_> {
    /// `result`'s value, or `None`; its error is kept when it is the system's (out of
    /// file descriptors or memory), where the listing would leave out archives that are
    /// there. Any other error is that name's own (gone, not ours to read, a symlink loop
    /// or through a file), and only that name is left out.
    fn ok<T>(&mut self, result: std::io::Result<T>) -> Option<T> {
        /// EMFILE, ENFILE, ENOMEM (the same numbers on Linux and the BSDs).
        const SYSTEM: [i32; 3] = [24, 23, 12];
        match result {
            Ok(value) => Some(value),
            Err(e) if e.raw_os_error().is_some_and(|n| SYSTEM.contains(&n)) => {
                self.fault.get_or_insert(e);
                None
            }
            Err(_) => None,
        }
    }

    fn walk(&mut self, dir: &Path, trail: &mut Vec<Vec<u8>>) {
        let Some(read) = self.ok(std::fs::read_dir(dir)) else {
            return;
        };
        let mut names: Vec<Vec<u8>> = Vec::new();
        for entry in read {
            if let Some(entry) = self.ok(entry) {
                names.push(os_bytes(&entry.file_name()));
            }
        }
        names.sort();
        for name in names {
            if !is_plain_name(&name) || self.fault.is_some() {
                continue;
            }
            if self.found.len() >= MAX_LISTED {
                self.cut = true;
                continue;
            }
            self.visit(dir, name, trail);
        }
    }

    fn visit(&mut self, dir: &Path, name: Vec<u8>, trail: &mut Vec<Vec<u8>>) {
        let Some(resolved) = self.ok(dir.join(os_str(&name)).canonicalize()) else {
            return;
        };
        let Some(meta) = self.ok(std::fs::metadata(&resolved)) else {
            return;
        };
        if !resolved.starts_with(self.folder.root()) {
            return;
        }
        trail.push(name);
        if meta.is_dir() {
            // A folder at the bound is not searched; one with nothing in it leaves nothing
            // out.
            self.cut |= trail.len() >= MAX_DEPTH
                && std::fs::read_dir(&resolved).is_ok_and(|mut d| d.next().is_some());
            if trail.len() < MAX_DEPTH && self.seen.insert(resolved.clone()) {
                self.walk(&resolved, trail);
            }
        } else if meta.is_file() && self.ok(archive_magic(self.folder, &resolved)) == Some(true) {
            let path = trail
                .iter()
                .map(|n| shown_name(n))
                .collect::<Vec<_>>()
                .join("/");
            let href: Vec<String> = trail.iter().map(|n| encode(n)).collect();
            self.found.push(Listed {
                path,
                href: format!("/{}/", href.join("/")),
            });
        }
        trail.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_is_strict_and_encoding_round_trips() {
        assert_eq!(decode("a%20b%2F").unwrap(), b"a b/");
        for bad in ["%", "%2", "%zz", "a%g0", "%+F", "%-1"] {
            assert!(matches!(decode(bad), Err(Refusal::Malformed(_))), "{bad}");
        }
        let every: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&every)).unwrap(), every);
        assert_eq!(encode(b"<a \"b\">&'"), "%3Ca%20%22b%22%3E%26%27");
    }

    /// A folder at the depth bound counts as cutting the index only when something is
    /// in it (an empty one had every index request warn of archives left out).
    #[test]
    fn only_a_folder_with_something_in_it_cuts_the_index() {
        let base = std::env::temp_dir().join(format!("ngi-paths-depth-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let deepest = (0..MAX_DEPTH).fold(base.clone(), |path, _| path.join("d"));
        std::fs::create_dir_all(&deepest).unwrap();
        let folder = Beneath::new(base.canonicalize().unwrap()).unwrap();
        assert!(
            !archives(&folder).unwrap().1,
            "an empty folder at the bound"
        );
        std::fs::write(deepest.join("a.res"), b"NRes").unwrap();
        assert!(archives(&folder).unwrap().1, "a file at the bound");
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A link to its own folder lets a path repeat it: the segments are bounded.
    #[cfg(unix)]
    #[test]
    fn a_path_of_too_many_segments_is_refused() {
        let base = std::env::temp_dir().join(format!("ngi-paths-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(&base).unwrap();
        std::fs::write(base.join("a.res"), b"NRes").unwrap();
        std::os::unix::fs::symlink(".", base.join("l")).unwrap();
        let root = base.canonicalize().unwrap();
        let path = |links: usize| format!("/{}a.res/", "l/".repeat(links));
        let found = resolve(&root, &path(MAX_SEGMENTS - 2));
        assert!(matches!(found, Ok(Target::Archive(_))), "{found:?}");
        let refused = resolve(&root, &path(MAX_SEGMENTS - 1));
        assert!(matches!(refused, Err(Refusal::NotFound(_))), "{refused:?}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// Names that are not UTF-8 are told apart in messages and the index (both were
    /// "lat\u{fffd}.nres"), a control character is escaped, UTF-8 is kept.
    #[test]
    fn names_are_shown_as_readme_says() {
        assert_eq!(shown_name(b"lat\xe9.nres"), "lat\\xe9.nres");
        assert_eq!(shown_name(b"lat\xe8.nres"), "lat\\xe8.nres");
        assert_eq!(shown_name(b"a\x00b\x1b"), "a\\x00b\\x1b");
        assert_eq!(shown_name(b"back\\slash"), "back\\\\slash");
        assert_eq!(
            shown_name("\u{e9}t\u{e9}.rsli".as_bytes()),
            "\u{e9}t\u{e9}.rsli"
        );
        assert_eq!(shown_name("\u{85}".as_bytes()), "\\u{85}");
    }

    /// A 404 says where the path stopped as the client wrote it, and why when the name
    /// is one never served; a folder's path with its slash is the folder.
    #[test]
    fn refusals_name_the_path_as_written() {
        let base = std::env::temp_dir().join(format!("ngi-paths-shown-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        std::fs::create_dir_all(base.join("sub")).unwrap();
        std::fs::write(base.join("sub/a.res"), b"NRes").unwrap();
        let root = base.canonicalize().unwrap();
        let never = ": a name that is empty, hidden (starting with a dot) or holds a slash, a \
                     backslash or a NUL is never served";
        for (path, want) in [
            (
                "/sub%2Fa.res/",
                format!("no archive at /sub%2Fa.res{never}"),
            ),
            ("/.ngi/foo", format!("no archive at /.ngi{never}")),
            ("/sub/%2E%2E/x", format!("no archive at /sub/%2E%2E{never}")),
            ("/sub/", "/sub is a folder, not an archive".to_owned()),
            ("/sub", "/sub is a folder, not an archive".to_owned()),
            ("/sub/b.res", "no archive at /sub/b.res".to_owned()),
        ] {
            match resolve(&root, path) {
                Err(Refusal::NotFound(said)) => assert_eq!(said, want, "{path}"),
                other => panic!("{path}: {other:?}"),
            }
        }
        assert!(matches!(
            resolve(&root, "/sub/a.res/"),
            Ok(Target::Archive(_))
        ));
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn plain_names_only() {
        for bad in [&b""[..], b".", b"..", b".hidden", b"a/b", b"a\\b", b"a\0b"] {
            assert!(!is_plain_name(bad), "{bad:?}");
        }
        assert!(is_plain_name(b"data.res"));
    }
}
