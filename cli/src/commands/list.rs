//! `ngi list`: the entries in directory order, as a table or one JSON array.

use std::io::Write;

use super::json;
use crate::args::Options;
use crate::names;
use crate::open::{Extra, Opened, Row};
use crate::report::{Failure, output_failed};

pub fn run(options: &Options, archive: &Opened<'_>) -> Result<(), Failure> {
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

/// The JSON `method` value: the method's name, or "unsupported" for flags naming none.
pub fn method_name(row: &Row) -> &'static str {
    row.method.map_or("unsupported", |m| m.name())
}

pub fn row_json(row: &Row) -> String {
    let mut o = json::Object::default();
    o.raw("index", row.index)
        .str("name", &names::display(&row.name))
        .str("name_hex", &hex(&row.name))
        .raw("size", row.size)
        .raw("packed_size", row.packed_size)
        .raw("offset", row.offset)
        .str("method", method_name(row))
        .raw("sort_index", row.sort_index);
    match row.extra {
        Extra::Nres {
            type_id,
            attr1,
            attr2,
            attr3,
        } => {
            o.raw("type_id", type_id)
                .raw("attr1", attr1)
                .raw("attr2", attr2)
                .raw("attr3", attr3);
        }
        Extra::Rsli { flags } => {
            o.raw("flags", flags);
        }
    }
    o.finish()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn write_json(archive: &Opened<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(out, "[")?;
    let count = archive.len();
    for row in archive.rows() {
        let comma = if row.index + 1 < count { "," } else { "" };
        writeln!(out, "  {}{comma}", row_json(&row))?;
    }
    writeln!(out, "]")
}

fn write_table(archive: &Opened<'_>, out: &mut dyn Write) -> std::io::Result<()> {
    let nres = matches!(archive, Opened::Nres(_));
    let kind = if nres { "type_id" } else { "flags" };
    writeln!(
        out,
        "{:>6}  {:<36} {:>10} {:>10} {:>10}  {:<10} {:>6} {:>10}",
        "index", "name", "size", "packed", "offset", "method", "sort", kind
    )?;
    for row in archive.rows() {
        let kind = match row.extra {
            Extra::Nres { type_id, .. } => format!("{type_id:#010x}"),
            Extra::Rsli { flags } => format!("{flags:#06x}"),
        };
        writeln!(
            out,
            "{:>6}  {:<36} {:>10} {:>10} {:>10}  {:<10} {:>6} {:>10}",
            row.index,
            names::display(&row.name),
            row.size,
            row.packed_size,
            row.offset,
            method_name(&row),
            row.sort_index,
            kind
        )?;
    }
    Ok(())
}
