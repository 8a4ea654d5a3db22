//! The stack an embedded reader needs: for each packing method, the smallest thread stack
//! on which one entry is read whole through `Catalog::seek_reader` (a reader built and
//! returned by value), and through `Catalog::reuse_seek_reader` (one reader, built
//! beforehand off that stack, pointed at the entry after an entry of every other method).
//!
//! ```sh
//! cargo run --release -p ngi-benches --example stack
//! ```
//!
//! A stack too small ends the process that tries it, so each try is a child process (this
//! program again, with `try WAY METHOD BYTES`); the smallest stack that works is found by
//! bisection, to 256 bytes. Figures are for this target and this build: a compiler's
//! choices (inlining, the copies it leaves) move them, so they are measured, not derived.

use std::process::Command;

use embedded_io::Read;
use ngi_core::Method;
use ngi_core::archive::{Catalog, Entry, Slots};
use ngi_core::io::embedded::{SeekEntryReader, SliceSource, open_seekable};

/// The library every try reads: one entry of each method, of 40 KB of text.
fn library() -> Vec<u8> {
    let text = ngi_tests::corpus::text(40_000);
    let mut builder = ngi_core::rsli::Builder::new();
    for method in Method::ALL {
        builder
            .add(
                format!("{method:?}").to_uppercase().as_bytes(),
                method,
                &text,
            )
            .expect("a valid entry");
    }
    builder.build().expect("a valid library")
}

fn drain(reader: &mut impl Read) {
    let mut buf = [0u8; 64];
    while reader.read(&mut buf).expect("decodes") != 0 {}
}

/// One try, on a thread of `bytes` of stack: exits 0 if it read the entry whole.
fn attempt(way: &str, index: usize, bytes: usize) {
    let file: &'static [u8] = Box::leak(library().into_boxed_slice());
    let storage: &'static mut [Entry] = Box::leak(vec![Entry::EMPTY; 8].into_boxed_slice());
    let catalog: &'static Catalog<_> = Box::leak(Box::new(
        open_seekable(
            &mut SliceSource::new(file),
            Slots::new(storage),
            Default::default(),
        )
        .expect("the library opens"),
    ));
    // Built here, on the main thread's stack, then moved to the heap: not the tried one.
    let mut reused = Box::new(SeekEntryReader::idle(SliceSource::new(file)));
    let way = way.to_string();
    let thread = std::thread::Builder::new()
        .stack_size(bytes)
        .spawn(move || match way.as_str() {
            "reuse" => read_reused(catalog, &mut reused, index),
            "new" => read_new(catalog, file, index),
            _ => {}
        });
    let ok = thread.expect("a thread").join().is_ok();
    std::process::exit(if ok { 0 } else { 1 });
}

#[inline(never)]
fn read_new<S: ngi_core::archive::EntryStore>(catalog: &Catalog<S>, file: &[u8], index: usize) {
    let mut source = SliceSource::new(file);
    let mut reader = catalog
        .seek_reader(index, &mut source)
        .expect("in the file");
    drain(&mut reader);
}

#[inline(never)]
fn read_reused<S: ngi_core::archive::EntryStore>(
    catalog: &Catalog<S>,
    reader: &mut SeekEntryReader<SliceSource<'static>>,
    index: usize,
) {
    // Every other method first, so that the reset to this one changes the decoder.
    for other in (0..catalog.len()).filter(|&i| i != index) {
        catalog
            .reuse_seek_reader(other, reader)
            .expect("in the file");
        catalog
            .reuse_seek_reader(index, reader)
            .expect("in the file");
        drain(reader);
    }
}

/// Whether `way` reads entry `index` on a stack of `bytes`.
fn fits(way: &str, index: usize, bytes: usize) -> bool {
    let me = std::env::current_exe().expect("this program");
    Command::new(me)
        .args(["try", way, &index.to_string(), &bytes.to_string()])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn smallest(way: &str, index: usize) -> usize {
    let (mut lo, mut hi) = (4096, 8 << 20);
    assert!(fits(way, index, hi), "{way} {index} does not fit in 8 MiB");
    while hi - lo > 256 {
        let mid = (lo + hi) / 2;
        if fits(way, index, mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [t, way, index, bytes] = &args[..]
        && t == "try"
    {
        attempt(way, index.parse().unwrap(), bytes.parse().unwrap());
    }
    println!("smallest thread stack that reads the entry whole (to 256 bytes):");
    println!(
        "{:<10} {:>12} {:>20}",
        "method", "seek_reader", "reuse_seek_reader"
    );
    let floor = smallest("nothing", 0);
    for (index, method) in Method::ALL.into_iter().enumerate() {
        println!(
            "{:<10} {:>12} {:>20}",
            format!("{method:?}"),
            smallest("new", index),
            smallest("reuse", index)
        );
    }
    println!(
        "(a thread that reads nothing needs {floor}: the system's smallest thread stack, \
         so a figure equal to it means no more than it)"
    );
}
