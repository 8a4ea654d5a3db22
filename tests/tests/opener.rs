//! The sans-I/O opener against the slice path (`ngi_tests::catalog_check`): the shipped
//! samples, every case of the hostile catalogue, and damaged copies of the samples, each
//! fed in one piece, one byte at a time and in random pieces, with and without the media
//! trailer, and in raw mode.

use ngi_core::{Limits, OpenOptions};
use ngi_tests::catalog_check::compare;
use ngi_tests::corpus::Rng;
use ngi_tests::hostile;

fn samples() -> Vec<(String, Vec<u8>)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    ["sample.nres", "sample.rsli"]
        .iter()
        .map(|name| (name.to_string(), std::fs::read(dir.join(name)).unwrap()))
        .collect()
}

/// Every way of cutting the feed, for one file under one set of options.
fn every_feed(bytes: &[u8], options: OpenOptions, seed: u64) -> bool {
    let whole = compare(bytes, options, || usize::MAX);
    let one = compare(bytes, options, || 1);
    assert_eq!(
        whole.as_ref().map(|c| c.entries().to_vec()),
        one.as_ref().map(|c| c.entries().to_vec())
    );
    let mut rng = Rng::new(seed);
    for _ in 0..4 {
        compare(bytes, options, || 1 + rng.below(100));
    }
    whole.is_some()
}

fn option_sets(limits: Limits, media_trailer: bool) -> [OpenOptions; 3] {
    let base = OpenOptions::DEFAULT.with_limits(limits);
    [
        base.with_media_trailer(media_trailer),
        base.with_media_trailer(!media_trailer),
        base.with_raw(true),
    ]
}

#[test]
fn samples_open_the_same_in_any_pieces() {
    for (name, bytes) in samples() {
        for options in option_sets(Limits::DEFAULT, false) {
            assert!(every_feed(&bytes, options, 7), "{name} opens");
        }
        let catalog = compare(&bytes, OpenOptions::DEFAULT, || 1).unwrap();
        assert!(catalog.len() >= 3, "{name}");
    }
}

#[test]
fn every_hostile_case_gives_the_slice_verdict() {
    let cases = hostile::catalogue();
    let mut opened = 0;
    for (n, case) in cases.iter().enumerate() {
        if case.bytes.len() > 1 << 20 {
            // The 4 GiB claims are files of a few hundred bytes plus padding; one piece.
            for options in option_sets(case.limits, case.media_trailer) {
                compare(&case.bytes, options, || usize::MAX);
            }
            continue;
        }
        for options in option_sets(case.limits, case.media_trailer) {
            opened += usize::from(every_feed(&case.bytes, options, n as u64));
        }
    }
    assert!(
        opened > cases.len(),
        "most cases open in some mode: {opened}"
    );
}

#[test]
fn damaged_samples_give_the_slice_verdict() {
    let mut rng = Rng::new(0x0FE7);
    for (_, good) in samples() {
        for round in 0..300 {
            let mut bytes = good.clone();
            for _ in 0..=rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = rng.next_u64() as u8;
            }
            if round % 5 == 0 {
                bytes.truncate(rng.below(bytes.len() + 1));
            }
            let limits = if round % 7 == 0 {
                Limits::DEFAULT.with_max_entries(2)
            } else {
                Limits::DEFAULT
            };
            for options in option_sets(limits, round % 2 == 0) {
                let mut pieces = Rng::new(round);
                compare(&bytes, options, || 1 + pieces.below(40));
            }
        }
    }
}

#[test]
fn empty_and_tiny_files() {
    for len in 0..40 {
        for head in [&b"NRes\x00\x01\x00\x00"[..], b"NL\x00\x01", b"PK", b""] {
            let mut bytes = head.to_vec();
            bytes.resize(len, 0);
            for options in option_sets(Limits::DEFAULT, true) {
                compare(&bytes, options, || 1);
            }
        }
    }
}

/// A store that promises room at `begin` and then has none past `room` entries.
#[derive(Debug)]
struct Lying {
    entries: Vec<ngi_core::archive::Entry>,
    room: usize,
}

impl ngi_core::archive::EntryStore for Lying {
    fn begin(&mut self, _: usize) -> Result<(), usize> {
        self.entries.clear();
        Ok(())
    }
    fn push(&mut self, entry: ngi_core::archive::Entry) -> Result<(), ngi_core::archive::Entry> {
        if self.entries.len() == self.room {
            return Err(entry);
        }
        self.entries.push(entry);
        Ok(())
    }
    fn entries(&self) -> &[ngi_core::archive::Entry] {
        &self.entries
    }
    fn entries_mut(&mut self) -> &mut [ngi_core::archive::Entry] {
        &mut self.entries
    }
}

/// A store that takes fewer entries than it promised fails the open, saying how many it
/// held and that it needed one more, for both formats.
#[test]
fn a_store_that_breaks_its_promise_is_too_small() {
    for (name, bytes) in samples() {
        for room in [0, 1, 2] {
            let store = Lying {
                entries: Vec::new(),
                room,
            };
            let e = ngi_core::archive::Catalog::open_in(&bytes, store, OpenOptions::DEFAULT)
                .unwrap_err();
            assert_eq!(
                e,
                ngi_core::archive::Error::StorageTooSmall {
                    needed: room as u64 + 1,
                    capacity: room
                },
                "{name}, room {room}"
            );
        }
    }
}
