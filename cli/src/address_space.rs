//! How many threads a process under a limit on its address space (`ulimit -v`,
//! `RLIMIT_AS`) can start without an allocation failing, which aborts a Rust process: the
//! bound on `extract`/`verify -j N`'s workers and on `serve`'s runtime threads.
//!
//! A thread's own needs are small (a 2 MiB stack, a decoder, a 288 KiB buffer), but glibc
//! gives each new thread's allocations a heap of their own, up to 8 per core, each
//! reserving 64 MiB of address space. Measured on the project's machine (`extract` of 200
//! Deflate entries of 256 KiB, three runs each): 32 workers aborted in 256 MiB and in
//! 512 MiB (16 ran clean in 256 MiB, one per 16 MiB, but the same ratio failed in
//! 512 MiB); one per 32 MiB ran clean at every limit from 64 MiB to 8 GiB. What the
//! process already maps is taken off the limit first (a debug build maps some 150 MB
//! before it starts a thread). Without a limit nothing is capped.
//!
//! A limit on the data segment (`ulimit -d`, `RLIMIT_DATA`) counts the threads' stacks
//! and heaps as well (Linux 4.7 and later: every private writable mapping), and is held
//! to the same ratio against what the process's data takes already (`VmData`): under
//! 50 000 KiB, 24 workers and more aborted `extract` ("memory allocation failed", files
//! cut short under their names) or hung it (a worker's start failed in the panic hook).

/// Address space a thread is given room for under a limit.
const PER_THREAD: u64 = 32 << 20;

/// How many threads fit in what this process's address space and data segment have
/// left: at least one, and `usize::MAX` when neither has a limit.
pub fn threads_that_fit() -> usize {
    let space = threads_in(limit(Limit::AddressSpace).map(|l| l.saturating_sub(mapped("VmSize:"))));
    let data = threads_in(limit(Limit::Data).map(|l| l.saturating_sub(mapped("VmData:"))));
    space.min(data)
}

/// The two limits threads count against.
#[derive(Clone, Copy)]
enum Limit {
    AddressSpace,
    Data,
}

/// How many threads fit in an address space of `limit` bytes.
fn threads_in(limit: Option<u64>) -> usize {
    match limit {
        Some(bytes) => usize::try_from(bytes / PER_THREAD)
            .unwrap_or(usize::MAX)
            .max(1),
        None => usize::MAX,
    }
}

/// The process's soft limit, if it has one.
#[cfg(target_os = "linux")]
fn limit(which: Limit) -> Option<u64> {
    use rustix::process::{Resource, getrlimit};
    let resource = match which {
        Limit::AddressSpace => Resource::As,
        Limit::Data => Resource::Data,
    };
    getrlimit(resource).current
}

#[cfg(not(target_os = "linux"))]
fn limit(_: Limit) -> Option<u64> {
    None
}

/// What the process maps now by `field` of its status (`VmSize:` the address space,
/// `VmData:` the data), or 0 if it cannot be read.
#[cfg(target_os = "linux")]
fn mapped(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|size| size.trim().strip_suffix("kB"))
        .and_then(|size| size.trim().parse::<u64>().ok());
    kib.unwrap_or(0).saturating_mul(1024)
}

#[cfg(not(target_os = "linux"))]
fn mapped(_: &str) -> u64 {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One thread per 32 MiB of a limited address space, at least one, and no cap without
    /// a limit.
    #[test]
    fn one_thread_per_32_mib() {
        assert_eq!(threads_in(None), usize::MAX);
        assert_eq!(threads_in(Some(256 << 20)), 8);
        assert_eq!(threads_in(Some((256 << 20) - 1)), 7);
        assert_eq!(threads_in(Some(1 << 20)), 1);
        assert_eq!(threads_in(Some(0)), 1);
        assert_eq!(threads_in(Some(8 << 30)), 256);
    }

    /// The process maps something already (its code, its heap), and no more than a
    /// process could.
    #[cfg(target_os = "linux")]
    #[test]
    fn what_is_mapped_is_read() {
        for field in ["VmSize:", "VmData:"] {
            let mapped = mapped(field);
            assert!(mapped > 1 << 20 && mapped < 1 << 47, "{field} {mapped}");
        }
    }
}
