//! `--json` through serde_json, in the layout ngi has always written: an object on one
//! line, `", "` between members and `": "` after each key (`{"index": 0, "size": 49}`).
//! serde_json's compact form has no spaces and its pretty form breaks every member onto a
//! line of its own; this [`Formatter`] only changes those separators.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{Formatter, Serializer};

/// serde_json's compact formatter with a space after each `,` and `:`.
#[derive(Debug, Clone, Copy, Default)]
struct Spaced;

impl Formatter for Spaced {
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first { Ok(()) } else { w.write_all(b", ") }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }
}

/// `value` as JSON on one line (no newline after it).
pub fn write(out: &mut dyn Write, value: &impl Serialize) -> io::Result<()> {
    let mut serializer = Serializer::with_formatter(out, Spaced);
    value.serialize(&mut serializer).map_err(io::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Row<'a> {
        n: u32,
        s: &'a str,
        list: [u8; 2],
    }

    #[test]
    fn one_line_with_spaces_and_escapes() {
        let mut out = Vec::new();
        let row = Row {
            n: 1,
            s: "a\"b\\c\n",
            list: [1, 2],
        };
        write(&mut out, &row).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, r#"{"n": 1, "s": "a\"b\\c\n", "list": [1, 2]}"#);
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["s"], "a\"b\\c\n");
    }
}
