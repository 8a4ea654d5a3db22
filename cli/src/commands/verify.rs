//! `ngi verify`: every rule checked and every entry decoded.
//!
//! Each problem is one line on stderr naming the entry and the offset; notes (things the
//! engine accepts but a canonical writer would not produce) go to stdout and do not fail
//! the run. Exit status 1 when there is any problem.

use std::io::Write;

use ngi_core::{nres, rsli};

use crate::args::Options;
use crate::names;
use crate::open::{EntryError, Opened};
use crate::report::{Failure, output_failed};

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

struct Findings<'p> {
    path: &'p str,
    problems: usize,
    notes: Vec<String>,
}

impl Findings<'_> {
    fn problem(&mut self, what: impl std::fmt::Display) {
        eprintln!("ngi: {}: {what}", self.path);
        self.problems += 1;
    }
    fn note(&mut self, what: impl std::fmt::Display) {
        self.notes.push(format!("{}: note: {what}", self.path));
    }
}

pub fn run(options: &Options, data: &[u8]) -> Result<(), Failure> {
    let path = options.archive.as_str();
    let archive = Opened::open(path, data, options.raw, options.media_trailer)?;
    let mut findings = Findings {
        path,
        problems: 0,
        notes: Vec::new(),
    };
    structure(&archive, &mut findings);
    for index in 0..archive.len() {
        entry(&archive, index, &mut findings);
    }
    let mut out = std::io::stdout().lock();
    for note in &findings.notes {
        writeln!(out, "{note}").map_err(output_failed)?;
    }
    if findings.problems > 0 {
        eprintln!(
            "ngi: {path}: {} problem(s) in {} entries",
            findings.problems,
            archive.len()
        );
        return Err(Failure::Reported);
    }
    writeln!(
        out,
        "{path}: ok, {} entries verified ({})",
        archive.len(),
        archive.format_name()
    )
    .and_then(|()| out.flush())
    .map_err(output_failed)
}

/// The per-entry layout rules and the lookup table.
fn structure(archive: &Opened<'_>, findings: &mut Findings<'_>) {
    match archive {
        Opened::Nres(a) => {
            for problem in a.problems() {
                findings.problem(problem);
            }
            match a.lookup_table() {
                nres::LookupTable::Canonical => {}
                nres::LookupTable::Sorted => {
                    findings.note(super::info::nres_lookup(a.lookup_table()))
                }
                other => {
                    findings.problem(format!("lookup table: {}", super::info::nres_lookup(other)))
                }
            }
        }
        Opened::Rsli(l) => {
            for problem in l.problems() {
                findings.problem(problem);
            }
            match l.lookup_table() {
                rsli::LookupTable::Computed | rsli::LookupTable::Presorted => {}
                rsli::LookupTable::PresortedDiffers => {
                    findings.note(super::info::rsli_lookup(l.lookup_table()))
                }
                other => {
                    findings.problem(format!("lookup table: {}", super::info::rsli_lookup(other)))
                }
            }
            if l.trailer().is_some() && l.overlay().is_none() {
                findings.note(
                    "the file ends with an \"AO\" media trailer, ignored without --media-trailer",
                );
            }
        }
    }
}

/// Decodes one entry in full and checks that its name leads back to it.
fn entry(archive: &Opened<'_>, index: usize, findings: &mut Findings<'_>) {
    let Some(row) = archive.row(index) else {
        return;
    };
    let name = names::display(&row.name);
    match archive.stream(index, &mut Sink) {
        Ok((_, 0)) => {}
        Ok((_, trailing)) => findings.note(format_args!(
            "entry {index} (\"{name}\"): {trailing} packed bytes after the end of its stream"
        )),
        Err(EntryError::Archive(e)) => findings.problem(format_args!(
            "entry {index} (\"{name}\") at offset {:#x}: {e}",
            row.offset
        )),
        Err(EntryError::Output(_)) => {}
    }
    let found = archive.find(&row.name);
    let same_name = found
        .and_then(|j| archive.row(j))
        .is_some_and(|other| match archive {
            Opened::Nres(_) => nres::compare_names(&other.name, &row.name).is_eq(),
            Opened::Rsli(_) => other.name == row.name,
        });
    if !same_name {
        let why = match archive {
            Opened::Rsli(_) if row.name.iter().any(u8::is_ascii_lowercase) => {
                " (rsFind upper-cases every query)"
            }
            _ => "",
        };
        findings.note(format_args!(
            "entry {index} (\"{name}\") cannot be found by its name{why}"
        ));
    }
}
