//! `ngi list`: the entries in directory order, as a table or one JSON array.

use std::io::Write;

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

pub fn row_json(index: usize, entry: &Entry) -> String {
    let mut o = json::Object::default();
    o.raw("index", index)
        .str("name", &names::display(entry.name()))
        .str("name_hex", &hex(entry.name()))
        .raw("size", entry.size)
        .raw("packed_size", packed_size(entry))
        .raw("offset", entry.offset)
        .str("method", method_name(entry))
        .raw("sort_index", entry.sort_index());
    match &entry.native {
        Native::Nres(record) => {
            let e = record.entry();
            o.raw("type_id", e.type_id)
                .raw("attr1", e.attr1)
                .raw("attr2", e.attr2)
                .raw("attr3", e.attr3);
        }
        Native::Rsli(e) => {
            o.raw("flags", e.flags);
        }
    }
    o.finish()
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
        writeln!(out, "  {}{comma}", row_json(index, entry))?;
    }
    writeln!(out, "]")
}

fn write_table(archive: &ArchiveFile, out: &mut dyn Write) -> std::io::Result<()> {
    let nres = archive.catalog.format() == Format::Nres;
    let kind = if nres { "type_id" } else { "flags" };
    writeln!(
        out,
        "{:>6}  {:<36} {:>10} {:>10} {:>10}  {:<10} {:>6} {:>10}",
        "index", "name", "size", "packed", "offset", "method", "sort", kind
    )?;
    for (index, entry) in archive.entries().iter().enumerate() {
        let kind = match &entry.native {
            Native::Nres(record) => format!("{:#010x}", record.entry().type_id),
            Native::Rsli(e) => format!("{:#06x}", e.flags),
        };
        writeln!(
            out,
            "{:>6}  {:<36} {:>10} {:>10} {:>10}  {:<10} {:>6} {:>10}",
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
