//! The hostile-input catalogue: malformed NRes and RsLi archives, each built here byte by
//! byte (small hand layouts, then corrupted), with the exact outcome the library must give.
//!
//! `tests/tests/hostile.rs` runs every case through the library (open, lookups, problems,
//! each entry produced as `ngi cat` produces it, all entries under one budget as `ngi
//! extract` does) and `cli/tests/hostile.rs` through the real `ngi` binary (exit status,
//! one line per problem, no panic). Some inputs are legitimately accepted by the engine's
//! rules (a copy from never-written LZ ring slots yields spaces, a garbage `sort_index`
//! in a library without `0xABBA` is replaced by the computed permutation, ...): for
//! those the case states the exact bytes or lookups that come out, and
//! [`Case::accepted`] says so.

use ngi_core::Method;
use ngi_core::codec::XorStream;
use ngi_core::codec::inflate::InflateError;
use ngi_core::codec::lzhuf;
use ngi_core::error::DecodeError;
use ngi_core::limits::{LimitError, Limits};
use ngi_core::nres::{self, NresError};
use ngi_core::rsli::{self, RsliError};

/// Which parser a case is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// NRes (`Archive::open_with`).
    Nres,
    /// RsLi (`Library::open_with`).
    Rsli,
}

/// An error of the library, of either format or of a run's budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Error {
    /// From the NRes reader.
    Nres(NresError),
    /// From the RsLi reader.
    Rsli(RsliError),
    /// From a [`Budget`](ngi_core::limits::Budget).
    Limit(LimitError),
}

impl Error {
    /// The catalogue's words for the core catalog's error of a format (`None` for the
    /// format-agnostic ones: unknown format, no such entry, ...); a decode error as the
    /// one-shot path reports it (see [`of_read`](Error::of_read)).
    pub fn of_catalog(e: ngi_core::archive::Error) -> Option<Error> {
        match e {
            ngi_core::archive::Error::Nres(e) => Some(Error::Nres(e)),
            ngi_core::archive::Error::Rsli(e) => Some(Error::Rsli(e)),
            ngi_core::archive::Error::Decode(stream) => Error::of_stream(stream),
            _ => None,
        }
    }

    /// The catalogue's words for an entry reader's failure: the core's
    /// `StreamError::Decode` inside the `io::Error`, as the one-shot path reports it
    /// (`RsliError::Decode`, naming the entry and the file offset). `None` for any other
    /// error.
    pub fn of_read(e: &std::io::Error) -> Option<Error> {
        Error::of_stream(*e.get_ref()?.downcast_ref::<ngi_core::io::StreamError>()?)
    }

    fn of_stream(stream: ngi_core::io::StreamError) -> Option<Error> {
        match stream {
            ngi_core::io::StreamError::Decode {
                entry: Some(entry),
                offset,
                error,
            } => Some(Error::Rsli(RsliError::Decode {
                entry,
                offset,
                error,
            })),
            _ => None,
        }
    }
}

/// What producing one entry (alone, under the case's limits) gives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Produce {
    /// Exactly these decoded bytes.
    Bytes(Vec<u8>),
    /// This error.
    Fails(Error),
}

/// How lookups use the table, as classified at open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// NRes.
    Nres(nres::LookupTable),
    /// RsLi.
    Rsli(rsli::LookupTable),
}

impl Table {
    /// Whether `ngi verify` counts the table as a problem (a table lookups cannot search:
    /// unsorted, or a `sort_index` out of range).
    pub fn is_problem(&self) -> bool {
        matches!(
            self,
            Table::Nres(nres::LookupTable::Unsorted { .. } | nres::LookupTable::OutOfRange { .. })
                | Table::Rsli(rsli::LookupTable::PresortedOutOfRange { .. })
        )
    }
}

/// What a case that opens must give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opens {
    /// The lookup table's classification.
    pub table: Table,
    /// Everything `problems()` reports, in order.
    pub problems: Vec<Error>,
    /// Each entry produced alone (a fresh budget each), in entry order.
    pub entries: Vec<Produce>,
    /// Producing every entry in order under one budget stops at this entry with this
    /// error (the `--max-total` limit); `None` when it never stops.
    pub stop: Option<(usize, LimitError)>,
    /// `find(query)` results.
    pub lookups: Vec<(Vec<u8>, Option<usize>)>,
}

/// The outcome a case must have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expect {
    /// Opening fails: the header, the directory or the table is broken, or the entry count
    /// is over the limit.
    Open(Error),
    /// It opens; the rest is per entry.
    Opens(Opens),
}

/// One hostile archive and what must come of it.
#[derive(Debug, Clone)]
pub struct Case {
    /// A unique name saying what is wrong.
    pub name: String,
    /// The parser it is for.
    pub format: Format,
    /// The file.
    pub bytes: Vec<u8>,
    /// Open with the media trailer honoured (`--media-trailer`).
    pub media_trailer: bool,
    /// The limits it is read under (the command-line flags when not the default).
    pub limits: Limits,
    /// What must come of it.
    pub expect: Expect,
}

impl Case {
    fn open_fails(name: &str, format: Format, bytes: Vec<u8>, error: Error) -> Case {
        Case {
            name: name.to_string(),
            format,
            bytes,
            media_trailer: false,
            limits: Limits::DEFAULT,
            expect: Expect::Open(error),
        }
    }

    fn opens(
        name: &str,
        format: Format,
        bytes: Vec<u8>,
        table: Table,
        entries: Vec<Produce>,
    ) -> Case {
        Case {
            name: name.to_string(),
            format,
            bytes,
            media_trailer: false,
            limits: Limits::DEFAULT,
            expect: Expect::Opens(Opens {
                table,
                problems: Vec::new(),
                entries,
                stop: None,
                lookups: Vec::new(),
            }),
        }
    }

    fn opened(&mut self) -> &mut Opens {
        match &mut self.expect {
            Expect::Opens(o) => o,
            Expect::Open(_) => panic!("{}: the case does not open", self.name),
        }
    }

    fn problems(mut self, problems: Vec<Error>) -> Case {
        self.opened().problems = problems;
        self
    }

    fn lookups(mut self, lookups: &[(&[u8], Option<usize>)]) -> Case {
        self.opened().lookups = lookups.iter().map(|(q, i)| (q.to_vec(), *i)).collect();
        self
    }

    fn stop(mut self, at: usize, error: LimitError) -> Case {
        self.opened().stop = Some((at, error));
        self
    }

    fn limits(mut self, limits: Limits) -> Case {
        self.limits = limits;
        self
    }

    fn trailer(mut self) -> Case {
        self.media_trailer = true;
        self
    }

    /// Whether the engine's rules accept the file as it is: it opens and every entry
    /// produces its bytes (problems `ngi verify` reports, such as an unterminated NRes name
    /// or an unusable lookup table, may remain).
    pub fn accepted(&self) -> bool {
        match &self.expect {
            Expect::Open(_) => false,
            Expect::Opens(o) => {
                o.stop.is_none() && o.entries.iter().all(|e| matches!(e, Produce::Bytes(_)))
            }
        }
    }

    /// Whether `ngi verify` must pass (exit 0): the case opens, every entry produces its
    /// bytes, nothing is stopped by the total, no problem is reported, the table is usable
    /// and (NRes) its `sort_index` values are a permutation (SPEC 1.5).
    pub fn verify_ok(&self) -> bool {
        match &self.expect {
            Expect::Open(_) => false,
            Expect::Opens(o) => {
                self.accepted()
                    && o.problems.is_empty()
                    && !o.table.is_problem()
                    && self.nres_table_is_a_permutation()
            }
        }
    }

    /// Whether the case's NRes `sort_index` values name every entry once (true for what is
    /// no NRes archive or does not open), counted here apart from the library's own checks.
    fn nres_table_is_a_permutation(&self) -> bool {
        if self.format != Format::Nres {
            return true;
        }
        let Ok(archive) = nres::Archive::open(&self.bytes) else {
            return true;
        };
        let mut seen = vec![false; archive.len()];
        archive.entries().all(|e| {
            usize::try_from(e.sort_index)
                .ok()
                .and_then(|i| seen.get_mut(i))
                .is_some_and(|s| !std::mem::replace(s, true))
        })
    }

    /// The options of the `ngi` command that read the file as the case does.
    pub fn cli_options(&self) -> Vec<String> {
        let mut options = Vec::new();
        if self.media_trailer {
            options.push("--media-trailer".to_string());
        }
        let d = Limits::DEFAULT;
        let l = self.limits;
        let number = |n: u64| {
            if n == u64::MAX {
                "none".to_string()
            } else {
                n.to_string()
            }
        };
        if l.max_entry_size != d.max_entry_size {
            options.push(format!("--max-entry-size={}", number(l.max_entry_size)));
        }
        if l.max_total != d.max_total {
            options.push(format!("--max-total={}", number(l.max_total)));
        }
        if l.max_entries != d.max_entries {
            let n = if l.max_entries == u32::MAX {
                u64::MAX
            } else {
                u64::from(l.max_entries)
            };
            options.push(format!("--max-entries={}", number(n)));
        }
        options
    }
}

// ------------------------------------------------------------------------------------
// NRes, by hand (SPEC 1).

/// One NRes directory record.
#[derive(Debug, Clone)]
struct NRec {
    /// The first bytes of the 36-byte name field (the rest is zero).
    name: Vec<u8>,
    data_offset: u32,
    size: u32,
    sort_index: u32,
}

fn nrec(name: &[u8], data_offset: u32, size: u32, sort_index: u32) -> NRec {
    NRec {
        name: name.to_vec(),
        data_offset,
        size,
        sort_index,
    }
}

fn nres_header(count: i32, total: u32) -> Vec<u8> {
    let mut h = b"NRes".to_vec();
    h.extend_from_slice(&0x100u32.to_le_bytes());
    h.extend_from_slice(&count.to_le_bytes());
    h.extend_from_slice(&total.to_le_bytes());
    h
}

/// Header (count and `total_size` true to the layout), `body` from offset 16, then the
/// directory.
fn nres_file(body: &[u8], recs: &[NRec]) -> Vec<u8> {
    let total = (16 + body.len() + 64 * recs.len()) as u32;
    let mut out = nres_header(recs.len() as i32, total);
    out.extend_from_slice(body);
    for r in recs {
        let mut record = [0u8; 64];
        record[0..4].copy_from_slice(b"TEST");
        record[12..16].copy_from_slice(&r.size.to_le_bytes());
        record[20..20 + r.name.len()].copy_from_slice(&r.name);
        record[56..60].copy_from_slice(&r.data_offset.to_le_bytes());
        record[60..64].copy_from_slice(&r.sort_index.to_le_bytes());
        out.extend_from_slice(&record);
    }
    out
}

const ALPHA: &[u8] = b"first payload";
const BETA: &[u8] = &[1, 2, 3, 4, 5, 6, 7, 8, 9];
const GAMMA: &[u8] = b"g";
/// The base NRes: 248 bytes, payloads at 16, 32 and 48, the directory at 56.
const NRES_LEN: u32 = 248;
const NRES_DIR: u64 = 56;

fn nres_body() -> Vec<u8> {
    let mut body = Vec::new();
    for (payload, padded) in [(ALPHA, 16), (BETA, 16), (GAMMA, 8)] {
        body.extend_from_slice(payload);
        body.resize(body.len() + padded - payload.len(), 0);
    }
    body
}

/// alpha.txt, beta.bin, gamma: canonical, sorted, valid.
fn nres_recs() -> Vec<NRec> {
    vec![
        nrec(b"alpha.txt", 16, 13, 0),
        nrec(b"beta.bin", 32, 9, 1),
        nrec(b"gamma", 48, 1, 2),
    ]
}

/// The base NRes with its records patched.
fn nres_with(patch: impl FnOnce(&mut Vec<NRec>)) -> Vec<u8> {
    let mut recs = nres_recs();
    patch(&mut recs);
    nres_file(&nres_body(), &recs)
}

fn ok(bytes: &[u8]) -> Produce {
    Produce::Bytes(bytes.to_vec())
}

fn nres_fails(e: NresError) -> Produce {
    Produce::Fails(Error::Nres(e))
}

/// The one entry of an `rsli_one` library over `limit`.
fn too_large(unpacked_size: u32, limit: u64) -> RsliError {
    RsliError::Limit {
        error: LimitError::EntryTooLarge {
            entry: 0,
            size: unpacked_size.into(),
            limit,
        },
        offset: 32 + 20,
    }
}

fn rsli_fails(e: RsliError) -> Produce {
    Produce::Fails(Error::Rsli(e))
}

fn nres_cases(cases: &mut Vec<Case>) {
    use NresError as E;
    let n = Format::Nres;
    let good = nres_with(|_| {});
    assert_eq!(good.len(), NRES_LEN as usize);
    let canonical = Table::Nres(nres::LookupTable::Canonical);
    let all_ok = || vec![ok(ALPHA), ok(BETA), ok(GAMMA)];
    let open = |name: &str, bytes: Vec<u8>, e: E| Case::open_fails(name, n, bytes, Error::Nres(e));

    // Truncated at every structural boundary: in the magic, after it, after the version,
    // after the count, one short of the header, the header alone, inside a payload, at the
    // directory, between two records, one byte short of the end.
    for cut in [0usize, 3, 4, 8, 12, 15] {
        cases.push(open(
            &format!("nres_cut_at_{cut}"),
            good[..cut].to_vec(),
            E::TooShort { len: cut as u64 },
        ));
    }
    for cut in [16usize, 24, 56, 120, 247] {
        cases.push(open(
            &format!("nres_cut_at_{cut}"),
            good[..cut].to_vec(),
            E::SizeMismatch {
                declared: NRES_LEN,
                actual: cut as u64,
            },
        ));
    }
    let mut bytes = good.clone();
    bytes[3] = b'S';
    cases.push(open(
        "nres_bad_magic",
        bytes,
        E::BadMagic { found: *b"NReS" },
    ));
    let mut bytes = good.clone();
    bytes[4] = 0x01;
    cases.push(open(
        "nres_bad_version",
        bytes,
        E::BadVersion { found: 0x101 },
    ));
    for (name, count) in [
        ("nres_count_minus_1", -1i32),
        ("nres_count_i32_min", i32::MIN),
    ] {
        let mut bytes = good.clone();
        bytes[8..12].copy_from_slice(&count.to_le_bytes());
        cases.push(open(name, bytes, E::NegativeEntryCount { count }));
    }
    // 64 * 0x0400_0001 wraps to 64 in 32 bits, which would put the directory at 16.
    let mut bytes = nres_header(0x0400_0001, 80);
    bytes.resize(80, 0);
    cases.push(open(
        "nres_count_times_64_wraps_32_bits",
        bytes,
        E::DirectoryOutOfBounds {
            entry_count: 0x0400_0001,
            total_size: 80,
        },
    ));
    let mut bytes = good.clone();
    bytes[8..12].copy_from_slice(&i32::MAX.to_le_bytes());
    cases.push(open(
        "nres_count_i32_max",
        bytes,
        E::DirectoryOutOfBounds {
            entry_count: i32::MAX as u32,
            total_size: NRES_LEN,
        },
    ));
    let mut bytes = good.clone();
    bytes[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    cases.push(open(
        "nres_total_size_u32_max",
        bytes,
        E::SizeMismatch {
            declared: u32::MAX,
            actual: u64::from(NRES_LEN),
        },
    ));
    cases.push(
        open(
            "nres_count_over_max_entries",
            good.clone(),
            E::Limit {
                error: LimitError::TooManyEntries { count: 3, limit: 2 },
                offset: 8,
            },
        )
        .limits(Limits::DEFAULT.with_max_entries(2)),
    );

    // Data ranges: 32-bit wrap, into the directory, into the header, past the end.
    let wrap = E::DataPastDirectory {
        entry: 1,
        data_offset: 0xFFFF_FFF0,
        size: 0x20,
        directory_offset: NRES_DIR,
    };
    cases.push(
        Case::opens(
            "nres_offset_plus_size_wraps_32_bits",
            n,
            nres_with(|r| (r[1].data_offset, r[1].size) = (0xFFFF_FFF0, 0x20)),
            canonical,
            vec![ok(ALPHA), nres_fails(wrap), ok(GAMMA)],
        )
        .problems(vec![Error::Nres(wrap)]),
    );
    let into_dir = E::DataPastDirectory {
        entry: 2,
        data_offset: 48,
        size: 9,
        directory_offset: NRES_DIR,
    };
    cases.push(
        Case::opens(
            "nres_payload_runs_into_directory",
            n,
            nres_with(|r| r[2].size = 9),
            canonical,
            vec![ok(ALPHA), ok(BETA), nres_fails(into_dir)],
        )
        .problems(vec![Error::Nres(into_dir)]),
    );
    let before = E::DataBeforeHeader {
        entry: 0,
        data_offset: 8,
    };
    cases.push(
        Case::opens(
            "nres_payload_inside_header",
            n,
            nres_with(|r| r[0].data_offset = 8),
            canonical,
            vec![nres_fails(before), ok(BETA), ok(GAMMA)],
        )
        .problems(vec![Error::Nres(before)]),
    );
    let past = E::DataPastDirectory {
        entry: 0,
        data_offset: 1000,
        size: 0,
        directory_offset: NRES_DIR,
    };
    cases.push(
        Case::opens(
            "nres_empty_payload_past_the_end",
            n,
            nres_with(|r| (r[0].data_offset, r[0].size) = (1000, 0)),
            canonical,
            vec![nres_fails(past), ok(BETA), ok(GAMMA)],
        )
        .problems(vec![Error::Nres(past)]),
    );
    let huge = E::DataPastDirectory {
        entry: 1,
        data_offset: 32,
        size: u32::MAX,
        directory_offset: NRES_DIR,
    };
    cases.push(
        Case::opens(
            "nres_size_4_gib",
            n,
            nres_with(|r| r[1].size = u32::MAX),
            canonical,
            vec![ok(ALPHA), nres_fails(huge), ok(GAMMA)],
        )
        .problems(vec![Error::Nres(huge)]),
    );

    // A name with no NUL in its 36 bytes: reported, but its payload is readable.
    let long = [b'q'; 36];
    cases.push(
        Case::opens(
            "nres_name_without_nul",
            n,
            nres_with(|r| r[2].name = long.to_vec()),
            canonical,
            all_ok(),
        )
        .problems(vec![Error::Nres(E::NameUnterminated {
            entry: 2,
            offset: NRES_DIR + 2 * 64 + 20,
        })])
        .lookups(&[(&long, Some(2)), (b"alpha.txt", Some(0))]),
    );

    // sort_index: garbage out of range (linear scan), all equal (the engine's binary
    // search misses entries no slot names), a permutation in the wrong order (linear).
    cases.push(
        Case::opens(
            "nres_sort_index_garbage",
            n,
            nres_with(|r| r[1].sort_index = 0xFFFF_FFFF),
            Table::Nres(nres::LookupTable::OutOfRange {
                entry: 1,
                sort_index: 0xFFFF_FFFF,
            }),
            all_ok(),
        )
        .lookups(&[
            (b"ALPHA.TXT", Some(0)),
            (b"beta.bin", Some(1)),
            (b"Gamma", Some(2)),
            (b"delta", None),
        ]),
    );
    cases.push(
        Case::opens(
            "nres_sort_index_duplicates",
            n,
            nres_with(|r| r.iter_mut().for_each(|r| r.sort_index = 0)),
            Table::Nres(nres::LookupTable::Sorted),
            all_ok(),
        )
        .lookups(&[
            (b"alpha.txt", Some(0)),
            (b"beta.bin", None),
            (b"gamma", None),
        ]),
    );
    cases.push(
        Case::opens(
            "nres_sort_index_reversed",
            n,
            nres_with(|r| {
                for (r, s) in r.iter_mut().zip([2, 1, 0]) {
                    r.sort_index = s;
                }
            }),
            Table::Nres(nres::LookupTable::Unsorted { slot: 0 }),
            all_ok(),
        )
        .lookups(&[
            (b"alpha.txt", Some(0)),
            (b"beta.bin", Some(1)),
            (b"gamma", Some(2)),
        ]),
    );

    // Limits: one entry over the entry size limit fails alone.
    cases.push(
        Case::opens(
            "nres_entry_over_max_entry_size",
            n,
            good.clone(),
            canonical,
            vec![
                nres_fails(E::Limit {
                    error: LimitError::EntryTooLarge {
                        entry: 0,
                        size: 13,
                        limit: 12,
                    },
                    offset: 16,
                }),
                ok(BETA),
                ok(GAMMA),
            ],
        )
        .limits(Limits::DEFAULT.with_max_entry_size(12)),
    );
}

// ------------------------------------------------------------------------------------
// RsLi, by hand (SPEC 2).

/// An entry as the table stores it (`sort_index` is the stored value).
pub fn rentry(
    name: &[u8],
    flags: u16,
    sort_index: u16,
    unpacked: u32,
    offset: u32,
    packed: u32,
) -> rsli::Entry {
    let mut e = rsli::Entry {
        flags,
        sort_index,
        file_sort_index: sort_index,
        unpacked_size: unpacked,
        data_offset: offset,
        packed_size: packed,
        ..rsli::Entry::default()
    };
    e.name[..name.len()].copy_from_slice(name);
    e
}

/// Header, the table encrypted with `seed`, `payload` (placed by the entries'
/// `data_offset`s), then the optional `AO` trailer.
pub fn rsli_file(
    seed: u32,
    presorted: bool,
    entries: &[rsli::Entry],
    payload: &[u8],
    trailer: Option<u32>,
) -> Vec<u8> {
    let mut out = vec![0u8; 32];
    out[..4].copy_from_slice(b"NL\x00\x01");
    out[4..6].copy_from_slice(&(entries.len() as u16).to_le_bytes());
    if presorted {
        out[14..16].copy_from_slice(&rsli::PRESORTED.to_le_bytes());
    }
    out[20..24].copy_from_slice(&seed.to_le_bytes());
    for e in entries {
        out.extend_from_slice(&e.to_bytes());
    }
    XorStream::new(seed as u16).apply(&mut out[32..]);
    out.extend_from_slice(payload);
    if let Some(overlay) = trailer {
        out.extend_from_slice(b"AO");
        out.extend_from_slice(&overlay.to_le_bytes());
    }
    out
}

fn xored(key: u16, plain: &[u8]) -> Vec<u8> {
    let mut v = plain.to_vec();
    XorStream::new(key).apply(&mut v);
    v
}

const SEED: u32 = 0x5EED_ABCD;
const PLAIN: &[u8] = b"plain bytes";
const SECRET: &[u8] = b"xor secret";
const LZ_LITERALS: &[u8] = b"LZSS-lit";
/// The base library: 158 bytes, the table ends at 128.
const RSLI_LEN: u64 = 158;

/// The base library's three entries with stored `sort_index` values `sort`, the XOR
/// entry encrypted with `key`: ALPHA (stored, at 128), SECRET (XOR, at 139), ZULU (LZSS,
/// eight literals, at 149).
fn rsli_base(presorted: bool, sort: [u16; 3], key: u16, trailer: Option<u32>) -> Vec<u8> {
    let entries = [
        rentry(b"ALPHA", 0x000, sort[0], 11, 128, 11),
        rentry(b"SECRET", 0x020, sort[1], 10, 139, 10),
        rentry(b"ZULU", 0x040, sort[2], 8, 149, 9),
    ];
    let mut payload = PLAIN.to_vec();
    payload.extend(xored(key, SECRET));
    payload.push(0xFF);
    payload.extend_from_slice(LZ_LITERALS);
    let file = rsli_file(SEED, presorted, &entries, &payload, trailer);
    assert_eq!(
        file.len() as u64,
        RSLI_LEN + if trailer.is_some() { 6 } else { 0 }
    );
    file
}

/// One entry, its packed bytes right after the table (at 64), and nothing else.
fn rsli_one(flags: u16, unpacked: u32, packed: &[u8]) -> Vec<u8> {
    let e = rentry(b"ONE", flags, 0, unpacked, 64, packed.len() as u32);
    rsli_file(0x0BAD_F00D, false, &[e], packed, None)
}

/// Raw Deflate bits, written LSB first as RFC 1951 packs them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, count: u32) {
        for i in 0..count {
            self.acc |= ((value >> i) & 1) << self.n;
            self.n += 1;
            if self.n == 8 {
                self.out.push(self.acc as u8);
                (self.acc, self.n) = (0, 0);
            }
        }
    }

    /// A Huffman code, most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        for i in (0..len).rev() {
            self.put((code >> i) & 1, 1);
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// A fixed-Huffman final block: `a`, then `matches` copies of 258 bytes at distance 1,
/// then (when `end`) end-of-block. It decodes to `1 + 258 * matches` bytes of `a`.
fn deflate_run(matches: usize, end: bool) -> Vec<u8> {
    let mut b = Bits::default();
    b.put(1, 1); // BFINAL
    b.put(1, 2); // BTYPE 01, fixed
    b.code(0x30 + u32::from(b'a'), 8);
    for _ in 0..matches {
        b.code(0xC0 + (285 - 280), 8); // length 258
        b.code(0, 5); // distance 1
    }
    if end {
        b.code(0, 7); // end of block
    }
    b.finish()
}

/// The length of a [`four_gib_claim`] file.
pub const FOUR_GIB_FILE_LEN: usize = 100;

/// A 100-byte RsLi (header, one entry, 36 packed bytes) whose one entry, packed with
/// `method`, claims `unpacked_size = 0xFFFF_FFFF`. The packed bytes are a real stream of
/// the method that ends long before: 20 Deflate copies of 258 bytes, LZSS copies of 18
/// spaces from never-written ring slots, or LZHUF of a run of spaces.
pub fn four_gib_claim(method: Method) -> Vec<u8> {
    let mut packed = match method {
        Method::Deflate => deflate_run(20, true),
        Method::Lzss | Method::XorLzss => {
            // Control byte 0: eight copies of 18 bytes from slot 0; the third group is
            // cut short by the 36 bytes.
            let group = [[0u8].as_slice(), &[0x00, 0x0F].repeat(8)].concat();
            group.repeat(3)
        }
        Method::Lzhuf | Method::XorLzhuf => lzhuf::encode(&[b' '; 4000]),
        Method::Stored | Method::Xor => b"stored bytes, far fewer than claimed".to_vec(),
    };
    packed.resize(FOUR_GIB_FILE_LEN - 64, 0);
    let file = rsli_one(method.bits(), u32::MAX, &packed);
    assert_eq!(file.len(), FOUR_GIB_FILE_LEN);
    file
}

fn rsli_cases(cases: &mut Vec<Case>) {
    use RsliError as E;
    let r = Format::Rsli;
    let good = rsli_base(false, [0, 0, 0], 1, None);
    let computed = Table::Rsli(rsli::LookupTable::Computed);
    let all_ok = || vec![ok(PLAIN), ok(SECRET), ok(LZ_LITERALS)];
    let open = |name: &str, bytes: Vec<u8>, e: E| Case::open_fails(name, r, bytes, Error::Rsli(e));
    let oob = |entry: u32, offset: u64, size: u32, file_len: u64| E::DataOutOfBounds {
        entry,
        offset,
        size,
        file_len,
    };

    // Truncated at every structural boundary: the magic, the version, the count, one short
    // of the header, the header alone, inside the first entry, between entries, one short
    // of the table; then the table alone (no payloads), inside a payload, one byte short.
    for cut in [0usize, 2, 4, 6, 31] {
        cases.push(open(
            &format!("rsli_cut_at_{cut}"),
            good[..cut].to_vec(),
            E::Truncated {
                len: cut as u64,
                needed: 32,
            },
        ));
    }
    for cut in [32usize, 48, 64, 127] {
        cases.push(open(
            &format!("rsli_cut_at_{cut}"),
            good[..cut].to_vec(),
            E::Truncated {
                len: cut as u64,
                needed: 128,
            },
        ));
    }
    let all_out = [
        oob(0, 128, 11, 128),
        oob(1, 139, 10, 128),
        oob(2, 149, 9, 128),
    ];
    cases.push(
        Case::opens(
            "rsli_cut_at_128_table_only",
            r,
            good[..128].to_vec(),
            computed,
            all_out.iter().map(|&e| rsli_fails(e)).collect(),
        )
        .problems(all_out.iter().map(|&e| Error::Rsli(e)).collect()),
    );
    let cut = [oob(1, 139, 10, 140), oob(2, 149, 9, 140)];
    cases.push(
        Case::opens(
            "rsli_cut_at_140_inside_a_payload",
            r,
            good[..140].to_vec(),
            computed,
            vec![ok(PLAIN), rsli_fails(cut[0]), rsli_fails(cut[1])],
        )
        .problems(cut.iter().map(|&e| Error::Rsli(e)).collect()),
    );
    let last = oob(2, 149, 9, 157);
    cases.push(
        Case::opens(
            "rsli_cut_at_157_lzss_one_byte_short",
            r,
            good[..157].to_vec(),
            computed,
            vec![ok(PLAIN), ok(SECRET), rsli_fails(last)],
        )
        .problems(vec![Error::Rsli(last)]),
    );

    // The header.
    let mut bytes = good.clone();
    bytes[2] = 1;
    cases.push(open(
        "rsli_bad_reserved",
        bytes,
        E::BadReserved { found: 1 },
    ));
    let mut bytes = good.clone();
    bytes[3] = 2;
    cases.push(open("rsli_bad_version", bytes, E::BadVersion { found: 2 }));
    for (name, count) in [
        ("rsli_count_minus_1", -1i16),
        ("rsli_count_i16_min", i16::MIN),
    ] {
        let mut bytes = good.clone();
        bytes[4..6].copy_from_slice(&count.to_le_bytes());
        cases.push(open(name, bytes, E::NegativeEntryCount { count }));
    }
    let mut bytes = good.clone();
    bytes[4..6].copy_from_slice(&32767u16.to_le_bytes());
    cases.push(open(
        "rsli_count_32767_in_158_bytes",
        bytes,
        E::Truncated {
            len: RSLI_LEN,
            needed: 32 + 32 * 32767,
        },
    ));
    cases.push(
        open(
            "rsli_count_over_max_entries",
            good.clone(),
            E::Limit {
                error: LimitError::TooManyEntries { count: 3, limit: 2 },
                offset: 4,
            },
        )
        .limits(Limits::DEFAULT.with_max_entries(2)),
    );

    // Sizes and offsets past 32 bits, or past the end.
    let e = oob(0, 0xFFFF_FF00, 0x200, 64 + 8);
    cases.push(
        Case::opens(
            "rsli_offset_plus_size_wraps_32_bits",
            r,
            {
                let entry = rentry(b"WRAP", 0x040, 0, 8, 0xFFFF_FF00, 0x200);
                rsli_file(SEED, false, &[entry], &[0xFF; 8], None)
            },
            computed,
            vec![rsli_fails(e)],
        )
        .problems(vec![Error::Rsli(e)]),
    );
    let e = oob(0, 64, u32::MAX, 64 + 5);
    cases.push(
        Case::opens(
            "rsli_stored_unpacked_size_4_gib",
            r,
            rsli_one(0x000, u32::MAX, b"short"),
            computed,
            vec![rsli_fails(e)],
        )
        .problems(vec![Error::Rsli(e)]),
    );
    let e = oob(0, 64, 100, 64 + 10);
    cases.push(
        Case::opens(
            "rsli_xor_reads_unpacked_size_past_the_end",
            r,
            {
                // packed_size 10 fits, but XOR reads unpacked_size (100) bytes (SPEC 2.7).
                let entry = rentry(b"XOR", 0x020, 0, 100, 64, 10);
                rsli_file(SEED, false, &[entry], &[0; 10], None)
            },
            computed,
            vec![rsli_fails(e)],
        )
        .problems(vec![Error::Rsli(e)]),
    );
    // The engine reads whatever lies at the offset: here the encrypted table.
    let mut bytes = good.clone();
    patch_rsli(&mut bytes, |i, e| {
        if i == 0 {
            e.data_offset = 32;
        }
    });
    let table_bytes = bytes[32..43].to_vec();
    cases.push(Case::opens(
        "rsli_stored_data_inside_the_table",
        r,
        bytes,
        computed,
        vec![Produce::Bytes(table_bytes), ok(SECRET), ok(LZ_LITERALS)],
    ));

    // Unsupported methods.
    for (name, flags) in [
        ("rsli_method_0x1e0", 0x01E0u16),
        ("rsli_method_0x0c0", 0x80C0),
    ] {
        let mut bytes = good.clone();
        patch_rsli(&mut bytes, |i, e| {
            if i == 2 {
                e.flags = flags;
            }
        });
        let e = E::UnsupportedMethod { entry: 2, flags };
        cases.push(
            Case::opens(
                name,
                r,
                bytes,
                computed,
                vec![ok(PLAIN), ok(SECRET), rsli_fails(e)],
            )
            .problems(vec![Error::Rsli(e)]),
        );
    }

    // sort_index: garbage in a library without 0xABBA is replaced by the computed
    // permutation, which also keys the XOR entry; with 0xABBA, an out-of-range value
    // disables the binary search (and is the XOR key as stored); all-equal values are a
    // table that differs from the engine's.
    cases.push(
        Case::opens(
            "rsli_sort_index_garbage_not_presorted",
            r,
            rsli_base(false, [0xFFFF, 0x8000, 7], 1, None),
            computed,
            all_ok(),
        )
        .lookups(&[
            (b"alpha", Some(0)),
            (b"SECRET", Some(1)),
            (b"zulu", Some(2)),
        ]),
    );
    cases.push(
        Case::opens(
            "rsli_sort_index_out_of_range_presorted",
            r,
            rsli_base(true, [0, 0xFFFF, 2], 0xFFFF, None),
            Table::Rsli(rsli::LookupTable::PresortedOutOfRange {
                entry: 1,
                sort_index: 0xFFFF,
            }),
            all_ok(),
        )
        .lookups(&[
            (b"ALPHA", Some(0)),
            (b"secret", Some(1)),
            (b"ZULU", Some(2)),
        ]),
    );
    cases.push(
        Case::opens(
            "rsli_sort_index_duplicates_presorted",
            r,
            rsli_base(true, [0, 0, 0], 0, None),
            Table::Rsli(rsli::LookupTable::PresortedDiffers),
            all_ok(),
        )
        .lookups(&[
            (b"ALPHA", Some(0)),
            (b"SECRET", Some(1)),
            (b"ZULU", Some(2)),
        ]),
    );

    // A 12-byte name has no NUL (legal in RsLi), and the reserved bytes after it never
    // extend it.
    cases.push(
        Case::opens(
            "rsli_name_without_nul",
            r,
            {
                let mut bytes = good.clone();
                patch_rsli(&mut bytes, |i, e| {
                    if i == 2 {
                        e.name = *b"ZULUZULUZULU";
                        e.reserved = *b"JUNK";
                    }
                });
                bytes
            },
            computed,
            all_ok(),
        )
        .lookups(&[(b"zuluzuluzulu", Some(2)), (b"ZULUZULUZULUJUNK", None)]),
    );

    // The media trailer pointing anywhere.
    let with_trailer = |overlay| rsli_base(false, [0, 0, 0], 1, Some(overlay));
    let len = RSLI_LEN + 6;
    let past = [
        oob(0, 128 + 0x1000, 11, len),
        oob(1, 139 + 0x1000, 10, len),
        oob(2, 149 + 0x1000, 9, len),
    ];
    cases.push(
        Case::opens(
            "rsli_trailer_past_the_end",
            r,
            with_trailer(0x1000),
            computed,
            past.iter().map(|&e| rsli_fails(e)).collect(),
        )
        .problems(past.iter().map(|&e| Error::Rsli(e)).collect())
        .trailer(),
    );
    cases.push(Case::opens(
        "rsli_trailer_ignored_without_the_option",
        r,
        with_trailer(0x1000),
        computed,
        all_ok(),
    ));
    let wrap = [
        oob(0, 128 + 0xFFFF_FFFF, 11, len),
        oob(1, 139 + 0xFFFF_FFFF, 10, len),
        oob(2, 149 + 0xFFFF_FFFF, 9, len),
    ];
    cases.push(
        Case::opens(
            "rsli_trailer_overlay_wraps_32_bits",
            r,
            with_trailer(0xFFFF_FFFF),
            computed,
            wrap.iter().map(|&e| rsli_fails(e)).collect(),
        )
        .problems(wrap.iter().map(|&e| Error::Rsli(e)).collect())
        .trailer(),
    );
    let header_bytes = {
        let entry = rentry(b"HEAD", 0x000, 0, 8, 0, 8);
        rsli_file(SEED, false, &[entry], b"", Some(2))
    };
    cases.push(
        Case::opens(
            "rsli_trailer_points_into_the_header",
            r,
            header_bytes.clone(),
            computed,
            vec![ok(&header_bytes[2..10])],
        )
        .trailer(),
    );
    let e = oob(0, 64 + 0x7FFF_FFFF, 12, 76);
    cases.push(
        Case::opens(
            "rsli_payload_that_ends_like_a_trailer",
            r,
            {
                // The last 6 bytes of the file, which are the payload's, read "AO" + u32.
                let entry = rentry(b"DATA", 0x000, 0, 12, 64, 12);
                rsli_file(SEED, false, &[entry], b"data!!AO\xFF\xFF\xFF\x7F", None)
            },
            computed,
            vec![rsli_fails(e)],
        )
        .problems(vec![Error::Rsli(e)])
        .trailer(),
    );

    // LZSS (0x40): a copy from never-written ring slots (the engine's ring is all spaces,
    // LZSS.C's last 18 slots would be zeros), a stream that overruns its size (decoding
    // stops, the rest is ignored), truncated between and inside items.
    cases.push(Case::opens(
        "rsli_lzss_copies_never_written_slots",
        r,
        // Control 0: a copy of 18 from slot 0xFF8, ahead of the write position 0xFEE,
        // then one of 3 from slot 0.
        rsli_one(0x040, 21, &[0x00, 0xF8, 0xFF, 0x00, 0x00]),
        computed,
        vec![ok(&[b' '; 21])],
    ));
    cases.push(Case::opens(
        "rsli_lzss_overruns_its_size",
        r,
        rsli_one(0x040, 5, b"\xFFABCDEFGH\xFFIJKL"),
        computed,
        vec![ok(b"ABCDE")],
    ));
    let e = E::Decode {
        entry: 0,
        offset: 64 + 4,
        error: DecodeError::Truncated {
            produced: 3,
            expected: 8,
        },
    };
    cases.push(Case::opens(
        "rsli_lzss_truncated_between_items",
        r,
        rsli_one(0x040, 8, b"\xFFabc"),
        computed,
        vec![rsli_fails(e)],
    ));
    let e = E::Decode {
        entry: 0,
        offset: 64 + 3,
        error: DecodeError::Truncated {
            produced: 1,
            expected: 4,
        },
    };
    cases.push(Case::opens(
        "rsli_lzss_truncated_inside_a_copy",
        r,
        rsli_one(0x060, 4, &xored(0, b"\x01x\xEE")),
        computed,
        vec![rsli_fails(e)],
    ));

    // LZHUF (0x80): copies from never-written slots, an overrun, truncation.
    let spaces = lzhuf::encode(&[b' '; 200]);
    assert!(
        spaces.len() < 20,
        "LZHUF.C copies the run from the prefilled ring"
    );
    cases.push(Case::opens(
        "rsli_lzhuf_copies_never_written_slots",
        r,
        rsli_one(0x080, 200, &spaces),
        computed,
        vec![ok(&[b' '; 200])],
    ));
    let text = b"LZHUF: Yoshizaki's adaptive Huffman over Okumura's LZSS, 1988.".repeat(4);
    let packed = lzhuf::encode(&text);
    cases.push(Case::opens(
        "rsli_lzhuf_overruns_its_size",
        r,
        rsli_one(0x080, 50, &packed),
        computed,
        vec![ok(&text[..50])],
    ));
    let e = E::Decode {
        entry: 0,
        offset: 64 + (packed.len() / 2) as u64,
        error: DecodeError::Truncated {
            produced: 34,
            expected: text.len() as u64,
        },
    };
    cases.push(Case::opens(
        "rsli_lzhuf_truncated",
        r,
        rsli_one(
            0x0A0,
            text.len() as u32,
            &xored(0, &packed[..packed.len() / 2]),
        ),
        computed,
        vec![rsli_fails(e)],
    ));

    // Deflate (0x100): bombs, endless stored chains, corrupt blocks, the one-byte quirk.
    let inflate = |error: InflateError, offset: u64| E::Decode {
        entry: 0,
        offset: 64 + offset,
        error: DecodeError::Inflate { error, offset },
    };
    cases.push(Case::opens(
        "rsli_deflate_bomb_4_gib_claim",
        r,
        four_gib_claim(Method::Deflate),
        computed,
        vec![rsli_fails(too_large(
            u32::MAX,
            Limits::DEFAULT.max_entry_size,
        ))],
    ));
    cases.push(
        Case::opens(
            "rsli_deflate_bomb_4_gib_claim_no_limits",
            r,
            four_gib_claim(Method::Deflate),
            computed,
            vec![rsli_fails(inflate(InflateError::EndBeforeSize, 34))],
        )
        .limits(Limits::NONE),
    );
    for method in [Method::Lzss, Method::Lzhuf] {
        cases.push(Case::opens(
            &format!("rsli_{method}_4_gib_claim"),
            r,
            four_gib_claim(method),
            computed,
            vec![rsli_fails(too_large(
                u32::MAX,
                Limits::DEFAULT.max_entry_size,
            ))],
        ));
    }
    let e = E::Decode {
        entry: 0,
        offset: FOUR_GIB_FILE_LEN as u64,
        error: DecodeError::Truncated {
            produced: 288,
            expected: u64::from(u32::MAX),
        },
    };
    cases.push(
        Case::opens(
            "rsli_lzss_4_gib_claim_no_limits",
            r,
            four_gib_claim(Method::Lzss),
            computed,
            vec![rsli_fails(e)],
        )
        .limits(Limits::NONE),
    );
    // A real 1:158 stream: accepted under the default limits, refused under 64 KiB.
    let ratio = deflate_run(600, true);
    let size = 1 + 258 * 600;
    cases.push(Case::opens(
        "rsli_deflate_high_ratio_accepted",
        r,
        rsli_one(0x100, size, &ratio),
        computed,
        vec![ok(&vec![b'a'; size as usize])],
    ));
    cases.push(
        Case::opens(
            "rsli_deflate_high_ratio_over_max_entry_size",
            r,
            rsli_one(0x100, size, &ratio),
            computed,
            vec![rsli_fails(too_large(size, 64 << 10))],
        )
        .limits(Limits::DEFAULT.with_max_entry_size(64 << 10)),
    );
    // Stored blocks of LEN 0, none final: each costs 5 bytes and yields nothing; the
    // chain ends with the input.
    let chain = [0x00, 0x00, 0x00, 0xFF, 0xFF].repeat(8);
    let e = E::Decode {
        entry: 0,
        offset: 64 + chain.len() as u64,
        error: DecodeError::Truncated {
            produced: 0,
            expected: 16,
        },
    };
    cases.push(Case::opens(
        "rsli_deflate_endless_empty_stored_blocks",
        r,
        rsli_one(0x100, 16, &chain),
        computed,
        vec![rsli_fails(e)],
    ));
    // Stored blocks of one byte each, none final, past unpacked_size: the fourth block's
    // header (bytes 18..=22) announces the byte too many.
    let chain = [0x00, 0x01, 0x00, 0xFE, 0xFF, b'x'].repeat(6);
    cases.push(Case::opens(
        "rsli_deflate_stored_chain_past_its_size",
        r,
        rsli_one(0x100, 3, &chain),
        computed,
        vec![rsli_fails(inflate(InflateError::TooMuchOutput, 22))],
    ));
    cases.push(Case::opens(
        "rsli_deflate_reserved_block_type",
        r,
        rsli_one(0x100, 4, &[0x07, 0, 0, 0]),
        computed,
        vec![rsli_fails(inflate(InflateError::ReservedBlockType, 0))],
    ));
    cases.push(Case::opens(
        "rsli_deflate_stored_len_nlen_mismatch",
        r,
        rsli_one(0x100, 5, b"\x01\x05\x00\x00\x00hello"),
        computed,
        vec![rsli_fails(inflate(
            InflateError::StoredLengthMismatch { len: 5, nlen: 0 },
            4,
        ))],
    ));
    let mut far = Bits::default();
    far.put(1, 1);
    far.put(1, 2);
    far.code(0x30 + u32::from(b'a'), 8);
    far.code(1, 7); // length 3
    far.code(1, 5); // distance 2, one byte after the start
    far.code(0, 7);
    cases.push(Case::opens(
        "rsli_deflate_distance_before_the_start",
        r,
        rsli_one(0x100, 4, &far.finish()),
        computed,
        vec![rsli_fails(inflate(
            InflateError::DistanceTooFar {
                distance: 2,
                available: 1,
            },
            2,
        ))],
    ));
    cases.push(Case::opens(
        "rsli_deflate_ends_before_its_size",
        r,
        rsli_one(0x100, 5000, &deflate_run(1, true)),
        computed,
        vec![rsli_fails(inflate(InflateError::EndBeforeSize, 3))],
    ));
    cases.push(Case::opens(
        "rsli_deflate_more_than_its_size",
        r,
        rsli_one(0x100, 200, &deflate_run(1, true)),
        computed,
        vec![rsli_fails(inflate(InflateError::TooMuchOutput, 2))],
    ));
    let run = deflate_run(20, false);
    let e = E::Decode {
        entry: 0,
        offset: 64 + run.len() as u64,
        error: DecodeError::Truncated {
            produced: 1 + 258 * 20,
            expected: 1 + 258 * 40,
        },
    };
    cases.push(Case::opens(
        "rsli_deflate_truncated_without_end_of_block",
        r,
        rsli_one(0x100, 1 + 258 * 40, &run),
        computed,
        vec![rsli_fails(e)],
    ));
    // SPEC 2.7: a packed_size one byte past the end of the file is the retail quirk and
    // accepted; two bytes are not.
    let stored = b"\x01\x05\x00\xFA\xFFhello";
    let quirk = |extra: u32| {
        let entry = rentry(b"INTERF8.TEX", 0x100, 0, 5, 64, stored.len() as u32 + extra);
        rsli_file(SEED, false, &[entry], stored, None)
    };
    cases.push(Case::opens(
        "rsli_deflate_one_byte_past_the_end",
        r,
        quirk(1),
        computed,
        vec![ok(b"hello")],
    ));
    let e = oob(0, 64, 12, 74);
    cases.push(
        Case::opens(
            "rsli_deflate_two_bytes_past_the_end",
            r,
            quirk(2),
            computed,
            vec![rsli_fails(e)],
        )
        .problems(vec![Error::Rsli(e)]),
    );

    // Limits over a run: each entry fits alone, the third would pass the total.
    cases.push(
        Case::opens(
            "rsli_entries_over_max_total",
            r,
            good.clone(),
            computed,
            all_ok(),
        )
        .limits(Limits::DEFAULT.with_max_total(25))
        .stop(
            2,
            LimitError::TotalTooLarge {
                entry: 2,
                total: 29,
                limit: 25,
            },
        ),
    );
}

/// Decrypts `file`'s table, lets `patch` change the stored entries, encrypts it back.
pub fn patch_rsli(file: &mut [u8], mut patch: impl FnMut(usize, &mut rsli::Entry)) {
    let header = rsli::Header::parse(file).expect("a valid header");
    let table = &mut file[32..][..header.table_len()];
    XorStream::new(header.key()).apply(table);
    for (i, bytes) in table.chunks_exact_mut(32).enumerate() {
        let mut e = rsli::Entry::from_bytes((&*bytes).try_into().expect("32 bytes"));
        patch(i, &mut e);
        bytes.copy_from_slice(&e.to_bytes());
    }
    XorStream::new(header.key()).apply(table);
}

/// A library whose XOR entry "C.TXT" and stored entry "E.TXT" point at the packed bytes
/// of the XOR entry "B.TXT" (a table may share bytes; each entry decodes them with its own
/// key), after a stored "A.TXT". Returns it and the packed range the three share.
pub fn shared_bytes_library() -> (Vec<u8>, std::ops::Range<usize>) {
    library_sharing_bytes_of_b(&[2, 4])
}

/// The library of [`shared_bytes_library`] with only the entries `sharers` (of C.TXT = 2,
/// D.TXT = 3 and E.TXT = 4) pointed at B.TXT's packed bytes.
pub fn library_sharing_bytes_of_b(sharers: &[usize]) -> (Vec<u8>, std::ops::Range<usize>) {
    let mut builder = rsli::Builder::new();
    builder.seed(0x0DD5_EED5);
    builder.add(b"A.TXT", Method::Stored, b"A, first").unwrap();
    builder
        .add(b"B.TXT", Method::Xor, b"bytes three entries share")
        .unwrap();
    builder
        .add(b"C.TXT", Method::Xor, b"C's own bytes, unused")
        .unwrap();
    builder.add(b"D.TXT", Method::Stored, b"D, stored").unwrap();
    builder
        .add(b"E.TXT", Method::Stored, b"E's own, unused")
        .unwrap();
    let mut old = builder.build().unwrap();
    let b = *rsli::Library::open(&old).unwrap().entry(1).unwrap();
    patch_rsli(&mut old, |i, e| {
        if sharers.contains(&i) {
            (e.data_offset, e.packed_size, e.unpacked_size) =
                (b.data_offset, b.packed_size, b.unpacked_size);
        }
    });
    let at = b.data_offset as usize;
    (old, at..at + b.packed_size as usize)
}

/// Every case of the catalogue, NRes first.
pub fn catalogue() -> Vec<Case> {
    let mut cases = Vec::new();
    nres_cases(&mut cases);
    rsli_cases(&mut cases);
    cases
}
