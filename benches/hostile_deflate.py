#!/usr/bin/env python3
"""An RsLi library of ENTRIES Deflate entries that all read one stream of MIB MiB of
empty fixed-Huffman blocks (4 blocks in 5 bytes, then an empty final block): each decodes
to nothing, so only the packed bytes a decoder reads measure the work.

    python3 benches/hostile_deflate.py ENTRIES MIB OUT.rsli
    time target/release/ngi verify OUT.rsli
"""
import struct
import sys
import zlib


def xor(data, key):
    """The RsLi table cipher (SPEC 2.3)."""
    lo, hi, out = key & 0xFF, key >> 8, bytearray()
    for b in data:
        lo = hi ^ ((lo << 1) & 0xFF)
        out.append(b ^ lo)
        hi = lo ^ (hi >> 1)
    return bytes(out)


def main():
    entries, mib, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    stream = bytes.fromhex("0208208000") * (mib * 1048576 // 5) + bytes.fromhex("0300")
    d = zlib.decompressobj(-15)
    assert d.decompress(stream) == b"" and d.eof, "zlib takes it as a whole, empty stream"
    start = 32 + 32 * entries
    header = (b"NL\0\1" + struct.pack("<h", entries) + bytes(8)
              + struct.pack("<H", 0xABBA) + bytes(4) + struct.pack("<I", 0) + bytes(8))
    table = b"".join(
        (b"E%05d" % i).ljust(16, b"\0")
        + struct.pack("<hhIII", 0x100, i, 0, start, len(stream))
        for i in range(entries))
    with open(out, "wb") as f:
        f.write(header + xor(table, 0) + stream)


if __name__ == "__main__":
    main()
