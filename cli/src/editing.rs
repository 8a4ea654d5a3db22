//! An archive of either format opened for editing, and its save: the core's editors
//! built from the catalog the archive was opened with (header and directory only), the
//! plan they make written atomically, with old payloads copied from the file in chunks.

use std::io::Write;
use std::path::Path;

use ngi_core::archive::{Header, Native};
use ngi_core::edit::{Plan, write_plan};
use ngi_core::io::ReadAt;
use ngi_core::{nres, rsli};

use crate::open::ArchiveFile;
use crate::report::Failure;
use crate::save::write_atomic;

/// The core's editor of the archive's format.
pub enum AnyEditor {
    Nres(nres::Editor),
    Rsli(rsli::Editor),
}

impl AnyEditor {
    /// An editor of `archive`, from what its catalog holds (no payload is read).
    pub fn open(archive: &ArchiveFile, path: &Path) -> Result<AnyEditor, Failure> {
        let shown = path.display();
        let catalog = &archive.catalog;
        match *catalog.header() {
            Header::Raw => Err(Failure::Bad(format!(
                "{shown}: an archive read in raw mode cannot be edited (drop --raw)"
            ))),
            Header::Nres(header) => {
                let mut directory = Vec::with_capacity(catalog.len() * nres::ENTRY_LEN);
                for entry in catalog.entries() {
                    if let Native::Nres(record) = &entry.native {
                        directory.extend_from_slice(&record.bytes);
                    }
                }
                nres::Editor::from_directory(&header, &directory)
                    .map(AnyEditor::Nres)
                    .map_err(|e| Failure::about(&shown, e))
            }
            Header::Rsli(header) => {
                let entries = catalog
                    .entries()
                    .iter()
                    .filter_map(|e| match e.native {
                        Native::Rsli(entry) => Some(entry),
                        Native::Nres(_) => None,
                    })
                    .collect();
                let len = catalog.file_len();
                let tail_len = len.min(rsli::TRAILER_LEN as u64);
                let tail = archive
                    .read_at(len - tail_len, tail_len as usize)
                    .map_err(|e| Failure::about(&shown, e))?;
                rsli::Editor::from_entries(&header, entries, len, &tail, catalog.overlay())
                    .map(AnyEditor::Rsli)
                    .map_err(|e| Failure::about(&shown, e))
            }
        }
    }

    pub fn len(&self) -> usize {
        match self {
            AnyEditor::Nres(e) => e.len(),
            AnyEditor::Rsli(e) => e.len(),
        }
    }

    pub fn remove(&mut self, index: usize) -> Result<(), String> {
        match self {
            AnyEditor::Nres(e) => e.remove(index).map_err(|e| e.to_string()),
            AnyEditor::Rsli(e) => e.remove(index).map_err(|e| e.to_string()),
        }
    }

    pub fn rename(&mut self, index: usize, name: &[u8]) -> Result<(), String> {
        match self {
            AnyEditor::Nres(e) => e.rename(index, name).map_err(|e| e.to_string()),
            AnyEditor::Rsli(e) => e.rename(index, name).map_err(|e| e.to_string()),
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

    pub fn canonicalize(&mut self) -> Result<(), String> {
        match self {
            AnyEditor::Nres(e) => e.canonicalize().map_err(|e| e.to_string()),
            AnyEditor::Rsli(e) => e.canonicalize().map_err(|e| e.to_string()),
        }
    }

    pub fn plan(&self) -> Result<Plan<'_>, String> {
        match self {
            AnyEditor::Nres(e) => e.plan().map_err(|e| e.to_string()),
            AnyEditor::Rsli(e) => e.plan().map_err(|e| e.to_string()),
        }
    }
}

/// Writes `plan` to `target` atomically, copying the old payloads from `source`.
pub fn save_plan<S: ReadAt + ?Sized>(
    plan: &Plan<'_>,
    source: &S,
    target: &Path,
) -> Result<(), Failure> {
    write_atomic(target, |out: &mut dyn Write| {
        write_plan(plan, source, out).map(drop)
    })
    .map_err(|e| Failure::Bad(format!("{}: not written: {e}", target.display())))
}
