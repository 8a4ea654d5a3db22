//! An archive of either format opened for editing, and its save: the core's editors
//! built from the catalog the archive was opened with (header and directory only), the
//! plan they make written atomically, with old payloads copied from the file in chunks.

use std::io::Write;
use std::path::Path;

use ngi_core::archive::{Error, Format, Native};
use ngi_core::edit::{Plan, write_plan};
use ngi_core::io::ReadAt;
use ngi_core::{nres, rsli};

use crate::open::{ArchiveFile, after_entry};
use crate::report::{Failure, ShowPath};

/// The core's editor of the archive's format.
pub enum AnyEditor {
    Nres(nres::Editor),
    Rsli(rsli::Editor),
}

impl AnyEditor {
    /// An editor of `archive`, from what its catalog holds (no payload is read).
    pub fn open(archive: &ArchiveFile, path: &Path) -> Result<AnyEditor, Failure> {
        let shown = path.shown();
        let catalog = &archive.catalog;
        match catalog.format() {
            Format::Nres => nres::Editor::from_catalog(catalog)
                .map(AnyEditor::Nres)
                .map_err(|e| match e {
                    Error::Nres(nres::NresError::RawMode) => Failure::Bad(format!(
                        "{shown}: a file read in raw mode has no directory to edit"
                    )),
                    e => Failure::about(&shown, e),
                }),
            Format::Rsli => {
                let editor =
                    rsli::Editor::from_catalog(catalog).map_err(|e| Failure::about(&shown, e))?;
                if let Some(message) = needs_overlay(archive, &editor) {
                    return Err(Failure::Bad(format!("{shown}: {message}")));
                }
                Ok(AnyEditor::Rsli(editor))
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            AnyEditor::Nres(e) => e.len(),
            AnyEditor::Rsli(e) => e.len(),
        }
    }

    /// Keeps the entries whose index `keep` accepts (see `nres::Editor::retain`).
    pub fn retain(&mut self, keep: impl FnMut(usize) -> bool) {
        match self {
            AnyEditor::Nres(e) => e.retain(keep),
            AnyEditor::Rsli(e) => e.retain(keep),
        }
    }

    pub fn rename(&mut self, index: usize, name: &[u8]) -> Result<(), String> {
        match self {
            AnyEditor::Nres(e) => e.rename(index, name).map_err(|e| e.to_string()),
            AnyEditor::Rsli(e) => e.rename(index, name).map_err(|e| e.to_string()),
        }
    }

    /// Whether `name` could be entry `index`'s by the format's rules (see
    /// `nres::Editor::check_name`): checked before [`find`](Self::find), which reads a
    /// name with a NUL, or RsLi's with a lower-case letter, as another entry's.
    pub fn check_name(&self, index: usize, name: &[u8]) -> Result<(), String> {
        match self {
            AnyEditor::Nres(e) => e.check_name(index, name).map_err(|e| e.to_string()),
            AnyEditor::Rsli(e) => e.check_name(index, name).map_err(|e| e.to_string()),
        }
    }

    /// Entry `index`'s name as it stands.
    pub fn name(&self, index: usize) -> Option<Vec<u8>> {
        match self {
            AnyEditor::Nres(e) => e.entry(index).map(|entry| entry.name().to_vec()),
            AnyEditor::Rsli(e) => e.entry(index).map(|entry| entry.name().to_vec()),
        }
    }

    /// The entry `name` means under the format's engine rules, once edited (the first
    /// match in directory order).
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        match self {
            AnyEditor::Nres(e) => e.find(name),
            AnyEditor::Rsli(e) => e.find(name),
        }
    }

    /// The editor's canonical form; a refusal names the entry as [`plan`](Self::plan)'s do,
    /// and says what would let it through: a name the canonical form cannot write is to
    /// be renamed, an entry whose bytes it cannot lay out removed.
    pub fn canonicalize(&mut self) -> Result<(), String> {
        let refused = match self {
            AnyEditor::Nres(e) => e.canonicalize().map_err(|e| {
                let hint = if nres_name_error(&e) {
                    Hint::Rename
                } else {
                    Hint::None
                };
                (e.to_string(), e.entry(), hint)
            }),
            AnyEditor::Rsli(e) => e.canonicalize().map_err(|e| {
                let hint = match e {
                    _ if rsli_name_error(&e) => Hint::Rename,
                    rsli::BuildError::PayloadOutside { .. } => Hint::Remove,
                    _ => Hint::None,
                };
                (e.to_string(), e.entry(), hint)
            }),
        };
        refused.map_err(|(message, entry, hint)| self.refusal(message, entry, hint))
    }

    pub fn plan(&self) -> Result<Plan<'_>, String> {
        match self {
            AnyEditor::Nres(e) => e.plan().map_err(|e| {
                let outside = matches!(e, nres::WriteError::OutsideNowInside { .. });
                self.refusal(e.to_string(), e.entry(), Hint::remove_if(outside))
            }),
            AnyEditor::Rsli(e) => e.plan().map_err(|e| {
                let outside = matches!(e, rsli::BuildError::OutsideChanged { .. });
                self.refusal(e.to_string(), e.entry(), Hint::remove_if(outside))
            }),
        }
    }

    /// Entry `index`'s index in the archive opened, `None` for an added one.
    pub fn source_index(&self, index: usize) -> Option<usize> {
        match self {
            AnyEditor::Nres(e) => e.source_index(index),
            AnyEditor::Rsli(e) => e.source_index(index),
        }
    }

    /// The plan's refusal `message` (about `entry`, if it names one) with the entry's
    /// name, numbered as `ngi list` showed the archive (the core numbers entries as the
    /// edit has them: after an `rm`, the entry listed as 1 was "entry 0"), and what the
    /// user can do (`hint`).
    pub fn refusal(&self, message: String, entry: Option<u32>, hint: Hint) -> String {
        let named = with_entry_label(&message, entry, |index| {
            let name = crate::names::display(&self.name(index)?);
            Some(match self.source_index(index) {
                Some(listed) => format!("entry {listed} (\"{name}\")"),
                None => format!("the added entry \"{name}\""),
            })
        });
        match hint {
            Hint::Remove => {
                format!("{named}; remove that entry first, or leave the archive as it is")
            }
            Hint::Rename => format!("{named}; rename that entry first"),
            Hint::None => named,
        }
    }
}

/// Whether an NRes writer refused a name (empty, too long, with a NUL): renaming helps.
pub fn nres_name_error(e: &nres::WriteError) -> bool {
    use nres::WriteError::{NameEmpty, NameHasNul, NameTooLong};
    matches!(e, NameEmpty { .. } | NameTooLong { .. } | NameHasNul { .. })
}

/// Whether an RsLi builder refused a name (empty, too long, with a NUL, not upper case).
pub fn rsli_name_error(e: &rsli::BuildError) -> bool {
    use rsli::BuildError::{NameEmpty, NameHasNul, NameNotUpperCase, NameTooLong};
    matches!(
        e,
        NameEmpty { .. } | NameTooLong { .. } | NameHasNul { .. } | NameNotUpperCase { .. }
    )
}

/// What would let a refused edit through.
#[derive(Clone, Copy)]
pub enum Hint {
    None,
    /// Removing the entry the refusal names (one the editor leaves where it is).
    Remove,
    /// Renaming it (a name the format's rules refuse).
    Rename,
}

impl Hint {
    fn remove_if(outside: bool) -> Hint {
        if outside { Hint::Remove } else { Hint::None }
    }
}

/// `message`, a core error about entry `entry` ("entry N: ..."), with the entry's name
/// after its index: the core's errors give the index alone, and an index after an edit is
/// not the one `ngi list` showed. `name` gives the name of entry N as the plan numbers it.
pub fn with_entry_name(
    message: &str,
    entry: Option<u32>,
    name: impl FnOnce(usize) -> Option<Vec<u8>>,
) -> String {
    with_entry_label(message, entry, |index| {
        let name = crate::names::display(&name(index)?);
        Some(format!("entry {index} (\"{name}\")"))
    })
}

/// `message`, a core error about entry `entry` ("entry N: ..."), its "entry N" replaced
/// by what `label` gives for N.
pub fn with_entry_label(
    message: &str,
    entry: Option<u32>,
    label: impl FnOnce(usize) -> Option<String>,
) -> String {
    let labelled = entry.and_then(|entry| {
        let index = usize::try_from(entry).ok()?;
        Some(format!(
            "{}: {}",
            label(index)?,
            after_entry(index, message)
        ))
    });
    labelled.unwrap_or_else(|| message.to_string())
}

/// Why a library that ends with an `AO` media trailer must not be edited as it was
/// opened. Opened without the trailer: an entry that lies outside the payloads read from
/// the start of the file, and inside them read from the overlay, is one the engine reads
/// with flag 2 (and a library built for it); edited without the overlay, such records are
/// kept as they are while the table and the payloads move under them, and every entry
/// would then read wrong with the flag. Opened with it (`--media-trailer`): the mirror
/// case, a library whose trailer only happens to be there, whose entries lie in the
/// payloads read from the start of the file and nowhere read from the overlay; edited
/// with it, they would all be left behind as bytes no record points at. `None` when the
/// trailer is absent or zero, when no entry with bytes says so (an empty one reads alike
/// anywhere), or when an entry says the opposite.
fn needs_overlay(archive: &ArchiveFile, editor: &rsli::Editor) -> Option<String> {
    let catalog = &archive.catalog;
    let overlay = catalog.trailer().filter(|&v| v != 0)?;
    let honoured = catalog.overlay().is_some();
    let region = editor.payload_region();
    let inside =
        |start: u64, len: u64| start >= region.start && start.saturating_add(len) <= region.end;
    // Per entry with bytes: (inside as opened, inside read the other way). As opened, the
    // effective offset includes the overlay when it is honoured.
    let fits = |e: &rsli::Entry| {
        let len = rsli::span_len(e);
        let stored = u64::from(e.data_offset);
        let (opened, other) = if honoured {
            (stored + u64::from(overlay), stored)
        } else {
            (stored, stored + u64::from(overlay))
        };
        (len > 0).then(|| (inside(opened, len), inside(other, len)))
    };
    let rsli_entries = || {
        catalog
            .entries()
            .iter()
            .filter_map(|entry| match &entry.native {
                Native::Rsli(e) => Some((entry, e)),
                Native::Nres(_) => None,
            })
    };
    if rsli_entries().any(|(_, e)| fits(e) == Some((true, false))) {
        return None;
    }
    rsli_entries().find_map(|(entry, e)| {
        (fits(e) == Some((false, true))).then(|| {
            let name = crate::names::display(entry.name());
            if honoured {
                format!(
                    "entry {} (\"{name}\") lies at offset {} read from the \"AO\" media \
                     trailer's overlay ({overlay}), outside the payloads ({}..{}), and \
                     inside them without it: the trailer seems not to be meant for this \
                     library; edit it without --media-trailer",
                    entry.index,
                    u64::from(e.data_offset) + u64::from(overlay),
                    region.start,
                    region.end
                )
            } else {
                format!(
                    "entry {} (\"{name}\") lies at offset {}, outside the payloads ({}..{}), \
                     unless the file's \"AO\" media trailer (overlay {overlay}) is honoured: \
                     give --media-trailer to read the library as the engine does with \
                     flag 2",
                    entry.index, e.data_offset, region.start, region.end
                )
            }
        })
    })
}

/// Takes `archive` (read from `path`) for an edit in place, so that two edits at once
/// cannot both read the old file and each put back its own version (the second save
/// silently dropping the first one's change): on Linux an exclusive advisory lock
/// (`flock`) on the file read, taken without waiting, and then the check that `path`
/// still names that file (an edit that finished meanwhile has renamed a new one over
/// it). The lock lasts until the file is closed, after the save. Elsewhere, or on a file
/// system that takes no locks, nothing is locked. Programs that take no such lock are
/// not kept out.
pub fn hold_for_edit(archive: &ArchiveFile, path: &Path) -> Result<(), Failure> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FlockOperation, flock};
        let shown = path.shown();
        let file = archive.file();
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => return Err(locked(path)),
            // A file system without locks (NFS without its lock service, some FUSE
            // mounts): the edit goes on unguarded, as elsewhere than Linux.
            Err(_) => return Ok(()),
            Ok(()) => {}
        }
        let opened = file.metadata().map_err(|e| Failure::about(&shown, e))?;
        let now = std::fs::metadata(path).map_err(|e| Failure::about(&shown, e))?;
        if !crate::regular::same_file(&opened, &now) {
            return Err(Failure::Bad(format!(
                "{shown}: the archive was replaced while it was read (another edit \
                 finished); nothing written, try again"
            )));
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (archive, path);
    Ok(())
}

/// The refusal of an archive another edit holds locked.
#[cfg(target_os = "linux")]
fn locked(path: &Path) -> Failure {
    Failure::Bad(format!(
        "{}: another edit of this archive is under way (it is locked); nothing written, try \
         again when it is done",
        path.shown()
    ))
}

/// Takes an existing `output` that a command replaces whole (`pack -o`, `repack -o` to
/// another file) as [`hold_for_edit`] takes an archive edited in place, so that an edit
/// of it under way cannot rename its own version over this command's afterwards: the
/// file there is opened and locked, and the lock held while the returned file is. `None`
/// when there is nothing there to guard, or no lock to be had (as for an edit).
pub fn hold_output(output: &Path) -> Result<Option<std::fs::File>, Failure> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FlockOperation, flock};
        let Ok(file) = crate::regular::open(output) else {
            return Ok(None);
        };
        if flock(&file, FlockOperation::NonBlockingLockExclusive)
            == Err(rustix::io::Errno::WOULDBLOCK)
        {
            return Err(locked(output));
        }
        Ok(Some(file))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = output;
        Ok(None)
    }
}

/// Writes `plan` to `target` atomically, copying the old payloads from `source`.
pub fn save_plan<S: ReadAt + ?Sized>(
    plan: &Plan<'_>,
    source: &S,
    target: &Path,
) -> Result<(), Failure> {
    save_plan_checked(plan, source, target, |_| Ok(()))
}

/// [`save_plan`], with `check` run on the written file before it takes the target's place
/// (see [`write_atomic`](crate::save::write_atomic)).
pub fn save_plan_checked<S: ReadAt + ?Sized>(
    plan: &Plan<'_>,
    source: &S,
    target: &Path,
    check: impl FnOnce(&Path) -> std::io::Result<()>,
) -> Result<(), Failure> {
    crate::save::write_atomic(
        target,
        |out: &mut dyn Write| write_plan(plan, source, out).map(drop),
        check,
    )
    .map_err(|e| Failure::Bad(format!("{}: not written: {e}", target.shown())))
}
