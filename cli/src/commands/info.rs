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

/// One fact: its label for people and what they read, its key for JSON and the value
/// there (numbers as numbers, states as fixed words: what a program can match on).
struct Fact {
    label: &'static str,
    shown: String,
    key: &'static str,
    json: serde_json::Value,
}

/// The facts as one JSON object, in their order.
struct Facts<'a>(&'a [Fact]);

impl Serialize for Facts<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|f| (f.key, &f.json)))
    }
}

fn number(label: &'static str, key: &'static str, value: u64) -> Fact {
    Fact {
        label,
        shown: value.to_string(),
        key,
        json: value.into(),
    }
}

/// A fact shown as `shown`, given in JSON as `json`.
fn fact(label: &'static str, key: &'static str, shown: String, json: serde_json::Value) -> Fact {
    Fact {
        label,
        shown,
        key,
        json,
    }
}

/// The lookup table's state in JSON: a fixed word, the search the lookups run, where the
/// table breaks the rule (when it does), and the sentence `info` shows.
fn lookup_json(state: &str, search: &str, at: serde_json::Value, shown: &str) -> serde_json::Value {
    let mut object = serde_json::json!({
        "state": state,
        "search": search,
        "description": shown,
    });
    if let (Some(object), serde_json::Value::Object(at)) = (object.as_object_mut(), at) {
        object.extend(at);
    }
    object
}

/// A table with an entry whose `sort_index` is out of range: the linear scan.
fn out_of_range(state: &str, entry: u32, sort_index: u64, shown: &str) -> serde_json::Value {
    let at = serde_json::json!({ "entry": entry, "sort_index": sort_index });
    lookup_json(state, "linear", at, shown)
}

fn nres_lookup_fact(archive: &ArchiveFile, table: nres::LookupTable) -> Fact {
    use serde_json::json;
    // A sorted table that is no permutation leaves an entry in no slot, which verify
    // calls a problem: not the mere departure from the canonical table "sorted" says.
    let sorted = matches!(table, nres::LookupTable::Sorted);
    if sorted && super::verify::nres_not_a_permutation(archive, table).is_some() {
        let shown = "sorted by name, but sort_index is no permutation: an entry is in no \
                     slot, and the engine's binary search may miss it (see verify)";
        let json = lookup_json("not-a-permutation", "binary", json!({}), shown);
        return fact("lookup table", "lookup_table", shown.into(), json);
    }
    let shown = nres_lookup(table);
    let json = match table {
        nres::LookupTable::Canonical => lookup_json("canonical", "binary", json!({}), &shown),
        nres::LookupTable::Sorted => lookup_json("sorted", "binary", json!({}), &shown),
        nres::LookupTable::Unsorted { slot } => {
            lookup_json("unsorted", "linear", json!({ "slot": slot }), &shown)
        }
        nres::LookupTable::OutOfRange { entry, sort_index } => {
            out_of_range("out-of-range", entry, sort_index.into(), &shown)
        }
    };
    fact("lookup table", "lookup_table", shown, json)
}

fn rsli_lookup_fact(table: rsli::LookupTable) -> Fact {
    use serde_json::json;
    let shown = rsli_lookup(table);
    let json = match table {
        rsli::LookupTable::Computed => lookup_json("computed", "binary", json!({}), &shown),
        rsli::LookupTable::Presorted => lookup_json("presorted", "binary", json!({}), &shown),
        // Binary search first, then the linear scan rsFind falls back to.
        rsli::LookupTable::PresortedDiffers => {
            lookup_json("presorted-differs", "binary-then-linear", json!({}), &shown)
        }
        // The search stops at that slot, if it reaches it, and the scan decides.
        rsli::LookupTable::PresortedOutOfRange { entry, sort_index } => lookup_json(
            "presorted-out-of-range",
            "binary-then-linear",
            json!({ "entry": entry, "sort_index": sort_index }),
            &shown,
        ),
    };
    fact("lookup table", "lookup_table", shown, json)
}

pub fn nres_lookup(table: nres::LookupTable) -> String {
    match table {
        nres::LookupTable::Canonical => "canonical (binary search)".into(),
        // Names in table order are sorted, but the table is not the canonical one: ties
        // out of index order, or (which `verify` tells) not a permutation.
        nres::LookupTable::Sorted => {
            "sorted by name, not the canonical table (binary search, as the engine)".into()
        }
        nres::LookupTable::Unsorted { slot } => {
            format!(
                "not sorted at slot {slot} (the engine's binary search may miss names; ngi \
                 scans)"
            )
        }
        nres::LookupTable::OutOfRange { entry, sort_index } => {
            format!(
                "entry {entry} has sort_index {sort_index} out of range (the engine's binary \
                 search may read outside the directory; ngi scans)"
            )
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
            "presorted (0xABBA), entry {entry} has sort_index {sort_index} out of range \
             (binary search until it meets that slot, then linear)"
        ),
    }
}

/// The archive's format as `--json` says it: `NRes`, `RsLi`, or `raw` (`--raw`).
pub(super) fn format_key(archive: &ArchiveFile) -> &'static str {
    match archive.catalog.header() {
        Header::Nres(_) => "NRes",
        Header::Rsli(_) => "RsLi",
        Header::Raw => "raw",
    }
}

fn facts(options: &Options, archive: &ArchiveFile) -> Vec<Fact> {
    let mut facts = vec![
        fact(
            "format",
            "format",
            archive.format_name().into(),
            format_key(archive).into(),
        ),
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
            facts.push(fact(
                "version",
                "version",
                format!("{:#x}", nres::VERSION),
                nres::VERSION.into(),
            ));
            facts.push(number("total size", "total_size", h.total_size.into()));
            facts.push(number(
                "directory offset",
                "directory_offset",
                catalog.directory_offset(),
            ));
            facts.push(nres_lookup_fact(archive, table));
        }
        (Header::Rsli(h), Lookup::Rsli(table)) => {
            facts.push(number("version", "version", h.raw[3].into()));
            facts.push(fact(
                "seed",
                "seed",
                format!("{:#010x} (key {:#06x})", h.seed, h.key()),
                serde_json::json!({ "seed": h.seed, "key": h.key() }),
            ));
            facts.push(fact(
                "presorted flag",
                "presorted_flag",
                format!(
                    "{:#06x}{}",
                    h.presorted_flag,
                    if h.is_presorted() { " (presorted)" } else { "" }
                ),
                serde_json::json!({ "value": h.presorted_flag, "presorted": h.is_presorted() }),
            ));
            facts.push(rsli_lookup_fact(table));
            let honoured = options.media_trailer;
            let trailer = match catalog.trailer() {
                None => "absent".to_string(),
                Some(o) if honoured => format!("present, overlay {o} (honoured)"),
                Some(o) => format!("present, overlay {o} (ignored; --media-trailer honours it)"),
            };
            let json = catalog.trailer().map_or(
                serde_json::Value::Null,
                |overlay| serde_json::json!({ "overlay": overlay, "honoured": honoured }),
            );
            facts.push(fact("media trailer", "media_trailer", trailer, json));
        }
        // Raw mode: no header, one entry.
        (_, lookup) => {
            facts.push(number(
                "directory offset",
                "directory_offset",
                catalog.directory_offset(),
            ));
            if let Lookup::Nres(table) = lookup {
                facts.push(nres_lookup_fact(archive, table));
            }
        }
    }
    let shown = methods
        .iter()
        .map(|(name, n)| format!("{name} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    facts.push(fact(
        "methods",
        "methods",
        shown,
        serde_json::json!(methods),
    ));
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
            .try_for_each(|f| writeln!(out, "{:<17} {}", format!("{}:", f.label), f.shown))
    };
    written.and_then(|()| out.flush()).map_err(output_failed)
}
