//! `ngi cat`: one decoded entry to stdout. Exit status 0 only if all of it was written.

use std::io::Write;

use ngi_core::limits::Budget;

use crate::args::Options;
use crate::open::{ArchiveFile, EntryError};
use crate::report::{Failure, output_failed};

pub fn run(options: &Options, archive: &ArchiveFile) -> Result<(), Failure> {
    let index = super::select(
        options,
        archive,
        options.names.first().map(|n| n.as_os_str()),
    )?;
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut budget = Budget::new(options.limits);
    match archive.stream(index, &mut out, &mut budget) {
        Ok(_) => out.flush().map_err(output_failed),
        Err(EntryError::Archive(e) | EntryError::Total(e)) => {
            Err(Failure::about(options.archive.display(), e))
        }
        Err(EntryError::Output(e)) => Err(output_failed(e)),
    }
}
