//! A minimal LHA archive writer and reader (level-0 headers), so that LZHUF streams can be
//! handed to and taken from the LHA tools: an LHA `-lh1-` member is exactly a raw LZHUF
//! stream, with the original size and CRC-16 in the header.
//!
//! Level-0 header, all integers little-endian:
//!
//! | offset | size | field |
//! |---:|---:|---|
//! | 0 | 1 | header size: the bytes from offset 2 to the end of the header |
//! | 1 | 1 | checksum: the sum of those bytes, mod 256 |
//! | 2 | 5 | method, e.g. `-lh1-` |
//! | 7 | 4 | packed size |
//! | 11 | 4 | original size |
//! | 15 | 4 | MS-DOS time and date |
//! | 19 | 1 | attribute |
//! | 20 | 1 | header level: 0 |
//! | 21 | 1 | name length `n` |
//! | 22 | n | name |
//! | 22 + n | 2 | CRC-16 of the original |
//!
//! The packed data follows; a single 0 byte where the next header would start ends the
//! archive.

use std::path::Path;
use std::process::Command;

/// The CRC-16 of LHA (and ARC): polynomial 0x8005 reflected (0xA001), initial value 0.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &byte in data {
        crc ^= u16::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xA001
            } else {
                crc >> 1
            };
        }
    }
    crc
}

/// One member of an archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The 5-byte method id, e.g. `*b"-lh1-"`.
    pub method: [u8; 5],
    /// The stored file name.
    pub name: Vec<u8>,
    /// The original (unpacked) size from the header.
    pub original_size: u32,
    /// The CRC-16 of the original from the header.
    pub crc: u16,
    /// The packed bytes.
    pub packed: Vec<u8>,
}

/// A 1 January 2000, 00:00 MS-DOS timestamp (time in the low half, date in the high half).
const DOS_TIME: u32 = ((2000 - 1980) << 25 | 1 << 21 | 1 << 16) as u32;

/// An archive holding one member of method `method` named `name`: `packed` is its packed
/// data, `original` the bytes it unpacks to (for the size and the CRC).
pub fn write_level0(name: &[u8], method: &[u8; 5], packed: &[u8], original: &[u8]) -> Vec<u8> {
    assert!(name.len() <= 230, "name too long for a level-0 header");
    let mut body = Vec::with_capacity(22 + name.len() + packed.len());
    body.extend_from_slice(method);
    body.extend_from_slice(&u32::try_from(packed.len()).expect("size").to_le_bytes());
    body.extend_from_slice(&u32::try_from(original.len()).expect("size").to_le_bytes());
    body.extend_from_slice(&DOS_TIME.to_le_bytes());
    body.push(0x20); // attribute: archive
    body.push(0); // header level
    body.push(name.len() as u8);
    body.extend_from_slice(name);
    body.extend_from_slice(&crc16(original).to_le_bytes());
    let checksum = body.iter().fold(0u8, |sum, &b| sum.wrapping_add(b));
    let mut archive = vec![body.len() as u8, checksum];
    archive.extend_from_slice(&body);
    archive.extend_from_slice(packed);
    archive.push(0);
    archive
}

/// Reads every member of a level-0 archive, checking each header's checksum.
pub fn read_level0(archive: &[u8]) -> Result<Vec<Member>, String> {
    let mut members = Vec::new();
    let mut at = 0;
    loop {
        let size = usize::from(
            *archive
                .get(at)
                .ok_or("archive ends without its end marker")?,
        );
        if size == 0 {
            return Ok(members);
        }
        let header = archive
            .get(at + 2..at + 2 + size)
            .ok_or(format!("header at {at} runs past the end"))?;
        let checksum = header.iter().fold(0u8, |sum, &b| sum.wrapping_add(b));
        if checksum != archive[at + 1] {
            return Err(format!(
                "header at {at}: checksum {checksum:#04x} != {:#04x}",
                archive[at + 1]
            ));
        }
        if size < 22 || header[18] != 0 {
            return Err(format!("header at {at}: not a level-0 header"));
        }
        let u32_at = |o: usize| u32::from_le_bytes(header[o..o + 4].try_into().expect("4 bytes"));
        let name_len = usize::from(header[19]);
        if 20 + name_len + 2 > size {
            return Err(format!("header at {at}: name runs past the header"));
        }
        let packed_len = u32_at(5) as usize;
        let data_at = at + 2 + size;
        let packed = archive
            .get(data_at..data_at + packed_len)
            .ok_or(format!("member at {at}: data runs past the end"))?;
        members.push(Member {
            method: header[..5].try_into().expect("5 bytes"),
            name: header[20..20 + name_len].to_vec(),
            original_size: u32_at(9),
            crc: u16::from_le_bytes([header[20 + name_len], header[21 + name_len]]),
            packed: packed.to_vec(),
        });
        at = data_at + packed_len;
    }
}

/// The LHA extractor of Debian's `lhasa` package, failing the test with what to install
/// when it is missing.
pub fn lhasa() -> &'static str {
    match Command::new("lhasa").output() {
        Ok(_) => "lhasa",
        Err(e) => panic!(
            "`lhasa` is needed to check LZHUF streams against an LHA decoder ({e}): \
             install the Debian package `lhasa` (scripts/test.sh does)"
        ),
    }
}

/// Extracts the one member of `archive` with `lhasa` in a fresh folder under `work`, and
/// returns its bytes. Fails the test when `lhasa` reports an error: extraction (unlike
/// printing) exits non-zero when the CRC-16 of what it decoded is not the header's.
pub fn lhasa_extract(work: &Path, tag: &str, archive: &[u8]) -> Vec<u8> {
    let dir = work.join(format!("lhasa-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("work folder");
    let file = dir.join("archive.lzh");
    std::fs::write(&file, archive).expect("write archive");
    let out_dir = dir.join("out");
    std::fs::create_dir_all(&out_dir).expect("out folder");
    let output = Command::new(lhasa())
        .arg(format!("-xfqw={}", out_dir.display()))
        .arg(&file)
        .output()
        .expect("run lhasa");
    // lhasa may change the name's case: take the one file it wrote.
    let written: Vec<_> = std::fs::read_dir(&out_dir)
        .expect("out folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let extracted = match &written[..] {
        [one] => std::fs::read(one).expect("read extracted"),
        _ => panic!(
            "lhasa extracted {} files for {tag}; status {}, stdout {:?}, stderr {:?}",
            written.len(),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ),
    };
    assert!(
        output.status.success(),
        "lhasa failed on {tag}: {}, {:?}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
    extracted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_check_value() {
        // The standard check value of CRC-16/ARC.
        assert_eq!(crc16(b"123456789"), 0xBB3D);
    }

    #[test]
    fn level0_round_trip() {
        let archive = write_level0(b"A.TXT", b"-lh0-", b"hello", b"hello");
        assert_eq!(archive[0] as usize, 22 + 5);
        let members = read_level0(&archive).unwrap();
        assert_eq!(
            members,
            vec![Member {
                method: *b"-lh0-",
                name: b"A.TXT".to_vec(),
                original_size: 5,
                crc: crc16(b"hello"),
                packed: b"hello".to_vec(),
            }]
        );
    }
}
