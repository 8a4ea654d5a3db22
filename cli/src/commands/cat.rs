//! `ngi cat`: one decoded entry to stdout. Exit status 0 only if all of it was written.
//!
//! An entry of more than one chunk is decoded on this thread and written
//! [behind](crate::write_behind) it on another, so that the copy into stdout's pipe or
//! file overlaps the decoding.

use std::io::Write;

use ngi_core::limits::Budget;

use crate::args::Options;
use crate::names;
use crate::open::{ArchiveFile, EntryError, after_entry};
use crate::report::{Failure, ShowPath, output_failed};
use crate::write_behind::write_behind;

pub fn run(options: &Options, archive: &ArchiveFile) -> Result<(), Failure> {
    let index = super::select(
        options,
        archive,
        options.names.first().map(|n| n.as_os_str()),
    )?;
    let stdout = std::io::stdout();
    widen_pipe(&stdout);
    let (mut out, copies) = unbuffered(&stdout);
    let mut budget = Budget::new(options.limits);
    archive
        .admit_entry(index, &mut budget)
        .map_err(|e| failure(options, archive, index, e))?;
    let size = archive.entry(index).map_or(0, |e| e.size);
    let behind = (size > CHUNK as u64 && copies).then(|| {
        write_behind(&mut *out, |hand_over| {
            archive.stream_chunks(index, CHUNK, hand_over)
        })
    });
    let (streamed, written) = match behind {
        Some(Ok(done)) => done,
        // One chunk, a device that copies nothing, or no thread to be had: on this one.
        Some(Err(_)) | None => {
            let streamed = archive.stream_chunks(index, CHUNK, &mut |buffer, chunk| {
                chunk.write(buffer, &mut *out)
            });
            // Flushed unless a write failed, as on the writer thread.
            let flushed = match streamed {
                Err(EntryError::Output(_)) => Ok(()),
                _ => out.flush(),
            };
            (streamed, flushed)
        }
    };
    // The writer only ever had bytes from before the decoder's fault, so a failed write
    // came first in the entry's order, as it would have without the writer thread.
    written.map_err(output_failed)?;
    streamed
        .map(drop)
        .map_err(|e| failure(options, archive, index, e))
}

/// The one line for entry `index`'s fault, naming it as the other commands do.
fn failure(options: &Options, archive: &ArchiveFile, index: usize, e: EntryError) -> Failure {
    match e {
        EntryError::Archive(e) | EntryError::Total(e) => {
            let name = archive.entry(index).map(|e| names::display(e.name()));
            Failure::Bad(format!(
                "{}: entry {index} (\"{}\"): {}",
                options.archive.shown(),
                name.unwrap_or_default(),
                after_entry(index, &e)
            ))
        }
        EntryError::Output(e) => output_failed(e),
    }
}

/// Bytes decoded and written at a time; two chunks are in use. Half the widened pipe, so
/// that the writer finds room for a chunk once the reader has taken half of the last
/// two. 512 KiB rather than the 256 KiB of the other commands: a chunk handed to the
/// writer costs a thread wake-up, and with 256 KiB `ngi cat` into a pipe took 7 % longer
/// (BENCHMARKS.md).
const CHUNK: usize = 512 * 1024;

/// Standard output without `Stdout`'s line buffering: the entry goes out in the chunks it
/// is decoded in, each one `write`. Through `Stdout`, every chunk is first searched for its
/// last newline and the bytes after it are copied aside for the next write: for nothing,
/// as there is no line to keep whole, and it cost a few percent of `ngi cat`'s time.
/// Where stdout cannot be duplicated, it is written through `Stdout` as before.
///
/// Also whether a write to it copies the bytes somewhere (a pipe's pages, the page cache,
/// a socket's buffers), which makes a writer thread worth its cost. Into a device such as
/// `/dev/null` a write costs next to nothing, and handing each chunk to another thread
/// made `ngi cat > /dev/null` 3 % slower.
#[cfg(unix)]
fn unbuffered(stdout: &std::io::Stdout) -> (Box<dyn Write + Send>, bool) {
    use std::os::fd::AsFd;
    use std::os::unix::fs::FileTypeExt;
    match stdout.as_fd().try_clone_to_owned() {
        Ok(fd) => {
            let file = std::fs::File::from(fd);
            let copies = file
                .metadata()
                .is_ok_and(|m| !m.file_type().is_char_device());
            (Box::new(file), copies)
        }
        // `Stdout` rather than its lock, which may not move to the writer's thread.
        Err(_) => (Box::new(std::io::stdout()), true),
    }
}

#[cfg(not(unix))]
fn unbuffered(_: &std::io::Stdout) -> (Box<dyn Write + Send>, bool) {
    (Box::new(std::io::stdout()), true)
}

/// Bytes a pipe on stdout is asked to hold: with Linux's default of 64 KiB the writer
/// waits on the reader after every 64 KiB, and has no room for a whole chunk.
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
