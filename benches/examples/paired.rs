//! Paired timings: medians of per-round ratios, for comparisons a shared machine's noise
//! would drown in two separate criterion runs.
//!
//! Each round times every contender once, back to back (each the best of a few calls), so
//! a slow patch of the machine hits all of them alike; a ratio is taken per round and the
//! median over the rounds is printed with its quartiles. The jobs:
//!
//! ```sh
//! cargo build --release -p ngi-benches --example paired
//! # ngi's decoders against each other and the peers (Deflate: one-shot, streaming with
//! # 64 KiB in / 32 KiB out per call, the first round's one-shot, zlib-rs one-shot and
//! # streaming in the same chunks, libdeflate;
//! # LZHUF one-shot against miniz_oxide and the first round's):
//! target/release/examples/paired codecs [ROUNDS]
//! # the LZHUF rows alone:
//! target/release/examples/paired lzhuf [ROUNDS]
//! # `ngi extract` and `ngi verify` with -j 1 against -j 2 (the ngi binary given), over an
//! # archive of 200 Deflate entries of 256 KiB built in a temporary folder:
//! cargo build --release -p ngi-cli
//! target/release/examples/paired jobs target/release/ngi [ROUNDS]
//! # `ngi cat` of a 64 MiB Deflate entry into a pipe and into /dev/null, against the codec
//! # alone (the same packed bytes, in memory, through `InflateDecoder` with `ngi cat`'s
//! # 512 KiB of output room per call) and against the library reading the entry from the
//! # file:
//! target/release/examples/paired cat target/release/ngi [ROUNDS]
//! # the same, and each row also for another build of ngi (a gain as a ratio from one run):
//! target/release/examples/paired cat target/release/ngi ROUNDS /tmp/ngi-before
//! # the same with a 16 MiB LZHUF entry (the codec alone: `LzhufDecoder`; in place alone:
//! # `lzhuf::InPlaceDecoder`):
//! target/release/examples/paired cat-lzhuf target/release/ngi ROUNDS /tmp/ngi-before
//! ```
//!
//! A ratio above 1 means the first-named contender is faster. `PAIRED_TIMES=1` also prints
//! each contender's median time; `PAIRED_BEST_OF=N` changes the calls per round (10);
//! `PAIRED_KEEP=1` keeps the archive `cat` builds.
//! Fewer calls per round favour the decoders that warm up quickest: read ratios of one
//! setting only.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use std::time::{Duration, Instant};

use ngi_core::Method;
use ngi_core::codec::inflate::{self, InflateDecoder};
use ngi_core::codec::lzhuf;
use ngi_tests::corpus;

/// Calls per contender per round; the fastest is kept (the others absorb a cold cache or a
/// preempted slice).
const BEST_OF: usize = 10;
fn best_of() -> usize {
    std::env::var("PAIRED_BEST_OF")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(BEST_OF)
}

/// The quartiles and median of `v` (sorted in place).
fn quartiles(v: &mut [f64]) -> (f64, f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.25), at(0.5), at(0.75))
}

/// The best of [`BEST_OF`] timings of `f`.
fn best(mut f: impl FnMut()) -> Duration {
    (0..best_of())
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// One row of contenders: a name and a closure each, all producing the same bytes.
type Contender<'a> = (&'static str, Box<dyn FnMut() + 'a>);

/// A Deflate decoder: packed stream in, the exact-size output filled.
type Inflate = fn(&[u8], &mut [u8]);

thread_local! {
    /// The buffer of the in-place streaming contender: a window and 32 KiB of room.
    static IN_PLACE: std::cell::RefCell<Vec<u8>> =
        std::cell::RefCell::new(vec![0; inflate::WINDOW_SIZE + (32 << 10)]);
    /// Set while each contender's output is checked: the in-place one then copies its
    /// bytes out, which it does not when timed.
    static COPY_OUT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Times `contenders` for `rounds` rounds and prints, per `(a, b)` of `pairs`, the median of
/// time(b) / time(a) per round with its quartiles: the speed of `a` relative to `b`.
fn paired(row: &str, rounds: usize, contenders: &mut [Contender<'_>], pairs: &[(&str, &str)]) {
    let mut times = vec![Vec::with_capacity(rounds); contenders.len()];
    for _ in 0..rounds {
        for (i, (_, f)) in contenders.iter_mut().enumerate() {
            times[i].push(best(&mut **f).as_secs_f64());
        }
    }
    let index = |name: &str| {
        contenders
            .iter()
            .position(|(n, _)| *n == name)
            .unwrap_or_else(|| panic!("no contender {name}"))
    };
    if std::env::var_os("PAIRED_TIMES").is_some() {
        for (i, (n, _)) in contenders.iter().enumerate() {
            let (_, m, _) = quartiles(&mut times[i].clone());
            println!("{row:<16} {n:>18}: {:.1} µs", m * 1e6);
        }
    }
    for &(a, b) in pairs {
        let (ia, ib) = (index(a), index(b));
        let mut r: Vec<f64> = (0..rounds).map(|k| times[ib][k] / times[ia][k]).collect();
        let (q1, m, q3) = quartiles(&mut r);
        println!("{row:<16} {a:>18} / {b:<18} {m:6.3}  [{q1:.3} .. {q3:.3}]");
    }
}

/// The inputs every codec row starts with: 300 KiB of licence texts, 400 KiB of /bin/bash.
fn text_and_binary() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("text", corpus::text(300 * 1024)[..300 * 1024].to_vec()),
        ("binary", corpus::binary(400 * 1024)),
    ]
}

fn codecs(rounds: usize) {
    let mut inputs = text_and_binary();
    inputs.extend([
        ("perl", ngi_benches::perl_modules(300 * 1024)),
        ("gz", corpus::gzipped(256 * 1024)),
    ]);
    println!(
        "{:<16} {:>18} / {:<18} median [quartiles], {rounds} rounds",
        "row", "a", "b"
    );
    for (name, data) in &inputs {
        for level in [1u8, 6, 9] {
            let packed = miniz_oxide::deflate::compress_to_vec(data, level);
            let mut out = vec![0u8; data.len()];
            let check = |out: &mut Vec<u8>, who: &str| {
                assert!(out == data, "{name}/{level}: {who} decoded other bytes");
                out.fill(0);
            };
            // Each contender is run once and checked before it is timed.
            let runs: [(&'static str, Inflate); 7] = [
                ("ngi", |p, o| {
                    inflate::decode_into(p, o).expect("valid");
                }),
                ("ngi-stream", |p, o| {
                    let n = o.len() as u64;
                    ngi_benches::stream(&mut InflateDecoder::new(n), p, o, 64 << 10, 32 << 10);
                }),
                // The window in the caller's buffer: a window and 32 KiB of room, each
                // call's bytes read where they are (copied out only to be checked).
                ("ngi-in-place", |p, o| {
                    IN_PLACE.with_borrow_mut(|buf| {
                        let (i, r) = (64 << 10, 32 << 10);
                        if COPY_OUT.get() {
                            ngi_benches::stream_in_place_into(p, o, buf, i, r);
                        } else {
                            let d = inflate::InPlaceDecoder::new(o.len() as u64);
                            ngi_benches::stream_in_place(d, p, buf, i, r, |b| {
                                black_box(b);
                            });
                        }
                    });
                }),
                ("ngi-round1", |p, o| {
                    ngi_round1::codec::inflate::decode_into(p, o).expect("valid");
                }),
                ("zlib-rs", |p, o| {
                    let mut z = flate2::Decompress::new(false);
                    z.decompress(p, o, flate2::FlushDecompress::Finish)
                        .expect("valid");
                }),
                // The peer's own streaming, in the same chunks as ngi's: what a window
                // refreshed per call costs a decoder built like zlib.
                ("zlib-rs-stream", |p, o| {
                    let mut z = flate2::Decompress::new(false);
                    let (mut pos, mut produced) = (0, 0);
                    loop {
                        let end = (pos + (64 << 10)).min(p.len());
                        let room_end = (produced + (32 << 10)).min(o.len());
                        let (in_before, out_before) = (z.total_in(), z.total_out());
                        let status = z
                            .decompress(
                                &p[pos..end],
                                &mut o[produced..room_end],
                                flate2::FlushDecompress::None,
                            )
                            .expect("valid");
                        pos += (z.total_in() - in_before) as usize;
                        produced += (z.total_out() - out_before) as usize;
                        if status == flate2::Status::StreamEnd {
                            break;
                        }
                    }
                }),
                ("libdeflate", |p, o| {
                    libdeflater::Decompressor::new()
                        .deflate_decompress(p, o)
                        .expect("valid");
                }),
            ];
            COPY_OUT.set(true);
            for (who, f) in runs {
                f(&packed, &mut out);
                check(&mut out, who);
            }
            COPY_OUT.set(false);
            let out = std::cell::RefCell::new(out);
            let mut contenders: Vec<Contender<'_>> = runs
                .iter()
                .map(|&(who, f)| {
                    let (packed, out) = (&packed, &out);
                    let c: Box<dyn FnMut()> =
                        Box::new(move || f(black_box(packed), &mut out.borrow_mut()));
                    (who, c)
                })
                .collect();
            paired(
                &format!("inflate/{name}/{level}"),
                rounds,
                &mut contenders,
                &[
                    ("ngi", "zlib-rs"),
                    ("ngi", "libdeflate"),
                    ("ngi", "ngi-round1"),
                    ("ngi-stream", "ngi"),
                    ("zlib-rs-stream", "zlib-rs"),
                    ("ngi-stream", "zlib-rs-stream"),
                    ("ngi-in-place", "ngi"),
                    ("ngi-in-place", "ngi-stream"),
                ],
            );
        }
    }
    lzhuf_rows(rounds, &inputs[..2]);
}

/// LZHUF one-shot against the first round's and against miniz_oxide on the same data
/// (level 6), for each of `inputs`; and the two streaming forms against one-shot, with
/// 64 KiB of input and 32 KiB of room per call (in place: a window and 32 KiB of buffer,
/// each call's bytes copied out to be checked, as the window-keeping form writes them).
fn lzhuf_rows(rounds: usize, inputs: &[(&str, Vec<u8>)]) {
    let buffer = std::cell::RefCell::new(vec![0u8; lzhuf::RING_SIZE + (32 << 10)]);
    for (name, data) in inputs {
        let packed = lzhuf::encode(data);
        let deflated = miniz_oxide::deflate::compress_to_vec(data, 6);
        let out = std::cell::RefCell::new(vec![0u8; data.len()]);
        let (o, buf) = (&out, &buffer);
        let (p, d) = (&packed, &deflated);
        let mut contenders: Vec<Contender<'_>> = vec![
            (
                "lzhuf",
                Box::new(move || {
                    lzhuf::decode_into(black_box(p), None, &mut o.borrow_mut()).expect("valid");
                }),
            ),
            (
                "lzhuf-round1",
                Box::new(move || {
                    ngi_round1::codec::lzhuf::decode_into(black_box(p), None, &mut o.borrow_mut())
                        .expect("valid");
                }),
            ),
            (
                "lzhuf-stream",
                Box::new(move || {
                    let mut o = o.borrow_mut();
                    let mut d = lzhuf::LzhufDecoder::new(o.len() as u64, None);
                    ngi_benches::stream(&mut d, black_box(p), &mut o, 64 << 10, 32 << 10);
                }),
            ),
            (
                "lzhuf-in-place",
                Box::new(move || {
                    let mut o = o.borrow_mut();
                    let d = lzhuf::InPlaceDecoder::new(o.len() as u64, None);
                    let mut at = 0;
                    let (mut buf, chunk) = (buf.borrow_mut(), 32 << 10);
                    ngi_benches::stream_in_place(d, black_box(p), &mut buf, 64 << 10, chunk, |b| {
                        o[at..at + b.len()].copy_from_slice(b);
                        at += b.len();
                    });
                }),
            ),
            (
                "miniz_oxide",
                Box::new(move || {
                    let mut s = Box::new(miniz_oxide::inflate::core::DecompressorOxide::new());
                    let flags =
                        miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
                    miniz_oxide::inflate::core::decompress(
                        &mut s,
                        black_box(d),
                        &mut o.borrow_mut(),
                        0,
                        flags,
                    );
                }),
            ),
        ];
        for (who, f) in contenders.iter_mut() {
            f();
            assert!(
                *out.borrow() == *data,
                "lzhuf/{name}: {who} decoded other bytes"
            );
            out.borrow_mut().fill(0);
        }
        paired(
            &format!("lzhuf/{name}"),
            rounds,
            &mut contenders,
            &[
                ("lzhuf", "miniz_oxide"),
                ("lzhuf", "lzhuf-round1"),
                ("lzhuf-stream", "lzhuf"),
                ("lzhuf-in-place", "lzhuf"),
                ("lzhuf-in-place", "lzhuf-stream"),
            ],
        );
    }
}

/// Builds, in `dir`, `jobs.rsli`: 200 Deflate entries of 256 KiB (slices of the licence
/// texts and /bin/bash at different offsets, so no two entries are alike).
fn jobs_archive(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).expect("temporary folder");
    let text = corpus::text(1 << 20);
    let binary = corpus::binary(1 << 20);
    let mut b = ngi_core::rsli::Builder::new();
    for i in 0..200usize {
        let from = if i % 2 == 0 { &text } else { &binary };
        let at = (i * 7919) % (from.len() - (256 << 10));
        let name = format!("E{i:03}");
        b.add(
            name.as_bytes(),
            ngi_core::Method::Deflate,
            &from[at..at + (256 << 10)],
        )
        .expect("valid entry");
    }
    let archive = dir.join("jobs.rsli");
    std::fs::write(&archive, b.build().expect("library builds")).expect("archive written");
    archive
}

/// `extract` and `verify` of 200 Deflate entries with `-j 2` against `-j 1`, and, given
/// a `base` binary, each of `ngi`'s against the same run of the base's.
fn jobs(ngi: &Path, rounds: usize, base: Option<&Path>) {
    let dir = std::env::temp_dir().join(format!("ngi-paired-{}", std::process::id()));
    let archive = jobs_archive(&dir);
    let out = dir.join("out");
    let run_with = |binary: &Path, args: &[&str]| {
        let status = Command::new(binary)
            .args(args)
            .stdout(Stdio::null())
            .status()
            .expect("ngi runs");
        assert!(status.success(), "{} {args:?} failed", binary.display());
    };
    let run = |args: &[&str]| run_with(ngi, args);
    let a = archive.to_str().expect("UTF-8 temporary path");
    let o = out.to_str().expect("UTF-8 temporary path");
    println!(
        "{:<16} {:>18} / {:<18} median [quartiles], {rounds} rounds",
        "row", "a", "b"
    );
    let mut contenders: Vec<Contender<'_>> = vec![
        (
            "extract -j 2",
            Box::new(|| run(&["extract", "-j", "2", "--force", "-o", o, a])),
        ),
        (
            "extract -j 1",
            Box::new(|| run(&["extract", "-j", "1", "--force", "-o", o, a])),
        ),
        ("verify -j 2", Box::new(|| run(&["verify", "-j", "2", a]))),
        ("verify -j 1", Box::new(|| run(&["verify", "-j", "1", a]))),
    ];
    let mut pairs = vec![
        ("extract -j 2", "extract -j 1"),
        ("verify -j 2", "verify -j 1"),
    ];
    if let Some(base) = base {
        contenders.push((
            "base extract -j 1",
            Box::new(move || run_with(base, &["extract", "-j", "1", "--force", "-o", o, a])),
        ));
        contenders.push((
            "base verify -j 1",
            Box::new(move || run_with(base, &["verify", "-j", "1", a])),
        ));
        pairs.extend([
            ("extract -j 1", "base extract -j 1"),
            ("verify -j 1", "base verify -j 1"),
        ]);
    }
    paired("200 x 256 KiB", rounds, &mut contenders, &pairs);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `ngi cat` of one large entry into a pipe this process drains, and into `/dev/null`,
/// beside the codec alone and the library's file reader: what the command spends beyond
/// decoding.
fn cat(ngi: &Path, rounds: usize, base: Option<&Path>, method: Method) {
    use ngi_core::codec::{Decoder, InPlace, InPlaceUnpacker, Status, Unpacker};
    use std::io::Read;
    // The chunk `ngi cat` decodes into, so that "codec alone" is the codec's own time in
    // the command; also what this process reads from the pipe at a time.
    const CHUNK: usize = 512 << 10;
    let dir = std::env::temp_dir().join(format!("ngi-paired-cat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    // 64 MiB (16 for LZHUF, 4 times slower): 1 MiB slices of the licence texts and
    // /bin/bash, alternating.
    let mib = if method == Method::Deflate { 64 } else { 16 };
    let text = corpus::text(8 << 20);
    let binary = corpus::binary(8 << 20);
    let mut data = Vec::with_capacity(mib << 20);
    for i in 0..mib {
        let from = if i % 2 == 0 { &text } else { &binary };
        let at = (i * 104_729) % (from.len() - (1 << 20));
        data.extend_from_slice(&from[at..at + (1 << 20)]);
    }
    let mut b = ngi_core::rsli::Builder::new();
    b.add(b"BIG", method, &data).expect("valid entry");
    let bytes = b.build().expect("library builds");
    let archive = dir.join("big.rsli");
    std::fs::write(&archive, &bytes).expect("archive written");
    let catalog = ngi_core::archive::Catalog::open(&bytes, Default::default()).expect("opens");
    let range = catalog.packed_range(0).expect("entry 0");
    let packed = bytes[range.start as usize..range.end as usize].to_vec();
    drop(bytes);
    let file = std::fs::File::open(&archive).expect("archive opens");
    let a = archive.to_str().expect("UTF-8 temporary path").to_string();
    let n = data.len() as u64;
    let mut sink = vec![0u8; CHUNK];
    let sink = std::cell::RefCell::new(&mut sink);
    let in_place_decoder = || InPlaceUnpacker::new(method, n, 0).expect("decodes in place");
    // A window before `ngi cat`'s chunk: what the command decodes into.
    let in_place = std::cell::RefCell::new(vec![0u8; in_place_decoder().window() + CHUNK]);
    let mut contenders: Vec<Contender<'_>> = vec![
        ("ngi cat | pipe", cat_into_pipe(ngi, &a, n, &sink)),
        ("ngi cat > null", cat_into_null(ngi, &a)),
        (
            "codec alone",
            Box::new(|| {
                let mut d = Unpacker::new(method, n, 0);
                let mut buf = sink.borrow_mut();
                let (mut pos, mut total) = (0, 0u64);
                loop {
                    let end = (pos + CHUNK).min(packed.len());
                    let p = d
                        .decode(&packed[pos..end], &mut buf[..], end == packed.len())
                        .expect("valid stream");
                    pos += p.consumed;
                    total += p.produced as u64;
                    if p.status == Status::Done {
                        break;
                    }
                }
                assert_eq!(total, n);
            }),
        ),
        (
            "in place alone",
            Box::new(|| {
                let mut buf = in_place.borrow_mut();
                let d = in_place_decoder();
                let total =
                    ngi_benches::stream_in_place(d, &packed, &mut buf, CHUNK, CHUNK, |_| {});
                assert_eq!(total as u64, n);
            }),
        ),
        (
            "library, file",
            Box::new(|| {
                let mut r = catalog.reader(0, &file).expect("entry 0");
                let mut buf = sink.borrow_mut();
                let mut total = 0u64;
                loop {
                    match r.read(&mut buf[..]) {
                        Ok(0) => break,
                        Ok(k) => total += k as u64,
                        Err(e) => panic!("reading the entry: {e}"),
                    }
                }
                assert_eq!(total, n);
            }),
        ),
    ];
    let mut pairs = vec![
        ("codec alone", "ngi cat | pipe"),
        ("codec alone", "ngi cat > null"),
        ("codec alone", "library, file"),
        ("in place alone", "ngi cat | pipe"),
        ("in place alone", "ngi cat > null"),
        ("codec alone", "in place alone"),
    ];
    if let Some(base) = base {
        contenders.push(("base cat | pipe", cat_into_pipe(base, &a, n, &sink)));
        contenders.push(("base cat > null", cat_into_null(base, &a)));
        pairs.extend([
            ("codec alone", "base cat | pipe"),
            ("codec alone", "base cat > null"),
            ("ngi cat | pipe", "base cat | pipe"),
            ("ngi cat > null", "base cat > null"),
        ]);
    }
    println!(
        "{:<16} {:>18} / {:<18} median [quartiles], {rounds} rounds",
        "row", "a", "b"
    );
    let row = format!("cat {mib} MiB {}", method.name());
    paired(&row, rounds, &mut contenders, &pairs);
    if std::env::var_os("PAIRED_KEEP").is_some() {
        println!("kept {}", archive.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// `ngi cat` of the entry `BIG` of `archive` into a pipe this process drains in `sink`'s
/// chunks, checking that `n` bytes came.
fn cat_into_pipe<'a>(
    ngi: &'a Path,
    archive: &'a str,
    n: u64,
    sink: &'a std::cell::RefCell<&mut Vec<u8>>,
) -> Box<dyn FnMut() + 'a> {
    use std::io::Read;
    Box::new(move || {
        let mut child = Command::new(ngi)
            .args(["cat", archive, "BIG"])
            .stdout(Stdio::piped())
            .spawn()
            .expect("ngi runs");
        let mut out = child.stdout.take().expect("piped stdout");
        let mut total = 0u64;
        let mut buf = sink.borrow_mut();
        loop {
            match out.read(&mut buf[..]) {
                Ok(0) => break,
                Ok(k) => total += k as u64,
                Err(e) => panic!("reading ngi's output: {e}"),
            }
        }
        assert!(child.wait().expect("ngi ends").success());
        assert_eq!(total, n, "ngi cat wrote another length");
    })
}

/// `ngi cat` of the entry `BIG` of `archive` into `/dev/null`.
fn cat_into_null<'a>(ngi: &'a Path, archive: &'a str) -> Box<dyn FnMut() + 'a> {
    Box::new(move || {
        let null = std::fs::File::create("/dev/null").expect("/dev/null opens");
        let status = Command::new(ngi)
            .args(["cat", archive, "BIG"])
            .stdout(null)
            .status()
            .expect("ngi runs");
        assert!(status.success());
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds = |at: usize, default: usize| {
        args.get(at)
            .map(|r| r.parse().expect("ROUNDS is a number"))
            .unwrap_or(default)
    };
    match args.first().map(String::as_str) {
        Some("codecs") => codecs(rounds(1, 15)),
        Some("lzhuf") => lzhuf_rows(rounds(1, 15), &text_and_binary()),
        Some(mode @ ("cat" | "cat-lzhuf")) => {
            let ngi = args.get(1).unwrap_or_else(|| {
                panic!("usage: paired {mode} NGI_BINARY [ROUNDS [BASE_NGI_BINARY]]")
            });
            let method = match mode {
                "cat" => Method::Deflate,
                _ => Method::Lzhuf,
            };
            cat(
                Path::new(ngi),
                rounds(2, 5),
                args.get(3).map(Path::new),
                method,
            );
        }
        Some("jobs") => {
            let ngi = args
                .get(1)
                .expect("usage: paired jobs NGI_BINARY [ROUNDS [BASE_NGI_BINARY]]");
            jobs(Path::new(ngi), rounds(2, 10), args.get(3).map(Path::new));
        }
        _ => {
            eprintln!(
                "usage: paired codecs [ROUNDS] | paired lzhuf [ROUNDS] | paired jobs NGI_BINARY [ROUNDS [BASE_NGI_BINARY]] | paired cat[-lzhuf] NGI_BINARY [ROUNDS [BASE_NGI_BINARY]]"
            );
            std::process::exit(2);
        }
    }
}
