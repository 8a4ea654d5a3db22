//! The catalog built by the sans-I/O opener, fed in pieces, against the slice path
//! (`nres::Archive` and `rsli::Library` over the whole file): the same verdict, the same
//! entries, lookups, problems, packed ranges and limit checks, and only the header,
//! directory (or table) and trailer read. Shared by `tests/opener.rs` and the `opener`
//! fuzz target; it panics only when the two disagree.

use ngi_core::OpenOptions;
use ngi_core::archive::{Catalog, Entry, Error, Format, Opener};
use ngi_core::nres;
use ngi_core::rsli;

/// The catalog of `bytes` through the opener, each piece fed as long as `piece` says
/// (clamped to 1 ..= what the opener asks for). Asserts the bytes it reads.
pub fn open_in_pieces(
    bytes: &[u8],
    options: OpenOptions,
    mut piece: impl FnMut() -> usize,
) -> Result<Catalog<Vec<Entry>>, Error> {
    let mut opener = Opener::new(bytes.len() as u64, Vec::new(), options);
    let mut asked = 0u64;
    // Every size is checked before the range it governs is asked for, so a refusal comes
    // with the header read at most: the directory or table is never read in vain.
    let refused = |e: Error, read: u64| {
        assert!(read <= 32, "refused ({e}) after reading {read} bytes");
        e
    };
    loop {
        let range = match opener.need() {
            Ok(Some(range)) => range,
            Ok(None) => break,
            Err(e) => return Err(refused(e, opener.bytes_read())),
        };
        assert!(
            range.start < range.end && range.end <= bytes.len() as u64,
            "asked for {range:?} of a {}-byte file",
            bytes.len()
        );
        let len = (range.end - range.start) as usize;
        let n = piece().clamp(1, len);
        let start = range.start as usize;
        asked += n as u64;
        if let Err(e) = opener.feed(&bytes[start..start + n]) {
            return Err(refused(e, opener.bytes_read()));
        }
    }
    assert_eq!(opener.bytes_read(), asked, "every byte fed was taken");
    let read = opener.bytes_read();
    let catalog = opener.finish()?;
    assert_eq!(read, expected_reads(&catalog), "bytes the opener read");
    Ok(catalog)
}

/// What the opener must read: nothing in raw mode, the NRes header and directory, the
/// RsLi header, table and trailer.
fn expected_reads(catalog: &Catalog<Vec<Entry>>) -> u64 {
    let n = catalog.len() as u64;
    match (catalog.is_raw(), catalog.format()) {
        (true, _) => 0,
        (false, Format::Nres) => 16 + 64 * n,
        (false, Format::Rsli) => 32 + 32 * n + 6,
    }
}

/// Opens `bytes` both ways under `options` with the given feed and asserts they agree.
/// Returns the catalog when it opens.
pub fn compare(
    bytes: &[u8],
    options: OpenOptions,
    piece: impl FnMut() -> usize,
) -> Option<Catalog<Vec<Entry>>> {
    let fed = open_in_pieces(bytes, options, piece);
    let whole = Catalog::open(bytes, options);
    match (&fed, &whole) {
        (Ok(a), Ok(b)) => assert_eq!(a.entries(), b.entries(), "pieces and whole"),
        (Err(a), Err(b)) => assert_eq!(a, b, "pieces and whole"),
        _ => panic!("pieces {fed:?}, whole {whole:?}"),
    }
    if options.raw || bytes.starts_with(&nres::MAGIC) {
        // Raw mode too: the native view and the catalog must agree there as well.
        let archive = nres::Archive::open_with(bytes, options);
        match (&fed, archive) {
            (Ok(catalog), Ok(archive)) => same_as_nres(catalog, &archive, bytes),
            (Err(e), Err(want)) => assert_eq!(*e, Error::Nres(want), "NRes verdict"),
            (got, want) => panic!("catalog {got:?}, nres::Archive {want:?}"),
        }
    } else if bytes.starts_with(&rsli::MAGIC) {
        match (&fed, rsli::Library::open_with(bytes, options)) {
            (Ok(catalog), Ok(library)) => same_as_rsli(catalog, &library, bytes),
            (Err(e), Err(want)) => assert_eq!(*e, Error::Rsli(want), "RsLi verdict"),
            (got, want) => panic!("catalog {got:?}, rsli::Library {want:?}"),
        }
    } else {
        assert!(
            matches!(fed, Err(Error::UnknownFormat { .. })),
            "neither magic: {fed:?}"
        );
    }
    fed.ok()
}

fn same_as_nres(catalog: &Catalog<Vec<Entry>>, archive: &nres::Archive<'_>, bytes: &[u8]) {
    assert_eq!(catalog.format(), Format::Nres);
    assert_eq!(catalog.is_raw(), archive.is_raw());
    assert_eq!(catalog.len(), archive.len());
    assert_eq!(
        catalog.lookup_table(),
        ngi_core::archive::Lookup::Nres(archive.lookup_table())
    );
    assert_eq!(catalog.directory_offset(), archive.directory_offset());
    let problems: Vec<Error> = archive.problems().map(Error::Nres).collect();
    assert_eq!(catalog.problems().collect::<Vec<_>>(), problems, "problems");
    for (i, entry) in archive.entries().enumerate() {
        let c = catalog.entry(i).expect("same length");
        assert_eq!(c.as_nres(), Some(entry), "entry {i}");
        assert_eq!(c.name(), entry.name());
        assert_eq!(
            (c.size, c.offset),
            (entry.size.into(), entry.data_offset.into())
        );
        assert_eq!(
            catalog.packed(i, bytes),
            archive.payload(i).map_err(Error::Nres),
            "payload {i}"
        );
        assert_eq!(
            catalog.check_entry(i),
            archive.check_entry(i).map_err(Error::Nres)
        );
        for limits in [
            ngi_core::Limits::DEFAULT,
            ngi_core::Limits::NONE.with_max_entry_size(7),
        ] {
            assert_eq!(
                catalog.check_limits(i, &limits),
                archive.check_limits(i, &limits).map_err(Error::Nres)
            );
        }
        assert_eq!(catalog.find(entry.name()), archive.find(entry.name()));
        assert_eq!(
            catalog.find(entry.name_field),
            archive.find(entry.name_field)
        );
    }
    for query in [&b""[..], b"x", b"RAW", b"\xFF"] {
        assert_eq!(catalog.find(query), archive.find(query), "{query:?}");
    }
}

fn same_as_rsli(
    catalog: &Catalog<Vec<Entry>>,
    library: &rsli::Library<'_, Vec<rsli::Entry>>,
    bytes: &[u8],
) {
    assert_eq!(catalog.format(), Format::Rsli);
    assert_eq!(catalog.len(), library.len());
    assert_eq!(
        catalog.lookup_table(),
        ngi_core::archive::Lookup::Rsli(library.lookup_table())
    );
    assert_eq!(
        (catalog.trailer(), catalog.overlay()),
        (library.trailer(), library.overlay())
    );
    let problems: Vec<Error> = library.problems().map(Error::Rsli).collect();
    assert_eq!(catalog.problems().collect::<Vec<_>>(), problems, "problems");
    for (i, entry) in library.entries().iter().enumerate() {
        let c = catalog.entry(i).expect("same length");
        assert_eq!(c.as_rsli(), Some(entry), "entry {i}");
        assert_eq!(
            (c.key, c.size),
            (entry.data_key(), entry.unpacked_size.into())
        );
        assert_eq!(Ok(c.offset), library.effective_offset(i));
        assert_eq!(c.method, entry.method().ok());
        assert_eq!(
            catalog.packed(i, bytes),
            library.packed(i).map_err(Error::Rsli),
            "packed {i}"
        );
        for limits in [
            ngi_core::Limits::DEFAULT,
            ngi_core::Limits::NONE.with_max_entry_size(7),
        ] {
            assert_eq!(
                catalog.check_limits(i, &limits),
                library.check_limits(i, &limits).map_err(Error::Rsli)
            );
        }
        assert_eq!(catalog.find(entry.name()), library.find(entry.name()));
        let mut lower = entry.name().to_vec();
        lower.make_ascii_lowercase();
        assert_eq!(catalog.find(&lower), library.find(&lower));
    }
    for query in [&b""[..], b"x", b"A_LONG_QUERY_OF_MANY_BYTES"] {
        assert_eq!(catalog.find(query), library.find(query), "{query:?}");
    }
}
