//! `ngi verify`: every rule checked and every entry decoded.
//!
//! Each problem is one line on stderr naming the entry and the offset; notes (what the
//! engine accepts but a canonical writer would not produce) go to stdout and do not fail
//! the run. Exit status 1 when there is any problem. With `--json` both are gathered into
//! one object on stdout instead, and stderr stays quiet but for a failure to open.
//! Everything here is O(n log n) in the entry count, whatever the input: names are looked
//! up again only where the binary search applies; elsewhere entries of one name are found
//! by sorting the names.
//!
//! Entries are decoded under the limits: one larger than `--max-entry-size` is a problem
//! and is not decoded; the first that would bring the run's total past `--max-total` (each
//! entry's decoded size, or the packed bytes it reads when more) is a problem and no entry
//! after it is decoded (the rules are still checked).

use std::collections::HashMap;
use std::io::Write;

use ngi_core::archive::{Error, Format, Lookup};
use ngi_core::codec::Method;
use ngi_core::limits::Budget;
use ngi_core::{nres, rsli};

use crate::args::Options;
use crate::jobs;
use crate::names;
use crate::open::{ArchiveFile, EntryError, after_entry};
use crate::report::{Failure, ShowPath, output_failed, printable, progress_bar, say, say_over};

/// Counts what it is given and keeps none of it.
struct Sink;

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One problem or note: the entry it is about, when it is about one, and what it says
/// (the line `verify` prints, without the archive's path).
#[derive(serde::Serialize)]
struct Finding {
    entry: Option<usize>,
    message: String,
}

struct Findings<'a> {
    archive: &'a ArchiveFile,
    path: String,
    problems: usize,
    /// The problems, kept for `--json` only (else each is printed as it is found).
    listed: Option<Vec<Finding>>,
    notes: Vec<Finding>,
    /// The entries decoded so far, on a terminal.
    bar: indicatif::ProgressBar,
}

impl Findings<'_> {
    fn problem(&mut self, what: impl std::fmt::Display) {
        let finding = self.named(what.to_string());
        match &mut self.listed {
            Some(listed) => listed.push(finding),
            None => say_over(
                &self.bar,
                format_args!("{}: {}", self.path, finding.message),
            ),
        }
        self.problems += 1;
    }
    fn note(&mut self, what: impl std::fmt::Display) {
        let finding = self.named(what.to_string());
        self.notes.push(finding);
    }

    /// `what` with the entry it is about named, as every other command names one: the
    /// core's rule checks start "entry 3: ..." or "entry 3 at offset ...", by index
    /// alone.
    fn named(&self, what: String) -> Finding {
        let Some(rest) = what.strip_prefix("entry ") else {
            return Finding {
                entry: None,
                message: what,
            };
        };
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let (index, after) = rest.split_at(digits);
        let index = index.parse().ok().filter(|&i| i < self.archive.len());
        let message = match index.and_then(|i| self.archive.entry(i)) {
            Some(entry) if !after.starts_with(" (\"") => format!(
                "entry {} (\"{}\"){after}",
                &rest[..digits],
                names::display(entry.name())
            ),
            _ => what,
        };
        Finding {
            entry: index,
            message,
        }
    }
}

/// `verify --json`'s object.
#[derive(serde::Serialize)]
struct Report<'a> {
    archive: &'a str,
    format: &'static str,
    entries: usize,
    ok: bool,
    problems: &'a [Finding],
    notes: &'a [Finding],
}

pub fn run(options: &Options, archive: &ArchiveFile) -> Result<(), Failure> {
    let path = options.archive.shown().to_string();
    let mut findings = Findings {
        archive,
        path: path.clone(),
        problems: 0,
        listed: options.json.then(Vec::new),
        notes: Vec::new(),
        bar: progress_bar(archive.len()),
    };
    let searchable = match archive.catalog.lookup_table() {
        Lookup::Nres(table) => nres_structure(archive, table, &mut findings),
        Lookup::Rsli(table) => rsli_structure(archive, table, &mut findings),
    };
    // In entry order, whether each entry is decoded (the limits); the decoding on the
    // workers; then, in entry order again, what it showed.
    let mut budget = Budget::new(options.limits);
    let mut total_reached = false;
    let plan = (0..archive.len()).map(|index| {
        // Entries whose data range is broken were reported with the rules above.
        let decodable = || archive.catalog.packed_range(index).is_ok();
        let admitted = (!total_reached && archive.entry(index).is_some() && decodable())
            .then(|| archive.admit_entry(index, &mut budget));
        total_reached |= matches!(admitted, Some(Err(EntryError::Total(_))));
        (index, admitted)
    });
    let work = |(index, admitted): (usize, Option<Result<(), EntryError>>)| {
        let decoded = admitted.map(|a| a.and_then(|()| archive.stream_admitted(index, &mut Sink)));
        (index, decoded)
    };
    // What a job costs: the entry's when it is decoded at all.
    let weight = |(index, admitted): &(usize, Option<Result<(), EntryError>>)| {
        if matches!(admitted, Some(Ok(()))) {
            archive.cost(*index)
        } else {
            0
        }
    };
    let reach = Reach::of(archive, searchable);
    jobs::in_order(options.jobs, plan, weight, work, |(index, decoded)| {
        entry(archive, index, decoded, &reach, &mut findings);
        findings.bar.inc(1);
    });
    findings.bar.finish_and_clear();
    let mut out = std::io::stdout().lock();
    if let Some(problems) = &findings.listed {
        let report = Report {
            archive: &path,
            format: super::info::format_key(archive),
            entries: archive.len(),
            ok: problems.is_empty(),
            problems,
            notes: &findings.notes,
        };
        super::json::write(&mut out, &report)
            .and_then(|()| writeln!(out))
            .and_then(|()| out.flush())
            .map_err(output_failed)?;
        return match report.ok {
            true => Ok(()),
            false => Err(Failure::Reported),
        };
    }
    for note in &findings.notes {
        let line = format!("{path}: note: {}", note.message);
        writeln!(out, "{}", printable(&line)).map_err(output_failed)?;
    }
    if findings.problems > 0 {
        say(format_args!(
            "{path}: {} in {}",
            crate::count::of(findings.problems as u64, "problem", "problems"),
            crate::count::entries(archive.len())
        ));
        return Err(Failure::Reported);
    }
    let summary = format!(
        "{path}: ok, {} verified ({})",
        crate::count::entries(archive.len()),
        archive.format_name()
    );
    writeln!(out, "{}", printable(&summary))
        .and_then(|()| out.flush())
        .map_err(output_failed)
}

/// Where entry `entry`'s `sort_index` field lies in an NRes file.
fn nres_sort_field(archive: &ArchiveFile, entry: u32) -> u64 {
    archive.catalog.directory_offset() + 64 * u64::from(entry) + 60
}

/// The NRes rules beyond each entry's own: the lookup table and the payload layout.
/// Returns whether lookups run the binary search.
fn nres_structure(
    archive: &ArchiveFile,
    table: nres::LookupTable,
    findings: &mut Findings<'_>,
) -> bool {
    for problem in archive.catalog.problems() {
        findings.problem(problem);
    }
    let problems = lookup_problems(archive);
    // A table that is no permutation is the problem, not also a note.
    if problems.is_empty() && matches!(table, nres::LookupTable::Sorted) {
        findings.note(format_args!(
            "lookup table: {}",
            super::info::nres_lookup(table)
        ));
    }
    for problem in problems {
        findings.problem(problem);
    }
    if !archive.catalog.is_raw() {
        nres_layout(archive, findings);
        nres_name_tails(archive, findings);
        nres_empty_names(archive, findings);
    }
    table.is_searchable()
}

/// What is wrong with the archive's lookup table, where the engine's search may then miss
/// names or (an RsLi presorted table out of range) read outside the table: none for a
/// table it searches as it should.
pub(super) fn lookup_problems(archive: &ArchiveFile) -> Vec<String> {
    match archive.catalog.lookup_table() {
        Lookup::Nres(table) => {
            let at = |entry| nres_sort_field(archive, entry);
            let described = super::info::nres_lookup(table);
            let mut problems: Vec<String> =
                nres_not_a_permutation(archive, table).into_iter().collect();
            match table {
                nres::LookupTable::Canonical | nres::LookupTable::Sorted => {}
                nres::LookupTable::Unsorted { slot } => {
                    problems.push(format!("lookup table at offset {}: {described}", at(slot)))
                }
                nres::LookupTable::OutOfRange { entry, .. } => {
                    problems.push(format!("lookup table at offset {}: {described}", at(entry)))
                }
            }
            problems
        }
        Lookup::Rsli(table) => match table {
            rsli::LookupTable::PresortedOutOfRange { entry, .. } => vec![format!(
                "lookup table at offset {}: {}",
                32 + 32 * u64::from(entry) + 18,
                super::info::rsli_lookup(table)
            )],
            _ => Vec::new(),
        },
    }
}

/// SPEC 1.5: the `sort_index` slots are a permutation of the entries. A table whose values
/// are all in range but name one entry twice leaves another in no slot, which the engine's
/// binary search (used on any such table, SPEC 1.6) can then miss; the table's order alone
/// does not show it (a `Sorted` table passed with a note).
pub(super) fn nres_not_a_permutation(
    archive: &ArchiveFile,
    table: nres::LookupTable,
) -> Option<String> {
    // Canonical implies a permutation; out of range is reported as such.
    if !matches!(
        table,
        nres::LookupTable::Sorted | nres::LookupTable::Unsorted { .. }
    ) {
        return None;
    }
    let entries = archive.entries();
    let mut named_by: Vec<Option<usize>> = vec![None; entries.len()];
    let mut twice = None;
    for (slot, entry) in entries.iter().enumerate() {
        let target = usize::try_from(entry.sort_index()).ok()?;
        match named_by.get_mut(target)? {
            Some(first) => {
                twice.get_or_insert((target, *first, slot));
            }
            free => *free = Some(slot),
        }
    }
    let (target, first, second) = twice?;
    let missing = named_by.iter().filter(|n| n.is_none()).count();
    let lost = named_by.iter().position(Option::is_none)?;
    let name = |i: usize| names::display(entries.get(i).map_or(&b""[..], |e| e.name()));
    Some(format!(
        "lookup table at offset {}: sort_index is no permutation: slots {first} and {second} \
         both name entry {target} (\"{}\"), so {missing} entr{} in no slot, the first entry \
         {lost} (\"{}\"), which the engine's search may not find",
        nres_sort_field(archive, second as u32),
        name(target),
        if missing == 1 { "y is" } else { "ies are" },
        name(lost)
    ))
}

/// SPEC 1.3: a canonical writer zeroes the name field before it writes the name, so bytes
/// after the NUL are left over from another tool (the engine ignores them; `unpack` keeps
/// them as `name_tail`, `repack` zeroes them).
fn nres_name_tails(archive: &ArchiveFile, findings: &mut Findings<'_>) {
    for (index, e) in archive.entries().iter().enumerate() {
        let Some(e) = e.as_nres() else { continue };
        let tail = e.name_field.get(e.name().len() + 1..).unwrap_or_default();
        let stray = tail.iter().filter(|&&b| b != 0).count();
        if stray > 0 {
            let field = archive.catalog.directory_offset() + 64 * index as u64 + 20;
            findings.note(format_args!(
                "entry {index} (\"{}\") at offset {field}: {} after the name's NUL",
                names::display(e.name()),
                crate::count::of(stray as u64, "non-zero byte", "non-zero bytes")
            ));
        }
    }
}

/// SPEC 1.3: a canonical writer writes names of 1 to 35 bytes; the engine reads an empty
/// one, and `repack`, which writes the canonical form, refuses it.
fn nres_empty_names(archive: &ArchiveFile, findings: &mut Findings<'_>) {
    for (index, e) in archive.entries().iter().enumerate() {
        if e.as_nres().is_some() && e.name().is_empty() {
            let field = archive.catalog.directory_offset() + 64 * index as u64 + 20;
            findings.note(format_args!(
                "entry {index} at offset {field}: its name is empty, which no canonical writer \
                 writes (repack refuses it; rename it first)"
            ));
        }
    }
}

/// SPEC 1.3: payloads may overlap or leave gaps, which the engine accepts and a canonical
/// writer never produces (8-aligned, in order, zero padding, no gaps).
fn nres_layout(archive: &ArchiveFile, findings: &mut Findings<'_>) {
    let mut spans: Vec<(u64, u64, u32)> = (0..archive.len())
        .filter_map(|i| archive.catalog.packed_range(i).ok().map(|r| (r, i)))
        .map(|(r, i)| (r.start, r.end, i as u32))
        .collect();
    spans.sort_unstable();
    // The end of the payloads so far, and the entry that reaches it.
    let mut end = nres::HEADER_LEN as u64;
    let mut last: Option<u32> = None;
    for &(start, stop, index) in &spans {
        if start % 8 != 0 {
            findings.note(format_args!(
                "entry {index} at offset {start}: payload not aligned to 8 bytes"
            ));
        }
        if start < end && stop > start {
            if let Some(other) = last {
                findings.note(format_args!(
                    "entry {index} at offset {start}: payload overlaps entry {other}'s"
                ));
            }
        } else if start >= end {
            let next = format!("entry {index}");
            nres_gap(archive, findings, end..start, &after(last), &next);
        }
        if stop > end {
            end = stop;
            last = Some(index);
        }
    }
    let dir = archive.catalog.directory_offset();
    // SPEC 1.8: a payload is followed by zero padding to the next multiple of 8, so the
    // canonical directory starts on one too.
    if dir % 8 != 0 {
        findings.note(format_args!(
            "directory at offset {dir}: not aligned to 8 bytes"
        ));
    }
    if dir >= end {
        nres_gap(archive, findings, end..dir, &after(last), "the directory");
    }
}

/// What a gap follows: the payload that reaches furthest so far, or the header.
fn after(last: Option<u32>) -> String {
    last.map_or("the header and".to_owned(), |l| {
        format!("entry {l}'s payload and")
    })
}

/// Notes the bytes `gap` after `between` (the header or a payload), before `next` (a
/// payload or the directory): more than the padding to the next multiple of 8, or
/// padding that is not zeros (the canonical writer writes zeros).
fn nres_gap(
    archive: &ArchiveFile,
    findings: &mut Findings<'_>,
    gap: std::ops::Range<u64>,
    between: &str,
    next: &str,
) {
    let (end, start) = (gap.start, gap.end);
    if start > end.next_multiple_of(8) {
        findings.note(format_args!(
            "offset {end}: {} between {between} {next}",
            crate::count::bytes(start - end)
        ));
        return;
    }
    // At most 7 bytes of padding: read them from the file.
    match archive.read_at(end, (start - end) as usize) {
        Ok(bytes) if bytes.iter().any(|&b| b != 0) => {
            findings.note(format_args!("offset {end}: non-zero padding before {next}"))
        }
        Ok(_) => {}
        Err(e) => findings.problem(format_args!(
            "offset {end}: cannot read the padding before {next}: {e}"
        )),
    }
}

/// The RsLi rules beyond each entry's own. Returns whether every entry is reachable by the
/// binary search alone (so that looking names up again stays O(n log n)).
fn rsli_structure(
    archive: &ArchiveFile,
    table: rsli::LookupTable,
    findings: &mut Findings<'_>,
) -> bool {
    for problem in archive.catalog.problems() {
        findings.problem(problem);
    }
    if matches!(table, rsli::LookupTable::PresortedDiffers) {
        findings.note(format_args!(
            "lookup table: {}",
            super::info::rsli_lookup(table)
        ));
    }
    for problem in lookup_problems(archive) {
        findings.problem(problem);
    }
    if archive.catalog.trailer().is_some() && archive.catalog.overlay().is_none() {
        findings
            .note("the file ends with an \"AO\" media trailer, ignored without --media-trailer");
    }
    for (index, e) in archive.entries().iter().enumerate() {
        let Some(e) = e.as_rsli() else { continue };
        if e.method().is_ok_and(Method::copies_data) && e.packed_size != e.unpacked_size {
            findings.note(format_args!(
                "entry {index} (\"{}\"): packed_size {} differs from unpacked_size {}; the engine reads unpacked_size bytes",
                names::display(e.name()),
                e.packed_size,
                e.unpacked_size
            ));
        }
        // SPEC 2.7: readers take a Deflate entry one byte past the end of the file (a
        // retail entry's), which the range read is cut to.
        let deflate = e.method() == Ok(Method::Deflate);
        let declared = archive
            .catalog
            .packed_range(index)
            .ok()
            .map(|r| (r.start, r.start + u64::from(e.packed_size)));
        let file_len = archive.catalog.file_len();
        let past = declared.filter(|&(_, end)| deflate && end == file_len + 1);
        if let Some((start, end)) = past {
            findings.note(format_args!(
                "entry {index} at offset {start}: its packed_size reaches one byte past the \
                 end of the file (to {end}), which readers accept for Deflate alone, as a \
                 retail entry needs (SPEC 2.7)"
            ));
        }
    }
    rsli_layout(archive, findings);
    rsli_record_leftovers(archive, findings);
    archive.catalog.is_searchable()
}

/// An empty name, which the builder refuses (as NRes's), and SPEC 2.4: bytes after a
/// name's NUL and the 4 reserved bytes, which the engine ignores
/// (it zeroes the reserved ones in its copy) and a canonical writer zeroes, as NRes's
/// name tails: `unpack` keeps them (`name_tail`, `reserved`) and `repack` zeroes them,
/// so a library that passed with nothing said came out of `repack` 5 bytes different.
fn rsli_record_leftovers(archive: &ArchiveFile, findings: &mut Findings<'_>) {
    for (index, e) in archive.entries().iter().enumerate() {
        let Some(e) = e.as_rsli() else { continue };
        let record = 32 + 32 * index as u64;
        let tail = e.name.get(e.name().len() + 1..).unwrap_or_default();
        let stray = tail.iter().filter(|&&b| b != 0).count();
        let name = names::display(e.name());
        if e.name().is_empty() {
            findings.note(format_args!(
                "entry {index} at offset {record}: its name is empty, which no canonical \
                 writer writes (the builder and rename refuse it)"
            ));
        }
        if stray > 0 {
            findings.note(format_args!(
                "entry {index} (\"{name}\") at offset {record}: {} after the name's NUL",
                crate::count::of(stray as u64, "non-zero byte", "non-zero bytes")
            ));
        }
        if e.reserved != [0; 4] {
            findings.note(format_args!(
                "entry {index} (\"{name}\") at offset {}: non-zero reserved bytes ({})",
                record + 12,
                e.reserved.map(|b| format!("{b:02x}")).concat()
            ));
        }
    }
}

/// Notes on where an RsLi library's packed bytes lie, as for NRes: bytes that lie in the
/// header or the encrypted table (an edit of other entries may rewrite them, and `ngi`'s
/// editors refuse such edits), payloads that overlap (shared bytes, each read with its
/// entry's key), and bytes no entry reads, between the table and the payloads, between
/// payloads or after the last (before a trailer).
fn rsli_layout(archive: &ArchiveFile, findings: &mut Findings<'_>) {
    let catalog = &archive.catalog;
    let table_end = catalog.directory_offset();
    let len = catalog.file_len();
    // An entry that runs past the end of the file (a problem said already) still claims
    // the bytes from its offset on, so they are not noted as no entry's; nor is every
    // payload after its offset noted as overlapping it (`true`: such a claim).
    let ranges: Vec<_> = (0..archive.len())
        .map(|i| match catalog.packed_range(i) {
            Ok(r) => Some((r.start, r.end, i, false)),
            Err(Error::Rsli(rsli::RsliError::DataOutOfBounds { offset, .. })) => {
                Some((offset.min(len), len, i, true))
            }
            Err(_) => None,
        })
        .collect();
    // Whether every entry's range is known (flags that name no method leave it unknown).
    let placed = ranges.iter().all(Option::is_some);
    let mut spans: Vec<(u64, u64, usize, bool)> = ranges
        .into_iter()
        .flatten()
        .filter(|&(start, end, _, _)| end > start)
        .collect();
    spans.sort_unstable();
    // The end of the bytes read so far and the entry that reaches it, claims included
    // (what no entry reads lies past it); and the same for the payloads alone, which the
    // overlaps are between.
    let (mut end, mut last) = (table_end, None);
    let (mut payloads_end, mut payloads_last) = (table_end, None);
    for &(start, stop, index, claim) in &spans {
        if start < table_end {
            findings.note(format_args!(
                "entry {index} at offset {start}: its packed bytes lie in the header or table"
            ));
        } else if start > end {
            let after = last.map_or("the table".to_string(), |l| format!("entry {l}"));
            findings.note(format_args!(
                "offset {end}: {} no entry reads, between {after} and entry {index}",
                crate::count::bytes(start - end)
            ));
        } else if let Some(other) = payloads_last.filter(|_| !claim && start < payloads_end) {
            findings.note(format_args!(
                "entry {index} at offset {start}: packed bytes overlap entry {other}'s"
            ));
        }
        if stop > end {
            (end, last) = (stop, Some(index));
        }
        if !claim && stop > payloads_end {
            (payloads_end, payloads_last) = (stop, Some(index));
        }
    }
    // A trailer's bytes are no entry's to read, even where a payload runs into them.
    let region_end = match catalog.trailer() {
        Some(_) => (len - rsli::TRAILER_LEN as u64).max(end),
        None => len,
    };
    // With no payload at all the bytes after the table are no entry's either, unless an
    // entry whose range is unknown (a problem said already) may read them.
    if region_end > end && (last.is_some() || placed) {
        let after = last.map_or("the table".to_string(), |l| format!("entry {l}"));
        findings.note(format_args!(
            "offset {end}: {} no entry reads, after {after}",
            crate::count::bytes(region_end - end)
        ));
    }
}

/// How verify tells which entries a lookup by name cannot reach.
enum Reach {
    /// The binary search applies: each entry's name is looked up.
    Search,
    /// It does not (the lookup would be linear, or the engine's search unreliable, and
    /// looking each name up could take O(n²)): of entries the engine takes as having one
    /// name, a lookup gives one only, not always the first (a broken table's search may
    /// land on any). Each entry after the first of its name, to that first one.
    Scan(HashMap<usize, usize>),
}

impl Reach {
    fn of(archive: &ArchiveFile, searchable: bool) -> Reach {
        match searchable {
            true => Reach::Search,
            false => Reach::Scan(earlier_of_same_name(archive)),
        }
    }
}

/// For each entry whose name an earlier entry has (as the engine compares names: NRes
/// ignoring ASCII case, RsLi exactly, upper-cased queries never matching a lower-case
/// letter), that earlier entry's index, the first of them.
fn earlier_of_same_name(archive: &ArchiveFile) -> HashMap<usize, usize> {
    let rsli = archive.catalog.format() == Format::Rsli;
    let name = |i: usize| archive.entry(i).map_or(&[][..], |e| e.name());
    let compare = |a: usize, b: usize| match rsli {
        true => name(a).cmp(name(b)),
        false => nres::compare_names(name(a), name(b)),
    };
    // RsLi names with a lower-case letter are found by no query, and noted so.
    let findable = |&i: &usize| !(rsli && name(i).iter().any(u8::is_ascii_lowercase));
    let mut order: Vec<usize> = (0..archive.len()).filter(findable).collect();
    // Stable: within one name, entry order.
    order.sort_by(|&a, &b| compare(a, b));
    let mut earlier = HashMap::new();
    for run in order.chunk_by(|&a, &b| compare(a, b).is_eq()) {
        for &later in &run[1..] {
            earlier.insert(later, run[0]);
        }
    }
    earlier
}

/// What decoding entry `index` in full showed (`None`: it was not decoded) and whether a
/// lookup by its name can give it.
fn entry(
    archive: &ArchiveFile,
    index: usize,
    decoded: Option<Result<(u64, u64), EntryError>>,
    reach: &Reach,
    findings: &mut Findings<'_>,
) {
    let Some(row) = archive.entry(index) else {
        return;
    };
    let name = names::display(row.name());
    match decoded {
        None | Some(Ok((_, 0))) | Some(Err(EntryError::Output(_))) => {}
        Some(Ok((_, trailing))) => findings.note(format_args!(
            "entry {index} (\"{name}\"): {trailing} packed bytes after the end of its stream"
        )),
        Some(Err(EntryError::Archive(e))) => findings.problem(format_args!(
            "entry {index} (\"{name}\"), packed at {}: {}",
            row.offset,
            after_entry(index, &e)
        )),
        Some(Err(EntryError::Total(e))) => findings.problem(format_args!(
            "entry {index} (\"{name}\"): not decoded, nor any entry after it: {}",
            after_entry(index, &e)
        )),
    }
    if let Some(note) = reach_note(archive, index, reach) {
        findings.note(note);
    }
}

/// What `verify` notes of each entry a lookup by its name does not give.
pub(super) fn unreachable_names(archive: &ArchiveFile) -> Vec<String> {
    let reach = Reach::of(archive, archive.catalog.is_searchable());
    (0..archive.len())
        .filter_map(|index| reach_note(archive, index, &reach))
        .collect()
}

/// Why a lookup by entry `index`'s name does not give it, if it does not.
fn reach_note(archive: &ArchiveFile, index: usize, reach: &Reach) -> Option<String> {
    let row = archive.entry(index)?;
    let name = names::display(row.name());
    let rsli = archive.catalog.format() == Format::Rsli;
    if rsli && row.name().iter().any(u8::is_ascii_lowercase) {
        return Some(format!(
            "entry {index} (\"{name}\") cannot be found by its name: rsFind upper-cases every query"
        ));
    }
    if let Reach::Scan(earlier) = reach {
        return earlier.get(&index).map(|&first| {
            format!(
                "entry {index} (\"{name}\") has the name of entry {first} (as the engine \
                 compares names): a lookup by it gives one of them only, which one the table \
                 decides (--index reaches each)"
            )
        });
    }
    let found = archive.find(row.name());
    let other = found.and_then(|j| archive.entry(j));
    let same_name = other.is_some_and(|other| {
        if rsli {
            other.name() == row.name()
        } else {
            nres::compare_names(other.name(), row.name()).is_eq()
        }
    });
    if !same_name {
        return Some(format!(
            "entry {index} (\"{name}\") cannot be found by its name"
        ));
    }
    let (j, other) = (found.filter(|&j| j != index)?, other?);
    // Two entries the engine takes as one: the lookup gives the other.
    Some(format!(
        "entry {index} (\"{name}\") cannot be found by its name: the lookup gives entry \
         {j} (\"{}\"), whose name the engine takes as the same (--index {index} reaches it)",
        names::display(other.name())
    ))
}
