//! `ngi extract`: entries as files in a folder.
//!
//! Each entry becomes the file `names::file_name(name)` directly inside the target folder
//! (see `names` for the escaping that keeps every name inside it). When two entries map to
//! the same file name, ignoring ASCII case (NRes names compare that way, and many file
//! systems do too), the later one gets `~INDEX` before its extension, and `~INDEX~2`,
//! `~INDEX~3`... should even that be taken, over the whole archive whatever is chosen (so
//! an entry's file is always the same). Files are created with `create_new`: an
//! existing file is never overwritten unless `--force` is given, and even then only a
//! regular file is replaced (a link or folder in the way is refused). Every entry that is
//! skipped is reported on its own line; the exit status is then 1. An entry named twice
//! on the command line is extracted once.
//!
//! Limits (`--max-entry-size`, `--max-total`): an entry larger than the entry limit is
//! skipped like any other bad entry; the first entry that would bring the run's total
//! (each entry's decoded size, or the packed bytes it reads when more) past the total
//! limit stops the extraction, and it and the entries after it are reported
//! as not extracted. An entry counts toward the total once its file name is found free,
//! before its file is created (creating runs with the decoding, on the workers), so one
//! whose file then cannot be created counts as well; with any number of jobs alike.
//!
//! Ctrl-C, SIGTERM or SIGHUP stop the extraction as the total limit does: the files of
//! the entries done stay, the one being written is removed (under `--force` the old file
//! it was to replace stays as it was), and the entries left are reported as not
//! extracted.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use ngi_core::limits::Budget;

use crate::args::Options;
use crate::folder::{Folder, Kind};
use crate::jobs;
use crate::names;
use crate::open::{ArchiveFile, EntryError, after_entry};
use crate::open_files::OpenFiles;
use crate::report::{Failure, ShowPath, progress_bar, say, say_over};
use crate::save::{self, Replacing, Stoppable};

pub fn run(options: &Options, archive: &ArchiveFile) -> Result<(), Failure> {
    let dir = options.output.clone().unwrap_or_else(|| PathBuf::from("."));
    let indices = selection(options, archive)?;
    let folder = super::open_output_folder(&dir, archive)?;
    let bar = progress_bar(indices.len());
    let mut file_names = file_names(archive, &indices);
    let mut budget = Budget::new(options.limits);
    let mut stopped = false;
    // In entry order: the file name, the file, the limits; then the decoding, on the
    // workers; then, in entry order again, what became of it.
    let plan = indices.iter().filter_map(|&index| {
        if stopped {
            return None;
        }
        let file = file_names.remove(&index)?;
        let job = match save::stopped() {
            Ok(()) => plan_one(archive, index, &folder, &file, options.force, &mut budget),
            Err(e) => Err(Skip::Total(e.to_string())),
        };
        stopped = matches!(job, Err(Skip::Total(_)));
        Some((index, file, job))
    });
    let files = OpenFiles::new(options.jobs);
    let work = |(index, file, job): (usize, String, Result<Job, Skip>)| {
        let outcome = job.and_then(|job| extract_one(archive, index, &folder, job, &files));
        (index, file, outcome)
    };
    let mut extracted = 0usize;
    let mut stopped_at = None;
    // Entries after the stop that a worker had in hand and finished (`-j N`).
    let mut finished_after = 0usize;
    let report = |(index, file, outcome): (usize, String, Result<(), Skip>)| {
        bar.set_message(file);
        let name = archive.entry(index).map(|e| names::display(e.name()));
        let name = name.unwrap_or_default();
        let shown = options.archive.shown();
        match outcome {
            Ok(()) => {
                bar.inc(1);
                extracted += 1;
                finished_after += usize::from(stopped_at.is_some());
            }
            Err(Skip::Entry(message)) => {
                say_over(
                    &bar,
                    format_args!(
                        "{shown}: entry {index} (\"{name}\") skipped: {}",
                        after_entry(index, &message)
                    ),
                );
                bar.inc(1);
            }
            // Said once: after a signal, the entries the workers had in hand stop too.
            Err(Skip::Total(_)) if stopped_at.is_some() => {}
            Err(Skip::Total(message)) => {
                say_over(
                    &bar,
                    format_args!(
                        "{shown}: extraction stopped at entry {index} (\"{name}\"): {}",
                        after_entry(index, &message)
                    ),
                );
                stopped_at = Some(index);
            }
        }
    };
    // What a job costs: the entry's when its file is made at all.
    let weight = |(index, _, job): &(usize, String, Result<Job, Skip>)| {
        if job.is_ok() { archive.cost(*index) } else { 0 }
    };
    jobs::in_order(options.jobs, plan, weight, work, report);
    // Cleared, as `verify` and `unpack` do: finished, it stayed with no newline after it,
    // and the next line (or the shell's prompt) went on from it.
    bar.finish_and_clear();
    if let (Some(index), 1..) = (stopped_at, finished_after) {
        say(format_args!(
            "{}: {} chosen after entry {index} extracted all the same (the jobs had them \
             in hand)",
            options.archive.shown(),
            crate::count::entries(finished_after)
        ));
    }
    // The entries skipped, and those a limit or a signal stopped before.
    let failed = indices.len() - extracted;
    if failed > 0 {
        say(format_args!(
            "{}: {failed} of {} not extracted",
            options.archive.shown(),
            crate::count::entries(indices.len())
        ));
        return Err(Failure::Reported);
    }
    Ok(())
}

/// The entries to extract: those NAME and `--index` choose, each once, in entry order
/// whatever the order given (the limits' total and the lines follow it, README; and of
/// two entries with one file name the later in the archive gets the `~INDEX`: `--index 6
/// --index 1` gave it to entry 1); all when neither is given.
fn selection(options: &Options, archive: &ArchiveFile) -> Result<Vec<usize>, Failure> {
    if options.names.is_empty() && options.indices.is_empty() {
        return Ok((0..archive.len()).collect());
    }
    let mut chosen = Vec::with_capacity(options.names.len() + options.indices.len());
    for name in &options.names {
        chosen.push(super::select(options, archive, Some(name))?);
    }
    for &index in &options.indices {
        let index = super::entry_at(archive, index)
            .map_err(|m| Failure::Bad(format!("{}: {m}", options.archive.shown())))?;
        chosen.push(index);
    }
    chosen.sort_unstable();
    chosen.dedup();
    Ok(chosen)
}

/// The file name of each entry of `indices`, worked out over the whole archive: an
/// entry's file is the same whichever entries are chosen. Worked out over those chosen,
/// it was not (of `A.DAT`, `A.DAT` and `A~1.DAT`, the third is `A~1~2.DAT` in a whole
/// run but was `A~1.DAT` alone), so that `--force` of one entry replaced the file of
/// another, with nothing said.
fn file_names(archive: &ArchiveFile, indices: &[usize]) -> HashMap<usize, String> {
    let mut taken: HashSet<String> = HashSet::new();
    let mut chosen = indices.iter().copied().peekable();
    let mut files = HashMap::with_capacity(indices.len());
    for (index, entry) in archive.entries().iter().enumerate() {
        let Some(_) = chosen.peek() else {
            break;
        };
        let file = unique_file_name(&mut taken, &names::file_name(entry.name()), index);
        if chosen.next_if_eq(&index).is_some() {
            files.insert(index, file);
        }
    }
    files
}

/// `file`, or the first of `file~index`, `file~index~2`, ... not yet taken (ignoring
/// ASCII case); the name returned is marked taken.
pub(super) fn unique_file_name(taken: &mut HashSet<String>, file: &str, index: usize) -> String {
    let mut candidate = file.to_string();
    let mut attempt = 1usize;
    while !taken.insert(candidate.to_ascii_lowercase()) {
        let suffix = if attempt == 1 {
            index.to_string()
        } else {
            format!("{index}~{attempt}")
        };
        candidate = names::disambiguate(file, &suffix);
        attempt += 1;
    }
    candidate
}

/// Why an entry was not extracted: it alone, or it and every entry after it (the
/// `--max-total` limit).
enum Skip {
    Entry(String),
    Total(String),
}

impl Skip {
    /// Why an entry, to be written at `path`, was not extracted.
    fn from_entry(e: EntryError, path: &Path) -> Skip {
        match e {
            EntryError::Archive(e) => Skip::Entry(e),
            EntryError::Total(e) => Skip::Total(e),
            EntryError::Output(e) => Skip::Entry(format!("{}: {e}", path.shown())),
        }
    }
}

/// An entry ready to be decoded: its file name checked, its size admitted. The file is
/// created only when the job runs, so the files open are those being written, not those
/// waiting (and a run cut short leaves no empty files for entries it never reached).
struct Job {
    file: String,
    force: bool,
}

/// Checks that entry `index`'s file can be made as `file` in `folder` and admits the
/// entry into `budget`: everything that must happen in entry order. An entry refused here
/// has no file made for it.
fn plan_one(
    archive: &ArchiveFile,
    index: usize,
    folder: &Folder,
    file: &str,
    force: bool,
    budget: &mut Budget,
) -> Result<Job, Skip> {
    let path = folder.join(file);
    if let Err(e) = check_target(folder, file, force) {
        return Err(Skip::Entry(format!("{}: {e}", path.shown())));
    }
    match archive.admit_entry(index, budget) {
        Ok(()) => Ok(Job {
            file: file.to_string(),
            force,
        }),
        Err(e) => Err(Skip::from_entry(e, &path)),
    }
}

/// Creates the admitted entry `index`'s file (one of `files`) and decodes the entry into
/// it; a file that could not be completed is removed (a partial or empty one would pass
/// for the entry).
fn extract_one(
    archive: &ArchiveFile,
    index: usize,
    folder: &Folder,
    job: Job,
    files: &OpenFiles,
) -> Result<(), Skip> {
    let path = folder.join(&job.file);
    let shown = path.shown();
    save::stopped().map_err(|e| Skip::Total(e.to_string()))?;
    // The closure may run more than once (when no descriptor is free): the last open wins.
    let made = std::cell::RefCell::new(None);
    let create = || {
        let (replacing, file) = create(folder, &job.file, job.force)?;
        *made.borrow_mut() = Some(replacing);
        Ok(file)
    };
    let mut held = files
        .create(create)
        .map_err(|e| Skip::Entry(format!("{shown}: {e}")))?;
    let Some(replacing) = made.into_inner() else {
        return Err(Skip::Entry(format!("{shown}: not created")));
    };
    let mut file = Stoppable(held.file());
    let result = archive.stream_admitted(index, &mut file);
    let written = result.and_then(|_| file.flush().map_err(EntryError::Output));
    drop(held);
    let done = match written {
        Ok(()) => replacing.finish().map_err(EntryError::Output),
        Err(e) => {
            // A partial or empty file would pass for the entry.
            replacing.abandon();
            Err(e)
        }
    };
    done.map_err(|e| match save::stopped() {
        // Not this entry's fault: the extraction stops here.
        Err(stop) => Skip::Total(stop.to_string()),
        Ok(()) => Skip::from_entry(e, &path),
    })
}

/// Whether a file may be made as `file` in `folder`: nothing is there, or (with `force`)
/// a regular file that may be replaced; returns whether there is one. Only looks;
/// [`create`] acts. A file whose permissions allow no write is not replaced, as no
/// command of ngi replaces one. Only where `--force` would replace what is there does
/// the message say to use it.
fn check_target(folder: &Folder, file: &str, force: bool) -> std::io::Result<bool> {
    match folder.kind(file)? {
        None => Ok(false),
        Some(Kind::Regular) if folder.permissions(file).is_some_and(|p| p.readonly()) => {
            Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                "read-only (its permissions allow no write); not replaced",
            ))
        }
        Some(Kind::Regular) if !force => Err(already_exists()),
        Some(Kind::Regular) => Ok(true),
        Some(Kind::Other(what)) => Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            format!("exists and is {what}; not replaced"),
        )),
        Some(Kind::Kept) => Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            KEPT_MESSAGE,
        )),
    }
}

/// Why the archive being read is not replaced, `--force` or not.
pub(super) const KEPT_MESSAGE: &str = "is the archive being read; not replaced";

fn already_exists() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        "already exists (use --force to replace it)",
    )
}

/// Opens the file to write as `file` in `folder`: a new one, or with `force` one that
/// replaces the regular file there once [finished](Replacing::finish) (until then the old
/// file stays).
pub(super) fn create<'a>(
    folder: &'a Folder,
    file: &str,
    force: bool,
) -> std::io::Result<(Replacing<'a>, File)> {
    // Without `force`, create_new alone refuses whatever is there.
    let replace = force && check_target(folder, file, force)?;
    Replacing::create(folder, file.as_ref(), replace).map_err(|e| {
        if e.kind() == std::io::ErrorKind::AlreadyExists {
            // What is there says why (a folder, a read-only file, the archive); under
            // `--force`, a file that appeared after the look is not replaced either.
            check_target(folder, file, force)
                .err()
                .unwrap_or_else(|| match force {
                    true => std::io::Error::new(
                        std::io::ErrorKind::AlreadyExists,
                        "appeared as it was being made; not replaced",
                    ),
                    false => already_exists(),
                })
        } else {
            e
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collisions_get_unique_names_even_with_lookalikes() {
        let mut taken = HashSet::new();
        // Entries "X.DAT", "X~2.DAT", "x.dat": the third cannot take "X~2.DAT".
        assert_eq!(unique_file_name(&mut taken, "X.DAT", 0), "X.DAT");
        assert_eq!(unique_file_name(&mut taken, "X~2.DAT", 1), "X~2.DAT");
        assert_eq!(unique_file_name(&mut taken, "x.dat", 2), "x~2~2.dat");
        assert_eq!(unique_file_name(&mut taken, "X.DAT", 2), "X~2~3.DAT");
        assert_eq!(taken.len(), 4);
    }
}
