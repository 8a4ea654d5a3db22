//! Readers dropped while their reads wait for a busy blocking pool (clients that went
//! away from a busy server) cost the pool no read: each such read is aborted before it
//! starts. Counted by the bytes the process reads (`rchar` of `/proc/self/io`), so this
//! binary holds one test, and no other test's reads are counted.

use std::time::Duration;

use ngi_core::Method;
use ngi_core::rsli::Builder;
use ngi_tests::tokio_io::TempFile;
use ngi_tokio::Archive;
use tokio::io::AsyncReadExt;

/// The bytes this process has read through system calls so far.
fn bytes_read() -> u64 {
    let io = std::fs::read_to_string("/proc/self/io").unwrap();
    io.lines()
        .find_map(|line| line.strip_prefix("rchar: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("rchar in /proc/self/io")
}

#[test]
fn readers_dropped_before_their_reads_start_read_nothing() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .max_blocking_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let data: Vec<u8> = (0..1u32 << 20).map(|i| (i * 7 % 251) as u8).collect();
    let mut builder = Builder::new();
    builder.add(b"A", Method::Stored, &data).unwrap();
    let file = TempFile::new("dropped-reads", &builder.build().unwrap());
    runtime.block_on(async {
        let archive = Archive::open(&file.0)
            .await
            .unwrap()
            .with_read_chunk(1 << 20)
            .with_cached_reads_inline(false);
        // The pool's one thread is busy until told.
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let busy = tokio::task::spawn_blocking(move || wait.recv().unwrap());
        let mut readers: Vec<_> = (0..50).map(|_| archive.reader(0).unwrap()).collect();
        for reader in &mut readers {
            let mut buf = [0u8; 16];
            // Queues the reader's first read, of 1 MiB, on the pool.
            let read = futures::FutureExt::now_or_never(reader.read(&mut buf));
            assert!(read.is_none(), "the pool is busy: no read can be done yet");
        }
        let before = bytes_read();
        drop(readers);
        go.send(()).unwrap();
        busy.await.unwrap();
        // Whatever is left on the pool runs before this.
        tokio::task::spawn_blocking(|| ()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let read = bytes_read() - before;
        assert!(
            read < 4 << 20,
            "{read} bytes read for 50 readers already dropped"
        );
    });
}
