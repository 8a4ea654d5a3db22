//! Entries decoded on several threads, reported in entry order: what `extract -j N` and
//! `verify -j N` share.
//!
//! The calling thread plans each job in order (what depends on the jobs before it: file
//! names, the limits' running total) and reports each result in that same order, so the
//! output is line for line what one thread would print; only the work between, the
//! decoding, runs on the workers. At most two jobs per worker are planned and not yet
//! reported, so memory (a decoder and its buffer for each job running, a plan for each
//! waiting) is bounded by the worker count, not by the archive.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Mutex, mpsc};

use crate::address_space;

/// Runs `work` on each job `plan` yields, on `workers` threads (on this one when
/// `workers` is 1), and hands the results to `report` in the order of the jobs.
///
/// No more threads are started than `plan` can have jobs (its size hint's upper bound),
/// and a thread the system refuses (too many threads, no memory for its stack) is done
/// without: the jobs run on those that started, or on this thread if none did.
///
/// Under a limit on the address space (`ulimit -v`) no more threads start than
/// [`address_space::threads_that_fit`], so that a run in a tight space is slower, not
/// aborted.
///
/// A panic in `work` is raised again here, on the calling thread, when its turn to be
/// reported comes.
pub fn in_order<J: Send, R: Send>(
    workers: usize,
    plan: impl Iterator<Item = J>,
    work: impl Fn(J) -> R + Sync,
    report: impl FnMut(R),
) {
    let workers = workers.min(address_space::threads_that_fit());
    in_order_on(std::thread::Builder::new, workers, plan, work, report);
}

/// [`in_order`] with its threads started from the builders `thread` makes.
fn in_order_on<J: Send, R: Send>(
    mut thread: impl FnMut() -> std::thread::Builder,
    workers: usize,
    plan: impl Iterator<Item = J>,
    work: impl Fn(J) -> R + Sync,
    mut report: impl FnMut(R),
) {
    let workers = workers.min(plan.size_hint().1.unwrap_or(usize::MAX));
    if workers <= 1 {
        plan.for_each(|job| report(work(job)));
        return;
    }
    let (to_workers, jobs) = mpsc::sync_channel::<(usize, J)>(workers);
    let jobs = Mutex::new(jobs);
    let (to_reporter, results) = mpsc::channel::<(usize, std::thread::Result<R>)>();
    std::thread::scope(|scope| {
        let mut started = 0usize;
        for _ in 0..workers {
            let (jobs, to_reporter, work) = (&jobs, to_reporter.clone(), &work);
            let worker = thread().spawn_scoped(scope, move || {
                loop {
                    // The lock is held only to take a job, not while it runs.
                    let next = jobs.lock().map(|jobs| jobs.recv());
                    let Ok(Ok((n, job))) = next else { break };
                    let result = catch_unwind(AssertUnwindSafe(|| work(job)));
                    if to_reporter.send((n, result)).is_err() {
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
        let mut done: BTreeMap<usize, std::thread::Result<R>> = BTreeMap::new();
        let mut reported = 0usize;
        let mut hand_over = |done: &mut BTreeMap<usize, _>, reported: &mut usize| {
            while let Some(result) = done.remove(reported) {
                match result {
                    Ok(r) => report(r),
                    Err(panic) => resume_unwind(panic),
                }
                *reported += 1;
            }
        };
        for (n, job) in plan.enumerate() {
            while n - reported >= most_pending {
                // Every job before `n` was sent, so a result is on its way.
                let Ok((k, r)) = results.recv() else { break };
                done.insert(k, r);
                hand_over(&mut done, &mut reported);
            }
            if to_workers.send((n, job)).is_err() {
                break;
            }
            while let Ok((k, r)) = results.try_recv() {
                done.insert(k, r);
            }
            hand_over(&mut done, &mut reported);
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
        for workers in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            in_order(
                workers,
                0..50u64,
                |n| {
                    std::thread::sleep(std::time::Duration::from_micros((50 - n) * 20));
                    n * n
                },
                |r| seen.push(r),
            );
            assert_eq!(seen, (0..50u64).map(|n| n * n).collect::<Vec<_>>());
        }
    }

    /// No more than two jobs per worker are planned ahead of the one reported last.
    #[test]
    fn planning_stays_at_most_two_jobs_per_worker_ahead() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let planned = AtomicUsize::new(0);
        let mut reported = 0usize;
        let mut widest = 0usize;
        in_order(
            3,
            (0..40).inspect(|_| {
                planned.fetch_add(1, Ordering::SeqCst);
            }),
            |n: usize| n,
            |_| {
                reported += 1;
                widest = widest.max(planned.load(Ordering::SeqCst) - reported);
            },
        );
        assert_eq!(reported, 40);
        assert!(widest <= 6, "{widest} jobs planned ahead of the reports");
    }

    /// A panic in a job reaches the caller instead of hanging the run.
    #[test]
    fn a_panicking_job_panics_the_caller() {
        let outcome = catch_unwind(|| {
            in_order(
                2,
                0..10,
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
            |n| n + 1,
            |r| seen.push(r),
        );
        assert_eq!(seen, [1, 2, 3]);
        assert_eq!(made, 3);
    }
}
