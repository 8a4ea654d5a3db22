//! Just enough JSON writing for `--json`: strings, numbers and flat objects.

use std::fmt::Write;

/// `s` as a JSON string literal.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A flat JSON object built field by field, in insertion order.
#[derive(Default)]
pub struct Object {
    body: String,
}

impl Object {
    pub fn raw(&mut self, key: &str, value: impl std::fmt::Display) -> &mut Self {
        if !self.body.is_empty() {
            self.body.push_str(", ");
        }
        let _ = write!(self.body, "{}: {value}", string(key));
        self
    }

    pub fn str(&mut self, key: &str, value: &str) -> &mut Self {
        self.raw(key, string(value))
    }

    pub fn finish(&self) -> String {
        format!("{{{}}}", self.body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(string("a\"b\\c\n"), "\"a\\\"b\\\\c\\u000a\"");
        let mut o = Object::default();
        o.raw("n", 1).str("s", "x");
        assert_eq!(o.finish(), "{\"n\": 1, \"s\": \"x\"}");
    }
}
