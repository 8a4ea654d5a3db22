//! `ngi pack DIR -o ARCHIVE`: the archive rebuilt from a folder `ngi unpack` made.
//!
//! The manifest describes the original archive exactly, so `pack` rebuilds it through the
//! core's editor: the original layout is put back together from the files (each unchanged
//! entry's bytes at its recorded offset, the gap bytes between them), and only what
//! differs is edited: a file whose SHA-256 changed is packed again with its entry's method
//! and replaces it (later payloads shift, keys that move are re-keyed), an entry listed
//! without an offset is new, an entry no longer listed is cut out. With nothing changed the
//! result is the unpacked archive, byte for byte.
//!
//! Every problem with the folder is found before anything is written and reported as one
//! line naming the entry and the field. What no field check can see (an offset, size or
//! `data_start` edited so that a record no longer points at its entry's bytes) is caught
//! by reading the archive written back before it takes the output's place: every entry
//! given a file must decode from it to that file's bytes.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use ngi_core::archive::Native;
use ngi_core::codec::xor::XorStream;
use ngi_core::codec::{self, PackOptions};
use ngi_core::io::ReadAt;
use ngi_core::nres::{self, Fields, NewEntry};
use ngi_core::{Method, rsli};
use sha2::{Digest, Sha256};

use super::edit::refuse_existing;
use crate::args::method_by_name;
use crate::editing::{hold_output, save_plan_checked, with_entry_name};
use crate::manifest::{EntryRecord, FILE_NAME, Gap, Manifest, VERSION, from_hex};
use crate::names;
use crate::report::{Failure, ShowPath, done};

/// NRes payloads start on multiples of this.
const ALIGN: u64 = 8;

pub fn run(dir: &Path, output: &Path, force: bool) -> Result<(), Failure> {
    let manifest_path = dir.join(FILE_NAME);
    let at = manifest_path.shown().to_string();
    let bad = |m: String| Failure::Bad(format!("{at}: {m}"));
    let bytes = read_manifest(&manifest_path).map_err(&bad)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = 1 + e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count();
        bad(format!(
            "line {line}: not UTF-8 (byte {at}); TOML is UTF-8 text"
        ))
    })?;
    let manifest: Manifest = crate::manifest::parse(&text).map_err(&bad)?;
    if manifest.ngi_manifest != VERSION {
        return Err(bad(format!(
            "ngi_manifest: version {} (this ngi reads {VERSION})",
            manifest.ngi_manifest
        )));
    }
    let nres = match manifest.format.as_str() {
        "nres" => true,
        "rsli" => false,
        other => {
            return Err(bad(format!(
                "format: \"{other}\" is neither \"nres\" nor \"rsli\""
            )));
        }
    };
    let rsli_fields = [
        ("header", manifest.header.is_some()),
        ("seed", manifest.seed.is_some()),
        ("presorted_flag", manifest.presorted_flag.is_some()),
        ("trailer", manifest.trailer.is_some()),
        ("media_overlay", manifest.media_overlay.is_some()),
    ];
    if let Some((field, _)) = rsli_fields.iter().find(|(_, present)| nres && *present) {
        return Err(bad(format!(
            "{field}: only an RsLi manifest has one (this one is NRes)"
        )));
    }
    let canonical = match manifest.lookup.as_str() {
        "canonical" => true,
        "as-stored" => false,
        other => {
            return Err(bad(format!(
                "lookup: \"{other}\" is neither \"canonical\" nor \"as-stored\""
            )));
        }
    };
    // NRes offsets and sizes are 32-bit; an RsLi offset adds a 32-bit overlay to one.
    let reach = if nres {
        u64::from(u32::MAX)
    } else {
        2 * u64::from(u32::MAX)
    };
    if manifest.data_end > reach {
        return Err(bad(format!(
            "data_end: {} is past what the format's 32-bit offsets reach",
            manifest.data_end
        )));
    }
    let planned = check_entries(&manifest.entry, dir, nres).map_err(&bad)?;
    let gaps = gap_spans(&manifest, dir).map_err(&bad)?;
    let gap_ranges: Vec<(u64, u64)> = gaps.iter().map(|g| (g.start, g.end)).collect();
    refuse_existing(output, force)?;
    refuse_own_input(output, &manifest_path, &manifest, dir, &planned)?;
    // An edit of the archive there under way must not put its version back over this.
    let held_output = hold_output(output)?;
    // As-stored values are entry indices: entries listed in another order than they
    // stood in get a table rebuilt for their new indices.
    let rebuild_table = canonical || moved(&planned);
    let built = if nres {
        pack_nres(&manifest, &planned, gaps, rebuild_table)
    } else {
        pack_rsli(&manifest, &planned, gaps, rebuild_table)
    };
    let (editor, source) = built.map_err(&bad)?;
    // A record left outside the payloads is one whose manifest fields no longer point at
    // its bytes (as `check_written` says of others), or one that lay outside them in the
    // archive unpacked already.
    let mut plan = match &editor {
        Built::Nres(e) => e.plan().map_err(|e| {
            let outside = matches!(e, nres::WriteError::OutsideNowInside { .. });
            (e.to_string(), e.entry(), outside)
        }),
        Built::Rsli(e) => e.plan().map_err(|e| {
            let outside = matches!(e, rsli::BuildError::OutsideChanged { .. });
            (e.to_string(), e.entry(), outside)
        }),
    }
    .map_err(|(e, entry, outside)| {
        let named = with_entry_name(&e, entry, |i| planned.get(i).map(|p| p.name.clone()));
        let hint = if outside {
            format!(
                " (are {} as unpack wrote them? if so, the entry lay there in the archive \
                 unpacked, and the changes made would alter it: remove it from the manifest)",
                record_fields(nres)
            )
        } else {
            String::new()
        };
        Failure::Bad(format!("{}: not written: {named}{hint}", output.shown()))
    })?;
    // The editor's header and directory (or table) come from the manifest, and the
    // source is the data region put back together from the folder's files (`Virtual`),
    // which holds no header nor directory: there is no file of the editor's to check it
    // against (`Plan::source_holds`). The files are checked as they are read, and the
    // archive written by `check_written`.
    plan.source_holds.clear();
    let media_trailer = manifest.media_overlay.is_some();
    let rebuilt = std::cell::Cell::new(0);
    save_plan_checked(&plan, &source, output, |written| {
        rebuilt.set(check_written(written, nres, media_trailer, &planned)?);
        Ok(())
    })?;
    drop(held_output);
    note_lookups(output, media_trailer);
    note_unlisted(&at, dir, &manifest, output);
    note_non_ascii_names(&at, &manifest);
    let changed = planned
        .iter()
        .filter(|p| p.original.is_some() && p.changed)
        .count();
    let added = planned.iter().filter(|p| p.original.is_none()).count();
    note_method_changes(&at, &planned);
    note_gaps_dropped(&at, &gap_ranges, &plan, |i| format!("gap {i}"));
    if !canonical && rebuilt.get() > 0 {
        // Its values are entry indices, which adding, removing or reordering entries
        // moves: the editor rebuilds the table then, whatever the manifest says.
        crate::report::say(format_args!(
            "{at}: lookup table rebuilt, {} of the manifest's sort_index values not kept \
             (they are entry indices, which adding, removing or reordering entries moves)",
            rebuilt.get()
        ));
    }
    done(format_args!(
        "{}: {} from {} ({changed} changed, {added} added), {} bytes",
        output.shown(),
        crate::count::entries(planned.len()),
        dir.shown(),
        plan.len()
    ));
    Ok(())
}

/// Says what `verify` would of the lookups in the archive written: a manifest may give an
/// entry a name no lookup finds (lower case in RsLi, the name of another entry), or a
/// table the engine cannot search (a presorted flag over values that are no entry
/// indices), which `pack` writes as the manifest says, as it does the archive unpacked.
fn note_lookups(output: &Path, media_trailer: bool) {
    let Some(written) = crate::open::ArchiveFile::reopen_written(output, media_trailer) else {
        return;
    };
    let out = output.shown();
    for problem in super::verify::lookup_problems(&written) {
        crate::report::say(format_args!(
            "{out}: note: {problem} (a problem to `ngi verify`; lookup = \"canonical\" \
             rebuilds the table)"
        ));
    }
    for note in super::verify::unreachable_names(&written) {
        crate::report::say(format_args!("{out}: note: {note}"));
    }
}

/// Says of each name typed with characters beyond ASCII that they were written as their
/// UTF-8 bytes: the engine's names are single bytes in the game's code page, and unpack
/// writes every byte beyond ASCII as `\xNN`, so such a name is a hand edit that may not
/// read as meant.
fn note_non_ascii_names(manifest_at: &str, manifest: &Manifest) {
    for (pos, r) in manifest.entry.iter().enumerate() {
        if !r.name.is_ascii() {
            let name = names::parse_argument(r.name.as_bytes());
            crate::report::say(format_args!(
                "{manifest_at}: {}: name written as the UTF-8 bytes of its characters beyond \
                 ASCII (the engine reads single bytes, in the game's code page; write others \
                 as \\xNN)",
                entry_label(pos, &name)
            ));
        }
    }
}

/// Says which regular files in the folder no record lists (hidden ones aside, and the
/// archive just written, when it was written there): a file put there for a new entry
/// whose record was forgotten is not packed, and "0 added" was all that told.
fn note_unlisted(manifest_at: &str, dir: &Path, manifest: &Manifest, output: &Path) {
    const SHOWN: usize = 5;
    let Ok(names) = std::fs::read_dir(dir) else {
        return;
    };
    let listed: std::collections::HashSet<&str> = manifest
        .entry
        .iter()
        .flat_map(|r| r.file.iter().chain(&r.packed))
        .chain(&manifest.gaps)
        .map(String::as_str)
        .chain([FILE_NAME])
        .collect();
    let unlisted: Vec<std::ffi::OsString> = names
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name())
        .filter(|n| !n.as_encoded_bytes().starts_with(b"."))
        .filter(|n| n.to_str().is_none_or(|n| !listed.contains(n)))
        .collect();
    // `-o DIR/NEW.rsli` made a file no record lists, which is no forgotten input.
    let written = std::fs::canonicalize(output).ok();
    let mut unlisted: Vec<String> = unlisted
        .into_iter()
        .filter(|n| written.is_none() || std::fs::canonicalize(dir.join(n)).ok() != written)
        .map(|n| std::path::Path::new(&n).shown().to_string())
        .collect();
    if unlisted.is_empty() {
        return;
    }
    unlisted.sort_unstable();
    let count = unlisted.len();
    if count > SHOWN {
        unlisted.truncate(SHOWN);
        unlisted.push(format!("and {} more", count - SHOWN));
    }
    crate::report::say(format_args!(
        "{manifest_at}: {count} file{} in the folder no record lists, not packed: {}",
        if count == 1 { "" } else { "s" },
        unlisted.join(", ")
    ));
}

/// Says of each RsLi entry of the archive unpacked that was packed again with another
/// method than its flags name: flags say how it was packed there, `method` how it is now,
/// so a method edited in flags alone reads as a change back, and this line shows it.
///
/// Flags edited alone read the same way (pack cannot tell them from a `method` edited),
/// so the line says which of the two was taken; flags that name no method beside a
/// `method` are said too, as their method bits are not written either.
fn note_method_changes(manifest: &str, planned: &[Planned]) {
    for (pos, p) in planned.iter().enumerate() {
        let Some(new) = p.method.filter(|_| p.original.is_some()) else {
            continue;
        };
        let flags_say = match Method::from_flags(p.flags) {
            Ok(old) if old == new => continue,
            Ok(old) => format!(
                "say {}: the method it was unpacked with, unless they were edited",
                old.name()
            ),
            Err(_) => "name no method".to_owned(),
        };
        crate::report::say(format_args!(
            "{manifest}: {}: packed again with {}, as its `method` says (its flags, {:#06x}, \
             {flags_say}; their method bits follow `method`)",
            entry_label(pos, &p.name),
            new.name(),
            p.flags,
        ));
    }
}

/// Says of each gap of the manifest (`gaps`, its ranges in the archive unpacked) whose
/// bytes the plan does not copy: one after a payload that was changed or removed (the
/// editor keeps the bytes after a payload only while the payload stays as it was). The plan copies the data region from the folder's
/// source, laid out as the archive unpacked was, so a gap is kept exactly when copies
/// cover it.
pub(super) fn note_gaps_dropped(
    manifest: &str,
    gaps: &[(u64, u64)],
    plan: &ngi_core::edit::Plan<'_>,
    gap_name: impl Fn(usize) -> String,
) {
    if gaps.is_empty() {
        return;
    }
    // Merged, so that a gap is covered when one of the copies holds it.
    let merged = copied_ranges(plan);
    for (i, &(start, end)) in gaps.iter().enumerate() {
        let at = merged.partition_point(|&(_, e)| e <= start);
        let kept = merged.get(at).is_some_and(|&(s, e)| s <= start && end <= e);
        if !kept {
            crate::report::say(format_args!(
                "{manifest}: {} ({} at {start}) not kept: it lay after a payload that \
                 was changed or removed, and the bytes after such a payload are not kept",
                gap_name(i),
                crate::count::bytes(end - start)
            ));
        }
    }
}

/// The source ranges `plan` copies, sorted and merged: what of the source it keeps.
pub(super) fn copied_ranges(plan: &ngi_core::edit::Plan<'_>) -> Vec<(u64, u64)> {
    let mut copied: Vec<(u64, u64)> = plan
        .pieces
        .iter()
        .filter_map(|piece| match *piece {
            ngi_core::edit::Piece::Copy { offset, len } => Some((offset, offset + len)),
            _ => None,
        })
        .collect();
    copied.sort_unstable();
    let mut merged: Vec<(u64, u64)> = Vec::with_capacity(copied.len());
    for (start, end) in copied {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    merged
}

/// Reads the archive `pack` wrote back before it takes the output's place: every entry
/// given a file must decode from it to that file's bytes (by SHA-256). Returns how many
/// entries of the archive unpacked were written with another `sort_index` than their
/// record's (the lookup table rebuilt).
/// The folder was checked field by field before the plan was made; this catches what no
/// field check sees, such as an offset, size or `data_start` edited so that an entry's
/// record no longer points at its bytes (kept as it stands, it would decode to others),
/// or an entry whose bytes lie in the table or header, which an edit of others rewrites.
fn check_written(
    path: &Path,
    nres: bool,
    media_trailer: bool,
    planned: &[Planned],
) -> std::io::Result<usize> {
    let file = File::open(path)?;
    let options = ngi_core::OpenOptions::DEFAULT
        .with_limits(ngi_core::Limits::DEFAULT.with_max_entries(u32::MAX))
        .with_media_trailer(media_trailer);
    let catalog = ngi_core::io::open_at(&file, options).map_err(std::io::Error::other)?;
    let undecodable = |pos: usize, e: &dyn std::fmt::Display| {
        let e = e.to_string();
        format!(
            "does not decode from the archive written: {}",
            crate::open::after_entry(pos, &e)
        )
    };
    let fields = record_fields(nres);
    let wrong = |pos: usize, p: &Planned, what: String| {
        std::io::Error::other(format!(
            "{}: {what} (are {fields} as unpack wrote them? an entry whose bytes lie in the \
             table or header reads what an edit of the others rewrites; or did its file change \
             while pack ran? then run it again)",
            entry_label(pos, &p.name)
        ))
    };
    let rebuilt = planned
        .iter()
        .enumerate()
        .filter(|(pos, p)| {
            let written = catalog.entry(*pos).map(|e| match e.native {
                Native::Nres(record) => record.entry().sort_index,
                Native::Rsli(entry) => u32::from(entry.file_sort_index),
            });
            p.original.is_some() && written.is_some_and(|w| w != p.sort_index)
        })
        .count();
    for (pos, p) in planned.iter().enumerate() {
        let Some(want) = &p.digest else { continue };
        let entry = catalog
            .entry(pos)
            .ok_or_else(|| wrong(pos, p, "missing from the archive written".into()))?;
        let mut reader = catalog
            .reader(pos, &file)
            .map_err(|e| wrong(pos, p, undecodable(pos, &e)))?;
        let mut hasher = Sha256::new();
        std::io::copy(&mut reader, &mut hasher).map_err(|e| wrong(pos, p, undecodable(pos, &e)))?;
        let got = crate::manifest::hex(&hasher.finalize());
        if !got.eq_ignore_ascii_case(want) {
            return Err(wrong(
                pos,
                p,
                format!(
                    "the archive written would decode it to other bytes than its file's \
                     ({} bytes)",
                    entry.size
                ),
            ));
        }
    }
    Ok(rebuilt)
}

enum Built {
    Nres(nres::Editor),
    Rsli(rsli::Editor),
}

/// One entry of the manifest, checked.
struct Planned {
    name: Vec<u8>,
    /// The name field's bytes after the name's NUL.
    tail: Vec<u8>,
    /// `data_offset` and size as stored, for an entry of the unpacked archive.
    original: Option<(u32, u32)>,
    /// The decoded entry's file.
    file: Option<PathBuf>,
    /// Its SHA-256, in hex.
    digest: Option<String>,
    /// Whether the file (or the method) differs from what was unpacked.
    changed: bool,
    fields: Fields,
    sort_index: u32,
    /// The manifest's `index`: where the entry stood in the archive unpacked.
    index: Option<u32>,
    /// RsLi: the key the entry's kept packed bytes are encrypted with (manifest `key`, else
    /// `sort_index`).
    key: u16,
    /// `None` for RsLi flags that name no method (kept as they are, never packed again).
    method: Option<Method>,
    /// RsLi: the flags as the manifest has them (for an unpacked entry, its record's).
    flags: u16,
    reserved: [u8; 4],
    unpacked_size: u32,
    packed: Option<PathBuf>,
}

fn check_entries(records: &[EntryRecord], dir: &Path, nres: bool) -> Result<Vec<Planned>, String> {
    let mut planned = Vec::with_capacity(records.len());
    let mut files: HashMap<PathBuf, usize> = HashMap::new();
    let mut names_seen: HashMap<Vec<u8>, usize> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        // The name as `list` shows it: a control byte written raw in the manifest must
        // not reach the terminal.
        let shown = names::display(&names::parse_argument(r.name.as_bytes()));
        let p = check_entry(r, dir, nres).map_err(|m| format!("entry {i} (\"{shown}\"): {m}"))?;
        if let Some(file) = &p.file {
            if let Some(other) = files.insert(file.clone(), i) {
                return Err(format!(
                    "entry {i} (\"{shown}\"): file: \"{}\" is entry {other}'s file too",
                    file.shown()
                ));
            }
        }
        // Archives may hold equal names (the engine finds the first); a new entry may
        // not take one.
        let key = if nres {
            p.name.to_ascii_lowercase()
        } else {
            p.name.clone()
        };
        if let Some(&other) = names_seen.get(&key) {
            if p.original.is_none()
                || planned
                    .get(other)
                    .is_some_and(|o: &Planned| o.original.is_none())
            {
                return Err(format!(
                    "entry {i} (\"{shown}\"): name: the same as entry {other}'s"
                ));
            }
        }
        names_seen.entry(key).or_insert(i);
        planned.push(p);
    }
    Ok(planned)
}

fn check_entry(r: &EntryRecord, dir: &Path, nres: bool) -> Result<Planned, String> {
    refuse_other_format_fields(r, nres)?;
    let (name, tail) = checked_name(r, nres)?;
    let original = match (r.offset, r.size) {
        (Some(o), Some(s)) => Some((o, s)),
        (None, None) => None,
        (Some(_), None) => return Err("size: missing (an entry with an offset needs it)".into()),
        (None, Some(_)) => return Err("offset: missing (an entry with a size needs it)".into()),
    };
    if original.is_some() {
        refuse_missing_fields(r, nres)?;
    }
    if let Some(sha) = &r.sha256 {
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err("sha256: not 32 bytes of hex".into());
        }
    }
    let method = match &r.method {
        Some(m) => Some(method_by_name(m).ok_or_else(|| {
            format!(
                "method: \"{m}\" is none of stored, xor, lzss, xor-lzss, lzhuf, xor-lzhuf, deflate"
            )
        })?),
        // Unpack leaves it out only for flags that name no method; flags that name one
        // say it as well as the field would.
        None if !nres && r.flags.is_some() => r.flags.and_then(|f| Method::from_flags(f).ok()),
        None => Some(Method::Stored),
    };
    if nres && r.method.as_deref().is_some_and(|m| m != "stored") {
        return Err("method: NRes payloads are stored as they are".into());
    }
    let flags = r.flags.unwrap_or(method.map_or(0, Method::bits));
    if !nres && original.is_none() && name.iter().any(u8::is_ascii_lowercase) {
        return Err("name: holds a lower-case letter, which rsFind could never find".into());
    }
    if original.is_none() && r.sha256.is_some() {
        return Err("sha256: a new entry's file is packed whatever it holds".into());
    }
    if original.is_none() && r.index.is_some() {
        return Err("index: only an entry of the archive unpacked has one".into());
    }
    if original.is_none() && r.sort_index.is_some() {
        return Err(
            "sort_index: a new entry's comes from the lookup table, rebuilt when entries \
             are added"
                .into(),
        );
    }
    if !nres && r.sort_index.is_some_and(|i| i > u32::from(u16::MAX)) {
        return Err("sort_index: RsLi holds 16 bits (at most 65535)".into());
    }
    let reserved = match &r.reserved {
        Some(hex) => from_hex(hex)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .ok_or("reserved: not 4 bytes of hex")?,
        None => [0; 4],
    };
    let file = r
        .file
        .as_ref()
        .map(|f| inside(dir, "file", f))
        .transpose()?;
    let packed = r
        .packed
        .as_ref()
        .map(|f| inside(dir, "packed", f))
        .transpose()?;
    if original.is_none() && file.is_none() {
        return Err("file: missing (a new entry needs its file)".into());
    }
    // Its digest tells an unchanged file from a changed one: without it the entry would
    // be packed again, and a kept packed stream dropped.
    if original.is_some() && file.is_some() && r.sha256.is_none() {
        return Err(
            "sha256: missing (an entry with an offset and a file keeps the one unpack \
             wrote; an entry unpack kept as its packed bytes alone takes a file as a new \
             entry: its record without offset, size and what only an unpacked entry has)"
                .into(),
        );
    }
    let mut changed = false;
    let mut digest = None;
    if let Some(path) = &file {
        // No entry holds more: refused before hours of hashing a huge (or sparse) file.
        let len = std::fs::metadata(path).map_or(0, |m| m.len());
        if len > crate::regular::ENTRY_MAX {
            return Err(format!(
                "file: {}: {len} bytes, more than the {} an entry may hold",
                path.shown(),
                crate::regular::ENTRY_MAX
            ));
        }
        if original.is_none() && !nres {
            refuse_new_rsli_fields(r, method, len)?;
        }
        let sha = sha256_of(path).map_err(|e| format!("file: {}: {e}", path.shown()))?;
        changed = r
            .sha256
            .as_deref()
            .is_none_or(|want| !want.eq_ignore_ascii_case(&sha));
        digest = Some(sha);
    }
    if let Some(path) = &packed {
        std::fs::metadata(path).map_err(|e| format!("packed: {}: {e}", path.shown()))?;
    }
    // A new method for the same bytes changes the packed bytes too.
    if !nres && method.is_some_and(|m| (flags & 0x1E0) != m.bits()) {
        changed = true;
    }
    if !nres && changed && file.is_none() {
        return Err("file: missing (the method changed, so the data is packed again)".into());
    }
    if !nres && method.is_none() && (changed || original.is_none()) {
        return Err(format!(
            "method: the flags {flags:#06x} name no method, so the file cannot be packed"
        ));
    }
    Ok(Planned {
        name,
        tail,
        original,
        file,
        digest,
        changed,
        fields: Fields {
            type_id: r.type_id.unwrap_or(0),
            attr1: r.attr1.unwrap_or(0),
            attr2: r.attr2.unwrap_or(0),
            attr3: r.attr3.unwrap_or(0),
        },
        sort_index: r.sort_index.unwrap_or(0),
        index: r.index,
        key: r.key.unwrap_or(r.sort_index.unwrap_or(0) as u16),
        method,
        // As unpacked: the record's span in the data region is worked out from them (the
        // new method, if any, is the editor's to write).
        flags,
        reserved,
        unpacked_size: r.unpacked_size.unwrap_or(0),
        packed,
    })
}

/// The entry's name and the bytes of its name field after the name's NUL, checked
/// against the format's field.
fn checked_name(r: &EntryRecord, nres: bool) -> Result<(Vec<u8>, Vec<u8>), String> {
    let raw_field = match &r.name_field {
        Some(hex) if nres => Some(
            from_hex(hex)
                .and_then(|b| <[u8; nres::NAME_FIELD_LEN]>::try_from(b).ok())
                .ok_or("name_field: not 36 bytes of hex")?,
        ),
        _ => None,
    };
    let name = match raw_field {
        Some(_) if r.offset.is_none() => {
            return Err(
                "name_field: only an entry of the archive unpacked has one (a new \
                        entry's name goes in name)"
                    .into(),
            );
        }
        // unpack writes the field's 36 bytes as the name too: another name is a rename
        // that the field, written as it is, would undo without a word.
        Some(field) if !field.contains(&0) && names::parse_argument(r.name.as_bytes()) != field => {
            return Err(
                "name: not the name name_field holds, and pack writes name_field as \
                        it is (a field with no NUL); to rename the entry, remove name_field"
                    .into(),
            );
        }
        Some(field) => field.to_vec(),
        None => names::parse_argument(r.name.as_bytes()),
    };
    let (field_len, format) = if nres {
        (nres::NAME_FIELD_LEN, "NRes")
    } else {
        (rsli::NAME_LEN, "RsLi")
    };
    let max = if nres { field_len - 1 } else { field_len };
    // Archives may hold an empty name (the engine reads it); a new entry may not.
    if name.is_empty() && r.offset.is_none() {
        return Err("name: empty".into());
    }
    if name.len() > max && raw_field.is_none() {
        return Err(format!(
            "name: {} bytes, {format} names hold at most {max}",
            name.len()
        ));
    }
    if name.contains(&0) {
        return Err(match raw_field {
            // unpack writes one only for a field with no NUL in its 36 bytes.
            Some(_) => "name_field: holds a NUL byte; a name that ends with one goes in name \
                        (the bytes after it in name_tail)"
                .into(),
            None => "name: holds a NUL byte (\\x00)".into(),
        });
    }
    let tail = match &r.name_tail {
        Some(hex) => from_hex(hex).ok_or("name_tail: not hex")?,
        None => Vec::new(),
    };
    if tail.iter().any(|&b| b != 0) && r.offset.is_none() {
        return Err("name_tail: a new entry's name field is zeros after the name's NUL".into());
    }
    if !tail.is_empty() && name.len() + 1 + tail.len() > field_len {
        return Err(format!(
            "name_tail: the name, its NUL and {} of tail do not fit in the \
             {field_len}-byte field (the bytes a former name left there; remove name_tail \
             for a longer name)",
            crate::count::bytes(tail.len() as u64)
        ));
    }
    Ok((name, tail))
}

/// Refuses a field of the other format's records: it would be dropped with no word.
fn refuse_other_format_fields(r: &EntryRecord, nres: bool) -> Result<(), String> {
    let (fields, owner): (&[(&str, bool)], &str) = if nres {
        (
            &[
                ("flags", r.flags.is_some()),
                ("reserved", r.reserved.is_some()),
                ("unpacked_size", r.unpacked_size.is_some()),
                ("key", r.key.is_some()),
                ("packed", r.packed.is_some()),
            ],
            "RsLi",
        )
    } else {
        (
            &[
                ("name_field", r.name_field.is_some()),
                ("type_id", r.type_id.is_some()),
                ("attr1", r.attr1.is_some()),
                ("attr2", r.attr2.is_some()),
                ("attr3", r.attr3.is_some()),
            ],
            "NRes",
        )
    };
    match fields.iter().find(|(_, present)| *present) {
        Some((field, _)) => Err(format!("{field}: only {owner} entries have one")),
        None => Ok(()),
    }
}

/// Refuses a record of the unpacked archive (one with an offset) without a field unpack
/// writes for every such record: a default in its place would change the entry with no
/// word (an RsLi `unpacked_size` of 0 empties it, an NRes `type_id` of 0 retypes it).
fn refuse_missing_fields(r: &EntryRecord, nres: bool) -> Result<(), String> {
    let fields: &[(&str, bool)] = if nres {
        &[
            ("type_id", r.type_id.is_some()),
            ("attr1", r.attr1.is_some()),
            ("attr2", r.attr2.is_some()),
            ("attr3", r.attr3.is_some()),
            ("sort_index", r.sort_index.is_some()),
        ]
    } else {
        &[
            ("flags", r.flags.is_some()),
            ("unpacked_size", r.unpacked_size.is_some()),
            ("sort_index", r.sort_index.is_some()),
        ]
    };
    match fields.iter().find(|(_, present)| !present) {
        Some((field, _)) => Err(format!(
            "{field}: missing (an entry with an offset keeps every field unpack wrote)"
        )),
        None => Ok(()),
    }
}

/// Refuses a field of a new RsLi entry (one without an offset) that the entry packed
/// from its file of `len` bytes with `method` would not have: the editor writes a new
/// entry's record from its name, method and bytes, so any other value would be dropped
/// with no word. A value the entry gets anyway (flags of its method, zero reserved
/// bytes, its file's size) may stay.
fn refuse_new_rsli_fields(r: &EntryRecord, method: Option<Method>, len: u64) -> Result<(), String> {
    // Flags that name no method are refused as such, after this.
    if let (Some(flags), Some(method)) = (r.flags, method) {
        if flags != method.bits() {
            return Err(format!(
                "flags: {flags:#06x}, but a new entry's are its method's ({:#06x})",
                method.bits()
            ));
        }
    }
    if r.packed.is_some() {
        return Err("packed: a new entry is packed from its file".into());
    }
    if r.reserved
        .as_deref()
        .and_then(from_hex)
        .is_some_and(|b| b.iter().any(|&x| x != 0))
    {
        return Err("reserved: a new entry's are zero".into());
    }
    if let Some(size) = r.unpacked_size.filter(|&s| u64::from(s) != len) {
        return Err(format!(
            "unpacked_size: {size}, but the file holds {}",
            crate::count::bytes(len)
        ));
    }
    if r.key.is_some() {
        return Err("key: only an entry of the archive unpacked has one".into());
    }
    Ok(())
}

impl Planned {
    /// The RsLi table entry of an entry of the unpacked library.
    fn rsli_entry(&self) -> rsli::Entry {
        let (offset, size) = self.original.unwrap_or_default();
        rsli::Entry {
            name: name_field::<12>(self),
            reserved: self.reserved,
            flags: self.flags,
            sort_index: self.sort_index as u16,
            file_sort_index: self.sort_index as u16,
            unpacked_size: self.unpacked_size,
            data_offset: offset,
            packed_size: size,
        }
    }
}

/// The manifest's bytes. Like the files it names, it must be a regular file of the
/// folder, not a link to one elsewhere: a folder from someone else decides nothing by
/// files of this machine.
fn read_manifest(path: &Path) -> Result<Vec<u8>, String> {
    if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return Err("is a link, not a regular file (links are not followed)".to_string());
    }
    crate::regular::read(path, crate::manifest::MAX_LEN as u64).map_err(|e| e.to_string())
}

/// `file`, named by the manifest's `field`, a regular file directly inside `dir`: no separators, no `..`, no link (a
/// folder from someone else must not pull other files of this machine into the archive).
fn inside(dir: &Path, field: &str, file: &str) -> Result<PathBuf, String> {
    let plain = !file.is_empty()
        && file != "."
        && file != ".."
        && !file.contains(['/', '\\'])
        && !file.contains(':');
    if !plain {
        return Err(format!(
            "{field}: \"{file}\" is not a file name inside the folder"
        ));
    }
    let path = dir.join(file);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if !meta.file_type().is_file() => Err(format!(
            "{field}: \"{file}\" is not a regular file (links are not followed)"
        )),
        _ => Ok(path),
    }
}

/// Refuses an `output` (already there, `--force` given) that is one of the files the
/// folder gives pack: the manifest, the gaps file, an entry's file or kept stream. The
/// archive would be written over it, and the folder could not be packed again.
fn refuse_own_input(
    output: &Path,
    manifest_path: &Path,
    manifest: &Manifest,
    dir: &Path,
    planned: &[Planned],
) -> Result<(), Failure> {
    #[cfg(unix)]
    {
        let Ok(out) = std::fs::metadata(output) else {
            return Ok(());
        };
        let gaps = manifest.gaps.as_ref().map(|g| dir.join(g));
        let inputs = std::iter::once(manifest_path).chain(gaps.as_deref()).chain(
            planned
                .iter()
                .flat_map(|p| p.file.iter().chain(&p.packed))
                .map(PathBuf::as_path),
        );
        for input in inputs {
            if std::fs::metadata(input).is_ok_and(|m| crate::regular::same_file(&m, &out)) {
                return Err(Failure::Bad(format!(
                    "{}: is {}, which pack reads; write the archive elsewhere",
                    output.shown(),
                    input.shown()
                )));
            }
        }
    }
    #[cfg(not(unix))]
    let _ = (output, manifest_path, manifest, dir, planned);
    Ok(())
}

fn sha256_of(path: &Path) -> std::io::Result<String> {
    let mut file = crate::regular::open_no_link(path)?;
    let mut hasher = Sha256::new();
    // Sized to the file: a 1 MiB buffer zeroed for each of 200 000 small files took a
    // quarter of a `pack`'s time.
    let len = file.metadata()?.len();
    let mut buffer = vec![0u8; len.clamp(1 << 12, 1 << 20) as usize];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(crate::manifest::hex(&hasher.finalize()))
}

fn read_file(path: &Path) -> Result<Vec<u8>, String> {
    crate::regular::open_no_link(path)
        .and_then(|file| crate::regular::read_open(file, crate::regular::ENTRY_MAX))
        .map_err(|e| format!("{}: {e}", path.shown()))
}

/// The gap bytes, as spans of the gaps file.
fn gap_spans(manifest: &Manifest, dir: &Path) -> Result<Vec<Span>, String> {
    let Some(name) = manifest.gaps.as_deref() else {
        return match manifest.gap.is_empty() {
            true => Ok(Vec::new()),
            false => Err("gaps: missing (the gap list needs its file)".into()),
        };
    };
    let path = inside(dir, "gaps", name)?;
    let len = std::fs::metadata(&path)
        .map_err(|e| format!("gaps: {}: {e}", path.shown()))?
        .len();
    let mut at = 0u64;
    let mut spans: Vec<Span> = Vec::with_capacity(manifest.gap.len());
    for (i, &Gap { offset, len: n }) in manifest.gap.iter().enumerate() {
        let end = offset.checked_add(n).filter(|&e| e <= manifest.data_end);
        if offset < manifest.data_start || end.is_none() {
            return Err(format!(
                "gap {i}: {} at {offset} {} not inside the data region",
                crate::count::bytes(n),
                if n == 1 { "is" } else { "are" }
            ));
        }
        // The file holds the gaps' bytes one after another in the list's order: gaps
        // listed out of order would take each other's bytes.
        if let Some(before) = spans.last().filter(|b| offset < b.end) {
            return Err(format!(
                "gap {i}: at {offset}, before the end of gap {} ({}): gaps are listed in \
                 offset order, as their bytes follow one another in {name}",
                i - 1,
                before.end
            ));
        }
        spans.push(Span {
            start: offset,
            end: offset + n,
            from: From::File(path.clone(), at),
            who: format!("gap {i}"),
        });
        at += n;
    }
    if at != len {
        return Err(format!(
            "gaps: {} holds {}, the gap list {at}",
            path.shown(),
            crate::count::bytes(len)
        ));
    }
    Ok(spans)
}

/// The data-region ranges of `originals`' payloads (`range` gives each, or `None` outside
/// the region), once no gap overlaps one.
fn payload_ranges(
    originals: &[&Planned],
    range: impl Fn(&Planned) -> Option<(u64, u64)>,
    gaps: &[Span],
) -> Result<Vec<(u64, u64)>, String> {
    let named: Vec<_> = originals
        .iter()
        .filter_map(|p| Some((range(p)?, *p)))
        .collect();
    refuse_gaps_over_payloads(gaps, &named)?;
    Ok(named.iter().map(|&(r, _)| r).collect())
}

/// Refuses a gap that overlaps an entry's bytes (`payloads`: each entry's range in the data
/// region): the gap's bytes would overwrite the entry's, which its SHA-256, taken from
/// its file, would not show.
fn refuse_gaps_over_payloads(
    gaps: &[Span],
    payloads: &[((u64, u64), &Planned)],
) -> Result<(), String> {
    let mut by_start: Vec<(u64, u64, &Planned)> = payloads
        .iter()
        .filter(|((start, end), _)| end > start)
        .map(|&((start, end), p)| (start, end, p))
        .collect();
    by_start.sort_unstable_by_key(|&(start, end, _)| (start, end));
    // The payload reaching furthest among the first k + 1 by start.
    let mut furthest: Vec<(u64, u64, &Planned)> = Vec::with_capacity(by_start.len());
    for &payload in &by_start {
        let best = match furthest.last() {
            Some(&last) if last.1 >= payload.1 => last,
            _ => payload,
        };
        furthest.push(best);
    }
    for (i, gap) in gaps.iter().enumerate() {
        let starting_before = by_start.partition_point(|&(start, _, _)| start < gap.end);
        let Some(&(start, end, p)) = starting_before.checked_sub(1).and_then(|k| furthest.get(k))
        else {
            continue;
        };
        if end > gap.start {
            return Err(format!(
                "gap {i}: {} at {} {} the bytes of entry \"{}\" ({start}..{end})",
                crate::count::bytes(gap.end - gap.start),
                gap.start,
                if gap.end - gap.start == 1 {
                    "overlaps"
                } else {
                    "overlap"
                },
                names::display(&p.name)
            ));
        }
    }
    Ok(())
}

/// The runs of the data region that no listed payload, gap or implied padding covers:
/// the bytes of entries taken out of the manifest, which the save cuts.
fn removed_runs(
    region: std::ops::Range<u64>,
    payloads: &[(u64, u64)],
    gaps: &[Span],
    align: u64,
) -> Vec<(u64, u64)> {
    let mut intervals: Vec<(u64, u64)> = payloads.to_vec();
    intervals.extend(gaps.iter().map(|g| (g.start, g.end)));
    intervals.sort_unstable();
    let mut ends: Vec<u64> = payloads.iter().map(|p| p.1).collect();
    ends.sort_unstable();
    let mut runs = Vec::new();
    let mut uncovered = |a: u64, b: u64| {
        let mut from = a;
        if align > 1 && a > region.start && ends.binary_search(&a).is_ok() {
            from = a.next_multiple_of(align).min(b);
        }
        if b > from {
            runs.push((from, b - from));
        }
    };
    let mut pos = region.start;
    for (start, end) in intervals {
        if start > pos {
            uncovered(pos, start);
        }
        pos = pos.max(end);
    }
    if region.end > pos {
        uncovered(pos, region.end);
    }
    runs
}

/// Where the bytes `p`'s record points at start to be cut (`removed`: the runs of the
/// data region no payload or gap covers), if any are: a payload cut from under its record
/// reads the bytes moved there.
fn cut_under(p: &Planned, removed: &[(u64, u64)]) -> Option<u64> {
    let (offset, size) = p.original?;
    let (start, end) = (u64::from(offset), u64::from(offset) + u64::from(size));
    // One that starts in the header reads no data bytes before or after, whatever moves.
    if start < nres::HEADER_LEN as u64 {
        return None;
    }
    removed
        .iter()
        .map(|&(at, len)| (at.max(start), (at + len).min(end)))
        .find(|&(from, to)| from < to)
        .map(|(from, _)| from)
}

/// The name field of a planned entry: the name, its NUL, the kept tail, zeros.
fn name_field<const N: usize>(p: &Planned) -> [u8; N] {
    let mut field = [0u8; N];
    let bytes = p.name.iter().chain(std::iter::once(&0)).chain(&p.tail);
    for (dst, src) in field.iter_mut().zip(bytes) {
        *dst = *src;
    }
    field
}

/// The archive the manifest and the folder's files describe: its editor, and the source
/// the editor's plan copies from.
fn pack_nres(
    manifest: &Manifest,
    planned: &[Planned],
    mut spans: Vec<Span>,
    rebuild_table: bool,
) -> Result<(Built, Virtual), String> {
    let region = nres::HEADER_LEN as u64..manifest.data_end;
    if manifest.data_start != region.start {
        return Err(format!(
            "data_start: {} (NRes data starts at 16)",
            manifest.data_start
        ));
    }
    if region.end < region.start {
        return Err(format!(
            "data_end: {} is before the data's start at 16",
            manifest.data_end
        ));
    }
    let originals: Vec<&Planned> = planned.iter().filter(|p| p.original.is_some()).collect();
    let range = |p: &Planned| {
        let (o, s) = p.original.unwrap_or_default();
        let (start, end) = (u64::from(o), u64::from(o) + u64::from(s));
        (start >= region.start && end <= region.end).then_some((start, end))
    };
    let payloads = payload_ranges(&originals, range, &spans)?;
    let removed = removed_runs(region.clone(), &payloads, &spans, ALIGN);

    let mut directory = Vec::new();
    for p in &originals {
        let (offset, size) = p.original.unwrap_or_default();
        let mut record = [0u8; nres::ENTRY_LEN];
        let f = p.fields;
        for (at, v) in [
            (0, f.type_id),
            (4, f.attr1),
            (8, f.attr2),
            (12, size),
            (16, f.attr3),
            (56, offset),
            (60, p.sort_index),
        ] {
            record[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        record[20..56].copy_from_slice(&name_field::<36>(p));
        directory.extend_from_slice(&record);
    }
    for &(start, len) in &removed {
        let mut record = [0u8; nres::ENTRY_LEN];
        record[12..16].copy_from_slice(&(len as u32).to_le_bytes());
        record[20] = b'~';
        record[56..60].copy_from_slice(&(start as u32).to_le_bytes());
        directory.extend_from_slice(&record);
    }
    let count = originals.len() + removed.len();
    let total = region.end + (count * nres::ENTRY_LEN) as u64;
    let header = nres::Header {
        entry_count: u32::try_from(count).map_err(|_| "too many entries".to_string())?,
        total_size: u32::try_from(total).map_err(|_| "data_end: past 4 GiB".to_string())?,
    };
    let mut editor =
        nres::Editor::from_directory(&header, &directory).map_err(|e| e.to_string())?;
    for k in (originals.len()..count).rev() {
        editor.remove(k).map_err(|e| e.to_string())?;
    }
    // Changed and new payloads are read from their files as the archive is written, as
    // unchanged ones are (`Appended`), so no payload is held in memory.
    let mut appended = Appended::after(&spans, region.end);
    let mut order = Order::new(planned.len());
    for (pos, p) in planned.iter().enumerate() {
        let index = order.next(p, editor.len());
        let at = |m: String| {
            let m = crate::open::after_entry(index, &m);
            format!("{}: {m}", entry_label(pos, &p.name))
        };
        let mut append = |file: &PathBuf| appended.push(&mut spans, file, pos, &p.name, at);
        let Some(file) = &p.file else {
            // A record without a payload in the data region keeps no bytes; one with a
            // payload there needs its file, or the payload would come back as zeros.
            if range(p).is_some_and(|(start, end)| end > start) {
                return Err(at(
                    "file: missing (its payload lies in the data region)".into()
                ));
            }
            // One whose payload starts there and runs past its end (unreadable, so
            // unpack keeps those bytes as a gap) must not have them cut from under it:
            // it would point at the bytes moved there.
            if let Some(cut) = cut_under(p, &removed) {
                return Err(at(format!(
                    "file: missing, and the bytes its payload starts with in the data \
                     region, from offset {cut}, are in no gap or other entry's file: they \
                     would be cut from under it (is offset or size edited?)"
                )));
            }
            continue;
        };
        if p.original.is_none() {
            let new = NewEntry {
                name: &p.name,
                type_id: p.fields.type_id,
                attr1: p.fields.attr1,
                attr2: p.fields.attr2,
                attr3: p.fields.attr3,
            };
            let (start, len) = append(file)?;
            editor
                .add_from_source(new, start, len)
                .map_err(|e| at(e.to_string()))?;
        } else if p.changed {
            let (start, len) = append(file)?;
            editor
                .replace_from_source(index, start, len)
                .map_err(|e| at(e.to_string()))?;
        } else if let Some((start, end)) = range(p) {
            // Its file is unchanged (by its SHA-256), so `size` was edited: the payload
            // would be cut or padded with zeros.
            let len = std::fs::metadata(file)
                .map_err(|e| at(format!("file: {}: {e}", file.shown())))?
                .len();
            if len != end - start {
                return Err(at(format!(
                    "size: {} in the manifest, but the file, unchanged, holds {}",
                    end - start,
                    crate::count::bytes(len)
                )));
            }
            spans.push(Span {
                start,
                end,
                from: From::File(file.clone(), 0),
                who: entry_label(pos, &p.name),
            });
        }
    }
    editor.reorder(&order.indices).map_err(|e| e.to_string())?;
    if rebuild_table {
        editor.rebuild_sort_index();
    }
    Ok((Built::Nres(editor), Virtual::new(spans, appended.end)?))
}

/// The library's header as the manifest gives it (its raw bytes, with the presorted flag,
/// the seed and the entry count `data_start` leaves room for), and that count.
fn rsli_header(manifest: &Manifest) -> Result<(rsli::Header, usize), String> {
    let mut raw: [u8; rsli::HEADER_LEN] = manifest
        .header
        .as_deref()
        .and_then(from_hex)
        .and_then(|b| b.try_into().ok())
        .ok_or("header: missing or not 32 bytes of hex")?;
    if let Some(flag) = manifest.presorted_flag {
        raw[14..16].copy_from_slice(&flag.to_le_bytes());
    }
    if let Some(seed) = manifest.seed {
        raw[20..24].copy_from_slice(&seed.to_le_bytes());
    }
    let table = manifest
        .data_start
        .checked_sub(rsli::HEADER_LEN as u64)
        .filter(|t| t % rsli::ENTRY_LEN as u64 == 0)
        .map(|t| t / rsli::ENTRY_LEN as u64)
        .filter(|&n| n <= rsli::MAX_ENTRIES as u64)
        .ok_or_else(|| {
            format!(
                "data_start: {} is not the end of an RsLi table",
                manifest.data_start
            )
        })? as usize;
    raw[4..6].copy_from_slice(&(table as u16).to_le_bytes());
    let header = rsli::Header::parse(&raw).map_err(|e| format!("header: {e}"))?;
    Ok((header, table))
}

/// The library the manifest and the folder's files describe: its editor, and the source
/// the editor's plan copies from.
fn pack_rsli(
    manifest: &Manifest,
    planned: &[Planned],
    mut spans: Vec<Span>,
    rebuild_table: bool,
) -> Result<(Built, Virtual), String> {
    let (header, table) = rsli_header(manifest)?;
    let trailer = match &manifest.trailer {
        Some(hex) => from_hex(hex)
            .filter(|t| t.len() == rsli::TRAILER_LEN && rsli::parse_trailer(t).is_some())
            .ok_or("trailer: not the 6 bytes of an \"AO\" trailer")?,
        None => Vec::new(),
    };
    let overlay = checked_overlay(manifest.media_overlay, &trailer)?;
    let shift = u64::from(overlay.unwrap_or(0));
    let region = manifest.data_start..manifest.data_end;
    if region.end < region.start {
        return Err("data_end: before data_start".into());
    }
    let originals: Vec<&Planned> = planned.iter().filter(|p| p.original.is_some()).collect();
    let range = |p: &Planned| {
        let (o, _) = p.original.unwrap_or_default();
        let start = u64::from(o) + shift;
        let end = (start + rsli::span_len(&p.rsli_entry())).min(region.end);
        (start >= region.start && start < region.end).then_some((start, end))
    };
    let payloads = payload_ranges(&originals, range, &spans)?;
    let removed = removed_runs(region.clone(), &payloads, &spans, 1);
    table_room(table, originals.len(), &removed)?;
    let mut entries: Vec<rsli::Entry> = originals.iter().map(|p| p.rsli_entry()).collect();
    let placeholder = |start: u64, len: u64| -> Result<rsli::Entry, String> {
        let stored = start
            .checked_sub(shift)
            .and_then(|s| u32::try_from(s).ok())
            .ok_or("an entry taken out lay before the media overlay")?;
        let mut name = [0u8; 12];
        name[0] = b'~';
        Ok(rsli::Entry {
            name,
            data_offset: stored,
            packed_size: len as u32,
            ..rsli::Entry::default()
        })
    };
    for &(start, len) in &removed {
        entries.push(placeholder(start, len)?);
    }
    while entries.len() < table {
        entries.push(placeholder(region.start, 0)?);
    }
    let file_len = region.end + trailer.len() as u64;
    let mut editor = rsli::Editor::from_entries(&header, entries, file_len, &trailer, overlay)
        .map_err(|e| e.to_string())?;
    // The table's keys are worked out again from the names as listed, which renames and
    // removals change; the bytes were encrypted with the keys of the archive unpacked.
    for (i, p) in originals.iter().enumerate() {
        editor.set_source_key(i, p.key).map_err(|e| e.to_string())?;
    }
    editor.pack_options(PackOptions::default());
    for k in (originals.len()..table).rev() {
        editor.remove(k).map_err(|e| e.to_string())?;
    }
    // New and changed stored or XOR payloads are copied from their files as the library
    // is written, as in an NRes archive; the others are read and packed.
    let mut appended = Appended::after(&spans, region.end);
    let mut order = Order::new(planned.len());
    for (pos, p) in planned.iter().enumerate() {
        let index = order.next(p, editor.len());
        let at = |m: String| {
            let m = crate::open::after_entry(index, &m);
            format!("{}: {m}", entry_label(pos, &p.name))
        };
        let method = p.method.unwrap_or(Method::Stored);
        if p.original.is_none() || p.changed {
            let Some(file) = &p.file else { continue };
            let new = p.original.is_none();
            let done = if method.copies_data() {
                let (start, len) = appended.push(&mut spans, file, pos, &p.name, at)?;
                if new {
                    editor
                        .add_from_source(&p.name, method, start, len)
                        .map(drop)
                } else {
                    editor.replace_from_source(index, method, start, len)
                }
            } else {
                let data = read_file(file).map_err(at)?;
                if new {
                    editor.add(&p.name, method, &data).map(drop)
                } else {
                    editor.replace_with(index, method, &data)
                }
            };
            done.map_err(|e| at(e.to_string()))?;
        } else if let Some((start, end)) = range(p) {
            let from = kept_bytes(&editor, index, p, method, end - start).map_err(at)?;
            if let Some(from) = from {
                let who = entry_label(pos, &p.name);
                spans.push(Span {
                    start,
                    end,
                    from,
                    who,
                });
            }
        } else if let Some(kept) = &p.packed {
            // Kept bytes past the data region: only the trailer lies there, so they must
            // be its bytes (an entry that points into it), or `data_end` was lowered
            // past them and they would be lost.
            let start = u64::from(p.original.unwrap_or_default().0) + shift;
            let have = std::fs::metadata(kept).map_or(0, |m| m.len());
            if have > 0 && start >= region.end {
                let from = usize::try_from(start - region.end).unwrap_or(usize::MAX);
                let there = trailer.get(from..).unwrap_or_default();
                let same = have <= there.len() as u64 && {
                    let plain = read_file(kept).map_err(at)?;
                    there.starts_with(&keyed(&editor, index, p.key, plain))
                };
                if !same {
                    return Err(at(format!(
                        "packed: its {} would lie at {start}, past the data region \
                         written (data_end {}), where they are not: is data_end as unpack \
                         wrote it?",
                        crate::count::bytes(have),
                        region.end
                    )));
                }
            }
        }
    }
    editor.reorder(&order.indices).map_err(|e| e.to_string())?;
    if rebuild_table && !sort_index_is_canonical(&editor) {
        editor.rebuild_sort_index();
    }
    Ok((Built::Rsli(editor), Virtual::new(spans, appended.end)?))
}

/// Whether the entries of the archive unpacked are not all listed, each once and in their
/// order there, by their `index`: one moved or removed gives the others new indices.
/// (Unknown, and taken as not moved, where one has no `index`.) The editor rebuilds the
/// table for most removals itself, but not for one that leaves no bytes to take out (an
/// empty entry, one whose payload another shares).
fn moved(planned: &[Planned]) -> bool {
    let indices: Option<Vec<u32>> = planned
        .iter()
        .filter(|p| p.original.is_some())
        .map(|p| p.index)
        .collect();
    indices.is_some_and(|indices| !indices.iter().copied().eq(0..indices.len() as u32))
}

/// Where each listed entry sits in the editor while `pack` fills it: the originals keep
/// the editor's indices (0, 1, ...), each new entry is added after every entry there, and
/// one `reorder` at the end puts every entry at its place in the list. Moving each new
/// entry to its place as it came shifted every entry after it: 100 000 new entries listed
/// before 100 000 old ones took seconds.
struct Order {
    /// The editor's index of each listed entry so far, in list order.
    indices: Vec<usize>,
    next_original: usize,
}

impl Order {
    fn new(listed: usize) -> Order {
        Order {
            indices: Vec::with_capacity(listed),
            next_original: 0,
        }
    }

    /// The editor index of `p`, the next entry of the list, given the editor's length
    /// before a new entry is added.
    fn next(&mut self, p: &Planned, len: usize) -> usize {
        let index = if p.original.is_some() {
            self.next_original += 1;
            self.next_original - 1
        } else {
            len
        };
        self.indices.push(index);
        index
    }
}

/// Whether the library's `sort_index` values are the engine's permutation already, so
/// that rebuilding them changes no byte. Asked for anyway, a rebuild counts as an edit,
/// and an edit refuses an entry whose bytes run from the table into the payloads: the
/// folder `unpack` wrote of such a library would not pack back.
fn sort_index_is_canonical(editor: &rsli::Editor) -> bool {
    super::unpack::is_engine_permutation((0..editor.len()).filter_map(|i| editor.entry(i).copied()))
}

/// The manifest's `media_overlay`, which must be the value of its `trailer` (unpack
/// writes the trailer it honoured and that value).
fn checked_overlay(overlay: Option<u32>, trailer: &[u8]) -> Result<Option<u32>, String> {
    let Some(value) = overlay else {
        return Ok(None);
    };
    match rsli::parse_trailer(trailer) {
        Some(said) if said == value => Ok(overlay),
        Some(said) => Err(format!(
            "media_overlay: {value}, but trailer says {said} (the offsets are read with the \
             trailer's value)"
        )),
        None => Err(format!(
            "media_overlay: {value}, but there is no trailer to say it (an overlay is the \
             value of the \"AO\" trailer)"
        )),
    }
}

/// Refuses a table of `table` slots that cannot hold the `listed` entries and a slot for
/// each run of `removed` bytes.
fn table_room(table: usize, listed: usize, removed: &[(u64, u64)]) -> Result<(), String> {
    if listed > table {
        return Err(format!(
            "data_start: a table of {table} entries cannot hold the {listed} listed with an \
             offset (entries of the archive unpacked; a copy of one is a new entry, listed \
             without offset and size)"
        ));
    }
    // Bytes no entry holds any more are dropped through a table slot each (a removed
    // entry frees its own); edited offsets or sizes leave bytes with no slot to spare.
    // Which run is the edit's is not known here (a removed entry's bytes are one too), so
    // the first few are named.
    if listed + removed.len() > table {
        const SHOWN: usize = 4;
        let mut runs: Vec<String> = removed
            .iter()
            .take(SHOWN)
            .map(|(start, len)| format!("{len} at offset {start}"))
            .collect();
        if removed.len() > SHOWN {
            runs.push(format!("{} more runs", removed.len() - SHOWN));
        }
        return Err(format!(
            "bytes of the data region that belong to no listed entry or gap now ({}) need \
             a free table slot each to be dropped, and the table has {} ({table} slots, {listed} \
             entries listed); keep the offsets and sizes, and the gaps (`[[gap]]`, `gaps` and \
             its file), that unpack wrote, or delete an entry",
            runs.join(", "),
            table - listed,
        ));
    }
    Ok(())
}

/// An unchanged entry's packed stream before XOR, `len` bytes: its kept `.packed` file,
/// or its file packed again; `None` for an entry with neither and no bytes.
fn kept_stream(p: &Planned, method: Method, len: u64) -> Result<Option<Vec<u8>>, String> {
    let plain = match (&p.packed, &p.file) {
        (Some(packed), _) => {
            // Compared before it is read: a kept stream of the wrong length is refused
            // whatever its size.
            let have = std::fs::metadata(packed)
                .map_err(|e| format!("packed: {}: {e}", packed.shown()))?
                .len();
            if have != len {
                return Err(format!(
                    "packed: {}: {}, but {}",
                    packed.shown(),
                    crate::count::bytes(have),
                    region_bytes(p, len)
                ));
            }
            read_file(packed)?
        }
        (None, Some(file)) => codec::pack(method, 0, &read_file(file)?, &PackOptions::default())
            .map_err(|e| e.to_string())?,
        // Its packed bytes would come back as zeros, as an NRes payload would.
        (None, None) if len > 0 => {
            return Err("file: missing (its packed bytes lie in the data region)".into());
        }
        (None, None) => return Ok(None),
    };
    if plain.len() as u64 != len {
        return Err(format!(
            "packing the file again with {} gives {}, but {}: if they are as unpack \
             wrote them, keep its packed stream as unpack wrote it (FILE.packed); the \
             method bits of flags say how the entry was packed in the archive unpacked (to \
             pack it again another way, edit method alone)",
            method.name(),
            crate::count::bytes(plain.len() as u64),
            region_bytes(p, len)
        ));
    }
    Ok(Some(plain))
}

/// Where an unchanged RsLi entry's `len` packed bytes come from: a file copied as it is
/// ([`copied_as_is`]), or else its kept or repacked stream ([`kept_stream`]), keyed as the
/// archive held it; `None` for an entry with no bytes to give.
fn kept_bytes(
    editor: &rsli::Editor,
    index: usize,
    p: &Planned,
    method: Method,
    len: u64,
) -> Result<Option<From>, String> {
    if let Some(path) = copied_as_is(editor, index, p, method, len) {
        return Ok(Some(From::File(path.clone(), 0)));
    }
    let plain = kept_stream(p, method, len)?;
    Ok(plain.map(|plain| From::Bytes(keyed(editor, index, p.key, plain), 0)))
}

/// The file an unchanged RsLi entry's `len` packed bytes are copied from as they are, as
/// the archive is written: its kept packed stream, or the file of a stored entry, when
/// its method XORs none of them and the file holds `len` bytes. Read whole, a 200 MB
/// stored entry took 400 MB to pack when another file had changed; others (and a file of
/// another length, which [`kept_stream`] then explains) are read as before.
fn copied_as_is<'p>(
    editor: &rsli::Editor,
    index: usize,
    p: &'p Planned,
    method: Method,
    len: u64,
) -> Option<&'p PathBuf> {
    if editor.entry(index).is_none_or(|e| rsli::xor_len(e) > 0) {
        return None;
    }
    let path = match (&p.packed, &p.file) {
        (Some(packed), _) => packed,
        (None, Some(file)) if method == Method::Stored => file,
        _ => return None,
    };
    let have = std::fs::metadata(path).ok()?.len();
    (have == len).then_some(path)
}

/// What an unchanged RsLi entry's `len` bytes in the data region are, by the fields that
/// say so: a field edited without a change of file shows here first.
fn region_bytes(p: &Planned, len: u64) -> String {
    let entry = p.rsli_entry();
    let stored = entry.method().is_ok_and(Method::copies_data);
    let unpacked = match stored {
        true => format!(
            ", and unpacked_size {}, which a stored or xor entry reads",
            entry.unpacked_size
        ),
        false => String::new(),
    };
    format!(
        "the entry's packed bytes in the data region are {len} (by offset {} and size \
         {}{unpacked})",
        entry.data_offset, entry.packed_size
    )
}

/// An unchanged entry's packed stream as the archive held it: XORed with `key` (the one
/// the editor was given as the entry's source key) over the bytes its method covers. The
/// source then holds the archive's own bytes, so that entries sharing packed bytes agree
/// on them, and the editor re-keys only the entries whose key moves (copying those that
/// share bytes).
fn keyed(editor: &rsli::Editor, index: usize, key: u16, mut plain: Vec<u8>) -> Vec<u8> {
    if let Some(entry) = editor.entry(index) {
        let len = usize::try_from(rsli::xor_len(entry)).map_or(plain.len(), |n| n.min(plain.len()));
        XorStream::new(key).apply(&mut plain[..len]);
    }
    plain
}

/// Where bytes of the original data region come from.
enum From {
    /// A file of the folder, from this offset on.
    File(PathBuf, u64),
    /// Bytes in memory (an RsLi packed stream), from this index on.
    Bytes(Vec<u8>, usize),
}

struct Span {
    start: u64,
    end: u64,
    from: From,
    /// Whose bytes these are, for an error: "gap 1", "entry 3 (\"NAME\")".
    who: String,
}

/// The manifest fields that place an entry's record on its bytes.
fn record_fields(nres: bool) -> &'static str {
    if nres {
        "its offset and size, and the manifest's data_end"
    } else {
        "its offset, size, flags and unpacked_size, and the manifest's data_start and \
         data_end"
    }
}

/// How pack names an entry in its errors: `entry 3 ("NAME")`, escaped as `list` shows it.
fn entry_label(pos: usize, name: &[u8]) -> String {
    format!("entry {pos} (\"{}\")", names::display(name))
}

/// Where new and changed payloads' files go in pack's source: one after another, past
/// everything else in it, so the archive copies each as it is written.
struct Appended {
    end: u64,
}

impl Appended {
    /// Past `spans` and the data region, which ends at `region_end`.
    fn after(spans: &[Span], region_end: u64) -> Appended {
        Appended {
            end: spans.iter().map(|s| s.end).fold(region_end, u64::max),
        }
    }

    /// Gives `file`, of the entry listed `pos`-th and named `name`, a span of the source;
    /// its start and length. `at` places an error.
    fn push(
        &mut self,
        spans: &mut Vec<Span>,
        file: &Path,
        pos: usize,
        name: &[u8],
        at: impl Fn(String) -> String,
    ) -> Result<(u64, u64), String> {
        let len = std::fs::metadata(file)
            .map_err(|e| at(format!("file: {}: {e}", file.shown())))?
            .len();
        let start = self.end;
        self.end = start.saturating_add(len);
        spans.push(Span {
            start,
            end: self.end,
            from: From::File(file.to_path_buf(), 0),
            who: entry_label(pos, name),
        });
        Ok((start, len))
    }
}

/// The original archive's data region, put back together from the folder: a source the
/// editor's plan copies from. Bytes no span covers (padding) read as zeros.
struct Virtual {
    spans: Vec<Span>,
    len: u64,
}

impl Virtual {
    /// `spans` in any order, overlapping or not. Where payloads share bytes, their files
    /// must agree on them: a folder whose files give two versions of the same bytes could
    /// only be packed by losing one, so it is refused, naming the offset.
    fn new(mut spans: Vec<Span>, len: u64) -> Result<Virtual, String> {
        spans.sort_by_key(|s| s.start);
        let mut flat: Vec<Span> = Vec::with_capacity(spans.len());
        let mut covered = 0u64;
        for mut span in spans {
            if span.start < covered {
                let shared = span.start..covered.min(span.end);
                if let Some(at) =
                    first_difference(&flat, &span, shared).map_err(|e| e.to_string())?
                {
                    let before = flat.iter().find(|s| s.start <= at && at < s.end);
                    return Err(format!(
                        "{} and {}: they share the packed bytes at offset {at}, but their \
                         files give different bytes there",
                        before.map_or("another entry", |s| &s.who),
                        span.who
                    ));
                }
            }
            if span.end <= covered {
                continue;
            }
            if span.start < covered {
                let skip = covered - span.start;
                span.start = covered;
                match &mut span.from {
                    From::File(_, at) => *at += skip,
                    From::Bytes(_, at) => *at += skip as usize,
                }
            }
            covered = span.end;
            flat.push(span);
        }
        Ok(Virtual { spans: flat, len })
    }
}

/// The first offset of `shared` where `span` gives other bytes than the spans laid before
/// it (`flat`), if any; read a piece at a time.
fn first_difference(
    flat: &[Span],
    span: &Span,
    shared: std::ops::Range<u64>,
) -> std::io::Result<Option<u64>> {
    const PIECE: usize = 64 * 1024;
    let (mut before, mut now) = (vec![0u8; PIECE], vec![0u8; PIECE]);
    let mut at = shared.start;
    while at < shared.end {
        let n = (shared.end - at).min(PIECE as u64) as usize;
        let a = read_filled(flat, &mut before[..n], at)?;
        let b = read_filled(std::slice::from_ref(span), &mut now[..n], at)?;
        if let Some(i) = a.iter().zip(b).position(|(x, y)| x != y) {
            return Ok(Some(at + i as u64));
        }
        at += n as u64;
    }
    Ok(None)
}

/// `buf.len()` bytes of `spans` (sorted, not overlapping) from `offset`, zeros where none
/// lies (a file that ends short is an error); the buffer back.
fn read_filled<'b>(spans: &[Span], buf: &'b mut [u8], offset: u64) -> std::io::Result<&'b [u8]> {
    let end = offset + buf.len() as u64;
    let mut done = 0;
    while done < buf.len() {
        let n = read_spans(spans, end, &mut buf[done..], offset + done as u64)?;
        if n == 0 {
            buf[done..].fill(0);
            break;
        }
        done += n;
    }
    Ok(buf)
}

/// One read of `spans` (sorted, not overlapping), which end at `len`: the bytes of the
/// span at `offset`, or zeros up to the next one.
fn read_spans(spans: &[Span], len: u64, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
    if offset >= len || buf.is_empty() {
        return Ok(0);
    }
    let i = spans.partition_point(|s| s.end <= offset);
    match spans.get(i) {
        Some(span) if span.start <= offset => {
            let n = (span.end - offset).min(buf.len() as u64) as usize;
            let skip = offset - span.start;
            match &span.from {
                From::File(path, at) => {
                    let name = |e: std::io::Error| {
                        std::io::Error::new(
                            e.kind(),
                            format!("{}: {}: {e}", span.who, path.shown()),
                        )
                    };
                    let got = crate::regular::open_no_link(path)
                        .and_then(|f| f.read_at(&mut buf[..n], at + skip))
                        .map_err(name)?;
                    if got == 0 {
                        // The file is shorter than when it was measured: an error naming
                        // it, not the end of pack's source at an offset of its own.
                        return Err(name(std::io::Error::new(
                            std::io::ErrorKind::UnexpectedEof,
                            format!("ends at byte {}, shorter than it was", at + skip),
                        )));
                    }
                    Ok(got)
                }
                From::Bytes(bytes, at) => {
                    let from = at + skip as usize;
                    let src = bytes.get(from..from + n).unwrap_or_default();
                    buf[..src.len()].copy_from_slice(src);
                    Ok(src.len())
                }
            }
        }
        next => {
            let until = next.map_or(len, |s| s.start).min(len);
            let n = (until - offset).min(buf.len() as u64) as usize;
            buf[..n].fill(0);
            Ok(n)
        }
    }
}

impl ReadAt for Virtual {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> std::io::Result<usize> {
        read_spans(&self.spans, self.len, buf, offset)
    }

    fn source_len(&self) -> std::io::Result<u64> {
        Ok(self.len)
    }
}
