//! `ngi cat`: one decoded entry to stdout. Exit status 0 only if all of it was written.

use std::io::Write;

use ngi_core::limits::Budget;

use crate::args::Options;
use crate::open::{ArchiveFile, EntryError};
use crate::report::{Failure, output_failed};

pub fn run(options: &Options, archive: &ArchiveFile) -> Result<(), Failure> {
    let index = super::select(
        options,
        archive,
        options.names.first().map(|n| n.as_os_str()),
    )?;
    let stdout = std::io::stdout();
    widen_pipe(&stdout);
    let mut out = unbuffered(&stdout);
    let mut budget = Budget::new(options.limits);
    match archive.stream(index, &mut out, &mut budget) {
        Ok(_) => out.flush().map_err(output_failed),
        Err(EntryError::Archive(e) | EntryError::Total(e)) => {
            Err(Failure::about(options.archive.display(), e))
        }
        Err(EntryError::Output(e)) => Err(output_failed(e)),
    }
}

/// Standard output without `Stdout`'s line buffering: the entry goes out in the chunks it
/// is decoded in, each one `write`. Through `Stdout`, every chunk is first searched for its
/// last newline and the bytes after it are copied aside for the next write: for nothing,
/// as there is no line to keep whole, and it cost a few percent of `ngi cat`'s time.
/// Where stdout cannot be duplicated, it is written through `Stdout` as before.
fn unbuffered(stdout: &std::io::Stdout) -> Box<dyn Write + '_> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        if let Ok(fd) = stdout.as_fd().try_clone_to_owned() {
            return Box::new(std::fs::File::from(fd));
        }
    }
    Box::new(stdout.lock())
}

/// Bytes a pipe on stdout is asked to hold: with Linux's default of 64 KiB the decoder
/// waits on the reader after every chunk.
#[cfg(target_os = "linux")]
const PIPE_SIZE: usize = 1 << 20;

/// Raises the buffer of a pipe on stdout to [`PIPE_SIZE`] where the system allows (an
/// unprivileged process may go up to `/proc/sys/fs/pipe-max-size`, 1 MiB by default).
/// Anything else on stdout, or a refusal, leaves it as it is.
#[cfg(target_os = "linux")]
fn widen_pipe(stdout: &std::io::Stdout) {
    if let Ok(size) = rustix::pipe::fcntl_getpipe_size(stdout) {
        if size < PIPE_SIZE {
            let _ = rustix::pipe::fcntl_setpipe_size(stdout, PIPE_SIZE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
fn widen_pipe(_: &std::io::Stdout) {}
