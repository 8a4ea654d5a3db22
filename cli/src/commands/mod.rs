//! The subcommands. Each opens the archive through the core's catalog, which reads only
//! its header and directory; entries are read from the file range by range and streamed
//! in bounded chunks.

mod cat;
mod edit;
mod extract;
mod info;
mod json;
pub mod list;
pub mod pack;
mod unpack;
mod verify;

use crate::args::{Command, Edit, Options, Source};
use crate::open::ArchiveFile;
use crate::report::{Failure, ShowPath};

pub fn run(options: &Options) -> Result<(), Failure> {
    let archive = ArchiveFile::open(
        &options.archive,
        options.raw,
        options.media_trailer,
        &options.limits,
    )?;
    match options.command {
        Command::List => list::run(options, &archive),
        Command::Info => info::run(options, &archive),
        Command::Cat => cat::run(options, &archive),
        Command::Extract => extract::run(options, &archive),
        Command::Verify => verify::run(options, &archive),
    }
}

/// Runs an editing command: the archive opened as the read commands open it (never in raw
/// mode: a file with no directory is nothing to edit or unpack), then edited.
pub fn edit(source: &Source, edit: &Edit) -> Result<(), Failure> {
    let archive = ArchiveFile::open_to_edit(&source.archive, source.media_trailer, &source.limits)?;
    match edit {
        Edit::Unpack { output, force } => unpack::run(source, &archive, output, *force),
        _ => edit::run(source, &archive, edit),
    }
}

/// The output folder `dir`, made (see [`output_folder`]) and opened, keeping `archive`'s
/// file: an entry written there under `--force` never replaces the archive being read.
pub fn open_output_folder(
    dir: &std::path::Path,
    archive: &ArchiveFile,
) -> Result<crate::folder::Folder, Failure> {
    output_folder(dir)?;
    let folder = crate::folder::Folder::open(dir).map_err(|e| Failure::about(dir.shown(), e))?;
    let metadata = archive
        .file()
        .metadata()
        .map_err(|e| Failure::Bad(format!("the archive's metadata: {e}")))?;
    Ok(folder.keeping(&metadata))
}

/// Creates the output folder `dir` (and its parents) unless it is there. A file in its
/// place, or in a parent's, is said to be one: the system's own words for it, "File
/// exists" or "Not a directory", read as if a folder were the problem.
pub fn output_folder(dir: &std::path::Path) -> Result<(), Failure> {
    std::fs::create_dir_all(dir).map_err(|e| {
        let file = dir
            .ancestors()
            .find(|a| std::fs::metadata(a).is_ok_and(|m| !m.is_dir()));
        // A symbolic link to nothing: "File exists" too, as the link is there.
        let dangling = dir.ancestors().find(|a| {
            std::fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink())
                && std::fs::metadata(a).is_err_and(|e| e.kind() == std::io::ErrorKind::NotFound)
        });
        match (file, dangling) {
            (Some(file), _) => Failure::Bad(format!("{}: not a folder", file.shown())),
            (None, Some(link)) => Failure::Bad(format!(
                "{}: a symbolic link to nothing (its target is not there)",
                link.shown()
            )),
            (None, None) => Failure::about(dir.shown(), e),
        }
    })
}

/// The entry a NAME argument or `--index` selects, or a failure that says it is missing.
pub fn select(
    options: &Options,
    archive: &ArchiveFile,
    name: Option<&std::ffi::OsStr>,
) -> Result<usize, Failure> {
    let path = options.archive.shown();
    match options.index {
        Some(index) => entry_at(archive, index),
        None => entry_named(archive, name.unwrap_or_default()),
    }
    .map_err(|m| Failure::Bad(format!("{path}: {m}")))
}

/// Entry `index`, if the archive has it.
pub fn entry_at(archive: &ArchiveFile, index: usize) -> Result<usize, String> {
    if index < archive.len() {
        Ok(index)
    } else {
        Err(format!(
            "no entry with index {index} (the archive has {})",
            crate::count::entries(archive.len())
        ))
    }
}

/// The entry a NAME argument means, by the format's engine rules.
pub fn entry_named(archive: &ArchiveFile, name: &std::ffi::OsStr) -> Result<usize, String> {
    let query = crate::names::parse_argument(&os_bytes(name));
    let shown = crate::names::display(&query);
    // The engine's lookup stops at a NUL, which no name holds: "A.TXT\x00x" would find
    // A.TXT, a mistyped name giving another entry (serve answers 404 to it too).
    if query.contains(&0) {
        return Err(format!(
            "no entry named \"{shown}\": no name holds a NUL byte (\\x00)"
        ));
    }
    archive.find(&query).ok_or_else(|| {
        // An entry may bear the very name and still be out of the lookup's reach (an
        // RsLi name in lower case, which rsFind's upper-cased query never matches).
        match archive.entries().iter().position(|e| e.name() == query) {
            Some(index) => format!(
                "no entry named \"{shown}\" by the engine's lookup, which does not reach \
                 entry {index} of that very name (--index {index} does)"
            ),
            None => format!("no entry named \"{shown}\""),
        }
    })
}

#[cfg(unix)]
pub fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    s.as_bytes().to_vec()
}

#[cfg(not(unix))]
pub fn os_bytes(s: &std::ffi::OsStr) -> Vec<u8> {
    s.to_string_lossy().into_owned().into_bytes()
}
