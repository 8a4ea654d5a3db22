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

use std::process::ExitCode;

use args::Invocation;
use report::Failure;

fn main() -> ExitCode {
    let invocation = match args::parse(std::env::args_os().skip(1)) {
        Ok(Invocation::Help) => {
            print!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Version) => {
            println!("ngi {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Ok(Invocation::Run(command)) => command,
        Err(message) => {
            eprintln!("ngi: {message}");
            eprintln!("Try 'ngi --help'.");
            return ExitCode::from(2);
        }
    };
    match commands::run(&invocation) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Bad(message)) => {
            eprintln!("ngi: {message}");
            ExitCode::from(1)
        }
        // Every problem was already reported on its own line.
        Err(Failure::Reported) => ExitCode::from(1),
    }
}
