//! `ngi extract`: entries as files in a folder.
//!
//! Each entry becomes the file `names::file_name(name)` directly inside the target folder
//! (see `names` for the escaping that keeps every name inside it). When two entries map to
//! the same file name, ignoring ASCII case (NRes names compare that way, and many file
//! systems do too), the later one gets `~INDEX` before its extension. Files are created
//! with `create_new`: an existing file is never overwritten unless `--force` is given, and
//! even then only a regular file is replaced (a link or folder in the way is refused). Every
//! entry that is skipped is reported on its own line; the exit status is then 1.

use std::collections::HashSet;
use std::fs::{self, File, OpenOptions};
use std::io::{IsTerminal, Write};
use std::path::Path;

use crate::args::Options;
use crate::names;
use crate::open::{EntryError, Opened};
use crate::report::Failure;

pub fn run(options: &Options, archive: &Opened<'_>) -> Result<(), Failure> {
    let dir = options.output.as_deref().unwrap_or(".");
    let indices: Vec<usize> = if options.names.is_empty() {
        (0..archive.len()).collect()
    } else {
        let mut chosen = Vec::new();
        for name in &options.names {
            chosen.push(super::select(options, archive, Some(name))?);
        }
        chosen
    };
    fs::create_dir_all(dir).map_err(|e| Failure::about(dir, e))?;
    let progress = std::io::stderr().is_terminal() && indices.len() > 1;
    let mut taken: HashSet<String> = HashSet::new();
    let mut failed = 0usize;
    for (n, &index) in indices.iter().enumerate() {
        let Some(row) = archive.row(index) else {
            continue;
        };
        let mut file = names::file_name(&row.name);
        if !taken.insert(file.to_ascii_lowercase()) {
            file = names::disambiguate(&file, index);
            taken.insert(file.to_ascii_lowercase());
        }
        if progress {
            eprint!(
                "\r\x1b[K[{:>3}%] {}/{} {file}",
                (n + 1) * 100 / indices.len(),
                n + 1,
                indices.len()
            );
        }
        let path = Path::new(dir).join(&file);
        if let Err(message) = extract_one(archive, index, &path, options.force) {
            if progress {
                eprint!("\r\x1b[K");
            }
            eprintln!(
                "ngi: {}: entry {index} (\"{}\") skipped: {message}",
                options.archive,
                names::display(&row.name)
            );
            failed += 1;
        }
    }
    if progress {
        eprintln!();
    }
    if failed > 0 {
        eprintln!("ngi: {failed} of {} entries not extracted", indices.len());
        return Err(Failure::Reported);
    }
    Ok(())
}

fn extract_one(archive: &Opened<'_>, index: usize, path: &Path, force: bool) -> Result<(), String> {
    let shown = path.display();
    let mut file = create(path, force).map_err(|e| format!("{shown}: {e}"))?;
    let result = archive.stream(index, &mut file);
    let result = result.and_then(|_| file.flush().map_err(EntryError::Output));
    match result {
        Ok(()) => Ok(()),
        Err(e) => {
            // A partial file would pass for the entry: remove it.
            drop(file);
            let _ = fs::remove_file(path);
            Err(match e {
                EntryError::Archive(e) => e,
                EntryError::Output(e) => format!("{shown}: {e}"),
            })
        }
    }
}

fn create(path: &Path, force: bool) -> std::io::Result<File> {
    if force {
        if let Ok(meta) = fs::symlink_metadata(path) {
            if !meta.file_type().is_file() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::AlreadyExists,
                    "exists and is not a regular file; not replaced",
                ));
            }
            fs::remove_file(path)?;
        }
    }
    // create_new fails on anything already there, links included, so nothing is followed.
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| {
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                std::io::Error::new(e.kind(), "already exists (use --force to replace it)")
            } else {
                e
            }
        })
}
