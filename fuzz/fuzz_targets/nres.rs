//! NRes: open arbitrary bytes (normal and raw mode), look every entry up by its own name,
//! read every payload, run the streaming directory decoder. Nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ngi_core::nres::{Archive, DirectoryDecoder};

fuzz_target!(|data: &[u8]| {
    if let Ok(archive) = Archive::open(data) {
        for entry in archive.entries() {
            let _ = archive.find(entry.name());
            let _ = archive.payload(entry.index as usize);
        }
        let _ = archive.problems().count();
        if let Some(header) = archive.header() {
            if let Ok(mut decoder) = DirectoryDecoder::new(&header) {
                let start = archive.directory_offset() as usize;
                let mut rest = data.get(start..).unwrap_or_default();
                while let Some(record) = decoder.next_record(&mut rest) {
                    let _ = record.entry().name();
                }
            }
        }
    }
    if let Ok(raw) = Archive::open_raw(data) {
        assert_eq!(raw.payload(0).map(<[u8]>::len), Ok(data.len()));
    }
});
