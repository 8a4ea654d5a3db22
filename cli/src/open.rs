//! One view over both formats: open by magic, describe entries uniformly, stream an
//! entry's decoded bytes with bounded memory.

use std::io::Write;

use ngi_core::codec::{Decoder, Method, Status};
use ngi_core::limits::{Budget, LimitError, Limits};
use ngi_core::nres;
use ngi_core::rsli::{self, OpenOptions};

use crate::report::Failure;

/// Decoded bytes are streamed through a buffer of this size, whatever the entry declares.
const CHUNK: usize = 64 * 1024;

/// An opened archive of either format.
pub enum Opened<'a> {
    Nres(nres::Archive<'a>),
    Rsli(rsli::Library<'a, Vec<rsli::Entry>>),
}

/// Format-specific fields of an entry.
pub enum Extra {
    Nres {
        type_id: u32,
        attr1: u32,
        attr2: u32,
        attr3: u32,
    },
    Rsli {
        flags: u16,
    },
}

/// What `list` shows of an entry.
pub struct Row {
    pub index: usize,
    pub name: Vec<u8>,
    pub size: u64,
    pub packed_size: u64,
    /// Effective absolute offset, when it can be computed.
    pub offset: u64,
    /// The method, or `None` for flags that name no method.
    pub method: Option<Method>,
    pub sort_index: u32,
    pub extra: Extra,
}

/// Why an entry could not be produced in full.
pub enum EntryError {
    /// The archive said no (bounds, method, decoding), or the entry alone is larger than
    /// `--max-entry-size`: this entry fails, the others may still be produced.
    Archive(String),
    /// The entry would bring the run's decoded bytes past `--max-total`: nothing more is
    /// produced.
    Total(String),
    /// The destination refused the bytes.
    Output(std::io::Error),
}

impl<'a> Opened<'a> {
    /// Opens `data` by its magic (or as NRes raw mode when asked), refusing an archive of
    /// more than `limits.max_entries` entries before anything is read per entry.
    pub fn open(
        path: &str,
        data: &'a [u8],
        raw: bool,
        media_trailer: bool,
        limits: &Limits,
    ) -> Result<Self, Failure> {
        if raw {
            return nres::Archive::open_raw(data)
                .map(Opened::Nres)
                .map_err(|e| Failure::about(path, e));
        }
        if data.starts_with(&nres::MAGIC) {
            nres::Archive::open_with(data, &OpenOptions::DEFAULT.with_limits(*limits))
                .map(Opened::Nres)
                .map_err(|e| Failure::about(path, with_flag(&e, limit_flag_nres(&e))))
        } else if data.starts_with(&rsli::MAGIC) {
            // "NL" with a wrong reserved or version byte is still reported by the RsLi
            // parser, which says exactly which byte is wrong.
            let options = OpenOptions::DEFAULT
                .with_limits(*limits)
                .with_media_trailer(media_trailer);
            rsli::Library::open_with(data, options)
                .map(Opened::Rsli)
                .map_err(|e| Failure::about(path, with_flag(&e, limit_flag_rsli(&e))))
        } else {
            let shown: Vec<u8> = data.iter().take(4).copied().collect();
            Err(Failure::Bad(format!(
                "{path}: not an NRes or RsLi archive (starts with {}); use --raw to read it as one resource",
                crate::names::display(&shown)
            )))
        }
    }

    pub fn format_name(&self) -> &'static str {
        match self {
            Opened::Nres(a) if a.is_raw() => "NRes (raw mode)",
            Opened::Nres(_) => "NRes",
            Opened::Rsli(_) => "RsLi",
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Opened::Nres(a) => a.len(),
            Opened::Rsli(l) => l.len(),
        }
    }

    pub fn row(&self, index: usize) -> Option<Row> {
        match self {
            Opened::Nres(a) => a.entry(index).map(|e| Row {
                index,
                name: e.name().to_vec(),
                size: e.size.into(),
                packed_size: e.size.into(),
                offset: e.data_offset.into(),
                method: Some(Method::Stored),
                sort_index: e.sort_index,
                extra: Extra::Nres {
                    type_id: e.type_id,
                    attr1: e.attr1,
                    attr2: e.attr2,
                    attr3: e.attr3,
                },
            }),
            Opened::Rsli(l) => l.entry(index).map(|e| Row {
                index,
                name: e.name().to_vec(),
                size: e.unpacked_size.into(),
                packed_size: e.packed_size.into(),
                offset: l.effective_offset(index).unwrap_or(e.data_offset.into()),
                method: e.method().ok(),
                sort_index: e.sort_index.into(),
                extra: Extra::Rsli { flags: e.flags },
            }),
        }
    }

    pub fn rows(&self) -> impl Iterator<Item = Row> + '_ {
        (0..self.len()).filter_map(|i| self.row(i))
    }

    /// The entry NAME selects under the format's engine rules.
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        match self {
            Opened::Nres(a) => a.find(name),
            Opened::Rsli(l) => l.find(name),
        }
    }

    /// Admits entry `index` into `budget` before anything is decoded: its decoded size
    /// (NRes `size`, RsLi `unpacked_size`) against `--max-entry-size`, then the run's total
    /// against `--max-total`. Nothing is sized from the entry's fields.
    fn admit(&self, index: usize, budget: &mut Budget) -> Result<(), EntryError> {
        let limits = *budget.limits();
        let size = match self {
            Opened::Nres(a) => {
                a.check_limits(index, &limits)
                    .map_err(|e| EntryError::Archive(with_flag(&e, limit_flag_nres(&e))))?;
                a.entry(index).map_or(0, |e| u64::from(e.size))
            }
            Opened::Rsli(l) => {
                l.check_limits(index, &limits)
                    .map_err(|e| EntryError::Archive(with_flag(&e, limit_flag_rsli(&e))))?;
                l.entry(index).map_or(0, |e| u64::from(e.unpacked_size))
            }
        };
        let id = u32::try_from(index).unwrap_or(u32::MAX);
        budget.take(id, size).map_err(|e| match e {
            LimitError::TotalTooLarge { .. } => {
                EntryError::Total(with_flag(&e, Some("--max-total")))
            }
            _ => EntryError::Archive(with_flag(&e, Some("--max-entry-size"))),
        })
    }

    /// Streams entry `index`, decoded, into `out`; returns the bytes written and the packed
    /// bytes left unused after the stream's end. The entry's own faults (bounds, method)
    /// are reported first, then the limits of `budget`, which the entry is taken from
    /// before any byte is decoded; decoding goes through one fixed buffer of 64 KiB,
    /// whatever size the entry declares.
    pub fn stream(
        &self,
        index: usize,
        out: &mut dyn Write,
        budget: &mut Budget,
    ) -> Result<(u64, u64), EntryError> {
        let fail = |e: &dyn std::fmt::Display| EntryError::Archive(e.to_string());
        match self {
            Opened::Nres(a) => {
                let payload = a.payload(index).map_err(|e| fail(&e))?;
                self.admit(index, budget)?;
                out.write_all(payload).map_err(EntryError::Output)?;
                Ok((payload.len() as u64, 0))
            }
            Opened::Rsli(l) => {
                let packed = l.packed(index).map_err(|e| fail(&e))?;
                let mut decoder = l.unpacker(index).map_err(|e| fail(&e))?;
                self.admit(index, budget)?;
                let mut buffer = vec![0u8; CHUNK];
                let (mut used, mut written) = (0usize, 0u64);
                loop {
                    let input = packed.get(used..).unwrap_or_default();
                    let progress = decoder
                        .decode(input, &mut buffer, true)
                        .map_err(|e| fail(&format_args!("entry {index}: {e}")))?;
                    used += progress.consumed;
                    let produced = buffer.get(..progress.produced).unwrap_or_default();
                    out.write_all(produced).map_err(EntryError::Output)?;
                    written += produced.len() as u64;
                    match progress.status {
                        Status::Done => break,
                        Status::OutputFull => {}
                        // With the whole input given as ended, a decoder that wants more
                        // has broken its contract: report it rather than spin.
                        Status::NeedInput => {
                            return Err(fail(&format_args!(
                                "entry {index}: decoder stopped after {written} bytes"
                            )));
                        }
                    }
                }
                Ok((written, (packed.len() - used.min(packed.len())) as u64))
            }
        }
    }
}

/// The option that raises a limit.
fn limit_flag(e: &LimitError) -> &'static str {
    match e {
        LimitError::TooManyEntries { .. } => "--max-entries",
        LimitError::TotalTooLarge { .. } => "--max-total",
        _ => "--max-entry-size",
    }
}

/// The option that raises the limit an NRes error is about, if it is one.
fn limit_flag_nres(e: &nres::NresError) -> Option<&'static str> {
    match e {
        nres::NresError::Limit { error, .. } => Some(limit_flag(error)),
        _ => None,
    }
}

/// The option that raises the limit an RsLi error is about, if it is one.
fn limit_flag_rsli(e: &rsli::RsliError) -> Option<&'static str> {
    match e {
        rsli::RsliError::Limit { error, .. } => Some(limit_flag(error)),
        _ => None,
    }
}

/// The library's message, followed by the option that sets the limit it hit.
fn with_flag(e: &dyn std::fmt::Display, flag: Option<&str>) -> String {
    match flag {
        Some(flag) => format!("{e} (see {flag})"),
        None => e.to_string(),
    }
}
