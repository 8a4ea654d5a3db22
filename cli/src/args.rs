//! The command line: `ngi COMMAND [OPTIONS] ARCHIVE [NAME...]`, options in any position
//! after the command.

use std::ffi::OsString;
use std::path::PathBuf;

use ngi_core::limits::Limits;

pub const USAGE: &str = "\
ngi - NRes and RsLi archives of Parkan: Iron Strategy

Usage:
  ngi list    [--json] ARCHIVE               entries in directory order
  ngi info    [--json] ARCHIVE               header, counts per method, lookup table
  ngi cat     ARCHIVE NAME | --index N ARCHIVE   decoded entry to stdout
  ngi extract ARCHIVE -o DIR [--force] [NAME...] entries as files in DIR
  ngi verify  ARCHIVE                        check every rule, decode every entry

Options (anywhere after the command):
  --raw            open any file as NRes raw mode (one entry \"RAW\")
  --media-trailer  honour the RsLi \"AO\" media trailer (engine flag 2)
  --json           machine-readable output (list, info)
  --index N        select entry N (cat)
  -o, --output DIR target folder (extract)
  --force          let extract replace existing regular files
  --max-entry-size N  largest decoded entry (default 256M); a larger one fails alone
  --max-total N       most decoded bytes in one run (default 4G); extract stops there
  --max-entries N     most entries an archive may have (default 1M)
  -h, --help       this text;  -V, --version  the version

N is a whole number with an optional binary suffix K, M, G or T (1K = 1024), or 'none'
for no limit. The limits apply to cat, extract and verify; --max-entries also to list
and info.

The format is detected from the magic: \"NRes\" or \"NL\".
Names: bytes outside printable ASCII are shown as \\xNN and a backslash as \\\\;
NAME arguments accept the same escapes. NAME is looked up by the format's engine rules
(NRes: case-insensitive; RsLi: rsFind, upper-cased and cut to 15 bytes).
Exit status: 0 ok, 1 bad archive or entry (or name/index not found), 2 usage error.
";

/// What to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    List,
    Info,
    Cat,
    Extract,
    Verify,
}

/// A parsed command line.
#[derive(Debug)]
pub struct Options {
    pub command: Command,
    pub archive: PathBuf,
    pub names: Vec<OsString>,
    pub raw: bool,
    pub media_trailer: bool,
    pub json: bool,
    pub index: Option<usize>,
    pub output: Option<PathBuf>,
    pub force: bool,
    /// What the command will act on: entry size, decoded total, entry count.
    pub limits: Limits,
}

#[derive(Debug)]
pub enum Invocation {
    Help,
    Version,
    Run(Options),
}

pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Invocation, String> {
    let mut args = args.into_iter();
    let command = match args.next() {
        None => return Err("no command given".into()),
        Some(word) => match word.to_str() {
            Some("-h" | "--help" | "help") => return Ok(Invocation::Help),
            Some("-V" | "--version") => return Ok(Invocation::Version),
            Some("list" | "ls") => Command::List,
            Some("info") => Command::Info,
            Some("cat") => Command::Cat,
            Some("extract" | "x") => Command::Extract,
            Some("verify") => Command::Verify,
            _ => return Err(format!("unknown command '{}'", word.to_string_lossy())),
        },
    };
    let mut options = Options {
        command,
        archive: PathBuf::new(),
        names: Vec::new(),
        raw: false,
        media_trailer: false,
        json: false,
        index: None,
        output: None,
        force: false,
        limits: Limits::DEFAULT,
    };
    let mut positional: Vec<OsString> = Vec::new();
    let mut only_positional = false;
    while let Some(arg) = args.next() {
        let text = arg.to_str();
        match text {
            _ if only_positional => positional.push(arg),
            Some("--") => only_positional = true,
            Some("-h" | "--help") => return Ok(Invocation::Help),
            Some("--raw") => options.raw = true,
            Some("--media-trailer") => options.media_trailer = true,
            Some("--json") => options.json = true,
            Some("--force") => options.force = true,
            Some("--index") => {
                let value = value_of("--index", args.next())?;
                let value = value.to_string_lossy();
                let index = value
                    .parse::<usize>()
                    .map_err(|_| format!("--index takes a whole number, not '{value}'"))?;
                options.index = Some(index);
            }
            Some("-o" | "--output") => {
                options.output = Some(value_of("--output", args.next())?.into());
            }
            Some(flag @ ("--max-entry-size" | "--max-total" | "--max-entries")) => {
                let value = value_of(flag, args.next())?;
                set_limit(&mut options.limits, flag, &value.to_string_lossy())?;
            }
            Some(flag)
                if ["--max-entry-size=", "--max-total=", "--max-entries="]
                    .iter()
                    .any(|p| flag.starts_with(p)) =>
            {
                let (name, value) = flag.split_once('=').unwrap_or((flag, ""));
                set_limit(&mut options.limits, name, value)?;
            }
            Some(flag) if flag.starts_with("--index=") => {
                let value = &flag["--index=".len()..];
                options.index = Some(
                    value
                        .parse::<usize>()
                        .map_err(|_| format!("--index takes a whole number, not '{value}'"))?,
                );
            }
            Some(flag) if flag.starts_with("--output=") => {
                options.output = Some(flag["--output=".len()..].into());
            }
            Some(flag) if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("unknown option '{flag}'"));
            }
            _ => positional.push(arg),
        }
    }
    let mut positional = positional.into_iter();
    let archive = positional.next().ok_or("no ARCHIVE given")?;
    options.archive = archive.into();
    options.names = positional.collect();
    check(&options)?;
    Ok(Invocation::Run(options))
}

/// Sets the limit `flag` names from `value` (see [`parse_size`]).
fn set_limit(limits: &mut Limits, flag: &str, value: &str) -> Result<(), String> {
    let n = parse_size(value).ok_or_else(|| {
        format!(
            "{flag} takes a number of bytes such as 4096, 64K, 256M or 4G, or 'none'; not '{value}'"
        )
    })?;
    match flag {
        "--max-entry-size" => limits.max_entry_size = n,
        "--max-total" => limits.max_total = n,
        _ => {
            limits.max_entries = if n == u64::MAX {
                u32::MAX
            } else {
                u32::try_from(n).map_err(|_| {
                    format!(
                        "--max-entries is at most {} (or 'none'), not '{value}'",
                        u32::MAX
                    )
                })?
            }
        }
    }
    Ok(())
}

/// A limit: a whole number with an optional binary suffix `K`, `M`, `G` or `T` (either
/// case; 1K = 1024), or `none` (no limit, `u64::MAX`). `None` for anything else,
/// including values that overflow 64 bits.
pub fn parse_size(text: &str) -> Option<u64> {
    if text.eq_ignore_ascii_case("none") {
        return Some(u64::MAX);
    }
    let (digits, shift) = match text.as_bytes().last()?.to_ascii_uppercase() {
        b'K' => (&text[..text.len() - 1], 10),
        b'M' => (&text[..text.len() - 1], 20),
        b'G' => (&text[..text.len() - 1], 30),
        b'T' => (&text[..text.len() - 1], 40),
        _ => (text, 0),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse::<u64>().ok()?.checked_mul(1u64 << shift)
}

fn value_of(flag: &str, value: Option<OsString>) -> Result<OsString, String> {
    value.ok_or_else(|| format!("{flag} needs a value"))
}

/// The combinations each command accepts.
fn check(o: &Options) -> Result<(), String> {
    let not_for =
        |what: &str| Err(format!("{what} does not apply to '{:?}'", o.command).to_lowercase());
    if o.index.is_some() && o.command != Command::Cat {
        return not_for("--index");
    }
    if o.output.is_some() && o.command != Command::Extract {
        return not_for("--output");
    }
    if o.force && o.command != Command::Extract {
        return not_for("--force");
    }
    if o.json && !matches!(o.command, Command::List | Command::Info) {
        return not_for("--json");
    }
    match o.command {
        Command::Cat => match (o.index, o.names.len()) {
            (Some(_), 0) | (None, 1) => Ok(()),
            (Some(_), _) => Err("cat takes either NAME or --index N, not both".into()),
            (None, 0) => Err("cat needs a NAME or --index N".into()),
            (None, _) => Err("cat takes one NAME".into()),
        },
        Command::Extract if o.output.is_none() => Err("extract needs -o DIR".into()),
        Command::Extract => Ok(()),
        _ if !o.names.is_empty() => Err(format!(
            "unexpected argument '{}'",
            o.names[0].to_string_lossy()
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(words: &[&str]) -> Result<Options, String> {
        match parse(words.iter().map(OsString::from))? {
            Invocation::Run(o) => Ok(o),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn options_may_follow_the_command_anywhere() {
        let o = run(&["cat", "--raw", "--index", "0", "FILE"]).unwrap();
        assert!(o.raw);
        assert_eq!((o.index, o.archive.to_str()), (Some(0), Some("FILE")));
        let o = run(&["cat", "A", "--media-trailer", "NAME"]).unwrap();
        assert!(o.media_trailer);
        assert_eq!(o.names, vec![OsString::from("NAME")]);
        let o = run(&["list", "A", "--json"]).unwrap();
        assert!(o.json);
    }

    #[test]
    fn limits_take_bytes_with_binary_suffixes() {
        assert_eq!(parse_size("0"), Some(0));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("64k"), Some(64 << 10));
        assert_eq!(parse_size("256M"), Some(256 << 20));
        assert_eq!(parse_size("4G"), Some(4 << 30));
        assert_eq!(parse_size("2t"), Some(2 << 40));
        assert_eq!(parse_size("none"), Some(u64::MAX));
        assert_eq!(parse_size("NONE"), Some(u64::MAX));
        for bad in [
            "",
            "K",
            "-1",
            "1.5M",
            "12KB",
            "0x10",
            " 1",
            "99999999999999999999",
            "16777216T",
        ] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
        let o = run(&["cat", "--max-entry-size", "1K", "A", "N", "--max-total=2M"]).unwrap();
        assert_eq!(o.limits.max_entry_size, 1024);
        assert_eq!(o.limits.max_total, 2 << 20);
        assert_eq!(o.limits.max_entries, Limits::DEFAULT.max_entries);
        let o = run(&["list", "--max-entries=none", "A"]).unwrap();
        assert_eq!(o.limits.max_entries, u32::MAX);
        let o = run(&["verify", "A", "--max-entries", "4K"]).unwrap();
        assert_eq!(o.limits.max_entries, 4096);
        assert_eq!(run(&["verify", "A"]).unwrap().limits, Limits::DEFAULT);
    }

    #[test]
    fn usage_errors() {
        for words in [
            &["frobnicate", "A"][..],
            &["list"],
            &["list", "--bogus", "A"],
            &["cat", "A"],
            &["cat", "A", "N", "--index", "1"],
            &["cat", "--index", "x", "A"],
            &["extract", "A"],
            &["verify", "--json", "A"],
            &["list", "A", "extra"],
            &["cat", "--max-entry-size", "A", "N"],
            &["cat", "A", "N", "--max-entry-size"],
            &["cat", "A", "N", "--max-total=lots"],
            &["list", "--max-entries", "8G", "A"],
        ] {
            assert!(run(words).is_err(), "{words:?}");
        }
    }
}
