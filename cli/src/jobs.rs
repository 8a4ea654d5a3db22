//! Entries decoded on several threads, reported in entry order: what `extract -j N` and
//! `verify -j N` share.
//!
//! The calling thread plans each job in order (what depends on the jobs before it: file
//! names, the limits' running total) and reports each result in that same order, so the
//! output is line for line what one thread would print; only the work between, the
//! decoding, runs on the workers. Jobs go to the workers in batches of consecutive jobs
//! (as many as decode [`BATCH_WEIGHT`] bytes together, at most [`BATCH_JOBS`]): a hand-over
//! between threads costs tens of microseconds, and an archive of many small entries sent
//! one job at a time ran five times slower on two threads than on one. At most two
//! batches per worker are planned and not yet reported, so memory (a decoder and its
//! buffer for each job running, a plan for each waiting) is bounded by the worker count,
//! not by the archive.

use std::collections::{BTreeMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Mutex, mpsc};

use crate::address_space;

/// The decoded bytes a batch of jobs reaches before it goes to a worker.
pub const BATCH_WEIGHT: u64 = 64 * 1024;

/// The most jobs in a batch, whatever they weigh.
pub const BATCH_JOBS: usize = 256;

/// Runs `work` on each job `plan` yields, on `workers` threads (on this one when
/// `workers` is 1), and hands the results to `report` in the order of the jobs. `weight`
/// says how many bytes a job decodes, for the batches.
///
/// No more threads are started than `plan` can have jobs (its size hint's upper bound),
/// and a thread the system refuses (too many threads, no memory for its stack) is done
/// without: the jobs run on those that started, or on this thread if none did.
///
/// Under a limit on the address space (`ulimit -v`) or the data segment (`ulimit -d`) no
/// more threads start than [`address_space::threads_that_fit`], so that a run in a tight
/// space is slower, not aborted.
///
/// A panic in `work` is raised again here, on the calling thread, when its turn to be
/// reported comes.
pub fn in_order<J: Send, R: Send>(
    workers: usize,
    plan: impl Iterator<Item = J>,
    weight: impl Fn(&J) -> u64,
    work: impl Fn(J) -> R + Sync,
    report: impl FnMut(R),
) {
    let workers = workers.min(address_space::threads_that_fit());
    in_order_on(
        std::thread::Builder::new,
        workers,
        plan,
        weight,
        work,
        report,
    );
}

/// The results of a batch: its first job's number, then one per job, in order.
type Results<R> = (usize, Vec<std::thread::Result<R>>);

/// [`in_order`] with its threads started from the builders `thread` makes.
fn in_order_on<J: Send, R: Send>(
    mut thread: impl FnMut() -> std::thread::Builder,
    workers: usize,
    plan: impl Iterator<Item = J>,
    weight: impl Fn(&J) -> u64,
    work: impl Fn(J) -> R + Sync,
    mut report: impl FnMut(R),
) {
    let workers = workers.min(plan.size_hint().1.unwrap_or(usize::MAX));
    if workers <= 1 {
        plan.for_each(|job| report(work(job)));
        return;
    }
    let (to_workers, batches) = mpsc::sync_channel::<(usize, Vec<J>)>(workers);
    let batches = Mutex::new(batches);
    let (to_reporter, results) = mpsc::channel::<Results<R>>();
    std::thread::scope(|scope| {
        let mut started = 0usize;
        for _ in 0..workers {
            let (batches, to_reporter, work) = (&batches, to_reporter.clone(), &work);
            let worker = thread().spawn_scoped(scope, move || {
                loop {
                    // The lock is held only to take a batch, not while it runs.
                    let next = batches.lock().map(|batches| batches.recv());
                    let Ok(Ok((n, jobs))) = next else { break };
                    let done = jobs
                        .into_iter()
                        .map(|job| catch_unwind(AssertUnwindSafe(|| work(job))))
                        .collect();
                    if to_reporter.send((n, done)).is_err() {
                        break;
                    }
                }
            });
            if worker.is_err() {
                break;
            }
            started += 1;
        }
        if started == 0 {
            plan.for_each(|job| report(work(job)));
            return;
        }
        let most_pending = 2 * started;
        drop(to_reporter);
        // Batches back from the workers, by their first job's number.
        let mut done: BTreeMap<usize, Vec<std::thread::Result<R>>> = BTreeMap::new();
        let mut reported = 0usize;
        let mut hand_over = |done: &mut BTreeMap<usize, _>, reported: &mut usize| {
            while let Some(batch) = done.remove(reported) {
                for result in batch {
                    match result {
                        Ok(r) => report(r),
                        Err(panic) => resume_unwind(panic),
                    }
                    *reported += 1;
                }
            }
        };
        // The end of each batch sent and not yet reported, oldest first: results that
        // came back out of order count until reported, so that planning stays bounded.
        let mut pending: VecDeque<usize> = VecDeque::new();
        let mut plan = plan.enumerate();
        while let Some((first, job)) = plan.next() {
            let mut weighed = weight(&job);
            let mut batch = vec![job];
            while weighed < BATCH_WEIGHT && batch.len() < BATCH_JOBS {
                let Some((_, job)) = plan.next() else { break };
                weighed = weighed.saturating_add(weight(&job));
                batch.push(job);
            }
            let end = first + batch.len();
            while pending.len() >= most_pending {
                // Every batch before this one was sent, so results are on their way.
                let Ok((k, r)) = results.recv() else { break };
                done.insert(k, r);
                hand_over(&mut done, &mut reported);
                while pending.front().is_some_and(|&e| e <= reported) {
                    pending.pop_front();
                }
            }
            if to_workers.send((first, batch)).is_err() {
                break;
            }
            pending.push_back(end);
            while let Ok((k, r)) = results.try_recv() {
                done.insert(k, r);
            }
            hand_over(&mut done, &mut reported);
            while pending.front().is_some_and(|&e| e <= reported) {
                pending.pop_front();
            }
        }
        drop(to_workers);
        for (k, r) in results {
            done.insert(k, r);
            hand_over(&mut done, &mut reported);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results come back in job order, whatever order the workers finish in (later jobs
    /// here finish first), for every worker count.
    #[test]
    fn results_are_reported_in_job_order() {
        // A batch per job, batches of 3 jobs (weighing 3 * BATCH_WEIGHT / 3 together),
        // and one batch for all.
        for weight in [BATCH_WEIGHT, BATCH_WEIGHT / 3, 0] {
            for workers in [1, 2, 3, 8] {
                let mut seen = Vec::new();
                in_order(
                    workers,
                    0..50u64,
                    |_| weight,
                    |n| {
                        std::thread::sleep(std::time::Duration::from_micros((50 - n) * 20));
                        n * n
                    },
                    |r| seen.push(r),
                );
                let want: Vec<u64> = (0..50u64).map(|n| n * n).collect();
                assert_eq!(seen, want, "{workers} workers, weight {weight}");
            }
        }
    }

    /// No more than two batches per worker are planned ahead of the one reported last,
    /// and the batch being made: with a job per batch, six jobs for three workers; with
    /// four jobs per batch, 28; with jobs that weigh nothing, seven batches of
    /// BATCH_JOBS (however light, a batch holds no more).
    #[test]
    fn planning_stays_at_most_two_batches_per_worker_ahead() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let cases = [
            (BATCH_WEIGHT, 400, 6),
            (BATCH_WEIGHT / 4, 400, 28),
            (0, 10 * BATCH_JOBS, 7 * BATCH_JOBS),
        ];
        for (weight, jobs, most) in cases {
            let planned = AtomicUsize::new(0);
            let mut reported = 0usize;
            let mut widest = 0usize;
            in_order(
                3,
                (0..jobs).inspect(|_| {
                    planned.fetch_add(1, Ordering::SeqCst);
                }),
                |_| weight,
                |n: usize| n,
                |_| {
                    reported += 1;
                    widest = widest.max(planned.load(Ordering::SeqCst) - reported);
                },
            );
            assert_eq!(reported, jobs);
            assert!(widest <= most, "{widest} jobs planned ahead of the reports");
        }
    }

    /// A panic in a job reaches the caller instead of hanging the run.
    #[test]
    fn a_panicking_job_panics_the_caller() {
        let outcome = catch_unwind(|| {
            in_order(
                2,
                0..10,
                |_| BATCH_WEIGHT,
                |n: i32| {
                    assert!(n != 4, "job 4 fails");
                    n
                },
                |_| {},
            )
        });
        assert!(outcome.is_err());
    }

    /// A stack no system can give: spawning a thread with it fails.
    fn refused() -> std::thread::Builder {
        std::thread::Builder::new().stack_size(1 << 60)
    }

    /// Threads the system refuses are done without: with none started the jobs run on
    /// the calling thread, with some on those, and every result still comes back in order.
    #[test]
    fn refused_threads_leave_the_jobs_to_the_others() {
        for allowed in [0, 1, 2] {
            let mut made = 0;
            let threads = || {
                made += 1;
                if made <= allowed {
                    std::thread::Builder::new()
                } else {
                    refused()
                }
            };
            let caller = std::thread::current().id();
            let mut seen = Vec::new();
            in_order_on(
                threads,
                4,
                0..30u64,
                |_| BATCH_WEIGHT,
                |n| (n * 3, std::thread::current().id() == caller),
                |r| seen.push(r),
            );
            let values: Vec<u64> = seen.iter().map(|&(v, _)| v).collect();
            assert_eq!(values, (0..30u64).map(|n| n * 3).collect::<Vec<_>>());
            let on_caller = seen.iter().filter(|&&(_, here)| here).count();
            let expected = if allowed == 0 { 30 } else { 0 };
            assert_eq!(on_caller, expected, "{allowed} threads allowed");
        }
    }

    /// The check above relies on the refused stack being refused.
    #[test]
    fn the_refused_stack_is_refused() {
        assert!(refused().spawn(|| ()).is_err());
    }

    /// No more threads are started than there are jobs.
    #[test]
    fn no_more_threads_than_jobs() {
        let mut made = 0;
        let mut seen = Vec::new();
        in_order_on(
            || {
                made += 1;
                std::thread::Builder::new()
            },
            64,
            0..3u32,
            |_| BATCH_WEIGHT,
            |n| n + 1,
            |r| seen.push(r),
        );
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!(made, 3);
    }
}
