#!/usr/bin/env bash
# `ngi pack` of many small entries: an NRes of N entries is unpacked, N new files are
# listed in the manifest before the old entries, and the folder is packed by each binary
# given, in turn, ROUNDS times (elapsed seconds and peak memory from /usr/bin/time). The
# archives the binaries write must be the same bytes. Read the figures of one run side
# by side, not against another run's.
# Usage: bash benches/pack_many.sh N ROUNDS NGI [NGI...]
set -euo pipefail
n=$1 rounds=$2
shift 2
work=${TMPDIR:-/tmp}/ngi-pack-many
rm -rf "$work"
mkdir -p "$work"
python3 - "$n" "$work/old.nres" <<'PY'
import struct, sys
n, path = int(sys.argv[1]), sys.argv[2]
names = [b"old%07d.bin" % i for i in range(n)]
data, records, offset = bytearray(), [], 16
for i in range(n):
    payload = b"payload %d" % i
    records.append((payload, offset))
    data += payload + b"\0" * (-len(payload) % 8)
    offset += len(payload) + (-len(payload) % 8)
order = sorted(range(n), key=lambda i: names[i].lower())
directory = bytearray()
for i, (payload, at) in enumerate(records):
    directory += struct.pack("<IIIII", 0, 0, 0, len(payload), 0)
    directory += names[i].ljust(36, b"\0") + struct.pack("<II", at, order[i])
total = 16 + len(data) + len(directory)
with open(path, "wb") as f:
    f.write(b"NRes" + struct.pack("<III", 0x100, n, total) + data + directory)
PY
"$1" unpack "$work/old.nres" -o "$work/d" >/dev/null
python3 - "$n" "$work/d" <<'PY'
import os, sys
n, folder = int(sys.argv[1]), sys.argv[2]
manifest = open(os.path.join(folder, "ngi.toml")).read()
first = manifest.index("[[entry]]")
new = []
for k in range(n):
    name = "new%07d.bin" % k
    with open(os.path.join(folder, name), "wb") as f:
        f.write(b"new %d" % k)
    new.append('[[entry]]\nfile = "%s"\nname = "%s"\n\n' % (name, name))
open(os.path.join(folder, "ngi.toml"), "w").write(manifest[:first] + "".join(new) + manifest[first:])
PY
for round in $(seq "$rounds"); do
  k=0
  for ngi in "$@"; do
    /usr/bin/time -f "round $round: $ngi: %e s, %M KB" \
      "$ngi" pack "$work/d" -o "$work/out$k.nres" --force >/dev/null
    k=$((k + 1))
  done
done
k=0
for ngi in "$@"; do
  cmp "$work/out0.nres" "$work/out$k.nres"
  k=$((k + 1))
done
echo "the archives written are the same bytes"
