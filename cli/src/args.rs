//! The command line: `ngi COMMAND [OPTIONS] ARCHIVE [NAME...]`, options in any position
//! after the command, `--` ending them. Parsed by clap (derive) into [`Cli`], then turned
//! into the plain structs the commands consume: [`Options`] for the commands that read one
//! archive, one variant of [`Action`] each for the others.
//!
//! # Adding a subcommand
//!
//! 1. Add a variant to [`CliCommand`] with its own arguments (a doc comment on the variant
//!    is its line in `ngi --help`; `#[command(flatten)] read: ReadFlags` gives it
//!    `--raw`, `--media-trailer` and `--max-entries`, if it reads an archive
//!    (`ArchiveFlags` the last two, if it writes from it too), and
//!    `decode: DecodeFlags` the limits on decoding, if it decodes entries).
//! 2. If it consumes something other than [`Options`] (say `ngi pack DIR -o ARCHIVE`), add a
//!    plain struct for it here and a variant of [`Action`] holding it; if it is one more
//!    archive-reading command, add a variant to [`Command`] instead.
//! 3. Map the new [`CliCommand`] variant in [`CliCommand::into_action`], and dispatch the
//!    new [`Action`] (or [`Command`]) variant in `main.rs` (or `commands::run`).
//! 4. Add a case to the tests at the end of this file, and one through the binary in
//!    `cli/tests/cli.rs`.
//!
//! Each option is declared only on the subcommands it applies to, so clap refuses it
//! elsewhere (`ngi cat --json` is a usage error, as `ngi cat --force` is). An option
//! given twice is no error: the last one counts (`args_override_self`), but for the
//! `--index` of `cat` and `rename`, which choose one entry (a usage error).

use std::ffi::OsString;
use std::path::PathBuf;

use clap::Parser;
use clap::error::ErrorKind;
use clap_complete::Shell;
use ngi_core::limits::Limits;

/// The notes at the end of `ngi --help`.
const NOTES: &str = "\
In --max-entry-size, --max-total, --max-entries and --buffer-up-to, N is a whole number
with an optional binary suffix K, M, G or T (1K = 1024), or 'none' for no limit.
--max-entry-size and --max-total bound what cat, extract, verify and unpack decode: an
entry's decoded size, and the run's total (where an entry counts its decoded size, or
the packed bytes it reads when more); --max-entries refuses a larger archive at open, by
every command that opens one, and add past it.
Options may stand anywhere after the command; '--' ends them. An option given twice
takes the last value, but for the --index of cat and rename (a usage error).

The format is detected from the magic: \"NRes\" or \"NL\".
Names: bytes outside printable ASCII are shown as \\xNN and a backslash as \\\\;
NAME arguments accept the same escapes (a backslash that starts none stands for itself).
NAME is looked up by the format's engine rules (NRes: case-insensitive; RsLi: rsFind,
upper-cased and cut to 15 bytes).
In-place edits (add, rm, rename, sort, repack) write a new file and rename it over the
archive: a symbolic link is followed and kept, but other hard links keep the old file.
Exit status: 0 ok, 1 bad archive or entry (or name/index not found) or a failed read or
write, 2 usage error.";

/// ngi - NRes and RsLi archives of Parkan: Iron Strategy
#[derive(Debug, Parser)]
// Plain styles: help is printed without them anyway, and a usage error's text is taken
// with its escape sequences (`ansi()`), which are then the user's own alone.
#[command(
    name = "ngi",
    version,
    after_help = NOTES,
    args_override_self = true,
    styles = clap::builder::Styles::plain()
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: CliCommand,
}

/// The subcommands as clap parses them; see the module docs for adding one.
#[derive(Debug, clap::Subcommand)]
pub enum CliCommand {
    /// Entries in directory order
    #[command(visible_alias = "ls")]
    List {
        /// Machine-readable output (one JSON array)
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadFlags,
        /// The NRes or RsLi archive (told apart by its magic)
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
    },
    /// Header, counts per method, lookup table
    Info {
        /// Machine-readable output (one JSON object)
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        read: ReadFlags,
        /// The NRes or RsLi archive (told apart by its magic)
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
    },
    /// Decoded entry to stdout: `ngi cat ARCHIVE NAME` or `ngi cat --index N ARCHIVE`
    Cat {
        /// Select entry N (in directory order) instead of a NAME
        #[arg(long, value_name = "N", conflicts_with = "name")]
        index: Vec<usize>,
        #[command(flatten)]
        read: ReadFlags,
        #[command(flatten)]
        decode: DecodeFlags,
        /// The NRes or RsLi archive (told apart by its magic)
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// The entry's name (escapes as shown by list)
        #[arg(value_name = "NAME", required_unless_present = "index")]
        name: Option<OsString>,
    },
    /// Entries as files in DIR (all of them, or those NAME and --index give)
    #[command(visible_alias = "x")]
    Extract {
        /// Target folder
        #[arg(
            short,
            long,
            value_name = "DIR",
            required = true,
            allow_hyphen_values = true
        )]
        output: PathBuf,
        /// Replace existing regular files
        #[arg(long)]
        force: bool,
        /// Entries decoded at once, 1 to 1024 (default: one per core; 1: one after another)
        #[arg(short, long, value_name = "N", value_parser = jobs)]
        jobs: Option<u16>,
        #[command(flatten)]
        read: ReadFlags,
        #[command(flatten)]
        decode: DecodeFlags,
        /// Also extract entry N (in directory order; may be given more than once): the
        /// way to an entry no NAME reaches, such as the later of two the engine takes as one
        #[arg(long = "index", value_name = "N")]
        indices: Vec<usize>,
        /// The NRes or RsLi archive (told apart by its magic)
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// Entries to extract (default: all, unless --index is given)
        #[arg(value_name = "NAME")]
        names: Vec<OsString>,
    },
    /// Check every rule, decode every entry
    Verify {
        /// Machine-readable output (one JSON object on stdout: the problems and the notes)
        #[arg(long)]
        json: bool,
        /// Entries decoded at once, 1 to 1024 (default: one per core; 1: one after another)
        #[arg(short, long, value_name = "N", value_parser = jobs)]
        jobs: Option<u16>,
        #[command(flatten)]
        read: ReadFlags,
        #[command(flatten)]
        decode: DecodeFlags,
        /// The NRes or RsLi archive (told apart by its magic)
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
    },
    /// Every entry as a file in DIR, plus DIR/ngi.toml, a manifest `pack` rebuilds from
    Unpack {
        /// Target folder
        #[arg(
            short,
            long,
            value_name = "DIR",
            required = true,
            allow_hyphen_values = true
        )]
        output: PathBuf,
        /// Replace existing regular files (the manifest included)
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        read: ArchiveFlags,
        #[command(flatten)]
        decode: DecodeFlags,
        /// The NRes or RsLi archive (told apart by its magic)
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
    },
    /// Rebuild an archive from a folder `unpack` made: byte-identical when nothing changed
    Pack {
        /// The archive to write
        #[arg(
            short,
            long,
            value_name = "ARCHIVE",
            required = true,
            allow_hyphen_values = true,
            value_parser = file_to_write()
        )]
        output: PathBuf,
        /// Replace an existing file
        #[arg(long)]
        force: bool,
        /// The folder holding ngi.toml
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// A canonical rebuild (no gaps, aligned, rebuilt lookup table), in place or into OUT
    Repack {
        /// Write here instead of replacing ARCHIVE
        #[arg(
            short,
            long,
            value_name = "OUT",
            allow_hyphen_values = true,
            value_parser = file_to_write()
        )]
        output: Option<PathBuf>,
        /// Replace an existing OUT (in place, ARCHIVE is always replaced)
        #[arg(long, requires = "output")]
        force: bool,
        #[command(flatten)]
        read: ArchiveFlags,
        /// The NRes or RsLi archive, rewritten in place unless -o names another file
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
    },
    /// Add files as new entries, in place (their payloads go after the old ones)
    Add {
        /// The entry's name (one FILE only; default: the file's name, upper-cased for RsLi)
        #[arg(long, value_name = "NAME")]
        name: Option<OsString>,
        /// RsLi: how to pack (stored, xor, lzss, xor-lzss, lzhuf, xor-lzhuf, deflate)
        #[arg(long, value_name = "M", value_parser = method)]
        method: Option<ngi_core::Method>,
        /// NRes: the entry's type_id (a number, 0x for hex)
        #[arg(long = "type", value_name = "T", value_parser = number)]
        type_id: Option<u32>,
        /// NRes: attr1
        #[arg(long, value_name = "A", value_parser = number)]
        attr1: Option<u32>,
        /// NRes: attr2
        #[arg(long, value_name = "A", value_parser = number)]
        attr2: Option<u32>,
        /// NRes: attr3
        #[arg(long, value_name = "A", value_parser = number)]
        attr3: Option<u32>,
        #[command(flatten)]
        read: ArchiveFlags,
        /// The NRes or RsLi archive, rewritten in place
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// Files to add
        #[arg(value_name = "FILE", required = true)]
        files: Vec<PathBuf>,
    },
    /// Remove entries, in place: `ngi rm ARCHIVE NAME...` or `ngi rm --index N ARCHIVE`
    Rm {
        /// Also remove entry N (in directory order; may be given more than once): the way
        /// to the later of two entries whose names the engine's rules take as one
        #[arg(long = "index", value_name = "N")]
        indices: Vec<usize>,
        #[command(flatten)]
        read: ArchiveFlags,
        /// The NRes or RsLi archive, rewritten in place
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// Entries to remove
        #[arg(value_name = "NAME", required_unless_present = "indices")]
        names: Vec<OsString>,
    },
    /// Rename an entry, in place: `ngi rename ARCHIVE OLD NEW` or `ngi rename --index N
    /// ARCHIVE NEW`
    Rename {
        /// Rename entry N (in directory order) instead of the entry named OLD
        #[arg(long, value_name = "N")]
        index: Vec<usize>,
        #[command(flatten)]
        read: ArchiveFlags,
        /// The NRes or RsLi archive, rewritten in place
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        /// OLD NEW, or NEW alone with --index
        #[arg(value_name = "NAME", num_args = 1..=2, required = true)]
        names: Vec<OsString>,
    },
    /// Reorder an NRes directory by one of the engine's modes (0-11 or a name: none,
    /// attr1, attr2, attr1-attr2, type, type-attr1, type-attr1-again, type-attr1-attr2,
    /// name, type-name, attr1-name, attr2-name), in place
    Sort {
        #[command(flatten)]
        read: ArchiveFlags,
        /// The NRes or RsLi archive, rewritten in place
        #[arg(value_name = "ARCHIVE")]
        archive: PathBuf,
        #[arg(value_name = "MODE", value_parser = sort_mode)]
        mode: ngi_core::nres::SortMode,
    },
    /// HTTP server of the archives under DIR: listings (JSON, or HTML for browsers) and
    /// decoded entries, `GET /PATH/NAME`
    Serve {
        /// Address to listen on (port 0: any free port)
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
        /// Honour the RsLi "AO" media trailer (engine flag 2)
        #[arg(long)]
        media_trailer: bool,
        /// Largest decoded entry served (default 256M); a larger one is refused (403)
        #[arg(long, value_name = "N", value_parser = size)]
        max_entry_size: Option<u64>,
        /// Most entries an archive may have (default 1M)
        #[arg(long, value_name = "N", value_parser = entry_count)]
        max_entries: Option<u32>,
        /// Entries up to N are decoded whole before the response starts (a corrupt one is
        /// a 500); larger ones stream
        #[arg(long, value_name = "N", value_parser = size, default_value = "1M")]
        buffer_up_to: u64,
        /// Most entry and listing bodies being sent at once (1 to 16777216); beyond it,
        /// 503 with Retry-After
        #[arg(long, value_name = "N", default_value_t = 256, value_parser = permits)]
        max_streams: usize,
        /// Most open connections (1 to 16777216); beyond it, new ones wait in the listen
        /// queue
        #[arg(long, value_name = "N", default_value_t = 1024, value_parser = permits)]
        max_connections: usize,
        /// Seconds a request may take until its response starts (then 503), and a client
        /// may take to send its request headers (a kept-alive connection waiting for its
        /// next request is closed after it)
        #[arg(long, value_name = "SECS", value_parser = timeout, default_value = "30")]
        request_timeout: std::time::Duration,
        /// Seconds a connection may go without sending or receiving a byte (a client that
        /// stopped reading a body), not counting while its response is being prepared,
        /// nor, for up to 4 such periods in a row, while its body makes its next bytes
        #[arg(long, value_name = "SECS", value_parser = timeout, default_value = "60")]
        idle_timeout: std::time::Duration,
        /// Seconds an unused archive stays open (the engine's 10)
        #[arg(long, value_name = "SECS", value_parser = seconds, default_value = "10")]
        cache_idle: std::time::Duration,
        /// Cache-Control max-age of entries and listings, in seconds
        #[arg(long, value_name = "SECS", default_value_t = 60)]
        max_age: u64,
        /// Seconds in-flight responses get to finish on SIGINT/SIGTERM
        #[arg(long, value_name = "SECS", value_parser = seconds, default_value = "30")]
        shutdown_timeout: std::time::Duration,
        /// The folder whose archives are served (recursively)
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Print a shell completion script to stdout
    Completions {
        /// The shell the script is for
        #[arg(value_enum, value_name = "SHELL")]
        shell: Shell,
    },
}

/// The options of every command that only reads an archive.
#[derive(Debug, clap::Args)]
pub struct ReadFlags {
    /// Open any file as NRes raw mode (one entry "RAW")
    #[arg(long)]
    raw: bool,
    #[command(flatten)]
    archive: ArchiveFlags,
}

/// The options of every command that opens an archive, `unpack` and the edits included:
/// raw mode, a file with no directory, is no archive they could write back, so they do
/// not take `--raw`.
#[derive(Debug, clap::Args)]
pub struct ArchiveFlags {
    /// Honour the RsLi "AO" media trailer (engine flag 2)
    #[arg(long)]
    media_trailer: bool,
    /// Most entries an archive may have (default 1M)
    #[arg(long, value_name = "N", value_parser = entry_count)]
    max_entries: Option<u32>,
}

/// The limits on decoding, declared only by the commands that decode entries (`cat`,
/// `extract`, `verify`, `unpack`): the others copy entries' bytes as they are, and would
/// take these options and do nothing with them.
#[derive(Debug, Default, clap::Args)]
pub struct DecodeFlags {
    /// Largest decoded entry (default 256M); a larger one fails alone (but an NRes one in
    /// unpack, which fails whole)
    #[arg(long, value_name = "N", value_parser = size)]
    max_entry_size: Option<u64>,
    /// Most bytes decoded (or read, where more) in one run (default 4G); extract stops
    /// there, verify stops decoding, unpack fails
    #[arg(long, value_name = "N", value_parser = size)]
    max_total: Option<u64>,
}

/// What an archive-reading command does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    List,
    Info,
    Cat,
    Extract,
    Verify,
}

/// A parsed command line of an archive-reading command: what `commands::run` consumes.
#[derive(Debug)]
pub struct Options {
    pub command: Command,
    pub archive: PathBuf,
    pub names: Vec<OsString>,
    pub raw: bool,
    pub media_trailer: bool,
    pub json: bool,
    pub index: Option<usize>,
    /// `extract --index`: entries chosen by index, after those chosen by NAME.
    pub indices: Vec<usize>,
    pub output: Option<PathBuf>,
    pub force: bool,
    /// Entries `extract` and `verify` decode at once (1: one after another, as before).
    pub jobs: usize,
    /// What the command will act on: entry size, the run's total, entry count.
    pub limits: Limits,
}

/// The archive an editing command works on, and how to read it.
#[derive(Debug)]
pub struct Source {
    pub archive: PathBuf,
    pub media_trailer: bool,
    pub limits: Limits,
}

/// What an editing command does.
#[derive(Debug)]
pub enum Edit {
    Unpack {
        output: PathBuf,
        force: bool,
    },
    Repack {
        output: Option<PathBuf>,
        force: bool,
    },
    Add {
        name: Option<OsString>,
        method: Option<ngi_core::Method>,
        type_id: Option<u32>,
        attrs: [Option<u32>; 3],
        files: Vec<PathBuf>,
    },
    Rm {
        names: Vec<OsString>,
        indices: Vec<usize>,
    },
    Rename {
        /// The entry to rename, and its new name.
        old: Selected,
        new: OsString,
    },
    Sort {
        mode: ngi_core::nres::SortMode,
    },
}

/// The entry a command names: by NAME or by `--index`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selected {
    Name(OsString),
    Index(usize),
    /// The command line asks for both or neither: the usage error [`parse`] reports.
    Misused(&'static str),
}

/// What to run: one variant per kind of command, each with the struct it consumes.
#[derive(Debug)]
pub enum Action {
    /// List, info, cat, extract, verify: one archive read.
    Read(Options),
    /// Unpack, repack, add, rm, rename, sort: one archive read and written.
    Edit(Source, Edit),
    /// Pack: a folder into an archive.
    Pack {
        dir: PathBuf,
        output: PathBuf,
        force: bool,
    },
    /// Serve: an HTTP server over a folder.
    Serve(Serve),
    /// A completion script for the shell.
    Completions(Shell),
}

/// `ngi serve`'s settings.
#[derive(Debug, Clone)]
pub struct Serve {
    pub dir: PathBuf,
    pub listen: std::net::SocketAddr,
    pub media_trailer: bool,
    pub limits: Limits,
    pub buffer_up_to: u64,
    pub max_streams: usize,
    pub max_connections: usize,
    pub request_timeout: std::time::Duration,
    pub idle_timeout: std::time::Duration,
    pub cache_idle: std::time::Duration,
    pub max_age: u64,
    pub shutdown_timeout: std::time::Duration,
}

#[derive(Debug)]
pub enum Invocation {
    /// Text for stdout, then exit 0: the help or the version.
    Print(String),
    Run(Action),
}

/// Parses the arguments after the program name. The error is the one line that explains
/// a usage error (exit status 2).
pub fn parse(args: impl IntoIterator<Item = OsString>) -> Result<Invocation, String> {
    let words = std::iter::once(OsString::from("ngi")).chain(args);
    match Cli::try_parse_from(words) {
        Ok(cli) => {
            cli.command.refuse_repeated_index()?;
            let action = cli.command.into_action();
            refuse_misused(&action)?;
            Ok(Invocation::Run(action))
        }
        Err(e) => match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                let mut text = e.render().to_string();
                if !text.ends_with('\n') {
                    text.push('\n');
                }
                Ok(Invocation::Print(text))
            }
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => Err("no command given".into()),
            // Not `to_string()`, which drops escape sequences, the user's among them: a
            // value `\e[1m5` was quoted as `5`. They are escaped where the line is said.
            _ => Err(one_line(&e.render().ansi().to_string())),
        },
    }
}

/// Where the options of the command `words` give are listed: `ngi COMMAND --help` for a
/// command named (an alias too), else `ngi --help`, which lists no command's options.
pub fn help_for(words: &[OsString]) -> String {
    use clap::CommandFactory;
    let named = words
        .iter()
        .find(|w| !w.as_encoded_bytes().starts_with(b"-"))
        .and_then(|w| w.to_str())
        .filter(|w| Cli::command().find_subcommand(w).is_some());
    match named {
        Some(command) => format!("ngi {command} --help"),
        None => "ngi --help".to_string(),
    }
}

/// clap's message as one line: the paragraph after `error: `, before the usage and tips,
/// its lines joined (a list of missing arguments, a value holding a newline).
fn one_line(rendered: &str) -> String {
    let text = rendered.trim_start();
    let text = text.strip_prefix("error:").unwrap_or(text);
    let paragraph = text.split("\n\n").next().unwrap_or(text);
    let line = paragraph
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if line.is_empty() {
        "bad command line".into()
    } else {
        line
    }
}

impl CliCommand {
    /// `--index` twice where one entry is meant. Other options given twice take the last
    /// value (`args_override_self`), but the last of two entries chosen would be one the
    /// user did not mean as much as the first: `cat --index 99 --index 0` wrote entry 0,
    /// exit 0, where `--index 99` alone is exit 1.
    fn refuse_repeated_index(&self) -> Result<(), String> {
        let (command, index) = match self {
            CliCommand::Cat { index, .. } => {
                ("cat writes one entry (extract takes several)", index)
            }
            CliCommand::Rename { index, .. } => ("rename renames one entry", index),
            _ => return Ok(()),
        };
        match index.len() {
            0 | 1 => Ok(()),
            _ => Err(format!("--index given {} times: {command}", index.len())),
        }
    }

    /// The plain struct the command consumes.
    pub fn into_action(self) -> Action {
        Action::Read(match self {
            CliCommand::List {
                json,
                read,
                archive,
            } => Options {
                json,
                ..read.options(Command::List, DecodeFlags::default(), archive)
            },
            CliCommand::Info {
                json,
                read,
                archive,
            } => Options {
                json,
                ..read.options(Command::Info, DecodeFlags::default(), archive)
            },
            CliCommand::Cat {
                index,
                read,
                decode,
                archive,
                name,
            } => Options {
                index: index.first().copied(),
                names: name.into_iter().collect(),
                ..read.options(Command::Cat, decode, archive)
            },
            CliCommand::Extract {
                output,
                force,
                jobs,
                read,
                decode,
                indices,
                archive,
                names,
            } => Options {
                output: Some(output),
                force,
                names,
                indices,
                jobs: jobs_or_cores(jobs),
                ..read.options(Command::Extract, decode, archive)
            },
            CliCommand::Verify {
                json,
                jobs,
                read,
                decode,
                archive,
            } => Options {
                json,
                jobs: jobs_or_cores(jobs),
                ..read.options(Command::Verify, decode, archive)
            },
            CliCommand::Completions { shell } => return Action::Completions(shell),
            CliCommand::Serve {
                listen,
                media_trailer,
                max_entry_size,
                max_entries,
                buffer_up_to,
                max_streams,
                max_connections,
                request_timeout,
                idle_timeout,
                cache_idle,
                max_age,
                shutdown_timeout,
                dir,
            } => {
                return Action::Serve(Serve::from_flags(ServeFlags {
                    listen,
                    media_trailer,
                    max_entry_size,
                    max_entries,
                    buffer_up_to,
                    max_streams,
                    max_connections,
                    request_timeout,
                    idle_timeout,
                    cache_idle,
                    max_age,
                    shutdown_timeout,
                    dir,
                }));
            }
            CliCommand::Pack { output, force, dir } => {
                return Action::Pack { dir, output, force };
            }
            CliCommand::Unpack {
                output,
                force,
                read,
                decode,
                archive,
            } => return Action::Edit(read.source(archive, decode), Edit::Unpack { output, force }),
            CliCommand::Repack {
                output,
                force,
                read,
                archive,
            } => return read.edit(archive, Edit::Repack { output, force }),
            CliCommand::Add {
                name,
                method,
                type_id,
                attr1,
                attr2,
                attr3,
                read,
                archive,
                files,
            } => {
                let edit = Edit::Add {
                    name,
                    method,
                    type_id,
                    attrs: [attr1, attr2, attr3],
                    files,
                };
                return read.edit(archive, edit);
            }
            CliCommand::Rm {
                indices,
                read,
                archive,
                names,
            } => return read.edit(archive, Edit::Rm { names, indices }),
            CliCommand::Rename {
                index,
                read,
                archive,
                names,
            } => return read.edit(archive, rename(index.first().copied(), names)),
            CliCommand::Sort {
                read,
                archive,
                mode,
            } => return read.edit(archive, Edit::Sort { mode }),
        })
    }
}

/// The usage errors clap cannot see, refused before any archive is opened (after, they
/// were exit 1 or 2 by what the archive was, or whether it existed).
fn refuse_misused(action: &Action) -> Result<(), String> {
    match action {
        Action::Edit(
            _,
            Edit::Rename {
                old: Selected::Misused(why),
                ..
            },
        ) => Err((*why).into()),
        Action::Edit(
            _,
            Edit::Add {
                name: Some(_),
                files,
                ..
            },
        ) if files.len() != 1 => Err("--name needs exactly one FILE".into()),
        _ => Ok(()),
    }
}

/// A count of `serve`'s permits: 0 would serve nothing, and tokio's semaphores hold at
/// most `usize::MAX >> 3` (quietly raising 0 to 1 surprised).
fn permits(text: &str) -> Result<usize, String> {
    const MAX: usize = 1 << 24;
    match text.parse::<usize>() {
        Ok(n) if (1..=MAX).contains(&n) => Ok(n),
        _ => Err(format!("takes a whole number from 1 to {MAX}")),
    }
}

/// `rename`'s edit: OLD NEW, or NEW alone with `--index`.
fn rename(index: Option<usize>, mut names: Vec<OsString>) -> Edit {
    let new = names.pop().unwrap_or_default();
    let old = match (index, names.pop()) {
        (Some(index), None) => Selected::Index(index),
        (None, Some(name)) => Selected::Name(name),
        (Some(_), Some(_)) => Selected::Misused("--index takes the place of OLD"),
        (None, None) => Selected::Misused("rename needs OLD NEW, or --index N NEW"),
    };
    Edit::Rename { old, new }
}

/// `ngi serve`'s flags as parsed, before defaults and clamps.
struct ServeFlags {
    listen: std::net::SocketAddr,
    media_trailer: bool,
    max_entry_size: Option<u64>,
    max_entries: Option<u32>,
    buffer_up_to: u64,
    max_streams: usize,
    max_connections: usize,
    request_timeout: std::time::Duration,
    idle_timeout: std::time::Duration,
    cache_idle: std::time::Duration,
    max_age: u64,
    shutdown_timeout: std::time::Duration,
    dir: PathBuf,
}

impl Serve {
    /// The settings: the limits' defaults filled in.
    fn from_flags(f: ServeFlags) -> Serve {
        let mut limits = Limits::DEFAULT;
        limits.max_entry_size = f.max_entry_size.unwrap_or(limits.max_entry_size);
        limits.max_entries = f.max_entries.unwrap_or(limits.max_entries);
        Serve {
            dir: f.dir,
            listen: f.listen,
            media_trailer: f.media_trailer,
            limits,
            buffer_up_to: f.buffer_up_to,
            max_streams: f.max_streams,
            max_connections: f.max_connections,
            request_timeout: f.request_timeout,
            idle_timeout: f.idle_timeout,
            cache_idle: f.cache_idle,
            max_age: f.max_age,
            shutdown_timeout: f.shutdown_timeout,
        }
    }
}

impl ReadFlags {
    /// A read command's options, before those of its own.
    fn options(self, command: Command, decode: DecodeFlags, archive: PathBuf) -> Options {
        Options {
            command,
            archive,
            names: Vec::new(),
            raw: self.raw,
            media_trailer: self.archive.media_trailer,
            json: false,
            index: None,
            indices: Vec::new(),
            output: None,
            force: false,
            jobs: 1,
            limits: self.archive.limits(&decode),
        }
    }
}

impl ArchiveFlags {
    /// An editing command's action: it opens the archive as the read commands do, and
    /// decodes nothing, so it has no limits on decoding.
    fn edit(self, archive: PathBuf, edit: Edit) -> Action {
        Action::Edit(self.source(archive, DecodeFlags::default()), edit)
    }

    fn source(self, archive: PathBuf, decode: DecodeFlags) -> Source {
        Source {
            limits: self.limits(&decode),
            archive,
            media_trailer: self.media_trailer,
        }
    }

    fn limits(&self, decode: &DecodeFlags) -> Limits {
        let mut limits = Limits::DEFAULT;
        if let Some(n) = decode.max_entry_size {
            limits.max_entry_size = n;
        }
        if let Some(n) = decode.max_total {
            limits.max_total = n;
        }
        if let Some(n) = self.max_entries {
            limits.max_entries = n;
        }
        limits
    }
}

/// The completion script for `shell`, as bytes (clap_complete panics on a failed write,
/// so it writes to memory and the caller writes that out).
pub fn completion_script(shell: Shell) -> Vec<u8> {
    use clap::CommandFactory;
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "ngi", &mut script);
    script
}

/// `--method`: a method by the name `list` shows.
fn method(text: &str) -> Result<ngi_core::Method, String> {
    method_by_name(text)
        .ok_or_else(|| "is one of stored, xor, lzss, xor-lzss, lzhuf, xor-lzhuf, deflate".into())
}

/// The method `list` names `name`.
pub fn method_by_name(name: &str) -> Option<ngi_core::Method> {
    [0u16, 0x20, 0x40, 0x60, 0x80, 0xA0, 0x100]
        .into_iter()
        .filter_map(|bits| ngi_core::Method::from_flags(bits).ok())
        .find(|m| m.name() == name)
}

/// `--type` and `--attrN`: a `u32`, decimal or `0x` hexadecimal.
fn number(text: &str) -> Result<u32, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => text.parse::<u32>(),
    };
    parsed.map_err(|_| "takes a number from 0 to 4294967295 (0x for hexadecimal)".into())
}

/// A path to write an archive to: one whose last part names a file. `x/`, `x/.` and
/// `x/..` are refused: `Path` reads `x/` and `x/.` as `x`, so the checks that look at the
/// path as given (which fail with "not a directory" on a file `x`) and the write (to `x`)
/// would disagree, and a file `x` was replaced without `--force`.
fn file_to_write() -> impl clap::builder::TypedValueParser<Value = PathBuf> {
    use clap::builder::TypedValueParser;
    clap::builder::OsStringValueParser::new().try_map(|raw: OsString| {
        let text = raw.to_string_lossy();
        let last = text.rsplit(std::path::is_separator).next().unwrap_or("");
        if matches!(last, "" | "." | "..") {
            return Err("names a folder, not a file to write".to_string());
        }
        Ok(PathBuf::from(raw))
    })
}

/// `sort`'s MODE: 0 to 11 or a mode's name.
fn sort_mode(text: &str) -> Result<ngi_core::nres::SortMode, String> {
    ngi_core::nres::SortMode::from_name(text)
        .ok_or_else(|| "is 0 to 11 or the name of a mode".into())
}

/// `--max-entry-size` and `--max-total` (see [`parse_size`]).
fn size(text: &str) -> Result<u64, String> {
    parse_size(text).ok_or_else(|| match past_64_bits(text) {
        true => "is too large for 64 bits ('none' is no limit)".into(),
        false => "takes a number of bytes such as 4096, 64K, 256M or 4G, or 'none'".into(),
    })
}

/// Whether `text`, which [`parse_size`] refused, is a number of its form too large for 64
/// bits: "takes a number of bytes" was all `16777216T` was told.
fn past_64_bits(text: &str) -> bool {
    let digits = text
        .strip_suffix(['K', 'M', 'G', 'T', 'k', 'm', 'g', 't'])
        .unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// `-j N`: 1 to 1024 (clap's own range said "0 is not in 1..=1024", Rust's notation).
fn jobs(text: &str) -> Result<u16, String> {
    match text.parse::<u16>() {
        Ok(n) if (1..=1024).contains(&n) => Ok(n),
        _ => Err("takes a number of jobs from 1 to 1024".into()),
    }
}

/// `-j N`, or one job per core the process may use.
fn jobs_or_cores(jobs: Option<u16>) -> usize {
    jobs.map(usize::from).unwrap_or_else(cores)
}

/// The cores the process may use (1 when the system does not say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// A time in seconds, fractions allowed (`0.5`), at most a day.
fn seconds(text: &str) -> Result<std::time::Duration, String> {
    match text.parse::<f64>() {
        Ok(s) if (0.0..=86_400.0).contains(&s) => Ok(std::time::Duration::from_secs_f64(s)),
        _ => Err("takes a number of seconds from 0 to 86400, such as 30 or 0.5".into()),
    }
}

/// A timeout: as [`seconds`], but above 0 (a timeout of 0 would end every request or
/// connection at once; nothing here means "no timeout").
fn timeout(text: &str) -> Result<std::time::Duration, String> {
    match seconds(text) {
        Ok(t) if !t.is_zero() => Ok(t),
        _ => Err("takes a number of seconds above 0, at most 86400, such as 30 or 0.5".into()),
    }
}

/// `--max-entries`: a count, with the suffixes of [`parse_size`], at most `u32::MAX`;
/// `none` is `u32::MAX`.
fn entry_count(text: &str) -> Result<u32, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(u32::MAX);
    }
    let at_most = || format!("is at most {} (or 'none')", u32::MAX);
    let n = parse_size(text).ok_or_else(|| match past_64_bits(text) {
        true => at_most(),
        false => "takes a number of entries such as 4096, 64K or 1M, or 'none'".into(),
    })?;
    u32::try_from(n).map_err(|_| at_most())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn run(words: &[&str]) -> Result<Options, String> {
        match parse(words.iter().map(OsString::from))? {
            Invocation::Run(Action::Read(o)) => Ok(o),
            other => Err(format!("{other:?}")),
        }
    }

    #[test]
    fn the_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }

    /// A usage error quotes the value as given, escape sequences included (they are
    /// escaped where the line is said): clap's plain text dropped them, quoting `5`.
    #[test]
    fn a_usage_error_quotes_the_value_whole() {
        let e = run(&["cat", "A", "--index", "\x1b[1m5"]).unwrap_err();
        assert!(
            e.starts_with("invalid value '\x1b[1m5' for '--index <N>'"),
            "{e}"
        );
        let e = run(&["\x1b]0;x\x07"]).unwrap_err();
        assert_eq!(e, "unrecognized subcommand '\x1b]0;x\x07'");
    }

    /// A usage error points to the help that lists the options of the command given.
    #[test]
    fn a_usage_error_points_to_its_command_s_help() {
        let words = |w: &[&str]| w.iter().map(OsString::from).collect::<Vec<_>>();
        assert_eq!(
            help_for(&words(&["cat", "--force", "A", "B"])),
            "ngi cat --help"
        );
        assert_eq!(help_for(&words(&["x", "A"])), "ngi x --help");
        assert_eq!(help_for(&words(&["--bogus", "list"])), "ngi list --help");
        assert_eq!(help_for(&words(&["nope", "A"])), "ngi --help");
        assert_eq!(help_for(&words(&[])), "ngi --help");
    }

    /// Usage errors of `rename` and `add` are found before an archive is opened: they
    /// were exit 1 where the archive was missing or refused, 2 elsewhere.
    #[test]
    fn rename_and_add_misuse_is_refused_when_parsed() {
        for (words, why) in [
            (
                &["rename", "A", "NEW"][..],
                "rename needs OLD NEW, or --index N NEW",
            ),
            (
                &["rename", "A", "--index", "0", "OLD", "NEW"],
                "--index takes the place of OLD",
            ),
            (
                &["add", "A", "f1", "f2", "--name", "X"],
                "--name needs exactly one FILE",
            ),
        ] {
            let parsed = parse(words.iter().map(OsString::from));
            assert_eq!(parsed.err().as_deref(), Some(why), "{words:?}");
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
        let o = run(&["verify", "A", "--json", "-j", "1"]).unwrap();
        assert_eq!((o.command, o.json, o.jobs), (Command::Verify, true, 1));
        assert!(!run(&["verify", "A"]).unwrap().json);
        let o = run(&["ls", "A"]).unwrap();
        assert_eq!(o.command, Command::List);
        let o = run(&["x", "A", "N1", "--output=D", "N2", "--force"]).unwrap();
        assert_eq!(o.command, Command::Extract);
        assert!(o.force);
        assert_eq!(o.output, Some(PathBuf::from("D")));
        assert_eq!(o.names, vec![OsString::from("N1"), OsString::from("N2")]);
        let o = run(&["cat", "--index=3", "A"]).unwrap();
        assert_eq!(o.index, Some(3));
        // An option given twice: the last one counts, as before; but not the entry that
        // cat or rename is to take (the last of two was taken, exit 0).
        let o = run(&["cat", "--raw", "A", "--index=2", "--raw"]).unwrap();
        assert_eq!((o.index, o.raw), (Some(2), true));
        for (words, why) in [
            (
                &["cat", "--index", "99", "A", "--index=0"][..],
                "--index given 2 times: cat writes one entry (extract takes several)",
            ),
            (
                &["rename", "--index", "0", "--index", "3", "A", "NEW"],
                "--index given 2 times: rename renames one entry",
            ),
        ] {
            let parsed = parse(words.iter().map(OsString::from));
            assert_eq!(parsed.err().as_deref(), Some(why), "{words:?}");
        }
        let o = run(&["verify", "--max-total", "1K", "A", "--max-total=2K"]).unwrap();
        assert_eq!(o.limits.max_total, 2048);
        // `--` ends the options: a NAME may start with a dash.
        let o = run(&["cat", "A", "--", "--raw"]).unwrap();
        assert!(!o.raw);
        assert_eq!(o.names, vec![OsString::from("--raw")]);
    }

    #[cfg(unix)]
    #[test]
    fn names_are_bytes() {
        use std::os::unix::ffi::{OsStrExt, OsStringExt};
        let name = OsString::from_vec(b"\xff\xfe.dat".to_vec());
        let words = ["cat".into(), "A".into(), name.clone()];
        let Ok(Invocation::Run(Action::Read(o))) = parse(words) else {
            panic!("a non-UTF-8 NAME is accepted");
        };
        assert_eq!(o.names[0].as_bytes(), name.as_bytes());
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
        // A count is no number of bytes, and u64::MAX is no way to write 'none'.
        let err = run(&["list", "--max-entries=lots", "A"]).unwrap_err();
        assert!(err.contains("number of entries"), "{err}");
        let err = run(&["list", "--max-entries=18446744073709551615", "A"]).unwrap_err();
        assert!(err.contains("is at most 4294967295"), "{err}");
        assert_eq!(run(&["verify", "A"]).unwrap().limits, Limits::DEFAULT);
        // A number too large is told so, not taken for one of another form.
        for words in [
            &["cat", "--max-entry-size", "16777216T", "A", "N"][..],
            &["verify", "--max-total=99999999999999999999", "A"],
        ] {
            let err = run(words).unwrap_err();
            assert!(
                err.contains(": is too large for 64 bits ('none' is no limit)"),
                "{err}"
            );
        }
        let err = run(&["list", "--max-entries=99999999999999999999K", "A"]).unwrap_err();
        assert!(err.contains(": is at most 4294967295 (or 'none')"), "{err}");
        let err = run(&["cat", "--max-entry-size", "12KB", "A", "N"]).unwrap_err();
        assert!(err.contains(": takes a number of bytes such as"), "{err}");
    }

    #[test]
    fn serve_takes_an_address_limits_and_seconds() {
        let serve = |words: &[&str]| match parse(words.iter().map(OsString::from)) {
            Ok(Invocation::Run(Action::Serve(s))) => Ok(s),
            Ok(other) => Err(format!("{other:?}")),
            Err(e) => Err(e),
        };
        let s = serve(&["serve", "D"]).unwrap();
        assert_eq!(s.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(
            (s.buffer_up_to, s.max_streams, s.max_age),
            (1 << 20, 256, 60)
        );
        assert_eq!(s.idle_timeout, std::time::Duration::from_secs(60));
        assert_eq!(s.limits, Limits::DEFAULT);
        let s = serve(&[
            "serve",
            "--listen=127.0.0.1:0",
            "D",
            "--max-entry-size",
            "2M",
            "--idle-timeout",
            "0.5",
            "--max-streams",
            "16777216",
        ])
        .unwrap();
        assert_eq!(s.listen.port(), 0);
        assert_eq!(s.limits.max_entry_size, 2 << 20);
        assert_eq!(s.idle_timeout, std::time::Duration::from_millis(500));
        assert_eq!(s.max_streams, 1 << 24);
        for bad in [
            &["serve"][..],
            &["serve", "D", "--listen", "localhost"],
            &["serve", "D", "--idle-timeout", "-1"],
            &["serve", "D", "--request-timeout", "1e9"],
            &["serve", "D", "--request-timeout", "0"],
            &["serve", "D", "--idle-timeout", "0.0"],
            &["serve", "D", "--max-streams", "x"],
            // Raised to 1 without a word, where `-j 0` is refused.
            &["serve", "D", "--max-streams", "0"],
            &["serve", "D", "--max-connections", "0"],
            &["serve", "D", "--max-connections", "16777217"],
        ] {
            assert!(serve(bad).is_err(), "{bad:?}");
        }
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
            &["extract", "--json", "A", "-o", "D"],
            &["list", "A", "extra"],
            &["cat", "--max-entry-size", "A", "N"],
            &["cat", "A", "N", "--max-entry-size"],
            &["cat", "A", "N", "--max-total=lots"],
            &["list", "--max-entries", "8G", "A"],
            // Beyond the old cases: each option only where it applies.
            &[],
            &["--raw", "list", "A"],
            &["cat", "A", "N1", "N2"],
            &["list", "--index", "0", "A"],
            &["verify", "-o", "D", "A"],
            &["info", "--force", "A"],
            &["cat", "--json", "A", "N"],
            &["completions"],
            &["completions", "tcsh"],
            &["completions", "bash", "--raw"],
            // Raw mode has no directory to edit or unpack.
            &["rm", "--raw", "A", "N"],
            &["unpack", "--raw", "A", "-o", "D"],
            &["repack", "A", "--raw"],
            // In place, repack always replaces ARCHIVE: --force would promise nothing.
            &["repack", "--force", "A"],
        ] {
            let err = run(words).expect_err(&format!("{words:?}"));
            assert_eq!(err.lines().count(), 1, "{words:?}: {err}");
        }
    }

    #[test]
    fn help_and_version_are_printed() {
        for words in [&["--help"][..], &["-h"], &["help"], &["cat", "--help"]] {
            let parsed = parse(words.iter().map(OsString::from));
            assert!(matches!(parsed, Ok(Invocation::Print(_))), "{words:?}");
        }
        let Ok(Invocation::Print(help)) = parse([OsString::from("--help")]) else {
            panic!("help");
        };
        assert!(
            help.contains("Exit status") && help.contains("extract"),
            "{help}"
        );
        let Ok(Invocation::Print(version)) = parse([OsString::from("-V")]) else {
            panic!("version");
        };
        assert_eq!(version, format!("ngi {}\n", env!("CARGO_PKG_VERSION")));
    }

    #[test]
    fn jobs_default_to_the_cores_and_take_1_to_1024() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(run(&["verify", "A"]).unwrap().jobs, cores);
        assert_eq!(run(&["x", "A", "-o", "D"]).unwrap().jobs, cores);
        assert_eq!(run(&["verify", "-j", "1", "A"]).unwrap().jobs, 1);
        assert_eq!(run(&["x", "A", "--jobs=7", "-o", "D"]).unwrap().jobs, 7);
        for words in [
            &["verify", "-j", "0", "A"][..],
            &["verify", "-j", "1025", "A"],
            &["cat", "-j", "2", "A", "N"],
        ] {
            let err = run(words).expect_err(&format!("{words:?}"));
            assert_eq!(err.lines().count(), 1, "{words:?}: {err}");
        }
        // In words, not Rust's "0 is not in 1..=1024".
        let err = run(&["x", "A", "-o", "D", "-j", "0"]).unwrap_err();
        assert!(
            err.ends_with("takes a number of jobs from 1 to 1024"),
            "{err}"
        );
        assert_eq!(run(&["verify", "-j", "1024", "A"]).unwrap().jobs, 1024);
    }
}
