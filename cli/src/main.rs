//! `ngi`: list, inspect, extract, verify, unpack, pack and edit the NRes and RsLi
//! archives of *Parkan: Iron Strategy*.
//!
//! Exit status: 0 on success, 1 for a bad archive or entry (including a name or index
//! that is not in the archive) or an I/O failure, 2 for a usage error. Every failure is
//! one line on stderr that says what failed and where.

mod address_space;
mod args;
mod commands;
mod count;
mod editing;
mod folder;
mod jobs;
mod joined;
mod manifest;
mod names;
mod open;
mod open_files;
mod regular;
mod report;
mod save;
mod serve;
mod write_behind;

use std::io::Write;
use std::process::ExitCode;

use args::{Action, Invocation};
use report::{Failure, say};

fn main() -> ExitCode {
    survive_file_size_limit();
    let words: Vec<_> = std::env::args_os().skip(1).collect();
    let action = match args::parse(words.iter().cloned()) {
        Ok(Invocation::Print(text)) => return print_or_fail(text.as_bytes()),
        Ok(Invocation::Run(action)) => action,
        Err(message) => {
            say(format_args!("{message} (see '{}')", args::help_for(&words)));
            return ExitCode::from(2);
        }
    };
    let result = match action {
        Action::Read(options) => {
            // The one reading command that makes files: a signal removes the one it was
            // writing instead of leaving it partial.
            if options.command == args::Command::Extract {
                save::stop_on_signals();
            }
            commands::run(&options)
        }
        Action::Edit(source, edit) => {
            save::stop_on_signals();
            commands::edit(&source, &edit)
        }
        Action::Pack { dir, output, force } => {
            save::stop_on_signals();
            commands::pack::run(&dir, &output, force)
        }
        Action::Serve(settings) => serve::run(&settings),
        Action::Completions(shell) => return print_or_fail(&args::completion_script(shell)),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Bad(message)) => {
            say(message);
            ExitCode::from(1)
        }
        // Every problem was already reported on its own line.
        Err(Failure::Reported) => ExitCode::from(1),
        // The command's own help, as for a usage error clap finds: `add --method` on an
        // NRes archive is explained in `ngi add --help`, not in `ngi --help`.
        Err(Failure::Usage(message)) => {
            say(format_args!("{message} (see '{}')", args::help_for(&words)));
            ExitCode::from(2)
        }
    }
}

/// Makes a write past the file size limit (`ulimit -f`) fail with `EFBIG`, as other write
/// errors do, instead of killing the process with SIGXFSZ: an edit or `pack` then reports
/// it, leaves the archive as it was and removes its temporary file (a kill left it).
fn survive_file_size_limit() {
    #[cfg(unix)]
    {
        // The handler only sets the flag, which nothing reads: the signal's default
        // action is what it replaces.
        let unread = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, unread);
    }
}

/// `text` to stdout: exit 0, or 1 with one line when stdout is closed or full.
fn print_or_fail(text: &[u8]) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(report::output_failed(e).message());
            ExitCode::from(1)
        }
    }
}
