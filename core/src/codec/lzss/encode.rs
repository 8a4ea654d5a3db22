//! Okumura's `LZSS.C` encoder (1989), ported statement for statement so that its output is
//! byte for byte the C program's: the binary-search-tree match finder over the 4096-byte
//! ring (`InsertNode` / `DeleteNode`), the longest match with ties resolved as the tree
//! walk resolves them, `F = 18`, `THRESHOLD = 2`, and `LZSS.C`'s ring prefill (`0x20` in
//! the first `N - F` bytes, zero in the rest, as its zero-initialised globals are).
//!
//! The tree arrays use `u16` indices (`NIL = N = 4096` fits); everything is allocated on
//! the heap, about 29 KiB per call.

use super::{MAX_MATCH, PREFILL, RING_SIZE};
use alloc::vec;
use alloc::vec::Vec;

const N: usize = RING_SIZE;
const F: usize = MAX_MATCH;
const THRESHOLD: usize = 2;
/// "Not used" / "no child"; also the index of a scratch slot in `dad` and `lson`.
const NIL: u16 = N as u16;

/// Compresses `data` into an LZSS stream exactly as `LZSS.C`'s `Encode()` does. The
/// stream decodes to `data` with [`decode_into`](super::decode_into) given
/// `data.len()` bytes of room (the format has no end marker: the length is the entry's).
///
/// ```
/// use ngi_core::codec::lzss;
///
/// let data = b"hello hello hello world";
/// let packed = lzss::encode(data);
/// let mut out = vec![0u8; data.len()];
/// assert_eq!(lzss::decode_into(&packed, None, &mut out), Ok(packed.len()));
/// assert_eq!(out, data);
/// ```
pub fn encode(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 8 + 1);
    let mut input = data.iter().copied();
    let mut t = Tree::new();
    // code_buf[1..17] holds up to eight units; code_buf[0] their flags, 1 = literal.
    let mut code_buf = [0u8; 17];
    let mut code_buf_ptr = 1;
    let mut mask = 1u8;
    let mut s = 0;
    let mut r = N - F;
    t.text_buf[s..r].fill(PREFILL);
    let mut len = 0;
    while len < F {
        let Some(c) = input.next() else { break };
        t.text_buf[r + len] = c;
        len += 1;
    }
    if len == 0 {
        return out;
    }
    // The F strings of prefill before the text, then the text's first.
    for i in 1..=F {
        t.insert_node(r - i);
    }
    t.insert_node(r);
    loop {
        if t.match_length > len {
            t.match_length = len;
        }
        if t.match_length <= THRESHOLD {
            t.match_length = 1;
            code_buf[0] |= mask;
            code_buf[code_buf_ptr] = t.text_buf[r];
            code_buf_ptr += 1;
        } else {
            let pos = t.match_position;
            code_buf[code_buf_ptr] = pos as u8;
            code_buf[code_buf_ptr + 1] =
                ((pos >> 4) & 0xF0) as u8 | (t.match_length - (THRESHOLD + 1)) as u8;
            code_buf_ptr += 2;
        }
        mask <<= 1;
        if mask == 0 {
            out.extend_from_slice(&code_buf[..code_buf_ptr]);
            code_buf[0] = 0;
            code_buf_ptr = 1;
            mask = 1;
        }
        let last_match_length = t.match_length;
        let mut i = 0;
        while i < last_match_length {
            let Some(c) = input.next() else { break };
            t.delete_node(s);
            t.text_buf[s] = c;
            if s < F - 1 {
                t.text_buf[s + N] = c;
            }
            s = (s + 1) & (N - 1);
            r = (r + 1) & (N - 1);
            t.insert_node(r);
            i += 1;
        }
        // After the end of the text: nothing to read, but the buffer may not be empty.
        while i < last_match_length {
            i += 1;
            t.delete_node(s);
            s = (s + 1) & (N - 1);
            r = (r + 1) & (N - 1);
            len -= 1;
            if len != 0 {
                t.insert_node(r);
            }
        }
        if len == 0 {
            break;
        }
    }
    if code_buf_ptr > 1 {
        out.extend_from_slice(&code_buf[..code_buf_ptr]);
    }
    out
}

/// `LZSS.C`'s globals: the ring (with `F - 1` bytes mirrored past its end for comparing),
/// the 256 binary search trees over its strings, and the last match found.
struct Tree {
    text_buf: Vec<u8>,
    /// Left children, `N + 1` (slot `N` is scratch for writes through `NIL`).
    lson: Vec<u16>,
    /// Right children; `rson[N + 1 + c]` is the root of the tree of strings starting `c`.
    rson: Vec<u16>,
    /// Parents, `N + 1` (slot `N` is scratch).
    dad: Vec<u16>,
    match_position: usize,
    match_length: usize,
}

impl Tree {
    fn new() -> Tree {
        let mut rson = vec![0u16; N + 257];
        rson[N + 1..].fill(NIL);
        Tree {
            text_buf: vec![0u8; N + F - 1],
            lson: vec![0u16; N + 1],
            rson,
            dad: vec![NIL; N + 1],
            match_position: 0,
            match_length: 0,
        }
    }

    /// `InsertNode(r)`: inserts the string `text_buf[r..r + F]` into its tree and leaves the
    /// longest match in `match_position` / `match_length`. On a match of length `F` the old
    /// node is replaced by the new one (it will be deleted sooner).
    fn insert_node(&mut self, r: usize) {
        let mut cmp: i32 = 1;
        let mut p = N + 1 + usize::from(self.text_buf[r]);
        self.rson[r] = NIL;
        self.lson[r] = NIL;
        self.match_length = 0;
        loop {
            if cmp >= 0 {
                if self.rson[p] != NIL {
                    p = usize::from(self.rson[p]);
                } else {
                    self.rson[p] = r as u16;
                    self.dad[r] = p as u16;
                    return;
                }
            } else if self.lson[p] != NIL {
                p = usize::from(self.lson[p]);
            } else {
                self.lson[p] = r as u16;
                self.dad[r] = p as u16;
                return;
            }
            let mut i = 1;
            while i < F {
                cmp = i32::from(self.text_buf[r + i]) - i32::from(self.text_buf[p + i]);
                if cmp != 0 {
                    break;
                }
                i += 1;
            }
            if i > self.match_length {
                self.match_position = p;
                self.match_length = i;
                if i >= F {
                    break;
                }
            }
        }
        // Replace node p by node r.
        let (dad_p, lson_p, rson_p) = (self.dad[p], self.lson[p], self.rson[p]);
        self.dad[r] = dad_p;
        self.lson[r] = lson_p;
        self.rson[r] = rson_p;
        self.dad[usize::from(lson_p)] = r as u16;
        self.dad[usize::from(rson_p)] = r as u16;
        self.relink(usize::from(dad_p), p, r as u16);
        self.dad[p] = NIL;
    }

    /// `DeleteNode(p)`: removes node `p` from its tree, if it is in one.
    fn delete_node(&mut self, p: usize) {
        if self.dad[p] == NIL {
            return;
        }
        let q = if self.rson[p] == NIL {
            self.lson[p]
        } else if self.lson[p] == NIL {
            self.rson[p]
        } else {
            let mut q = self.lson[p];
            if self.rson[usize::from(q)] != NIL {
                loop {
                    q = self.rson[usize::from(q)];
                    if self.rson[usize::from(q)] == NIL {
                        break;
                    }
                }
                let (qu, dad_q, lson_q) = (
                    usize::from(q),
                    self.dad[usize::from(q)],
                    self.lson[usize::from(q)],
                );
                self.rson[usize::from(dad_q)] = lson_q;
                self.dad[usize::from(lson_q)] = dad_q;
                self.lson[qu] = self.lson[p];
                self.dad[usize::from(self.lson[p])] = q;
            }
            self.rson[usize::from(q)] = self.rson[p];
            self.dad[usize::from(self.rson[p])] = q;
            q
        };
        self.dad[usize::from(q)] = self.dad[p];
        self.relink(usize::from(self.dad[p]), p, q);
        self.dad[p] = NIL;
    }

    /// Makes `child` take `old`'s place under `parent` (a root is always a right child).
    fn relink(&mut self, parent: usize, old: usize, child: u16) {
        if usize::from(self.rson[parent]) == old {
            self.rson[parent] = child;
        } else {
            self.lson[parent] = child;
        }
    }
}
