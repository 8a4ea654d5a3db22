//! RsLi: open arbitrary bytes with and without the media trailer, look every entry up,
//! and unpack every entry whose declared size is small. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ngi_core::rsli::{Library, OpenOptions};

fuzz_target!(|data: &[u8]| {
    for media_trailer in [false, true] {
        let Ok(lib) = Library::open(data, OpenOptions { media_trailer }) else { continue };
        let _ = lib.problems().count();
        for (i, entry) in lib.entries().iter().enumerate() {
            let _ = lib.find(entry.name());
            let _ = lib.packed(i);
            if entry.unpacked_size <= 1 << 16 {
                let mut out = vec![0u8; entry.unpacked_size as usize];
                let _ = lib.unpack_into(i, &mut out);
            }
        }
    }
});
