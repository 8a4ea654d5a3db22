//! `ngi unpack ARCHIVE -o DIR`: every entry decoded into a file (named as `extract` names
//! them), and `DIR/ngi.toml`, the manifest `ngi pack` rebuilds the archive from byte for
//! byte (see `manifest`). An RsLi entry whose packed bytes packing the file again would not
//! reproduce (a Deflate stream from another compressor, say, or an entry that does not
//! decode) also keeps its packed stream, before XOR, in `FILE.packed`.
//!
//! An unpack that fails leaves nothing of its own: what the limits would stop midway is
//! refused before a file is written, and a failure on the way removes the files written
//! before it (and the folder, if the run made it and nothing else is in it).

use std::cell::RefCell;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

use ngi_core::archive::{Lookup, Native};
use ngi_core::codec::{self, PackOptions};
use ngi_core::limits::Budget;
use ngi_core::nres::LookupTable;
use ngi_core::{Method, rsli};
use sha2::{Digest, Sha256};

use super::edit::refuse_existing_in;
use super::extract::{create, unique_file_name};
use crate::args::Source;
use crate::editing::AnyEditor;
use crate::folder::Folder;
use crate::manifest::{self, EntryRecord, FILE_NAME, GAPS_NAME, Gap, Manifest, hex};
use crate::names;
use crate::open::{ArchiveFile, EntryError, after_entry};
use crate::report::{Failure, ShowPath, done, progress_bar, say_over};
use crate::save::{Replacing, prepare_atomic_in};

/// NRes payloads start on multiples of this; zero padding up to it is implied.
const ALIGN: u64 = 8;

pub fn run(source: &Source, archive: &ArchiveFile, dir: &Path, force: bool) -> Result<(), Failure> {
    let shown = source.archive.shown();
    let bad = |m: String| Failure::Bad(format!("{shown}: {m}"));
    let editor = AnyEditor::open(archive, &source.archive)?;
    let layout = Layout::of(archive, &editor);
    let trailer = match &editor {
        AnyEditor::Nres(_) => None,
        AnyEditor::Rsli(e) => e.trailer(),
    };
    // What would stop the run midway is refused before a file is written.
    if let Some((index, message)) = refused_up_front(archive, &layout, source.limits) {
        return Err(bad(entry_failure(archive, index, &message)));
    }
    let floor = manifest_floor(archive, layout.overlay);
    if floor > crate::manifest::MAX_LEN {
        return Err(bad(too_large_a_manifest(archive.len(), floor, "at least ")));
    }
    let new_folders: Vec<PathBuf> = dir
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_err())
        .map(Path::to_path_buf)
        .collect();
    let folder = super::open_output_folder(dir, archive)?;
    let manifest_path = folder.join(FILE_NAME);
    refuse_existing_in(&folder, FILE_NAME, force)?;
    let output = Output {
        folder: &folder,
        force,
        held: RefCell::default(),
        committed: std::cell::Cell::new(0),
    };
    let mut written = Written {
        output: &output,
        files: Vec::new(),
        // A folder that may not be listed (mode 0300) lists nothing.
        before: folder.names().unwrap_or_default(),
        new_folders,
    };
    let outcome = unpack_entries(source, archive, &layout, &output, &mut written)
        .map_err(|(index, message)| bad(entry_failure(archive, index, &message)))
        .and_then(|Unpacked { records, mut payloads }| {
            let gaps = gaps(archive, &layout.region, &mut payloads, layout.is_nres, |_| true)
                .map_err(|e| bad(e.to_string()))?;
            let gaps_file = (!gaps.is_empty()).then(|| GAPS_NAME.to_string());
            if let Some(file) = &gaps_file {
                write_new_with(&output, file, |out| copy_gaps(archive, &gaps, out))?;
                written.files.push(file.clone());
            }
            let manifest = manifest_of(
                archive,
                &editor,
                &layout.region,
                trailer,
                (gaps, gaps_file),
                records,
            );
            let text = toml::to_string_pretty(&manifest).map_err(|e| bad(e.to_string()))?;
            let text = format!(
                "# Made by `ngi unpack`; `ngi pack {} -o ARCHIVE` rebuilds the archive from it.\n{text}",
                // A line break in the folder's name would end the comment.
                crate::report::printable(&dir.shown().to_string())
            );
            // One pack would refuse: the unpack would be of no use to it.
            // Every test's unpack checks that the floor is one.
            debug_assert!(floor <= text.len(), "floor {floor}, manifest {}", text.len());
            if text.len() > crate::manifest::MAX_LEN {
                return Err(bad(too_large_a_manifest(archive.len(), text.len(), "")));
            }
            // Everything written, the manifest too, and no signal yet: from here on the
            // replacements and then the manifest take their places, whatever comes (a
            // first signal during the commit of 20 000 files had left them in place and
            // the old manifest beside them). A second signal still ends the process.
            let fill = |out: &mut dyn Write| out.write_all(text.as_bytes());
            let about = |e| Failure::about(manifest_path.shown(), e);
            let prepared = prepare_atomic_in(&folder, FILE_NAME.as_ref(), fill).map_err(about)?;
            if let Err(e) = crate::save::stopped() {
                prepared.abandon();
                return Err(about(e));
            }
            if let Err(e) = output.commit() {
                prepared.abandon();
                return Err(Failure::about(dir.shown(), e));
            }
            prepared.commit().map_err(about)?;
            Ok(manifest)
        });
    let manifest = match outcome {
        Ok(manifest) => manifest,
        Err(Failure::Bad(message)) => return Err(Failure::Bad(message + &written.discard())),
        Err(other) => return Err(other),
    };
    let files = manifest.entry.iter().filter(|e| e.file.is_some()).count();
    let kept = manifest.entry.iter().filter(|e| e.packed.is_some()).count();
    done(format_args!(
        "{}: {} of {shown} unpacked ({}, {} kept), manifest {}",
        dir.shown(),
        crate::count::entries(manifest.entry.len()),
        crate::count::of(files as u64, "file", "files"),
        crate::count::of(kept as u64, "packed stream", "packed streams"),
        manifest_path.shown()
    ));
    Ok(())
}

/// The gaps of `archive` (as `unpack` lists them in its manifest: the runs of its data
/// region outside every payload, but for the zero padding after an NRes payload) that
/// come right after the payload of one of the entries `after` (sorted).
pub(super) fn gaps_after(
    archive: &ArchiveFile,
    editor: &AnyEditor,
    after: &[usize],
) -> std::io::Result<Vec<(u64, u64)>> {
    let layout = Layout::of(archive, editor);
    let entries = archive.catalog.entries().iter().enumerate();
    let mut payloads = Vec::new();
    let mut ends = Vec::new();
    for (index, entry) in entries {
        let (start, len) = span_of(entry, layout.overlay);
        let Some(payload) = layout.inside(start, len) else {
            continue;
        };
        payloads.push(payload);
        if after.binary_search(&index).is_ok() {
            ends.push(payload.1);
        }
    }
    ends.sort_unstable();
    let after_one = |start: u64| ends.binary_search(&start).is_ok();
    let gaps = gaps(
        archive,
        &layout.region,
        &mut payloads,
        layout.is_nres,
        after_one,
    )?;
    Ok(gaps.iter().map(|g| (g.offset, g.offset + g.len)).collect())
}

/// Where the archive's payloads may lie, and how its records' offsets map into the file.
struct Layout {
    /// The data region: the bytes between the header (and RsLi table) and the NRes
    /// directory or the RsLi trailer.
    region: std::ops::Range<u64>,
    /// RsLi: the media overlay added to every offset.
    overlay: u64,
    is_nres: bool,
}

impl Layout {
    fn of(archive: &ArchiveFile, editor: &AnyEditor) -> Layout {
        match editor {
            AnyEditor::Nres(_) => Layout {
                region: 16..archive.catalog.directory_offset(),
                overlay: 0,
                is_nres: true,
            },
            AnyEditor::Rsli(e) => Layout {
                region: e.payload_region(),
                overlay: u64::from(archive.catalog.overlay().unwrap_or(0)),
                is_nres: false,
            },
        }
    }

    /// The part of the payload at `start`, `len` bytes long, that lies in the data region:
    /// `None` for one outside it (SPEC 2.7's Deflate entry one byte past the end of the
    /// file, a broken record), whose bytes in the region are kept as gap bytes and its
    /// record as it is. An NRes payload counts only whole; an RsLi payload that runs past
    /// the end keeps the bytes that exist, as the editor keeps them.
    fn inside(&self, start: u64, len: u64) -> Option<(u64, u64)> {
        let region = &self.region;
        let end = start.saturating_add(len);
        let inside = if self.is_nres {
            start >= region.start && end <= region.end
        } else {
            start >= region.start && start < region.end
        };
        inside.then(|| (start, end.min(region.end)))
    }
}

/// The files a run has written in its folder, removed if it fails: without the manifest
/// they are no unpacked archive, and they would be in the way of the next try.
struct Written<'a> {
    output: &'a Output<'a>,
    files: Vec<String>,
    /// What the folder held before the run: a file of these names that the run replaced
    /// (`--force`) is left, as no file of the run's own is removed that was there before.
    before: HashSet<std::ffi::OsString>,
    /// The folders the run made, the innermost first: removed too if left empty.
    new_folders: Vec<PathBuf>,
}

impl Written<'_> {
    /// Removes the files the run made, then the folders it made if they are left empty;
    /// says so for the end of the failure's line.
    fn discard(&self) -> String {
        self.output.abandon();
        let (replaced, made): (Vec<&String>, Vec<&String>) = self
            .files
            .iter()
            .partition(|file| self.before.contains(std::ffi::OsStr::new(file.as_str())));
        let removed = made
            .iter()
            .filter(|file| self.output.folder.remove(file).is_ok())
            .count();
        let mut gone = None;
        for folder in &self.new_folders {
            if std::fs::remove_dir(folder).is_err() {
                break;
            }
            gone = Some(folder);
        }
        if let Some(folder) = gone.filter(|_| replaced.is_empty()) {
            return format!(" (nothing unpacked; {} removed)", folder.shown());
        }
        let mut said = match removed {
            0 => String::new(),
            1 => " (the 1 file written was removed".into(),
            n => format!(" (the {n} files written were removed"),
        };
        // Replacements wait for the whole unpack, so they are in place only when it
        // failed at its very end (the manifest's write).
        let committed = self.output.committed.get();
        if !replaced.is_empty() && committed == 0 {
            said += if said.is_empty() { " (" } else { "; " };
            said += &match replaced.len() {
                1 => "the 1 file --force would have replaced left as it was".to_string(),
                n => format!("the {n} files --force would have replaced left as they were"),
            };
        } else if !replaced.is_empty() {
            said += if said.is_empty() { " (" } else { "; " };
            said += &match committed {
                1 => "the 1 file replaced under --force left as written".to_string(),
                n => format!("the {n} files replaced under --force left as written"),
            };
            // The folder's manifest, if it had one, is the archive unpacked there before:
            // `pack` would take the replaced files for edits of that archive's entries.
            if self.before.contains(std::ffi::OsStr::new(FILE_NAME)) {
                said += &format!(
                    "; the folder's {} is still the archive unpacked there before, which \
                     these files do not belong to: unpack again before packing it",
                    FILE_NAME
                );
            }
        }
        if !said.is_empty() {
            said.push(')');
        }
        said
    }
}

/// Every entry unpacked into `folder` in entry order. An entry that cannot be unpacked in
/// full is reported on its own line and kept as its record (and packed bytes) says; a
/// fault that leaves the archive's bytes without a place in the folder stops the run, with
/// the entry's index.
fn unpack_entries(
    source: &Source,
    archive: &ArchiveFile,
    layout: &Layout,
    output: &Output<'_>,
    written: &mut Written<'_>,
) -> Result<Unpacked, (usize, String)> {
    let catalog = &archive.catalog;
    let mut taken: HashSet<String> = [FILE_NAME, GAPS_NAME]
        .iter()
        .map(|n| n.to_ascii_lowercase())
        .collect();
    let mut budget = Budget::new(source.limits);
    let mut records = Vec::with_capacity(catalog.len());
    let mut payloads: Vec<(u64, u64)> = Vec::new();
    let bar = progress_bar(catalog.len());
    for (index, entry) in catalog.entries().iter().enumerate() {
        // Ctrl-C: the files written so far are removed, as for any failure.
        crate::save::stopped().map_err(|e| (index, e.to_string()))?;
        let file = unique_file_name(&mut taken, &names::file_name(entry.name()), index);
        bar.set_message(file.clone());
        let (mut record, (start, len)) = record_of(entry, layout.overlay);
        let inside = layout.inside(start, len);
        payloads.extend(inside);
        let outcome = if layout.is_nres {
            let sink = (output, file.as_str());
            unpack_nres(
                archive,
                index,
                inside.is_some(),
                sink,
                &mut budget,
                &mut record,
            )
        } else {
            let range = (start, inside.map_or(len, |(start, end)| end - start));
            let sink = (output, file.as_str());
            unpack_rsli(
                archive,
                index,
                range,
                sink,
                &mut budget,
                &mut taken,
                &mut record,
            )
        };
        written
            .files
            .extend(record.file.iter().chain(&record.packed).cloned());
        match outcome {
            Ok(()) => {}
            Err(Stop::Entry(message)) => say_over(
                &bar,
                format_args!(
                    "{}: entry {index} (\"{}\") not decoded, {}: {}",
                    source.archive.shown(),
                    names::display(entry.name()),
                    if record.packed.is_some() {
                        "its packed bytes kept"
                    } else {
                        "its record kept"
                    },
                    after_entry(index, &message)
                ),
            ),
            Err(Stop::All(message)) => {
                bar.finish_and_clear();
                return Err((index, message));
            }
        }
        records.push(record);
        bar.inc(1);
    }
    bar.finish_and_clear();
    Ok(Unpacked { records, payloads })
}

/// The entries' records, and the spans of their payloads in the data region.
struct Unpacked {
    records: Vec<EntryRecord>,
    payloads: Vec<(u64, u64)>,
}

/// The manifest record of `entry`, every field as stored, and its payload's range in the
/// file (RsLi: real offset, with `overlay`; the span the engine reads).
fn record_of(entry: &ngi_core::archive::Entry, overlay: u64) -> (EntryRecord, (u64, u64)) {
    let mut record = EntryRecord {
        name: names::display(entry.name()),
        ..EntryRecord::default()
    };
    match &entry.native {
        Native::Nres(r) => {
            let e = r.entry();
            record.name_tail = tail_hex(&e.name_field[..], e.name().len());
            if !e.name_field.contains(&0) {
                record.name_field = Some(hex(&e.name_field[..]));
            }
            record.type_id = Some(e.type_id);
            record.attr1 = Some(e.attr1);
            record.attr2 = Some(e.attr2);
            record.attr3 = Some(e.attr3);
            record.sort_index = Some(e.sort_index);
            record.offset = Some(e.data_offset);
            record.size = Some(e.size);
        }
        Native::Rsli(e) => {
            record.name_tail = tail_hex(&e.name, e.name().len());
            record.method = entry.method.map(|m| m.name().to_string());
            record.flags = Some(e.flags);
            record.reserved = (e.reserved != [0; 4]).then(|| hex(&e.reserved));
            record.unpacked_size = Some(e.unpacked_size);
            record.sort_index = Some(u32::from(e.file_sort_index));
            let xor = entry.method.is_some_and(Method::uses_xor);
            record.key = (xor && e.sort_index != e.file_sort_index).then_some(e.data_key());
            record.offset = Some(e.data_offset);
            record.size = Some(e.packed_size);
        }
    }
    (record, span_of(entry, overlay))
}

/// Where `entry`'s payload lies in the file and how long it is (RsLi: real offset, with
/// `overlay`; the span the engine reads).
fn span_of(entry: &ngi_core::archive::Entry, overlay: u64) -> (u64, u64) {
    match &entry.native {
        Native::Nres(r) => {
            let e = r.entry();
            (u64::from(e.data_offset), u64::from(e.size))
        }
        Native::Rsli(e) => (u64::from(e.data_offset) + overlay, rsli::span_len(e)),
    }
}

/// A floor under the length of the manifest a run would write: each entry's record as
/// the directory gives it (all but the file names and digests the run adds). An archive
/// whose manifest pack could never read is refused by it before a file is written: a
/// million empty entries took 210 s and 1.2 GB to be refused at the end.
fn manifest_floor(archive: &ArchiveFile, overlay: u64) -> usize {
    const HEADING: &str = "\n[[entry]]\n";
    let entries = archive.catalog.entries().iter();
    entries
        .map(|entry| {
            let (record, _) = record_of(entry, overlay);
            HEADING.len() + toml::to_string(&record).map_or(0, |text| text.len())
        })
        .sum()
}

/// The refusal of a manifest of `len` bytes (`at_least` that many) for `entries`.
fn too_large_a_manifest(entries: usize, len: usize, at_least: &str) -> String {
    format!(
        "the manifest of its {entries} entries would be {at_least}{len} bytes, more than the \
         {} pack reads (extract gives the entries' files)",
        crate::manifest::MAX_LEN
    )
}

/// The manifest of the unpacked archive.
fn manifest_of(
    archive: &ArchiveFile,
    editor: &AnyEditor,
    region: &std::ops::Range<u64>,
    trailer: Option<[u8; rsli::TRAILER_LEN]>,
    (gaps, gaps_file): (Vec<Gap>, Option<String>),
    records: Vec<EntryRecord>,
) -> Manifest {
    let catalog = &archive.catalog;
    let is_nres = matches!(editor, AnyEditor::Nres(_));
    let lookup = match (catalog.lookup_table(), editor) {
        (Lookup::Nres(LookupTable::Canonical), _) => true,
        (Lookup::Rsli(_), AnyEditor::Rsli(_)) => rsli_is_canonical(catalog.entries()),
        _ => false,
    };
    let header = match catalog.header() {
        ngi_core::archive::Header::Rsli(h) => Some(*h),
        _ => None,
    };
    let mut records = records;
    if !lookup {
        for (index, record) in (0u32..).zip(&mut records) {
            record.index = Some(index);
        }
    }
    Manifest {
        ngi_manifest: manifest::VERSION,
        format: if is_nres { "nres" } else { "rsli" }.into(),
        lookup: if lookup { "canonical" } else { "as-stored" }.into(),
        data_start: region.start,
        data_end: region.end,
        header: header.map(|h| hex(&h.raw)),
        seed: header.map(|h| h.seed),
        presorted_flag: header.map(|h| h.presorted_flag),
        trailer: trailer.map(|t| hex(&t)),
        media_overlay: catalog.overlay(),
        gaps: gaps_file,
        gap: gaps,
        entry: records,
    }
}

/// Why an entry was not unpacked in full: it alone (kept packed), or the whole run.
enum Stop {
    Entry(String),
    All(String),
}

/// The first entry that would stop the run midway if it came to it, found from the
/// directory alone: one the limits refuse where that ends the run (the total limit; an
/// NRes payload in the data region, whose bytes would have no place in the folder).
fn refused_up_front(
    archive: &ArchiveFile,
    layout: &Layout,
    limits: ngi_core::limits::Limits,
) -> Option<(usize, String)> {
    if let Some(refused) = into_the_trailer(archive, layout) {
        return Some(refused);
    }
    let mut budget = Budget::new(limits);
    (0..archive.len()).find_map(|index| match archive.admit_entry(index, &mut budget) {
        Err(EntryError::Total(message)) => Some((index, message)),
        Err(EntryError::Archive(message)) if layout.is_nres => {
            let entry = archive.entry(index)?;
            let (_, (start, len)) = record_of(entry, layout.overlay);
            layout.inside(start, len).map(|_| (index, message))
        }
        _ => None,
    })
}

/// An RsLi entry whose bytes run from the payloads into the `AO` trailer after them: the
/// manifest keeps the trailer apart, after the payloads, and `pack` would find the
/// entry's bytes cut short at the payloads' end and refuse the folder. (The edits refuse
/// such a library too; `extract` reads its entries.)
fn into_the_trailer(archive: &ArchiveFile, layout: &Layout) -> Option<(usize, String)> {
    let file_len = archive.catalog.file_len();
    if layout.is_nres || layout.region.end >= file_len {
        return None;
    }
    archive
        .entries()
        .iter()
        .enumerate()
        .find_map(|(index, entry)| {
            // What the engine reads: a stored entry's `packed_size` past its `unpacked_size`
            // is no read, and packs back as it was.
            let len = u64::from(entry.as_rsli()?.stream_len());
            let (start, _) = span_of(entry, layout.overlay);
            let end = start.saturating_add(len);
            (layout.inside(start, len).is_some() && end > layout.region.end).then(|| {
                (
                    index,
                    format!(
                        "what it reads at offset {start} ({}) runs past the payloads' end \
                         ({}) into the \"AO\" media trailer, which the manifest keeps \
                         apart: pack could not rebuild the library from the folder (extract \
                         reads its entries)",
                        crate::count::bytes(len),
                        layout.region.end
                    ),
                )
            })
        })
}

/// The line of a failure that stops the run at entry `index`.
fn entry_failure(archive: &ArchiveFile, index: usize, message: &str) -> String {
    let name = archive
        .entry(index)
        .map(|e| names::display(e.name()))
        .unwrap_or_default();
    format!(
        "entry {index} (\"{name}\"): {}",
        after_entry(index, message)
    )
}

/// Where an entry's file goes: the run's output, and the file's name in the folder.
type Sink<'s, 'o> = (&'s Output<'o>, &'s str);

/// The folder the run writes its files in, whether `--force` replaces files there, and
/// the replacements written so far. A replacement takes its target's place only once the
/// whole unpack has been written, the manifest included ([`commit`](Output::commit)): a
/// run that fails or is stopped before leaves every file it would have replaced as it was
/// (a probe's run, stopped by SIGTERM, had already put the archive's version over the
/// user's edited file, which a later `pack` would have taken for the entry).
struct Output<'a> {
    folder: &'a Folder,
    force: bool,
    held: RefCell<Vec<Replacing<'a>>>,
    /// How many replacements took their targets' places.
    committed: std::cell::Cell<usize>,
}

impl<'a> Output<'a> {
    /// Opens the file to write as `file` (see [`create`]).
    fn create(&self, file: &str) -> std::io::Result<(Replacing<'a>, std::fs::File)> {
        create(self.folder, file, self.force)
    }

    /// A file written in full: a new one is in place already, a replacement waits.
    fn keep(&self, written: Replacing<'a>) -> std::io::Result<()> {
        if written.replaces() {
            self.held.borrow_mut().push(written);
            Ok(())
        } else {
            written.finish()
        }
    }

    /// Puts every replacement in its target's place.
    fn commit(&self) -> std::io::Result<()> {
        let mut held = self.held.take().into_iter();
        for written in held.by_ref() {
            if let Err(e) = written.finish() {
                held.for_each(Replacing::abandon);
                return Err(e);
            }
            self.committed.set(self.committed.get() + 1);
        }
        Ok(())
    }

    /// Removes the replacements written and not committed.
    fn abandon(&self) {
        self.held.take().into_iter().for_each(Replacing::abandon);
    }
}

fn unpack_nres(
    archive: &ArchiveFile,
    index: usize,
    inside: bool,
    (output, file): Sink<'_, '_>,
    budget: &mut Budget,
    record: &mut EntryRecord,
) -> Result<(), Stop> {
    match stream_new(archive, index, output, file, budget) {
        Ok(digest) => {
            record.sha256 = Some(digest);
            record.file = Some(file.to_string());
            Ok(())
        }
        Err(e) => Err(match e {
            // A payload in the data region is part of the archive's bytes: without its
            // file, pack could not give them back.
            EntryError::Archive(m) if inside => Stop::All(m),
            EntryError::Archive(m) => Stop::Entry(m),
            EntryError::Total(m) => Stop::All(m),
            EntryError::Output(e) => {
                Stop::All(format!("{}: {e}", output.folder.join(file).shown()))
            }
        }),
    }
}

/// Decodes entry `index` into the new file `file` of the output a piece at a time;
/// returns its SHA-256. A file not written whole is not kept (one `--force` would replace
/// stays as it was).
fn stream_new(
    archive: &ArchiveFile,
    index: usize,
    output: &Output<'_>,
    file: &str,
    budget: &mut Budget,
) -> Result<String, EntryError> {
    let (replacing, mut out) = output.create(file).map_err(EntryError::Output)?;
    let mut hashing = Hashing {
        inner: &mut out,
        hasher: Sha256::new(),
    };
    let streamed = archive.stream(index, &mut hashing, budget);
    let digest = hex(&hashing.hasher.finalize());
    let written = streamed.and_then(|_| out.flush().map_err(EntryError::Output));
    drop(out);
    match written {
        Ok(()) => output
            .keep(replacing)
            .map(|()| digest)
            .map_err(EntryError::Output),
        Err(e) => {
            replacing.abandon();
            Err(e)
        }
    }
}

/// Entry `index`, which the limits let through, decoded into `decoded`, its room reserved
/// first without aborting: where memory is short that is an error of the entry (it
/// aborted the process), and unpack keeps its packed bytes instead.
fn decode_whole(archive: &ArchiveFile, index: usize, decoded: &mut Vec<u8>) -> Result<(), String> {
    let size = archive.entry(index).map_or(0, |e| e.size);
    usize::try_from(size)
        .ok()
        .and_then(|n| decoded.try_reserve_exact(n).ok())
        .ok_or_else(|| format!("its {size} bytes are more than the memory there is"))?;
    match archive.stream_admitted(index, decoded) {
        Ok(_) => Ok(()),
        Err(EntryError::Archive(m) | EntryError::Total(m)) => Err(m),
        Err(EntryError::Output(e)) => Err(e.to_string()),
    }
}

fn unpack_rsli(
    archive: &ArchiveFile,
    index: usize,
    (start, len): (u64, u64),
    (output, file): Sink<'_, '_>,
    budget: &mut Budget,
    taken: &mut HashSet<String>,
    record: &mut EntryRecord,
) -> Result<(), Stop> {
    let Some(entry) = archive.entry(index) else {
        return Ok(());
    };
    let Native::Rsli(native) = entry.native else {
        return Ok(());
    };
    // A record may claim more than the file holds: read only what is there. Those bytes
    // are read a piece at a time (they may be as large as the file, whatever the limits
    // on decoding); only the decoded bytes, within the limits, are held whole.
    let packed = ArchiveBytes {
        archive,
        start,
        len: archive.catalog.file_len().saturating_sub(start).min(len),
        key: entry.key,
        xor_len: rsli::xor_len(&native),
    };
    let unreadable = |e: std::io::Error| Stop::All(format!("reading its packed bytes: {e}"));
    let method = entry.method;
    let keep_packed = |taken: &mut HashSet<String>, record: &mut EntryRecord| {
        let name = unique_file_name(taken, &format!("{file}.packed"), index);
        write_new_with(output, &name, |out| {
            packed.each_piece(|piece| out.write_all(piece).map(|()| true))
        })
        .map_err(|e| Stop::All(e.message().into()))?;
        record.packed = Some(name);
        Ok(())
    };
    // A stored entry's decoded bytes are its packed bytes (all of them when packed_size
    // is no larger), so packing them again gives the packed bytes back whenever they
    // decode: streamed to its file, as an NRes payload is, never held whole (a 200 MiB
    // entry took 600 MiB, and aborted the process where memory was short).
    if method == Some(Method::Stored) && native.packed_size <= native.unpacked_size {
        return match stream_new(archive, index, output, file, budget) {
            Ok(digest) => {
                record.sha256 = Some(digest);
                record.file = Some(file.to_string());
                Ok(())
            }
            Err(EntryError::Archive(m)) => {
                keep_packed(taken, record)?;
                Err(Stop::Entry(m))
            }
            Err(EntryError::Total(m)) => Err(Stop::All(m)),
            Err(EntryError::Output(e)) => Err(Stop::All(format!(
                "{}: {e}",
                output.folder.join(file).shown()
            ))),
        };
    }
    let mut decoded = Vec::new();
    let result = match archive.admit_entry(index, budget) {
        Ok(()) => decode_whole(archive, index, &mut decoded),
        Err(EntryError::Total(m)) => return Err(Stop::All(m)),
        Err(EntryError::Archive(m)) => Err(m),
        Err(EntryError::Output(e)) => Err(e.to_string()),
    };
    // Where memory is short to pack it again, it is not reproduced: its packed bytes are
    // kept beside its file.
    let repacked = match method {
        Some(m) if result.is_ok() => codec::pack(m, 0, &decoded, &PackOptions::default()).ok(),
        _ => None,
    };
    let reproduced = match repacked {
        Some(repacked) => packed.equals(&repacked).map_err(unreadable)?,
        None => false,
    };
    if result.is_ok() {
        write_new(output, file, &decoded).map_err(|e| Stop::All(e.message().into()))?;
        record.sha256 = Some(hex(&Sha256::digest(&decoded)));
        record.file = Some(file.to_string());
    }
    if !reproduced {
        keep_packed(taken, record)?;
    }
    result.map_err(Stop::Entry)
}

/// `len` bytes of the archive from `start`, with the XOR of the first `xor_len` of them
/// removed: an RsLi entry's packed bytes as `unpack` keeps them (`FILE.packed`), or a gap
/// (no XOR).
struct ArchiveBytes<'a> {
    archive: &'a ArchiveFile,
    start: u64,
    len: u64,
    key: u16,
    xor_len: u64,
}

impl ArchiveBytes<'_> {
    /// Hands the bytes to `each` a piece of at most 1 MiB at a time, in order, while it
    /// returns `true`.
    fn each_piece(
        &self,
        mut each: impl FnMut(&[u8]) -> std::io::Result<bool>,
    ) -> std::io::Result<()> {
        const PIECE: u64 = 1 << 20;
        let mut buffer = vec![0u8; self.len.min(PIECE) as usize];
        let mut xor = codec::xor::XorStream::new(self.key);
        let mut at = 0;
        while at < self.len {
            let piece = &mut buffer[..(self.len - at).min(PIECE) as usize];
            let filled = self.archive.fill_at(self.start + at, piece)?;
            if filled < piece.len() {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!(
                        "the archive ends at offset {}",
                        self.start + at + filled as u64
                    ),
                ));
            }
            let xored = self.xor_len.saturating_sub(at).min(piece.len() as u64) as usize;
            xor.apply(&mut piece[..xored]);
            if !each(piece)? {
                break;
            }
            at += piece.len() as u64;
        }
        Ok(())
    }

    /// Whether the bytes are `expected`'s.
    fn equals(&self, expected: &[u8]) -> std::io::Result<bool> {
        if expected.len() as u64 != self.len {
            return Ok(false);
        }
        let (mut rest, mut same) = (expected, true);
        self.each_piece(|piece| {
            same = match rest.split_at_checked(piece.len()) {
                Some((head, tail)) => {
                    rest = tail;
                    head == piece
                }
                None => false,
            };
            Ok(same)
        })?;
        Ok(same)
    }
}

/// The runs of the data region outside every payload, but for the zero padding to a
/// multiple of 8 right after an NRes payload (implied), of those that start where `wanted`
/// says (the padding is read only for them).
fn gaps(
    archive: &ArchiveFile,
    region: &std::ops::Range<u64>,
    payloads: &mut [(u64, u64)],
    is_nres: bool,
    wanted: impl Fn(u64) -> bool,
) -> std::io::Result<Vec<Gap>> {
    payloads.sort_unstable();
    let ends: Vec<u64> = {
        let mut e: Vec<u64> = payloads.iter().map(|p| p.1).collect();
        e.sort_unstable();
        e
    };
    let mut uncovered = Vec::new();
    let mut pos = region.start;
    for &(start, end) in payloads.iter() {
        if start > pos {
            uncovered.push((pos, start));
        }
        pos = pos.max(end);
    }
    if region.end > pos {
        uncovered.push((pos, region.end));
    }
    let mut gaps = Vec::new();
    for (a, b) in uncovered.into_iter().filter(|&(a, _)| wanted(a)) {
        let mut from = a;
        if is_nres && a > region.start && ends.binary_search(&a).is_ok() {
            let pad_end = a.next_multiple_of(ALIGN).min(b);
            let pad = archive.read_at(a, (pad_end - a) as usize)?;
            if pad.iter().all(|&x| x == 0) {
                from = pad_end;
            }
        }
        if b > from {
            gaps.push(Gap {
                offset: from,
                len: b - from,
            });
        }
    }
    Ok(gaps)
}

/// The bytes of `gaps`, one after another, copied to `out` a piece at a time: a gap may be
/// as large as the archive.
fn copy_gaps(archive: &ArchiveFile, gaps: &[Gap], out: &mut std::fs::File) -> std::io::Result<()> {
    for gap in gaps {
        let bytes = ArchiveBytes {
            archive,
            start: gap.offset,
            len: gap.len,
            key: 0,
            xor_len: 0,
        };
        bytes
            .each_piece(|piece| out.write_all(piece).map(|()| true))
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => {
                    std::io::Error::new(e.kind(), format!("{e}, inside a gap"))
                }
                _ => e,
            })?;
    }
    Ok(())
}

/// Whether every stored `sort_index` is the engine's permutation, so that `pack` may
/// rebuild it.
fn rsli_is_canonical(entries: &[ngi_core::archive::Entry]) -> bool {
    is_engine_permutation(entries.iter().filter_map(|e| match e.native {
        Native::Rsli(r) => Some(r),
        Native::Nres(_) => None,
    }))
}

/// Whether the stored `sort_index` of every entry of `table` is the engine's permutation.
pub(super) fn is_engine_permutation(table: impl Iterator<Item = rsli::Entry>) -> bool {
    let mut table: Vec<rsli::Entry> = table.collect();
    rsli::compute_permutation(&mut table);
    table.iter().all(|e| e.sort_index == e.file_sort_index)
}

/// The bytes of `field` after the name and its NUL, in hex, when any is not zero.
fn tail_hex(field: &[u8], name_len: usize) -> Option<String> {
    let tail = field.get(name_len + 1..).unwrap_or_default();
    tail.iter().any(|&b| b != 0).then(|| hex(tail))
}

/// Writes `bytes` to the new file `file` of the output; a write that fails leaves no new
/// file behind, and a file `--force` would replace as it was.
fn write_new(output: &Output<'_>, file: &str, bytes: &[u8]) -> Result<(), Failure> {
    write_new_with(output, file, |out| out.write_all(bytes))
}

/// [`write_new`] of what `fill` writes.
fn write_new_with(
    output: &Output<'_>,
    file: &str,
    fill: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<(), Failure> {
    let written = output.create(file).and_then(|(replacing, mut out)| {
        let written = fill(&mut out).and_then(|()| out.flush());
        drop(out);
        match written {
            Ok(()) => output.keep(replacing),
            Err(e) => {
                replacing.abandon();
                Err(e)
            }
        }
    });
    written.map_err(|e| Failure::about(output.folder.join(file).shown(), e))
}

/// A writer that hashes what goes through it.
struct Hashing<'a, W: Write> {
    inner: &'a mut W,
    hasher: Sha256,
}

impl<W: Write> Write for Hashing<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}
