//! Writing behind the decoder: each decoded chunk is written out on a thread of its own,
//! so the kernel's copy of it into a pipe's or a file's pages (inside `write(2)`) runs on
//! another core while the next chunk is decoded, instead of after it.
//!
//! Buffers change hands instead of bytes being copied: the decoder gives up the chunk it
//! filled and takes back the one the writer finished with. There are two buffers in all,
//! so memory stays at two chunks whatever the entry's size.

use std::io::{self, Write};
use std::ops::Range;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

use crate::open::Chunk;

/// Runs `produce` with a `hand_over(buffer, chunk)` that passes `buffer[chunk.bytes]` to
/// a thread writing it into `out`, and leaves in `buffer` another of the same length,
/// starting with the chunk's carry (the window a Deflate or LZHUF entry decoded in place
/// goes on with). The chunks are written in the order they are handed over, each whole, and `out`
/// is flushed after the last unless a write failed.
///
/// Returns what `produce` returned and how the writing went. Once a write fails, the
/// hand-over fails too (with [`io::ErrorKind::BrokenPipe`], as the real error is the
/// writer's), and the second value holds the writer's own error. Every byte handed over
/// before a failure of `produce` is still written: the writer is waited for in any case,
/// and a panic on either side is raised again here once both have stopped.
///
/// When the system gives no thread (`ulimit -u`, no memory for its stack), `produce` is
/// handed back unrun, for the caller to write on its own thread.
pub fn write_behind<T, P>(
    out: &mut (dyn Write + Send),
    produce: P,
) -> Result<(T, io::Result<()>), P>
where
    P: FnOnce(&mut dyn FnMut(&mut Vec<u8>, Chunk) -> io::Result<()>) -> T,
{
    let (full_tx, full_rx) = sync_channel::<(Vec<u8>, Range<usize>)>(1);
    // At most one buffer waits here: the decoder holds the other.
    let (empty_tx, empty_rx) = sync_channel::<Vec<u8>>(1);
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .spawn_scoped(scope, move || write_all(out, &full_rx, &empty_tx));
        let Ok(writer) = spawned else {
            return Err(produce);
        };
        let mut first = true;
        let mut hand_over = |buffer: &mut Vec<u8>, chunk: Chunk| {
            // The second buffer is made at the first hand-over, as long as the first, so
            // that it never waits and an entry failing before its first chunk never
            // needs it.
            // Checked before a buffer is taken back, so that a refusal loses none.
            if chunk.carry > chunk.bytes.end || chunk.bytes.end > buffer.len() {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a chunk or its carry outside its buffer",
                ));
            }
            let mut spare = if std::mem::take(&mut first) {
                vec![0u8; buffer.len()]
            } else {
                empty_rx.recv().map_err(|_| writer_gone())?
            };
            spare.resize(buffer.len(), 0);
            chunk.carry_into(&mut spare, Some(buffer));
            let full = std::mem::replace(buffer, spare);
            full_tx.send((full, chunk.bytes)).map_err(|_| writer_gone())
        };
        let produced = produce(&mut hand_over);
        // No more chunks: the writer ends once it has written the ones it has.
        drop(full_tx);
        let written = writer
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Ok((produced, written))
    })
}

/// The writer's side: every chunk handed over, in order, then a flush. A failed write
/// ends it, which the decoder sees as the channels closing.
fn write_all(
    out: &mut (dyn Write + Send),
    full: &Receiver<(Vec<u8>, Range<usize>)>,
    empty: &SyncSender<Vec<u8>>,
) -> io::Result<()> {
    for (chunk, range) in full {
        let bytes = chunk.get(range).ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "a chunk longer than its buffer",
            )
        })?;
        out.write_all(bytes)?;
        // The decoder has stopped when it no longer takes buffers back; the chunks it
        // already handed over are still written.
        let _ = empty.send(chunk);
    }
    out.flush()
}

fn writer_gone() -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, "the writer stopped")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`write_behind`], which these tests need to have its thread.
    fn behind<T>(
        out: &mut (dyn Write + Send),
        produce: impl FnOnce(&mut dyn FnMut(&mut Vec<u8>, Chunk) -> io::Result<()>) -> T,
    ) -> (T, io::Result<()>) {
        write_behind(out, produce).unwrap_or_else(|_| panic!("no thread for the writer"))
    }

    /// Keeps what it is given; refuses any write after `fail_after` bytes.
    struct Recorder {
        bytes: Vec<u8>,
        fail_after: usize,
        flushed: bool,
    }

    impl Write for Recorder {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.bytes.len() + buf.len() > self.fail_after {
                return Err(io::Error::other("disk full"));
            }
            self.bytes.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            self.flushed = true;
            Ok(())
        }
    }

    fn recorder(fail_after: usize) -> Recorder {
        Recorder {
            bytes: Vec::new(),
            fail_after,
            flushed: false,
        }
    }

    /// Hands over `chunks` chunks of `len` bytes, chunk `i` filled with `i`, and stops at
    /// the first refusal. Returns how many were handed over and the buffers' addresses.
    fn produce_chunks(
        hand_over: &mut dyn FnMut(&mut Vec<u8>, Chunk) -> io::Result<()>,
        chunks: usize,
        len: usize,
    ) -> (usize, Vec<*const u8>, io::Result<()>) {
        let mut chunk = vec![0u8; 16];
        let mut seen = Vec::new();
        for i in 0..chunks {
            assert_eq!(chunk.len(), 16, "a buffer of the chunk's length comes back");
            chunk[..len].fill(i as u8);
            seen.push(chunk.as_ptr());
            if let Err(e) = hand_over(
                &mut chunk,
                Chunk {
                    bytes: 0..len,
                    carry: 0,
                },
            ) {
                return (i, seen, Err(e));
            }
        }
        (chunks, seen, Ok(()))
    }

    #[test]
    fn every_chunk_is_written_in_order_through_two_buffers() {
        let mut out = recorder(usize::MAX);
        let ((handed, seen, result), written) = behind(&mut out, |h| produce_chunks(h, 200, 11));
        assert!(result.is_ok() && written.is_ok());
        assert_eq!(handed, 200);
        let expected: Vec<u8> = (0..200u8).flat_map(|i| [i; 11]).collect();
        assert_eq!(out.bytes, expected);
        assert!(out.flushed);
        let mut buffers = seen.clone();
        buffers.sort();
        buffers.dedup();
        assert_eq!(buffers.len(), 2, "two buffers change hands, no more");
    }

    #[test]
    fn the_buffer_back_starts_with_the_carry() {
        let mut out = recorder(usize::MAX);
        let (carried, written) = behind(&mut out, |h| {
            let mut buffer: Vec<u8> = (0..16).collect();
            let mut carried = Vec::new();
            for i in 0..5u8 {
                // Bytes 4..12 go out; the next buffer starts with bytes 9..12.
                buffer[4..12].fill(10 + i);
                buffer[11] = 20 + i;
                h(
                    &mut buffer,
                    Chunk {
                        bytes: 4..12,
                        carry: 3,
                    },
                )
                .unwrap();
                carried.push(buffer[..3].to_vec());
            }
            // A carry longer than the bytes before the chunk's end is refused, and the
            // buffers are all still there for the next.
            let refused = h(
                &mut buffer,
                Chunk {
                    bytes: 0..2,
                    carry: 3,
                },
            );
            assert_eq!(refused.unwrap_err().kind(), io::ErrorKind::InvalidInput);
            h(
                &mut buffer,
                Chunk {
                    bytes: 0..0,
                    carry: 0,
                },
            )
            .unwrap();
            carried
        });
        assert!(written.is_ok());
        for (i, c) in carried.iter().enumerate() {
            let i = i as u8;
            assert_eq!(c, &[10 + i, 10 + i, 20 + i], "carry of chunk {i}");
        }
        let expected: Vec<u8> = (0..5u8)
            .flat_map(|i| {
                [
                    10 + i,
                    10 + i,
                    10 + i,
                    10 + i,
                    10 + i,
                    10 + i,
                    10 + i,
                    20 + i,
                ]
            })
            .collect();
        assert_eq!(out.bytes, expected);
    }

    #[test]
    fn a_failed_write_stops_the_hand_over_and_is_reported() {
        // The fourth chunk does not fit.
        let mut out = recorder(3 * 10 + 5);
        let ((handed, _, result), written) = behind(&mut out, |h| produce_chunks(h, 1000, 10));
        assert_eq!(result.unwrap_err().kind(), io::ErrorKind::BrokenPipe);
        assert_eq!(written.unwrap_err().to_string(), "disk full");
        // Handing over chunk i takes back the buffer of chunk i - 1, so the decoder is
        // one chunk ahead: chunk 3 was handed over and failed, chunk 4 could not be.
        assert_eq!(handed, 4);
        let expected: Vec<u8> = (0..3u8).flat_map(|i| [i; 10]).collect();
        assert_eq!(out.bytes, expected);
        assert!(!out.flushed);
    }

    #[test]
    fn chunks_handed_over_before_the_producer_fails_are_all_written() {
        let mut out = recorder(usize::MAX);
        let (produced, written) = behind(&mut out, |h| {
            produce_chunks(h, 5, 7).2?;
            Err::<(), _>(io::Error::other("bad entry"))
        });
        assert_eq!(produced.unwrap_err().to_string(), "bad entry");
        assert!(written.is_ok());
        assert_eq!(out.bytes.len(), 35);
        assert!(out.bytes.ends_with(&[4; 7]));
    }

    #[test]
    fn a_write_failing_after_the_last_hand_over_is_still_reported() {
        // The fifth and last chunk does not fit: the producer is done by then.
        let mut out = recorder(4 * 10 + 5);
        let ((handed, _, result), written) = behind(&mut out, |h| produce_chunks(h, 5, 10));
        assert!(result.is_ok());
        assert_eq!(handed, 5);
        assert_eq!(written.unwrap_err().to_string(), "disk full");
        assert_eq!(out.bytes.len(), 40);
    }

    /// Takes every byte; its flush fails.
    struct FailingFlush(usize);

    impl Write for FailingFlush {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::other("flush refused"))
        }
    }

    #[test]
    fn a_failed_flush_is_reported() {
        let mut out = FailingFlush(0);
        let ((handed, _, result), written) = behind(&mut out, |h| produce_chunks(h, 3, 16));
        assert!(result.is_ok() && handed == 3);
        assert_eq!(written.unwrap_err().to_string(), "flush refused");
        assert_eq!(out.0, 48);
    }

    #[test]
    fn a_panic_on_either_side_is_raised_again_after_both_stop() {
        use std::panic::{AssertUnwindSafe, catch_unwind};
        let mut out = recorder(usize::MAX);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            behind(&mut out, |h| {
                let _ = produce_chunks(h, 3, 4);
                panic!("producer gave up");
            })
        }));
        assert!(caught.is_err());
        // The chunks handed over before the panic were written all the same.
        assert_eq!(out.bytes.len(), 12);

        struct Panicking;
        impl Write for Panicking {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                panic!("writer gave up");
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let caught = catch_unwind(AssertUnwindSafe(|| {
            behind(&mut Panicking, |h| produce_chunks(h, 100, 4))
        }));
        assert!(caught.is_err());
    }
}
