//! The pages a browser gets (`Accept: text/html`): the archive list, and per archive a
//! table of its entries, sortable by a query parameter. Server-side and script-free.
//! Entry names are bytes from the file: shown in ngi's display form (printable ASCII,
//! `\xNN` for the rest), then HTML-escaped; links percent-encode every reserved byte.

use std::cmp::Ordering;
use std::fmt::Write;

use ngi_tokio::Archive;

use super::paths::{Listed, Located, encode};
use crate::commands::list::packed_size;
use crate::names;
use crate::open::method_name;

/// `text` safe in HTML text and in a quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn page(title: &str, body: &str) -> String {
    format!("{}{body}{PAGE_TAIL}", page_head(title))
}

/// A page up to its body's content.
fn page_head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>{title}</title>\n<style>\
         body{{font-family:sans-serif;margin:2em}}\
         table{{border-collapse:collapse}}\
         th,td{{padding:.2em .8em;border-bottom:1px solid #ddd;text-align:left}}\
         td.n{{text-align:right;font-variant-numeric:tabular-nums}}\
         </style>\n</head>\n<body>\n",
        title = escape(title)
    )
}

const PAGE_TAIL: &str = "</body>\n</html>\n";

/// `/`: every archive under the folder, each a link to its page.
pub fn index_page(listed: &[Listed]) -> String {
    let mut body = String::from("<h1>Archives</h1>\n");
    if listed.is_empty() {
        body.push_str("<p>No archives here.</p>\n");
    } else {
        body.push_str("<ul id=\"archives\">\n");
        for archive in listed {
            let _ = writeln!(
                body,
                "<li><a href=\"{}\">{}</a></li>",
                escape(&archive.href),
                escape(&archive.path)
            );
        }
        body.push_str("</ul>\n");
    }
    page("Archives", &body)
}

/// A column the entry table sorts by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    Index,
    Name,
    Size,
    Packed,
    Method,
}

impl SortKey {
    const ALL: [(SortKey, &'static str, &'static str); 5] = [
        (SortKey::Index, "index", "#"),
        (SortKey::Name, "name", "name"),
        (SortKey::Size, "size", "size"),
        (SortKey::Packed, "packed", "packed size"),
        (SortKey::Method, "method", "method"),
    ];
}

/// How the table is sorted: `?sort=KEY&order=asc|desc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub key: SortKey,
    pub descending: bool,
}

impl Sort {
    /// From the query's `sort` and `order` values; an unknown one is an error that says
    /// what is accepted.
    pub fn parse(sort: Option<&str>, order: Option<&str>) -> Result<Sort, String> {
        let key = match sort {
            None => SortKey::Index,
            Some(word) => SortKey::ALL
                .iter()
                .find(|(_, w, _)| *w == word)
                .map(|(k, ..)| *k)
                .ok_or_else(|| {
                    format!("sort={word:?}: sort by index, name, size, packed or method")
                })?,
        };
        let descending = match order {
            None | Some("asc") => false,
            Some("desc") => true,
            Some(other) => return Err(format!("order={other:?}: order is asc or desc")),
        };
        Ok(Sort { key, descending })
    }
}

/// The entries' indices in the order the table lists them (4 bytes an entry: an
/// archive holds fewer than 2^32).
pub fn table_order(archive: &Archive, sort: Sort) -> Vec<u32> {
    let entries = archive.entries();
    let mut order: Vec<u32> = (0..entries.len() as u32).collect();
    let compare = |&a: &u32, &b: &u32| -> Ordering {
        let (x, y) = (&entries[a as usize], &entries[b as usize]);
        let by = match sort.key {
            SortKey::Index => Ordering::Equal,
            SortKey::Name => x.name().cmp(y.name()),
            SortKey::Size => x.size.cmp(&y.size),
            SortKey::Packed => packed_size(x).cmp(&packed_size(y)),
            SortKey::Method => method_name(x).cmp(method_name(y)),
        };
        let by = by.then(a.cmp(&b));
        if sort.descending { by.reverse() } else { by }
    };
    order.sort_by(compare);
    order
}

/// `/PATH/`, the archive's entries as a table: the page up to its first row.
pub fn archive_head(located: &Located, archive: &Archive, sort: Sort) -> String {
    let mut body = page_head(&located.shown);
    let _ = write!(
        body,
        "<h1>{}</h1>\n<p><a href=\"/\">All archives</a> &middot; {}, {}</p>\n\
         <table id=\"entries\">\n<thead><tr>",
        escape(&located.shown),
        crate::count::entries(archive.len()),
        match archive.format() {
            ngi_tokio::Format::Nres => "NRes",
            ngi_tokio::Format::Rsli => "RsLi",
        }
    );
    for (key, word, title) in SortKey::ALL {
        let flip = sort.key == key && !sort.descending;
        let order = if flip { "desc" } else { "asc" };
        let mark = match (sort.key == key, sort.descending) {
            (true, false) => " &#9650;",
            (true, true) => " &#9660;",
            _ => "",
        };
        let _ = write!(
            body,
            "<th><a href=\"?sort={word}&amp;order={order}\">{title}</a>{mark}</th>"
        );
    }
    body.push_str("<th>download</th></tr></thead>\n<tbody>\n");
    body
}

/// The table's row of entry `index`, linking to the entry, onto `out`.
pub fn archive_row(out: &mut String, located: &Located, archive: &Archive, index: usize) {
    let Some(entry) = archive.entry(index) else {
        return;
    };
    let name = entry.name();
    // A name the lookup finds is linked by name; a duplicate (or one the lookup cannot
    // reach) by index, so every link gives its own row's bytes.
    // Names a browser would resolve as a path (`.`, `..`, empty) go by index too.
    let path_like = matches!(name, b"" | b"." | b"..");
    let href = if archive.find(name) == Some(index) && !path_like {
        format!("{}/{}", located.href, encode(name))
    } else {
        format!("{}/?index={index}", located.href)
    };
    let _ = writeln!(
        out,
        "<tr><td class=\"n\">{index}</td><td class=\"name\">{}</td><td class=\"n\">{}</td>\
         <td class=\"n\">{}</td><td>{}</td><td><a class=\"download\" href=\"{}\">download</a></td></tr>",
        escape(&names::display(name)),
        entry.size,
        packed_size(entry),
        method_name(entry),
        escape(&href)
    );
}

/// The page after the table's last row.
pub const ARCHIVE_TAIL: &str = "</tbody>\n</table>\n</body>\n</html>\n";
