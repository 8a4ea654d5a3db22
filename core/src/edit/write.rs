//! Running a [`Plan`] from a positional source into a writer (`std`).

use std::io::{self, Write};
use std::vec;

use super::plan::{Piece, Plan, SourceMismatch, same_prefix};
use crate::io::ReadAt;

/// Bytes copied from the source per read: what a save holds of the old payloads at once.
pub const COPY_CHUNK: usize = 1 << 20;

/// Writes `plan` to `out`, copying [`Piece::Copy`] ranges from `source` in chunks of
/// [`COPY_CHUNK`] bytes and re-keying what the plan says. Returns the bytes written.
///
/// `out` must not be the file `source` reads: the plan copies old payloads from offsets
/// that the bytes written before them may already have overwritten (and opening the
/// same path with `File::create` empties the source first). Write to a new file and
/// rename it over the old one, which also leaves the old archive whole if the save fails.
///
/// ```
/// use ngi_core::edit::{write_plan, Piece, Plan};
///
/// let source = b"0123456789".to_vec();
/// let plan = Plan::new(vec![Piece::Copy { offset: 2, len: 3 }, Piece::Zeros(2)]);
/// let mut out = Vec::new();
/// assert_eq!(write_plan(&plan, &source, &mut out)?, 5);
/// assert_eq!(out, b"234\0\0");
/// # Ok::<(), std::io::Error>(())
/// ```
///
/// # Errors
///
/// What was written before the error stays written.
///
/// * [`io::ErrorKind::InvalidInput`] with a [`SourceMismatch`] inside when `source` does
///   not hold what the plan's [`source_holds`](Plan::source_holds) says: it is not the
///   file the plan was made from (or it changed since its editor read it). Checked
///   before anything is written; a source longer than that file (payloads joined after
///   it) is what it may be.
/// * [`io::ErrorKind::UnexpectedEof`], naming the offset, when `source` ends inside a
///   [`Piece::Copy`]: a save never pads a missing payload with anything.
/// * Any other error of `source` (an [`io::ErrorKind::Interrupted`] read is retried) or
///   of `out`, as it is.
pub fn write_plan<S: ReadAt + ?Sized, W: Write + ?Sized>(
    plan: &Plan<'_>,
    source: &S,
    out: &mut W,
) -> io::Result<u64> {
    let mut buffer = vec::Vec::new();
    check_source(plan, source, &mut buffer)?;
    let mut rekeying = plan.rekeying();
    let mut at = 0u64;
    let mut emit = |bytes: &mut [u8], at: &mut u64, out: &mut W| -> io::Result<()> {
        rekeying.apply(bytes, *at);
        out.write_all(bytes)?;
        *at += bytes.len() as u64;
        Ok(())
    };
    for piece in &plan.pieces {
        match piece {
            Piece::Owned(bytes) => {
                buffer.clear();
                buffer.extend_from_slice(bytes);
                emit(&mut buffer, &mut at, out)?;
            }
            Piece::Borrowed(bytes) => {
                for part in bytes.chunks(COPY_CHUNK) {
                    buffer.clear();
                    buffer.extend_from_slice(part);
                    emit(&mut buffer, &mut at, out)?;
                }
            }
            Piece::Zeros(len) => {
                let mut left = *len;
                while left > 0 {
                    let n = left.min(COPY_CHUNK as u64) as usize;
                    buffer.clear();
                    buffer.resize(n, 0);
                    emit(&mut buffer, &mut at, out)?;
                    left -= n as u64;
                }
            }
            Piece::Copy { offset, len } => {
                // A copy past the largest offset could only be cut short: no source ends
                // there.
                let end = offset.checked_add(*len).ok_or_else(|| {
                    io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        std::format!(
                            "a copy of {} at offset {offset} runs past any source",
                            crate::count::bytes(*len)
                        ),
                    )
                })?;
                let mut from = *offset;
                while from < end {
                    let n = (end - from).min(COPY_CHUNK as u64) as usize;
                    buffer.clear();
                    buffer.resize(n, 0);
                    read_exact_at(source, &mut buffer, from)?;
                    emit(&mut buffer, &mut at, out)?;
                    from += n as u64;
                }
            }
        }
    }
    Ok(at)
}

/// Compares what `source` holds with the plan's [`source_holds`](Plan::source_holds), a
/// [`COPY_CHUNK`] at a time through `buffer`.
fn check_source<S: ReadAt + ?Sized>(
    plan: &Plan<'_>,
    source: &S,
    buffer: &mut vec::Vec<u8>,
) -> io::Result<()> {
    for held in &plan.source_holds {
        for (i, part) in held.bytes.chunks(COPY_CHUNK).enumerate() {
            let offset = held.offset.saturating_add((i * COPY_CHUNK) as u64);
            buffer.clear();
            buffer.resize(part.len(), 0);
            let read = read_up_to(source, buffer, offset)?;
            let same = same_prefix(part, buffer.get(..read).unwrap_or_default());
            if same < part.len() {
                let offset = offset.saturating_add(same as u64);
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    SourceMismatch { offset },
                ));
            }
        }
    }
    Ok(())
}

/// Fills `buf` from `offset`, or as much of it as the source holds: the bytes read. An
/// `Interrupted` read is made again.
fn read_up_to<S: ReadAt + ?Sized>(source: &S, buf: &mut [u8], offset: u64) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        let at = offset.saturating_add(done as u64);
        match source.read_at(buf.get_mut(done..).unwrap_or_default(), at) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    // A count past the buffer is taken as the buffer full.
    Ok(done.min(buf.len()))
}

fn read_exact_at<S: ReadAt + ?Sized>(source: &S, buf: &mut [u8], offset: u64) -> io::Result<()> {
    let read = read_up_to(source, buf, offset)?;
    if read < buf.len() {
        let at = offset.saturating_add(read as u64);
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            std::format!("the source ends at offset {at}, inside a payload to copy"),
        ));
    }
    Ok(())
}
