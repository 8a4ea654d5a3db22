//! `ngi list`: the entries in directory order, as a table or one JSON array.

use std::io::Write;

use serde::Serialize;

use super::json;
use crate::args::Options;
use crate::names;
use ngi_core::archive::{Entry, Format, Native};

use crate::open::{ArchiveFile, method_name};
use crate::report::{Failure, output_failed};

pub fn run(options: &Options, archive: &ArchiveFile) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if options.json {
        write_json(archive, &mut out)
    } else {
        write_table(archive, &mut out)
    }
    .and_then(|()| out.flush())
    .map_err(output_failed)
}

/// One entry in `list --json` (and in `ngi serve`'s listings): the fields every entry
/// has, then its format's own.
#[derive(Serialize)]
pub struct Row<'a> {
    index: usize,
    /// The name as `list` shows it (see `names::display`), so that it is accepted back.
    name: String,
    name_hex: String,
    size: u64,
    packed_size: u64,
    offset: u64,
    method: &'a str,
    sort_index: u32,
    #[serde(flatten)]
    native: NativeFields,
}

/// The fields of one format's directory record.
#[derive(Serialize)]
#[serde(untagged)]
enum NativeFields {
    Nres {
        type_id: u32,
        attr1: u32,
        attr2: u32,
        attr3: u32,
    },
    Rsli {
        flags: u16,
    },
}

pub fn row(index: usize, entry: &Entry) -> Row<'_> {
    let native = match &entry.native {
        Native::Nres(record) => {
            let e = record.entry();
            NativeFields::Nres {
                type_id: e.type_id,
                attr1: e.attr1,
                attr2: e.attr2,
                attr3: e.attr3,
            }
        }
        Native::Rsli(e) => NativeFields::Rsli { flags: e.flags },
    };
    Row {
        index,
        name: names::display(entry.name()),
        name_hex: hex(entry.name()),
        size: entry.size,
        packed_size: packed_size(entry),
        offset: entry.offset,
        method: method_name(entry),
        sort_index: entry.sort_index(),
        native,
    }
}

/// The `packed_size` shown: the directory's own field (NRes has one size for both).
pub fn packed_size(entry: &Entry) -> u64 {
    match &entry.native {
        Native::Nres(_) => entry.size,
        Native::Rsli(e) => e.packed_size.into(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_json(archive: &ArchiveFile, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "[")?;
    let count = archive.len();
    for (index, entry) in archive.entries().iter().enumerate() {
        let comma = if index + 1 < count { "," } else { "" };
        write!(out, "  ")?;
        json::write(out, &row(index, entry))?;
        writeln!(out, "{comma}")?;
    }
    writeln!(out, "]")
}

fn write_table(archive: &ArchiveFile, out: &mut dyn Write) -> std::io::Result<()> {
    let nres = archive.catalog.format() == Format::Nres;
    let kind = if nres { "type_id" } else { "flags" };
    writeln!(
        out,
        "{:>6}  {:<36} {:>10} {:>10} {:>10}  {:<11} {:>6} {:>10}",
        "index", "name", "size", "packed", "offset", "method", "sort", kind
    )?;
    for (index, entry) in archive.entries().iter().enumerate() {
        let kind = match &entry.native {
            Native::Nres(record) => format!("{:#010x}", record.entry().type_id),
            Native::Rsli(e) => format!("{:#06x}", e.flags),
        };
        writeln!(
            out,
            "{:>6}  {:<36} {:>10} {:>10} {:>10}  {:<11} {:>6} {:>10}",
            index,
            names::display(entry.name()),
            entry.size,
            packed_size(entry),
            entry.offset,
            method_name(entry),
            entry.sort_index(),
            kind
        )?;
    }
    Ok(())
}
