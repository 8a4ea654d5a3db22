//! Packed streams of every method over the conformance corpus, for the tests of the
//! readers: LZSS and LZHUF from ngi's LZSS.C/LZHUF.C-exact encoders (whose output the
//! conformance tests prove against pylzss, lhasa and jlha), Deflate from miniz_oxide,
//! XOR from the cipher, the keyed LZ methods as XOR over those.

use ngi_core::Method;
use ngi_core::codec::{self, PackOptions};

use crate::corpus;

/// The key the XOR methods are packed with.
pub const KEY: u16 = 0x5A17;

/// One packed stream and what it decodes to.
#[derive(Debug, Clone)]
pub struct Stream {
    /// The corpus sample and the method, for messages.
    pub name: String,
    /// The method.
    pub method: Method,
    /// Its key ([`KEY`]; ignored by the unkeyed methods).
    pub key: u16,
    /// The packed bytes, exactly the stream.
    pub packed: Vec<u8>,
    /// The decoded bytes.
    pub plain: Vec<u8>,
}

/// `data` packed with `method` under `key` by `ngi_core::codec::pack` (Deflate through
/// miniz_oxide at level 6, raw).
pub fn pack_keyed(method: Method, key: u16, data: &[u8]) -> Vec<u8> {
    let options = PackOptions::default().with_deflate_level(6);
    codec::pack(method, key, data, &options).expect("every method packs with `deflate`")
}

/// `data` packed with `method` under [`KEY`].
pub fn pack(method: Method, data: &[u8]) -> Vec<u8> {
    pack_keyed(method, KEY, data)
}

/// Every corpus sample of at most `max_len` bytes under every method.
pub fn streams(max_len: usize) -> Vec<Stream> {
    let mut out = Vec::new();
    for sample in corpus::corpus() {
        if sample.data.len() > max_len {
            continue;
        }
        for method in Method::ALL {
            out.push(Stream {
                name: format!("{} {method}", sample.name),
                method,
                key: KEY,
                packed: pack(method, &sample.data),
                plain: sample.data.clone(),
            });
        }
    }
    out
}
