//! The hostile-input catalogue (`ngi_tests::hostile`) through the library: every case is
//! opened under its limits, its lookup table, problems and lookups compared, and every
//! entry produced the way `ngi cat` produces it (the entry's own faults, then its limits,
//! then decoding through a fixed 64 KiB buffer) and, for RsLi, one-shot through
//! `Library::unpack_to_vec` as well; the two must agree. All entries are then produced
//! in order under one budget, as `ngi extract` does, to find where `--max-total` stops.

use std::io::Read;

use ngi_core::archive::{Catalog, Error as ArchiveError};
use ngi_core::codec::{Decoder, Status};
use ngi_core::error::DecodeError;
use ngi_core::limits::{Budget, LimitError, Limits};
use ngi_core::nres::Archive;
use ngi_core::rsli::{self, Library, OpenOptions, RsliError};
use ngi_tests::hostile::{self, Case, Error, Expect, Format, Produce, Table};

/// The catalogue must hold at least this many distinct cases.
const MIN_CASES: usize = 40;

/// The decode buffer, as the command's.
const CHUNK: usize = 64 * 1024;

enum Opened<'a> {
    Nres(Archive<'a>),
    Rsli(Library<'a, Vec<rsli::Entry>>),
}

fn options(case: &Case) -> OpenOptions {
    OpenOptions::DEFAULT
        .with_limits(case.limits)
        .with_media_trailer(case.media_trailer)
}

fn open(case: &Case) -> Result<Opened<'_>, Error> {
    match case.format {
        Format::Nres => Archive::open_with(&case.bytes, options(case))
            .map(Opened::Nres)
            .map_err(Error::Nres),
        Format::Rsli => {
            let options = options(case);
            let opened = Library::open_with(&case.bytes, options);
            // The allocation-free opening agrees.
            let mut storage = vec![rsli::Entry::default(); 8];
            let borrowed = Library::open_in(&case.bytes, &mut storage, options);
            match (&opened, &borrowed) {
                (Ok(a), Ok(b)) => assert_eq!(a.entries(), b.entries(), "{}", case.name),
                (Err(a), Err(b)) => assert_eq!(a, b, "{}", case.name),
                _ => panic!("{}: open and open_in disagree", case.name),
            }
            opened.map(Opened::Rsli).map_err(Error::Rsli)
        }
    }
}

impl Opened<'_> {
    fn len(&self) -> usize {
        match self {
            Opened::Nres(a) => a.len(),
            Opened::Rsli(l) => l.len(),
        }
    }

    fn table(&self) -> Table {
        match self {
            Opened::Nres(a) => Table::Nres(a.lookup_table()),
            Opened::Rsli(l) => Table::Rsli(l.lookup_table()),
        }
    }

    fn problems(&self) -> Vec<Error> {
        match self {
            Opened::Nres(a) => a.problems().map(Error::Nres).collect(),
            Opened::Rsli(l) => l.problems().map(Error::Rsli).collect(),
        }
    }

    fn find(&self, query: &[u8]) -> Option<usize> {
        match self {
            Opened::Nres(a) => a.find(query),
            Opened::Rsli(l) => l.find(query),
        }
    }

    /// Entry `index` as `ngi cat` produces it, its decoded size taken from `budget`.
    fn produce(&self, index: usize, budget: &mut Budget) -> Produce {
        match self.try_produce(index, budget) {
            Ok(bytes) => Produce::Bytes(bytes),
            Err(e) => Produce::Fails(e),
        }
    }

    fn try_produce(&self, index: usize, budget: &mut Budget) -> Result<Vec<u8>, Error> {
        let limits = *budget.limits();
        let id = index as u32;
        match self {
            Opened::Nres(a) => {
                let payload = a.payload(index).map_err(Error::Nres)?;
                a.check_limits(index, &limits).map_err(Error::Nres)?;
                budget
                    .take(id, payload.len() as u64)
                    .map_err(Error::Limit)?;
                Ok(payload.to_vec())
            }
            Opened::Rsli(l) => {
                let packed = l.packed(index).map_err(Error::Rsli)?;
                let mut decoder = l.unpacker(index).map_err(Error::Rsli)?;
                l.check_limits(index, &limits).map_err(Error::Rsli)?;
                let size = l.entry(index).map_or(0, |e| e.unpacked_size);
                budget.take(id, size.into()).map_err(Error::Limit)?;
                let mut buffer = vec![0u8; CHUNK];
                let (mut used, mut out) = (0usize, Vec::new());
                loop {
                    let p =
                        decoder
                            .decode(&packed[used..], &mut buffer, true)
                            .map_err(|error| {
                                // Where the stream ran out, or the codec's own offset in it.
                                let within = match error {
                                    DecodeError::Inflate { offset, .. } => offset,
                                    _ => packed.len() as u64,
                                };
                                let offset = l.effective_offset(index).unwrap_or(0) + within;
                                Error::Rsli(RsliError::Decode {
                                    entry: id,
                                    offset,
                                    error,
                                })
                            })?;
                    used += p.consumed;
                    out.extend_from_slice(&buffer[..p.produced]);
                    assert!(
                        out.len() as u64 <= u64::from(size),
                        "decoded past unpacked_size"
                    );
                    match p.status {
                        Status::Done => return Ok(out),
                        Status::OutputFull => {}
                        Status::NeedInput => panic!("a decoder asked for input past the end"),
                    }
                }
            }
        }
    }
}

/// Everything wrong with one case, empty when it behaves exactly as catalogued.
fn check(case: &Case) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut expect = |what: &str, got: String, want: String| {
        if got != want {
            wrong.push(format!("{}: {what}: got {got}, want {want}", case.name));
        }
    };
    let opened = open(case);
    let want = match (&case.expect, opened) {
        (Expect::Open(want), Err(got)) => {
            expect("open", format!("{got:?}"), format!("{want:?}"));
            return wrong;
        }
        (Expect::Open(want), Ok(_)) => {
            expect("open", "Ok".into(), format!("{want:?}"));
            return wrong;
        }
        (Expect::Opens(_), Err(got)) => {
            expect("open", format!("{got:?}"), "Ok".into());
            return wrong;
        }
        (Expect::Opens(want), Ok(opened)) => (want, opened),
    };
    let (want, opened) = want;
    expect(
        "lookup table",
        format!("{:?}", opened.table()),
        format!("{:?}", want.table),
    );
    expect(
        "problems",
        format!("{:?}", opened.problems()),
        format!("{:?}", want.problems),
    );
    for (query, index) in &want.lookups {
        expect(
            &format!("find({})", String::from_utf8_lossy(query)),
            format!("{:?}", opened.find(query)),
            format!("{index:?}"),
        );
    }
    expect(
        "entry count",
        opened.len().to_string(),
        want.entries.len().to_string(),
    );
    let catalog = Catalog::open(&case.bytes, options(case)).expect("opens as the slice path");
    for (index, entry) in want.entries.iter().enumerate() {
        let got = opened.produce(index, &mut Budget::new(case.limits));
        expect(&format!("entry {index}"), show(&got), show(entry));
        // Through the catalog and a reader of the file's bytes, as ngi and ngi-tokio read.
        let read = through_reader(&catalog, &case.bytes, index, &mut Budget::new(case.limits));
        expect(&format!("entry {index} read"), show(&read), show(entry));
        // And the catalog's one-shot decode into a buffer, where it is meant to be used.
        if let Some(one_shot) = catalog_one_shot(&catalog, &case.bytes, index, &case.limits) {
            expect(
                &format!("entry {index} catalog one-shot"),
                show(&one_shot),
                show(entry),
            );
        }
        // One-shot, where it is meant to be used: what passes the limits, up to 1 MiB.
        if let Opened::Rsli(l) = &opened {
            let small = l.entry(index).is_some_and(|e| e.unpacked_size <= 1 << 20);
            let limited = matches!(
                got,
                Produce::Fails(Error::Limit(_) | Error::Rsli(RsliError::Limit { .. }))
            );
            if small || limited {
                let one_shot = match l.unpack_to_vec(index, &case.limits) {
                    Ok(bytes) => Produce::Bytes(bytes),
                    Err(e) => Produce::Fails(Error::Rsli(e)),
                };
                if !matches!(got, Produce::Fails(Error::Limit(_))) {
                    expect(
                        &format!("entry {index} one-shot"),
                        show(&one_shot),
                        show(&got),
                    );
                }
            }
        }
    }
    // One budget over the run, as extract and verify use it.
    let mut budget = Budget::new(case.limits);
    let mut stop = None;
    for index in 0..opened.len() {
        let got = opened.produce(index, &mut budget);
        if let Produce::Fails(Error::Limit(e @ LimitError::TotalTooLarge { .. })) = got {
            stop = Some((index, e));
            break;
        }
        expect(
            &format!("entry {index} in the run"),
            show(&got),
            want.entries.get(index).map_or("none".into(), show),
        );
    }
    expect(
        "stop in the run",
        format!("{stop:?}"),
        format!("{:?}", want.stop),
    );
    wrong
}

/// Entry `index` through `Catalog::unpack_into`, when it passes the limits and decodes
/// to at most 1 MiB: the buffer sized from the entry, as a caller does after the check.
/// An error the catalogue has no words for (an `OutputSize`, a stalled decoder) fails the
/// test: skipped, as it was, a wrong error passed.
fn catalog_one_shot(
    catalog: &Catalog<Vec<ngi_core::archive::Entry>>,
    file: &[u8],
    index: usize,
    limits: &Limits,
) -> Option<Produce> {
    catalog.check_limits(index, limits).ok()?;
    let size = catalog.get(index).ok()?.size;
    if size > 1 << 20 {
        return None;
    }
    let mut out = vec![0; size as usize];
    Some(match catalog.unpack_into(index, file, &mut out) {
        Ok(()) => Produce::Bytes(out),
        Err(e) => Produce::Fails(
            Error::of_catalog(e)
                .unwrap_or_else(|| panic!("entry {index}: not an error of a format: {e:?}")),
        ),
    })
}

/// Entry `index` produced as `ngi cat` now produces it: the catalog's checks, its limits,
/// then `Catalog::reader` over the file's bytes (a positional source), read to the end.
fn through_reader(
    catalog: &Catalog<Vec<ngi_core::archive::Entry>>,
    file: &[u8],
    index: usize,
    budget: &mut Budget,
) -> Produce {
    let archive_error = |e: ArchiveError| {
        Error::of_catalog(e).unwrap_or_else(|| panic!("not an error of a format: {e:?}"))
    };
    let mut run = || -> Result<Vec<u8>, Error> {
        let mut reader = catalog.reader(index, file).map_err(archive_error)?;
        catalog
            .check_limits(index, budget.limits())
            .map_err(archive_error)?;
        let size = catalog.entry(index).map_or(0, |e| e.size);
        budget.take(index as u32, size).map_err(Error::Limit)?;
        let mut out = Vec::new();
        match reader.read_to_end(&mut out) {
            Ok(_) => Ok(out),
            Err(e) => Err(Error::of_read(&e).unwrap_or_else(|| panic!("entry {index}: {e:?}"))),
        }
    };
    match run() {
        Ok(bytes) => Produce::Bytes(bytes),
        Err(e) => Produce::Fails(e),
    }
}

/// Bytes in short: their length and a checksum, or the first 16 in full.
fn show(p: &Produce) -> String {
    match p {
        Produce::Bytes(b) if b.len() <= 16 => format!("Bytes({b:?})"),
        Produce::Bytes(b) => {
            let sum = b.iter().fold(0u64, |h, &x| {
                (h ^ u64::from(x)).wrapping_mul(0x100_0000_01B3)
            });
            format!("Bytes({} bytes, fnv {sum:#x})", b.len())
        }
        Produce::Fails(e) => format!("Fails({e:?})"),
    }
}

#[test]
fn every_case_gives_its_catalogued_outcome() {
    let cases = hostile::catalogue();
    let mut names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    let accepted = cases.iter().filter(|c| c.accepted()).count();
    let nres = cases.iter().filter(|c| c.format == Format::Nres).count();
    println!(
        "hostile catalogue: {} cases ({nres} NRes, {} RsLi), {accepted} legitimately accepted",
        cases.len(),
        cases.len() - nres
    );
    for case in cases.iter().filter(|c| c.accepted()) {
        println!("  accepted by the engine's rules: {}", case.name);
    }
    assert!(
        cases.len() >= MIN_CASES,
        "{} cases, fewer than {MIN_CASES}",
        cases.len()
    );
    let wrong: Vec<String> = cases.iter().flat_map(check).collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn the_catalogue_spans_both_formats_and_every_method() {
    let cases = hostile::catalogue();
    let mut methods = std::collections::BTreeSet::new();
    for case in cases.iter().filter(|c| c.format == Format::Rsli) {
        if let Ok(l) = Library::open_with(&case.bytes, OpenOptions::default()) {
            for e in l.entries() {
                methods.insert(e.flags & 0x1E0);
            }
        }
    }
    for method in ngi_core::Method::ALL {
        assert!(
            methods.contains(&method.bits()),
            "no case of method {method}"
        );
    }
    assert!(cases.iter().any(|c| c.format == Format::Nres));
    // Limits are exercised in both directions: refused by default, refused by a flag.
    assert!(cases.iter().any(|c| c.limits == Limits::NONE));
    assert!(
        cases
            .iter()
            .any(|c| c.limits != Limits::DEFAULT && c.limits != Limits::NONE)
    );
}
