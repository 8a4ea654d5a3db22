//! The commands that change an archive in place (`add`, `rm`, `rename`, `sort`) and
//! `repack`. Each builds the whole edit first and refuses it (nothing written) if any part
//! is wrong; the save is atomic and copies the payloads nobody touched from the old file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ngi_core::nres::{self, NewEntry};
use ngi_core::{Method, rsli};

use super::{entry_at, entry_named, os_bytes};
use crate::args::{Edit, Selected, Source};
use crate::editing::{self, AnyEditor, hold_for_edit, hold_output, save_plan};
use crate::folder::{Folder, Kind};
use crate::joined::Joined;
use crate::names;
use crate::open::{ArchiveFile, after_entry};
use crate::report::{Failure, ShowPath, done};

pub fn run(source: &Source, archive: &ArchiveFile, edit: &Edit) -> Result<(), Failure> {
    let path = &source.archive;
    let limits = source.limits;
    let source_trailer = source.media_trailer;
    let shown = path.shown();
    // Repack to another file leaves this one as it is (but `-o` may name this one).
    let elsewhere = match edit {
        Edit::Repack {
            output: Some(out), ..
        } => !names_file(out, archive.file()),
        _ => false,
    };
    if !elsewhere {
        hold_for_edit(archive, path)?;
    }
    // An existing output of `repack -o`, locked until it is replaced.
    let mut held_output = None;
    let mut editor = AnyEditor::open(archive, path)?;
    // The gaps a removal does not keep.
    let mut gaps = Vec::new();
    // The save's source: the archive, and the files `add` copies NRes payloads from.
    let mut source = Joined::new(archive.file()).map_err(|e| Failure::about(&shown, e))?;
    let bad = |message: String| Failure::Bad(format!("{shown}: {message}"));
    let misused = |message: String| Failure::Usage(format!("{shown}: {message}"));
    let mut target: PathBuf = path.clone();
    let before = editor.len();
    let what = match edit {
        Edit::Add {
            name,
            method,
            type_id,
            attrs,
            files,
        } => {
            let nres_fields = type_id.is_some() || attrs.iter().any(Option::is_some);
            refuse_misused_add(&editor, method.is_some(), nres_fields).map_err(misused)?;
            let new = New {
                name: name.as_ref(),
                method: *method,
                type_id: *type_id,
                attrs: *attrs,
            };
            add(&mut editor, &mut source, &new, files).map_err(bad)?;
            // An archive this command line would refuse to open is not written.
            let limit = limits.max_entries;
            if editor.len() as u64 > u64::from(limit) {
                return Err(bad(format!(
                    "{} would make it {}, above the limit of {limit} (--max-entries)",
                    crate::count::entries(files.len()),
                    crate::count::entries(editor.len())
                )));
            }
            format!("{} added", crate::count::entries(files.len()))
        }
        Edit::Rm {
            names,
            indices: by_index,
        } => {
            let mut indices = Vec::with_capacity(names.len() + by_index.len());
            for name in names {
                indices.push(entry_named(archive, name).map_err(bad)?);
            }
            for &index in by_index {
                indices.push(entry_at(archive, index).map_err(bad)?);
            }
            indices.sort_unstable();
            indices.dedup();
            // Bytes of no entry's right after a payload removed go with it, as in `pack`,
            // which says so; so is it said here.
            gaps = super::unpack::gaps_after(archive, &editor, &indices)
                .map_err(|e| Failure::about(&shown, e))?;
            editor.retain(|index| indices.binary_search(&index).is_err());
            format!("{} removed", crate::count::entries(indices.len()))
        }
        Edit::Rename { old, new } => {
            let index = match old {
                Selected::Name(name) => entry_named(archive, name).map_err(bad)?,
                Selected::Index(index) => entry_at(archive, *index).map_err(bad)?,
                Selected::Misused(why) => return Err(misused((*why).to_string())),
            };
            rename(&mut editor, index, new).map_err(bad)?
        }
        Edit::Sort { mode } => match &mut editor {
            AnyEditor::Nres(e) => {
                e.sort(*mode);
                format!("sorted by mode {mode}")
            }
            AnyEditor::Rsli(_) => {
                return Err(misused(
                    "sort applies to NRes; an RsLi library's order is its table's".into(),
                ));
            }
        },
        Edit::Repack { output, force } => {
            editor.canonicalize().map_err(bad)?;
            if let Some(out) = output {
                // Given the archive itself (through a link too), it is an edit in place,
                // held above; another file there is held while it is replaced.
                if !*force || elsewhere {
                    refuse_existing(out, *force)?;
                }
                if elsewhere {
                    held_output = hold_output(out)?;
                }
                target = out.clone();
            }
            "rebuilt canonically".to_string()
        }
        Edit::Unpack { .. } => return Ok(()),
    };
    // After the usage checks (a misused option is exit 2 whatever the file).
    if !elsewhere {
        refuse_read_only(path)?;
    }
    let plan = editor.plan().map_err(bad)?;
    save_plan(&plan, &source, &target)?;
    drop(held_output);
    super::pack::note_gaps_dropped(&shown.to_string(), &gaps, &plan, |_| "a gap".into());
    note_shared_bytes_copied(&target, &plan);
    note_names_beyond_ascii(&target, edit);
    if let Some(written) = ArchiveFile::reopen_written(&target, source_trailer) {
        note_lookups_moved(archive, &editor, &written, &target);
        note_trailer_lost(archive, &written, &target);
    }
    // "8 entries (was 8)" after a rename or a sort said nothing the count did not.
    let was = match editor.len() {
        now if now == before => String::new(),
        _ => format!(" (was {before})"),
    };
    done(format_args!(
        "{}: {what}; {}{was}, {} bytes",
        target.shown(),
        crate::count::entries(editor.len()),
        plan.len()
    ));
    Ok(())
}

/// Renames entry `index` to `new` (a NAME argument): what the edit did, or why not. The
/// refusal names the entry, its name and the new one: "entry 0: the name holds a
/// lower-case letter" alone read as if the old name were at fault.
fn rename(editor: &mut AnyEditor, index: usize, new: &std::ffi::OsStr) -> Result<String, String> {
    let name = names::parse_argument(&os_bytes(new));
    let old = editor.name(index).unwrap_or_default();
    let refused = |why: &str| {
        format!(
            "entry {index} (\"{}\") cannot be renamed \"{}\": {}",
            names::display(&old),
            names::display(&name),
            after_entry(index, why)
        )
    };
    editor
        .check_name(index, &name)
        .map_err(|why| refused(&why))?;
    if let Some(other) = editor.find(&name).filter(|&other| other != index) {
        // Its own name, which the engine's rules match to the one asked for.
        let taken = editor.name(other).unwrap_or_else(|| name.clone());
        let why = format!(
            "entry {other} is already named \"{}\"",
            names::display(&taken)
        );
        return Err(refused(&why));
    }
    editor.rename(index, &name).map_err(|why| refused(&why))?;
    Ok(format!(
        "entry {index} renamed \"{}\"",
        names::display(&name)
    ))
}

/// Says of each name a lookup of which gives another entry in the archive written than
/// it gave before the edit. Names the engine takes as the same (real archives hold such
/// duplicates) are told apart by a binary search over the lookup table, which every edit
/// that adds, removes, renames or reorders entries rebuilds as the engine itself does: so
/// adding an unrelated file can change which of two entries the game loads by a name, and
/// removing one of the two makes the other the one loaded. Nothing is said when the file
/// written cannot be read back; the edit is done by then.
fn note_lookups_moved(
    before: &ArchiveFile,
    editor: &AnyEditor,
    after: &ArchiveFile,
    written: &Path,
) {
    if after.len() != editor.len() {
        return;
    }
    let mut said = std::collections::BTreeSet::new();
    for entry in after.entries() {
        let name = entry.name();
        let Some(was) = before.find(name) else {
            continue;
        };
        let now = after.find(name);
        if now.and_then(|index| editor.source_index(index)) == Some(was) || !said.insert(was) {
            continue;
        }
        let named = |archive: &ArchiveFile, index: usize| {
            let name = archive.entry(index).map_or(&[][..], |e| e.name());
            format!("entry {index} (\"{}\")", names::display(name))
        };
        let gives = match now {
            Some(index) => format!(
                "{} (the engine takes the names as one)",
                named(after, index)
            ),
            None => "no entry".to_string(),
        };
        crate::report::say(format_args!(
            "{}: note: a lookup of \"{}\" gave {} before this edit (numbered as then), and \
             now gives {gives}",
            written.shown(),
            names::display(name),
            named(before, was)
        ));
    }
}

/// Says of each name `add` or `rename` took with characters beyond ASCII that it went in
/// as their UTF-8 bytes, as `pack` says it of a manifest's: the engine reads single bytes,
/// in the game's code page, and the name would show as other letters there.
fn note_names_beyond_ascii(written: &Path, edit: &Edit) {
    let given: Vec<Vec<u8>> = match edit {
        Edit::Add { name: Some(n), .. } | Edit::Rename { new: n, .. } => vec![os_bytes(n)],
        Edit::Add {
            name: None, files, ..
        } => files
            .iter()
            .filter_map(|f| f.file_name().map(os_bytes))
            .collect(),
        _ => Vec::new(),
    };
    for name in given.iter().filter(|n| !n.is_ascii()) {
        crate::report::say(format_args!(
            "{}: note: name \"{}\" written as the UTF-8 bytes of its characters beyond ASCII \
             (the engine reads single bytes, in the game's code page; write others as \\xNN)",
            written.shown(),
            names::display(&names::parse_argument(name))
        ));
    }
}

/// Says how many bytes the plan copied more than once: bytes entries shared in the
/// archive (records that point at one payload, or overlap), which a canonical rebuild
/// gives each entry a copy of. An archive of 100 000 records sharing one 10 KB payload,
/// 6.4 MB, comes out at 1 GB, and nothing else would say why.
fn note_shared_bytes_copied(written: &Path, plan: &ngi_core::edit::Plan<'_>) {
    let copied: u64 = plan
        .pieces
        .iter()
        .map(|piece| match *piece {
            ngi_core::edit::Piece::Copy { len, .. } => len,
            _ => 0,
        })
        .sum();
    let distinct: u64 = super::pack::copied_ranges(plan)
        .iter()
        .map(|(start, end)| end - start)
        .sum();
    let repeated = copied.saturating_sub(distinct);
    if repeated > 0 {
        crate::report::say(format_args!(
            "{}: note: {} that entries shared in the archive are written again for each \
             entry that reads them ({} of the archive copied, {copied} written)",
            written.shown(),
            crate::count::bytes(repeated),
            crate::count::bytes(distinct)
        ));
    }
}

/// Says when the archive ended with an RsLi `AO` media trailer and the file written does
/// not: its 6 bytes lay inside an entry's packed bytes (a stored entry's `packed_size`
/// past what it reads, say), which went where the edit put that entry's bytes, or went
/// with them when it was removed. The editor keeps a trailer apart only when no entry's
/// bytes reach into it.
fn note_trailer_lost(before: &ArchiveFile, after: &ArchiveFile, written: &Path) {
    if let (Some(value), None) = (before.catalog.trailer(), after.catalog.trailer()) {
        crate::report::say(format_args!(
            "{}: note: the \"AO\" media trailer the archive ended with (value {value}) is not \
             at its end any more: its bytes lay inside an entry's packed bytes, which this \
             edit moved or removed",
            written.shown()
        ));
    }
}

/// An existing `path` is refused unless `force` (and then only a regular file).
pub fn refuse_existing(path: &Path, force: bool) -> Result<(), Failure> {
    let kind = std::fs::symlink_metadata(path)
        .ok()
        .map(|meta| Kind::of(meta.file_type()));
    refuse_existing_kind(path, kind, force, || refuse_read_only(path))
}

/// [`refuse_existing`] of the file `name` of `folder`, looked at through the folder's
/// handle (a folder swapped for a link after it was opened is not the one looked at).
pub fn refuse_existing_in(folder: &Folder, name: &str, force: bool) -> Result<(), Failure> {
    let path = folder.join(name);
    let kind = folder
        .kind(name)
        .map_err(|e| Failure::about(path.shown(), e))?;
    let read_only = folder.permissions(name).is_some_and(|p| p.readonly());
    refuse_existing_kind(&path, kind, force, || match read_only {
        true => Err(read_only_failure(&path)),
        false => Ok(()),
    })
}

/// The refusal of a file of `kind` (`None`: nothing there) at `path`; `writable` refuses
/// one that `force` would replace but may not be written.
fn refuse_existing_kind(
    path: &Path,
    kind: Option<Kind>,
    force: bool,
    writable: impl FnOnce() -> Result<(), Failure>,
) -> Result<(), Failure> {
    match kind {
        None => Ok(()),
        Some(Kind::Regular) if force => writable(),
        // `--force` is named only where it would replace the file.
        Some(Kind::Regular) => writable().and(Err(Failure::Bad(format!(
            "{}: already exists (use --force to replace it)",
            path.shown()
        )))),
        Some(Kind::Other(what)) => Err(Failure::Bad(format!(
            "{}: exists and is {what}; not replaced",
            path.shown()
        ))),
        Some(Kind::Kept) => Err(Failure::Bad(format!(
            "{}: {}",
            path.shown(),
            super::extract::KEPT_MESSAGE
        ))),
    }
}

/// Refuses to replace a file whose permissions allow no write (`chmod a-w`): the edit
/// writes a new file and renames it over the old, which needs only the folder's
/// permission, so a file its owner made read-only was rewritten (the engine itself fails
/// to open such a file for writing).
fn refuse_read_only(path: &Path) -> Result<(), Failure> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.permissions().readonly() => Err(read_only_failure(path)),
        _ => Ok(()),
    }
}

fn read_only_failure(path: &Path) -> Failure {
    Failure::Bad(format!(
        "{}: read-only (its permissions allow no write); nothing written",
        path.shown()
    ))
}

/// Refuses an option of `add` that the archive's format has no field for.
fn refuse_misused_add(editor: &AnyEditor, method: bool, nres_fields: bool) -> Result<(), String> {
    match editor {
        AnyEditor::Nres(_) if method => {
            Err("--method applies to RsLi; NRes payloads are stored as they are".into())
        }
        AnyEditor::Rsli(_) if nres_fields => {
            Err("--type and --attr1..3 apply to NRes; RsLi entries have flags".into())
        }
        _ => Ok(()),
    }
}

/// What `add` gives each new entry besides its name and bytes.
struct New<'a> {
    /// `--name`, for the one file.
    name: Option<&'a OsString>,
    method: Option<Method>,
    type_id: Option<u32>,
    attrs: [Option<u32>; 3],
}

/// Files this small are read when added; larger ones are copied from their files as the
/// archive is written, where the format takes their bytes as they are.
const READ_BELOW: u64 = 64 * 1024;

/// Adds `files`. A payload of [`READ_BELOW`] bytes or more is joined to `source` and
/// copied from its file when the archive is written, if its bytes go in as they are (NRes,
/// and stored or XOR RsLi entries); a smaller one, and one to pack, is read here.
fn add(
    editor: &mut AnyEditor,
    source: &mut Joined<'_>,
    new: &New<'_>,
    files: &[PathBuf],
) -> Result<(), String> {
    for file in files {
        let mut entry_name = match new.name {
            Some(n) => names::parse_argument(&os_bytes(n)),
            None => file
                .file_name()
                .map(os_bytes)
                .ok_or_else(|| format!("{}: has no file name to name the entry", file.shown()))?,
        };
        if new.name.is_none() && matches!(editor, AnyEditor::Rsli(_)) {
            entry_name.make_ascii_uppercase();
        }
        let shown = names::display(&entry_name);
        let at_file = |e: std::io::Error| format!("{}: {e}", file.shown());
        // The core numbers the new entry as it would be, an index `ngi list` never showed:
        // the file and the name are what the user gave.
        let new_index = editor.len();
        let refused = |message: String, name_error: bool| {
            let message = crate::open::after_entry(new_index, &message);
            let hint = if name_error && new.name.is_none() {
                " (give it another with --name)"
            } else {
                ""
            };
            format!("{}: entry \"{shown}\": {message}{hint}", file.shown())
        };
        // The name's own rules first: `find` reads "a\x00b" as "a", and RsLi's "a" as "A".
        editor
            .check_name(new_index, &entry_name)
            .map_err(|message| refused(message, true))?;
        if let Some(other) = editor.find(&entry_name) {
            // Its own name, which the engine's rules match to the one asked for.
            let taken = editor.name(other).unwrap_or_else(|| entry_name.clone());
            let name = names::display(&taken);
            return Err(match editor.source_index(other) {
                Some(listed) => format!("entry {listed} is already named \"{name}\" (rm it first)"),
                None => format!(
                    "{}: \"{name}\" is the name of a file added before it by this command",
                    file.shown()
                ),
            });
        }
        match editor {
            AnyEditor::Nres(e) => {
                let [attr1, attr2, attr3] = new.attrs.map(|a| a.unwrap_or(0));
                let entry = NewEntry {
                    name: &entry_name,
                    type_id: new.type_id.unwrap_or(0),
                    attr1,
                    attr2,
                    attr3,
                };
                let refused =
                    |e: nres::WriteError| refused(e.to_string(), editing::nres_name_error(&e));
                match payload_of(file, source, true).map_err(at_file)? {
                    NewPayload::Joined { offset, len } => e.add_from_source(entry, offset, len),
                    NewPayload::Read(data) => e.add(entry, data),
                }
                .map_err(refused)?;
            }
            AnyEditor::Rsli(e) => {
                let method = new.method.unwrap_or(Method::Stored);
                let refused =
                    |e: rsli::BuildError| refused(e.to_string(), editing::rsli_name_error(&e));
                match payload_of(file, source, method.copies_data()).map_err(at_file)? {
                    NewPayload::Joined { offset, len } => {
                        e.add_from_source(&entry_name, method, offset, len)
                    }
                    NewPayload::Read(data) => e.add(&entry_name, method, &data),
                }
                .map_err(refused)?;
            }
        }
    }
    Ok(())
}

/// A new entry's bytes, as [`payload_of`] finds them.
enum NewPayload {
    /// Joined to the save's source at `offset`: copied from the file as the archive is
    /// written (and refused by its size before anything is read).
    Joined { offset: u64, len: u64 },
    /// Read whole: what the file holds, whatever its size says (a file under /proc says
    /// 0 bytes).
    Read(Vec<u8>),
}

/// `file`'s bytes for a new entry: joined to `source` when the format takes them as they
/// are (`as_is`) and the file has [`READ_BELOW`] bytes or more, else read.
fn payload_of(file: &Path, source: &mut Joined<'_>, as_is: bool) -> std::io::Result<NewPayload> {
    let opened = crate::regular::open(file)?;
    let meta = opened.metadata()?;
    if as_is && meta.len() >= READ_BELOW {
        let offset = source.push(file.to_path_buf(), &meta);
        return Ok(NewPayload::Joined {
            offset,
            len: meta.len(),
        });
    }
    crate::regular::read_open(opened, crate::regular::ENTRY_MAX).map(NewPayload::Read)
}

/// Whether `path` names the file `file` is open on (links followed): `repack -o` given the
/// archive itself is an edit in place.
fn names_file(path: &Path, file: &std::fs::File) -> bool {
    #[cfg(unix)]
    {
        match (std::fs::metadata(path), file.metadata()) {
            (Ok(a), Ok(b)) => crate::regular::same_file(&a, &b),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (path, file);
        false
    }
}
