//! ngi-tokio under concurrency, cancellation and a busy runtime: 256 tasks on a
//! multi-thread runtime reading random entries of one `Archive` opened from a file, every
//! byte checked; reads raced against `yield_now` and timeouts in `select!`, which must
//! lose nothing; readers and streams dropped mid-entry (with a positional read in flight)
//! leaving the archive usable and no blocking task behind; and, on a current-thread
//! runtime, a ticker task that keeps running while a 64 MiB entry decodes from memory,
//! and a 1 ms timer that keeps firing while megabytes of empty Deflate blocks do.
//!
//! The file is in the page cache, where a reader's read is answered at once by default:
//! the races and drops are run with every read sent to the blocking pool, so that a read
//! is in flight when it loses.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use ngi_core::Method;
use ngi_core::rsli::Builder;
use ngi_tests::corpus::Rng;
use ngi_tests::tokio_io::{Expected, TempFile, corpus_archives};
use ngi_tokio::Archive;
use tokio::io::AsyncReadExt;

/// FNV-1a, to compare a task's bytes without keeping them.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn rsli_corpus() -> (Vec<u8>, Vec<Expected>) {
    let (_, bytes, expected) = corpus_archives()
        .into_iter()
        .next()
        .expect("the RsLi fixture");
    (bytes, expected)
}

#[test]
fn many_tasks_read_one_archive_at_once() {
    let (bytes, expected) = rsli_corpus();
    let file = TempFile::new("concurrency", &bytes);
    let sums: Arc<Vec<u64>> = Arc::new(expected.iter().map(|e| checksum(&e.plain)).collect());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let archive = Archive::open(&file.0).await.unwrap();
        let tasks: Vec<_> = (0..256u64)
            .map(|t| {
                let (archive, sums) = (archive.clone(), Arc::clone(&sums));
                tokio::spawn(async move {
                    let mut rng = Rng::new(t);
                    let mut read = 0u64;
                    for _ in 0..3 {
                        let i = rng.below(archive.len());
                        let mut r = archive.reader(i).unwrap();
                        let mut out = Vec::new();
                        let mut buf = vec![0u8; 1 + rng.below(100_000)];
                        loop {
                            let n = r.read(&mut buf).await.unwrap();
                            if n == 0 {
                                break;
                            }
                            out.extend_from_slice(&buf[..n]);
                        }
                        assert_eq!(checksum(&out), sums[i], "task {t}, entry {i}");
                        read += out.len() as u64;
                    }
                    read
                })
            })
            .collect();
        let mut total = 0;
        for task in tasks {
            total += task.await.expect("no task panics");
        }
        assert!(total > 10 << 20, "{total} bytes read in all");
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_raced_in_select_lose_nothing() {
    let (bytes, expected) = rsli_corpus();
    let file = TempFile::new("select", &bytes);
    let from_file = Archive::open(&file.0).await.unwrap();
    // Small chunks, so that a read waits for the pool more often than the read-ahead hides.
    let pooled = (from_file.clone())
        .with_read_chunk(4096)
        .with_cached_reads_inline(false);
    let in_memory = Archive::from_bytes(bytes.into()).unwrap();
    let mut rng = Rng::new(0x5E1EC7);
    for (what, archive) in [("file", from_file), ("pool", pooled), ("memory", in_memory)] {
        let mut lost_in_all = 0;
        // Twelve entries; from the pool, more until ten races were lost (the pool's timing
        // decides how many a run loses), up to 200.
        for n in 0.. {
            let enough = what != "pool" || lost_in_all >= 10 || n == 200;
            if n >= 12 && enough {
                break;
            }
            let mut i = rng.below(archive.len());
            // Entries of many chunks, that the pool's reads may keep a read waiting on.
            while what == "pool" && expected[i].plain.len() < 100_000 {
                i = rng.below(archive.len());
            }
            let mut r = archive.reader(i).unwrap();
            let (mut out, mut buf) = (Vec::new(), vec![0u8; 1 + rng.below(50_000)]);
            let (mut lost_races, mut rounds) = (0u32, 0u32);
            loop {
                rounds += 1;
                assert!(rounds < 10_000_000, "no end");
                let n = match rng.below(3) {
                    // A read against a yield: the yield often wins and the read is dropped.
                    0 => tokio::select! {
                        n = r.read(&mut buf) => n.unwrap(),
                        () = tokio::task::yield_now() => { lost_races += 1; continue; }
                    },
                    // Against a timeout that is often already over.
                    1 => match tokio::time::timeout(Duration::from_micros(5), r.read(&mut buf))
                        .await
                    {
                        Ok(n) => n.unwrap(),
                        Err(_) => {
                            lost_races += 1;
                            continue;
                        }
                    },
                    _ => r.read(&mut buf).await.unwrap(),
                };
                if n == 0 {
                    break;
                }
                out.extend_from_slice(&buf[..n]);
            }
            assert!(
                out == expected[i].plain,
                "{what}: entry {i} after {lost_races} lost races"
            );
            lost_in_all += lost_races;
        }
        // Reads on the blocking pool are pending when raced: many are lost.
        if what == "pool" {
            assert!(lost_in_all >= 10, "{what}: {lost_in_all} lost races");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_dropped_mid_entry_leave_the_archive_usable() {
    let (bytes, expected) = rsli_corpus();
    let file = TempFile::new("drop", &bytes);
    let archive = Archive::open(&file.0)
        .await
        .unwrap()
        .with_read_chunk(4096)
        .with_cached_reads_inline(false);
    let big: Vec<usize> = (0..archive.len())
        .filter(|&i| expected[i].plain.len() > 100_000)
        .collect();
    for round in 0..64 {
        let i = big[round % big.len()];
        let mut r = archive.reader(i).unwrap();
        let mut buf = [0u8; 3000];
        r.read_exact(&mut buf).await.unwrap();
        // A read polled once and dropped: its positional read may be on the blocking pool.
        let _ = futures::FutureExt::now_or_never(r.read(&mut buf));
        tokio::select! {
            biased;
            _ = r.read(&mut buf) => {}
            () = std::future::ready(()) => {}
        }
        drop(r);
        let mut s = archive.stream(i).unwrap().with_chunk_len(10_000);
        let first = s.next().await.unwrap().unwrap();
        assert_eq!(first[..], expected[i].plain[..10_000]);
        drop(s);
    }
    // Everything on the blocking pool finishes and is discarded.
    let metrics = tokio::runtime::Handle::current().metrics();
    let mut waited = 0;
    while metrics.num_alive_tasks() > 0 {
        assert!(waited < 500, "{} tasks alive", metrics.num_alive_tasks());
        tokio::time::sleep(Duration::from_millis(10)).await;
        waited += 1;
    }
    // And the archive reads every entry as before.
    for (i, e) in expected.iter().enumerate() {
        assert!(archive.read(i).await.unwrap() == e.plain, "entry {i}");
    }
}

/// How [`ticks_while_decoding`] decodes.
#[derive(Clone, Copy)]
enum Decode {
    /// Through a reader, under tokio's coop budget.
    Reader,
    /// Through a reader, with the budget off (`coop::unconstrained`).
    Unconstrained,
}

/// Decodes a 64 MiB entry from memory on a current-thread runtime with a ticker task
/// beside it, `how` says how, and returns the ticks seen while it decoded.
fn ticks_while_decoding(archive: &Archive, how: Decode) -> u64 {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let ticks = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let ticker = {
            let (ticks, stop) = (Arc::clone(&ticks), Arc::clone(&stop));
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    ticks.fetch_add(1, Ordering::Relaxed);
                    tokio::task::yield_now().await;
                }
            })
        };
        // Let the ticker start, then count only what happens during the decode.
        tokio::task::yield_now().await;
        let before = ticks.load(Ordering::Relaxed);
        // Plain reads (tokio::io::copy and sink spend budget of their own): only the
        // reader can make this task yield.
        let read = async {
            let mut reader = archive.reader(0).unwrap();
            let mut buf = vec![0u8; 64 * 1024];
            let mut total = 0;
            loop {
                match reader.read(&mut buf).await.unwrap() {
                    0 => return total,
                    n => total += n,
                }
            }
        };
        let read = match how {
            Decode::Reader => read.await,
            Decode::Unconstrained => tokio::task::coop::unconstrained(read).await,
        };
        assert_eq!(read, 64 << 20);
        let during = ticks.load(Ordering::Relaxed) - before;
        stop.store(true, Ordering::Relaxed);
        ticker.await.unwrap();
        during
    })
}

#[test]
fn a_huge_entry_in_memory_does_not_starve_the_runtime() {
    // XOR makes the decoder touch every byte; the data need no packing time.
    let plain: Vec<u8> = (0..64u32 << 20).map(|i| (i % 251) as u8).collect();
    let mut builder = Builder::new();
    builder.add(b"HUGE.BIN", Method::Xor, &plain).unwrap();
    let archive = Archive::from_bytes(builder.build().unwrap().into()).unwrap();
    // One budget unit per poll of at most 32 KiB: a yield every 4 MiB or sooner.
    let fair = ticks_while_decoding(&archive, Decode::Reader);
    assert!(
        fair >= 8,
        "the ticker ran {fair} times during a 64 MiB decode"
    );
    // Without the budget the reader still yields after each millisecond of decoding,
    // and no machine decodes 64 MiB in one.
    let unbudgeted = ticks_while_decoding(&archive, Decode::Unconstrained);
    assert!(unbudgeted >= 1, "unconstrained, the ticker never ran");
}

/// An entry whose packed bytes are megabytes of empty stored Deflate blocks produces
/// nothing for many polls. Each such poll ends with the reader waking itself, and such a
/// wake let tokio look at its timers only every 61st poll (its `event_interval`): a
/// probe's 1 ms ticker came 180 ms late beside 200 MB of them. The millisecond's yield
/// must come on these polls too, and with it the timers.
#[test]
fn blocks_that_produce_nothing_do_not_hold_the_timers() {
    use ngi_tests::hostile::{rentry, rsli_file};

    let mut packed = [0x00u8, 0x00, 0x00, 0xFF, 0xFF].repeat((96 << 20) / 5);
    packed.extend_from_slice(&[0x01, 0x05, 0x00, 0xFA, 0xFF]);
    packed.extend_from_slice(b"hello");
    let entry = rentry(b"EMPTY", 0x100, 0, 5, 64, packed.len() as u32);
    let file = rsli_file(7, false, &[entry], &packed, None);
    let archive = Archive::from_bytes(file.into()).unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut interval = tokio::time::interval(Duration::from_millis(1));
        // Missed ticks are not made up in a burst afterwards.
        interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        interval.tick().await;
        let ticks = Arc::new(Mutex::new(Vec::new()));
        let ticker = {
            let ticks = Arc::clone(&ticks);
            tokio::spawn(async move {
                loop {
                    interval.tick().await;
                    ticks.lock().unwrap().push(Instant::now());
                }
            })
        };
        let reader = tokio::spawn(async move {
            let start = Instant::now();
            let bytes = archive.read(0).await.unwrap();
            (bytes, start, Instant::now())
        });
        let (bytes, start, end) = reader.await.unwrap();
        ticker.abort();
        assert_eq!(bytes, b"hello");
        // Without the yield the timers were looked at about once in 61 MiB, so a tick or
        // two came; with it one comes after each millisecond, and no machine parses 96 MiB
        // of block headers in a few.
        let ticks = ticks.lock().unwrap();
        let during = ticks.iter().filter(|t| (start..=end).contains(t)).count();
        assert!(
            during >= 4,
            "a 1 ms ticker ticked {during} times during a decode of {:?}",
            end - start
        );
    });
}
