//! `ngi`: list, inspect, extract and verify the NRes and RsLi archives of
//! *Parkan: Iron Strategy*.
//!
//! Exit status: 0 on success, 1 for a bad archive or entry (including a name or index
//! that is not in the archive) or an I/O failure, 2 for a usage error. Every failure is
//! one line on stderr that says what failed and where.

mod args;
mod commands;
mod names;
mod open;
mod report;

use std::io::Write;
use std::process::ExitCode;

use args::Invocation;
use report::{Failure, say};

fn main() -> ExitCode {
    let invocation = match args::parse(std::env::args_os().skip(1)) {
        Ok(Invocation::Help) => return print_or_fail(args::USAGE),
        Ok(Invocation::Version) => {
            return print_or_fail(&format!("ngi {}\n", env!("CARGO_PKG_VERSION")));
        }
        Ok(Invocation::Run(command)) => command,
        Err(message) => {
            say(format_args!("{message} (see 'ngi --help')"));
            return ExitCode::from(2);
        }
    };
    match commands::run(&invocation) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Bad(message)) => {
            say(message);
            ExitCode::from(1)
        }
        // Every problem was already reported on its own line.
        Err(Failure::Reported) => ExitCode::from(1),
    }
}

fn print_or_fail(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(report::output_failed(e).message());
            ExitCode::from(1)
        }
    }
}
