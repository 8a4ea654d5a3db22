//! A 100-byte RsLi whose one entry claims `unpacked_size = 0xFFFF_FFFF` (4 GiB), for
//! every packing method (`ngi_tests::hostile::four_gib_claim`), under a counting global
//! allocator: the library refuses it or decodes it in bounded memory, and never allocates
//! anything near what it claims.
//!
//! * Under the default limits `Library::check_limits` and `Library::unpack_to_vec` refuse
//!   it (`EntryTooLarge`, or `DataOutOfBounds` first for stored/XOR entries, which read
//!   `unpacked_size` bytes from the file) with no more than the entry table allocated.
//! * With no limits at all, streaming it through `Library::unpacker` and a 64 KiB buffer
//!   ends in a decode error after a few KiB of output, holding at most that buffer.
//! * The allocation-free path (`open_in_limited`, storage and buffer on the stack) makes
//!   no allocation at all.

use ngi_core::Method;
use ngi_core::codec::{Decoder, Status};
use ngi_core::error::DecodeError;
use ngi_core::limits::{LimitError, Limits};
use ngi_core::rsli::{self, Library, OpenOptions, RsliError};
use ngi_tests::alloc_count::{Counting, Usage, allocations_in, refusing_above, usage_in};
use ngi_tests::hostile::{FOUR_GIB_FILE_LEN, four_gib_claim};
use std::hint::black_box;

#[global_allocator]
static GLOBAL: Counting = Counting;

const CLAIM: u32 = u32::MAX;
const CHUNK: usize = 64 * 1024;

#[test]
fn the_counter_sees_bytes() {
    let usage = usage_in(|| drop(black_box(vec![1u8; 100_000])));
    assert!(
        usage.allocations >= 1,
        "the counting allocator counts nothing"
    );
    assert!(usage.peak_bytes >= 100_000, "{usage:?}");
    let usage = usage_in(|| {
        let mut v: Vec<u8> = Vec::with_capacity(10);
        v.extend_from_slice(&[0; 5000]);
        black_box(&v);
    });
    assert!(usage.peak_bytes >= 5000, "realloc is followed: {usage:?}");
}

/// Packing where memory is short is an error of the entry, for every method: each
/// allocated its stream as a `Vec` that cannot fail, so `ngi add --method lzss` of a
/// 200 MiB file under 256 MiB of address space aborted. Allocations of more than 1 MiB
/// are refused here; 4 MiB of text needs more for any method's stream, and 64 KiB packs
/// as before.
#[test]
fn packing_where_memory_is_short_is_an_error() {
    use ngi_core::codec::{PackError, PackOptions, pack, unpack_into};
    let options = PackOptions::default();
    let big = ngi_tests::corpus::text(4 << 20);
    let small = ngi_tests::corpus::text(64 << 10);
    for method in Method::ALL {
        let (refused, packed) = refusing_above(1 << 20, || {
            (
                pack(method, 7, &big, &options),
                pack(method, 7, &small, &options),
            )
        });
        assert_eq!(
            refused,
            Err(PackError::OutOfMemory { method }),
            "{method:?}"
        );
        let packed = packed.unwrap();
        let mut out = vec![0u8; small.len()];
        assert_eq!(unpack_into(method, 7, &packed, &mut out), Ok(packed.len()));
        assert!(out == small, "{method:?}");
        // The entry's error, in a builder.
        let mut builder = rsli::Builder::new();
        let e = refusing_above(1 << 20, || builder.add(b"BIG", method, &big));
        assert_eq!(e, Err(rsli::BuildError::OutOfMemory { entry: 0, method }));
        assert!(
            e.unwrap_err()
                .to_string()
                .contains("more memory than there is")
        );
    }
}

#[test]
fn refused_under_the_default_limits_without_allocating_it() {
    let limits = Limits::DEFAULT;
    let too_large = RsliError::Limit {
        error: LimitError::EntryTooLarge {
            entry: 0,
            size: CLAIM.into(),
            limit: limits.max_entry_size,
        },
        offset: 32 + 20,
    };
    for method in Method::ALL {
        let file = four_gib_claim(method);
        assert_eq!(file.len(), FOUR_GIB_FILE_LEN);
        let mut results = None;
        let usage = usage_in(|| {
            let library = Library::open_with(&file, OpenOptions::DEFAULT.with_limits(limits))
                .expect("the header and table are valid");
            results = Some((
                library.check_limits(0, &limits),
                library.unpack_to_vec(0, &limits),
            ));
        });
        let (checked, unpacked) = results.unwrap();
        assert_eq!(checked, Err(too_large), "{method}");
        let want = match method {
            // The engine reads unpacked_size bytes of a stored/XOR entry: past the end.
            Method::Stored | Method::Xor => RsliError::DataOutOfBounds {
                entry: 0,
                offset: 64,
                size: CLAIM,
                file_len: FOUR_GIB_FILE_LEN as u64,
            },
            _ => too_large,
        };
        assert_eq!(unpacked, Err(want), "{method}");
        println!("{method:>9}: refused, {usage:?}");
        // The one Vec of entries (36 bytes) is all; 4 KiB leaves room for nothing else.
        assert!(
            usage.peak_bytes <= 4096 && usage.allocations <= 4,
            "{method}: {usage:?}"
        );
    }
}

#[test]
fn streamed_without_limits_in_bounded_memory() {
    for method in [
        Method::Lzss,
        Method::XorLzss,
        Method::Lzhuf,
        Method::XorLzhuf,
        Method::Deflate,
    ] {
        let file = four_gib_claim(method);
        let mut outcome = None;
        let usage = usage_in(|| {
            let library = Library::open_with(&file, OpenOptions::DEFAULT.with_limits(Limits::NONE))
                .expect("the header and table are valid");
            let packed = library.packed(0).expect("36 bytes in the file");
            let mut decoder = library.unpacker(0).expect("a method");
            let mut buffer = vec![0u8; CHUNK];
            let mut used = 0usize;
            let error = loop {
                match decoder.decode(&packed[used..], &mut buffer, true) {
                    Ok(p) => {
                        used += p.consumed;
                        assert_ne!(p.status, Status::Done, "{method}: 4 GiB from 36 bytes");
                    }
                    Err(e) => break e,
                }
            };
            outcome = Some((error, decoder.produced_total()));
        });
        let (error, produced) = outcome.unwrap();
        println!("{method:>9}: {error} after {produced} bytes, {usage:?}");
        assert!(
            matches!(
                error,
                DecodeError::Truncated { expected, .. } if expected == u64::from(CLAIM)
            ) || matches!(error, DecodeError::Inflate { .. }),
            "{method}: {error:?}"
        );
        assert!(produced < 1 << 20, "{method}: {produced}");
        // The 64 KiB buffer and the entry table, nothing sized from the claim.
        let bound = Usage {
            allocations: 4,
            peak_bytes: CHUNK as u64 + 4096,
        };
        assert!(
            usage.peak_bytes <= bound.peak_bytes && usage.allocations <= bound.allocations,
            "{method}: {usage:?}"
        );
    }
}

#[test]
fn the_allocation_free_path_allocates_nothing() {
    let files: Vec<(Method, Vec<u8>)> = Method::ALL
        .iter()
        .map(|&m| (m, four_gib_claim(m)))
        .collect();
    let mut refused = 0;
    let usage = usage_in(|| {
        for (method, file) in &files {
            let mut storage = [rsli::Entry::default(); 2];
            let library = Library::open_in(file, &mut storage, OpenOptions::DEFAULT)
                .expect("the header and table are valid");
            if library.check_limits(0, &Limits::DEFAULT).is_err() {
                refused += 1;
            }
            // Bounded anyway: a stack buffer, a stack decoder, under no limit at all.
            if let (Ok(packed), Ok(mut decoder)) = (library.packed(0), library.unpacker(0)) {
                let mut buffer = [0u8; 4096];
                let mut used = 0;
                while let Ok(p) = decoder.decode(&packed[used..], &mut buffer, true) {
                    used += p.consumed;
                    assert_ne!(p.status, Status::Done, "{method}");
                }
            }
        }
    });
    assert_eq!(refused, Method::ALL.len());
    assert_eq!(
        usage,
        Usage {
            allocations: 0,
            peak_bytes: 0
        }
    );
}

/// ngi-tokio's stream asked for the whole entry as one chunk (`usize::MAX`) reserves as
/// bytes arrive, not the 4 GiB the entry claims (it once reserved the claim up front),
/// and ends in the decoder's error.
#[test]
fn a_whole_entry_chunk_of_ngi_tokio_does_not_reserve_the_claim() {
    use futures::StreamExt;
    for method in [Method::Lzss, Method::Lzhuf, Method::Deflate] {
        let bytes = bytes::Bytes::from(four_gib_claim(method));
        let options = ngi_core::OpenOptions::DEFAULT.with_limits(Limits::NONE);
        let archive = ngi_tokio::Archive::from_bytes_with(bytes, options).unwrap();
        let mut chunks = Vec::new();
        let usage = usage_in(|| {
            let stream = archive.stream(0).unwrap().with_chunk_len(usize::MAX);
            chunks = futures::executor::block_on(stream.collect::<Vec<_>>());
        });
        assert!(
            chunks.last().is_some_and(|c| c.is_err()),
            "{method}: ends in an error"
        );
        assert!(usage.peak_bytes < 4 << 20, "{method}: {usage:?}");
    }
}

/// LZSS reserves its stream's worst case up front (every byte a literal, and a flag byte
/// for every eight or fewer): an incompressible input whose length is not a multiple of 8
/// allocates no more than a compressible one of the same length (its stream never grows,
/// which would be an allocation that cannot fail).
#[test]
fn lzss_reserves_its_worst_case_up_front() {
    use ngi_core::codec::{PackOptions, pack};
    let mut rng = ngi_tests::corpus::Rng::new(0x1255);
    for len in [1usize, 7, 9, 15, 100, 333] {
        let noise: Vec<u8> = (0..len).map(|_| rng.below(256) as u8).collect();
        let zeros = vec![0u8; len];
        let options = PackOptions::default();
        let mut packed = None;
        let a = allocations_in(|| packed = Some(pack(Method::Lzss, 0, &noise, &options)));
        let packed = packed.unwrap().unwrap();
        assert_eq!(packed.len(), len + len.div_ceil(8), "{len}: all literals");
        let b = allocations_in(|| drop(pack(Method::Lzss, 0, &zeros, &options)));
        assert_eq!(a, b, "{len}: the worst case was reserved");
    }
}
