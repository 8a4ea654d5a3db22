//! `ngi info`: header fields, counts per method, the trailer, the lookup table's state.

use std::collections::BTreeMap;
use std::io::Write;

use ngi_core::archive::{Header, Lookup};
use ngi_core::{nres, rsli};

use serde::Serialize;

use super::json;
use crate::args::Options;
use crate::open::{ArchiveFile, method_name};
use crate::report::{Failure, output_failed};

/// One fact: its label for people, its key for JSON, and its value.
struct Fact {
    label: &'static str,
    key: &'static str,
    value: Value,
}

/// A fact's value: a JSON number, string or object of counts.
#[derive(Serialize)]
#[serde(untagged)]
enum Value {
    Number(u64),
    Text(String),
    Counts(BTreeMap<&'static str, u64>),
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Number(n) => write!(f, "{n}"),
            Value::Text(t) => f.write_str(t),
            Value::Counts(counts) => {
                for (i, (name, n)) in counts.iter().enumerate() {
                    let comma = if i == 0 { "" } else { ", " };
                    write!(f, "{comma}{name} {n}")?;
                }
                Ok(())
            }
        }
    }
}

/// The facts as one JSON object, in their order.
struct Facts<'a>(&'a [Fact]);

impl Serialize for Facts<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|f| (f.key, &f.value)))
    }
}

fn number(label: &'static str, key: &'static str, value: u64) -> Fact {
    Fact {
        label,
        key,
        value: Value::Number(value),
    }
}

fn text(label: &'static str, key: &'static str, value: String) -> Fact {
    Fact {
        label,
        key,
        value: Value::Text(value),
    }
}

pub fn nres_lookup(table: nres::LookupTable) -> String {
    match table {
        nres::LookupTable::Canonical => "canonical (binary search)".into(),
        nres::LookupTable::Sorted => {
            "sorted, ties out of index order (binary search, as the engine)".into()
        }
        nres::LookupTable::Unsorted { slot } => {
            format!("not sorted at slot {slot} (linear scan)")
        }
        nres::LookupTable::OutOfRange { entry, sort_index } => {
            format!("entry {entry} has sort_index {sort_index} out of range (linear scan)")
        }
    }
}

pub fn rsli_lookup(table: rsli::LookupTable) -> String {
    match table {
        rsli::LookupTable::Computed => "computed at open, as the engine does (no 0xABBA)".into(),
        rsli::LookupTable::Presorted => "presorted (0xABBA), equal to the engine's order".into(),
        rsli::LookupTable::PresortedDiffers => {
            "presorted (0xABBA) but not the engine's order (binary search, then linear)".into()
        }
        rsli::LookupTable::PresortedOutOfRange { entry, sort_index } => format!(
            "presorted (0xABBA), entry {entry} has sort_index {sort_index} out of range (linear scan)"
        ),
    }
}

fn facts(options: &Options, archive: &ArchiveFile) -> Vec<Fact> {
    let mut facts = vec![
        text("format", "format", archive.format_name().into()),
        number("entries", "entries", archive.len() as u64),
    ];
    let mut methods: BTreeMap<&'static str, u64> = BTreeMap::new();
    let (mut packed, mut unpacked) = (0u64, 0u64);
    for entry in archive.entries() {
        *methods.entry(method_name(entry)).or_default() += 1;
        packed += super::list::packed_size(entry);
        unpacked += entry.size;
    }
    let catalog = &archive.catalog;
    facts.push(number("file size", "file_size", catalog.file_len()));
    match (catalog.header(), catalog.lookup_table()) {
        (Header::Nres(h), Lookup::Nres(table)) => {
            facts.push(text("version", "version", format!("{:#x}", nres::VERSION)));
            facts.push(number("total size", "total_size", h.total_size.into()));
            facts.push(number(
                "directory offset",
                "directory_offset",
                catalog.directory_offset(),
            ));
            facts.push(text("lookup table", "lookup_table", nres_lookup(table)));
        }
        (Header::Rsli(h), Lookup::Rsli(table)) => {
            facts.push(number("version", "version", h.raw[3].into()));
            facts.push(text(
                "seed",
                "seed",
                format!("{:#010x} (key {:#06x})", h.seed, h.key()),
            ));
            facts.push(text(
                "presorted flag",
                "presorted_flag",
                format!(
                    "{:#06x}{}",
                    h.presorted_flag,
                    if h.is_presorted() { " (0xABBA)" } else { "" }
                ),
            ));
            facts.push(text("lookup table", "lookup_table", rsli_lookup(table)));
            let trailer = match (catalog.trailer(), options.media_trailer) {
                (None, _) => "absent".to_string(),
                (Some(o), true) => format!("present, overlay {o} (honoured)"),
                (Some(o), false) => {
                    format!("present, overlay {o} (ignored; --media-trailer honours it)")
                }
            };
            facts.push(text("media trailer", "media_trailer", trailer));
        }
        // Raw mode: no header, one entry.
        (_, lookup) => {
            facts.push(number(
                "directory offset",
                "directory_offset",
                catalog.directory_offset(),
            ));
            if let Lookup::Nres(table) = lookup {
                facts.push(text("lookup table", "lookup_table", nres_lookup(table)));
            }
        }
    }
    facts.push(Fact {
        label: "methods",
        key: "methods",
        value: Value::Counts(methods),
    });
    facts.push(number("packed bytes", "packed_bytes", packed));
    facts.push(number("unpacked bytes", "unpacked_bytes", unpacked));
    facts
}

pub fn run(options: &Options, archive: &ArchiveFile) -> Result<(), Failure> {
    let facts = facts(options, archive);
    let mut out = std::io::stdout().lock();
    let written = if options.json {
        json::write(&mut out, &Facts(&facts)).and_then(|()| writeln!(out))
    } else {
        facts
            .iter()
            .try_for_each(|f| writeln!(out, "{:<17} {}", format!("{}:", f.label), f.value))
    };
    written.and_then(|()| out.flush()).map_err(output_failed)
}
