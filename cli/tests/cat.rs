//! `ngi cat` of entries larger than its chunk, which are written on a thread of their own
//! behind the decoder when stdout is a pipe or a file: the same bytes, the same errors and
//! the same exit status as a direct write, wherever the output goes.
#![cfg(unix)]

use std::io::Read;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use ngi_core::Method;
use ngi_core::rsli::Builder;

use ngi_tests::scratch::Scratch;

/// 3 MiB and a bit of numbered lines with a pseudo-random word each: six chunks of
/// `ngi cat` and a short one, and Deflate that is neither trivial nor stored.
fn contents() -> Vec<u8> {
    const LEN: usize = (3 << 20) + 12_345;
    let mut out = Vec::with_capacity(LEN);
    let mut x = 0x2545_f491_u32;
    let mut line = 0u32;
    while out.len() < LEN {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out.extend_from_slice(format!("{line:07} {:08x} parkan\n", x % 4096).as_bytes());
        line += 1;
    }
    out.truncate(LEN);
    out
}

/// An RsLi library of one Deflate entry `BIG` holding `data`, its declared size raised
/// by `extra` bytes (the stream then ends short of it).
fn library(dir: &std::path::Path, data: &[u8], extra: u32) -> String {
    use ngi_core::codec::xor::XorStream;
    let mut b = Builder::new();
    b.add(b"BIG", Method::Deflate, data).unwrap();
    let mut bytes = b.build().unwrap();
    if extra > 0 {
        // The table is XOR-encrypted with the key at offset 20; the declared size is at
        // offset 20 of the entry's 32-byte row.
        let key = u16::from_le_bytes([bytes[20], bytes[21]]);
        let table = &mut bytes[32..64];
        XorStream::new(key).apply(table);
        let size = u32::from_le_bytes(table[20..24].try_into().unwrap()) + extra;
        table[20..24].copy_from_slice(&size.to_le_bytes());
        XorStream::new(key).apply(table);
    }
    let path = dir.join("big.rsli");
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

fn cat(archive: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_ngi"));
    c.args(["cat", archive, "BIG"]).stderr(Stdio::piped());
    c
}

/// The child's exit, waited for at most a minute (then killed, and the test fails).
fn wait_bounded(child: &mut Child) -> ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("ngi cat did not end within a minute");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The child's stderr and exit, once it has ended (waited for at most a minute).
fn finish(child: &mut Child) -> (String, ExitStatus) {
    let status = wait_bounded(child);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (err, status)
}

/// Everything the child writes on stdout, its stderr and its exit. Stdout is drained on
/// a thread of its own, so that a child that never ends is still killed at the deadline.
fn through_a_pipe(mut command: Command) -> (Vec<u8>, String, ExitStatus) {
    let mut child = command.stdout(Stdio::piped()).spawn().expect("ngi runs");
    let mut stdout = child.stdout.take().unwrap();
    let drain = std::thread::spawn(move || {
        let mut out = Vec::new();
        stdout.read_to_end(&mut out).map(|_| out)
    });
    let (err, status) = finish(&mut child);
    (drain.join().unwrap().unwrap(), err, status)
}

/// The same into a regular file.
fn into_a_file(mut command: Command, path: PathBuf) -> (Vec<u8>, String, ExitStatus) {
    let file = std::fs::File::create(&path).unwrap();
    let mut child = command.stdout(file).spawn().expect("ngi runs");
    let (err, status) = finish(&mut child);
    (std::fs::read(&path).unwrap(), err, status)
}

/// Its stderr and exit with stdout on `/dev/null`, a device: written without the thread.
fn into_null(mut command: Command) -> (String, ExitStatus) {
    let null = std::fs::File::create("/dev/null").unwrap();
    let mut child = command.stdout(null).spawn().expect("ngi runs");
    finish(&mut child)
}

#[test]
fn a_large_entry_is_the_same_into_a_pipe_a_file_and_a_device() {
    let dir = Scratch::new("cat-same");
    let data = contents();
    let archive = library(&dir, &data, 0);
    let (piped, err, status) = through_a_pipe(cat(&archive));
    assert!(status.success(), "{err}");
    assert!(piped == data, "{} bytes through the pipe", piped.len());
    let (filed, err, status) = into_a_file(cat(&archive), dir.join("out"));
    assert!(status.success(), "{err}");
    assert!(filed == data, "{} bytes into the file", filed.len());
    let (err, status) = into_null(cat(&archive));
    assert!(status.success(), "{err}");
}

/// The decoder reports a fault instead of the bytes of the read that met it, so what is
/// written is the entry up to the last whole read before the fault: a prefix, at most one
/// chunk (512 KiB) short, and the same wherever it goes.
#[test]
fn an_entry_ending_short_is_written_up_to_the_fault_then_reported() {
    let dir = Scratch::new("cat-short");
    let data = contents();
    let archive = library(&dir, &data, 1000);
    let (piped, pipe_err, status) = through_a_pipe(cat(&archive));
    assert_eq!(status.code(), Some(1), "{pipe_err}");
    assert!(data.starts_with(&piped), "not a prefix of the entry");
    assert!(
        piped.len() >= data.len() - (512 << 10),
        "{} bytes",
        piped.len()
    );
    let (filed, file_err, status) = into_a_file(cat(&archive), dir.join("out"));
    assert_eq!(status.code(), Some(1), "{file_err}");
    assert!(filed == piped, "{} bytes into the file", filed.len());
    // One line, naming the archive, the entry and the fault, whichever way it was written.
    assert_eq!(pipe_err.lines().count(), 1, "{pipe_err}");
    for part in ["big.rsli", "entry 0", "ends before the declared size"] {
        assert!(pipe_err.contains(part), "{part}: {pipe_err}");
    }
    assert!(!pipe_err.contains("panicked"), "{pipe_err}");
    assert_eq!(pipe_err, file_err);
    let (null_err, status) = into_null(cat(&archive));
    assert_eq!(status.code(), Some(1));
    assert_eq!(null_err, pipe_err);
}

/// Also when the entry would fail later (it ends short): the write fails first.
#[test]
fn a_pipe_closed_by_its_reader_is_exit_1_not_a_hang() {
    let dir = Scratch::new("cat-closed");
    let data = contents();
    for extra in [0, 1000] {
        let archive = library(&dir, &data, extra);
        let mut child = cat(&archive).stdout(Stdio::piped()).spawn().unwrap();
        let mut out = child.stdout.take().unwrap();
        let mut first = [0u8; 1000];
        out.read_exact(&mut first).unwrap();
        assert!(first[..] == data[..1000], "the entry's first bytes");
        drop(out);
        let (err, status) = finish(&mut child);
        assert_eq!(status.code(), Some(1), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        // The writer's own error, not the stand-in the decoder got when it stopped.
        assert!(err.contains("cannot write output: Broken pipe"), "{err}");
        assert!(!err.contains("the writer stopped"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
