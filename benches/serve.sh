#!/usr/bin/env bash
# `ngi serve` under a real load generator (wrk, from Debian), in one run:
#  1. requests/s for a small entry, keep-alive, 64 connections;
#  2. MiB/s for one large Deflate entry over one connection, against `ngi cat` of the
#     same entry to /dev/null (hyperfine), so the HTTP path is a ratio to the codec's.
# Both programs share this machine's cores with the server: read the ratio, not the
# absolute figures. Usage: bash benches/serve.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
missing=()
command -v wrk >/dev/null 2>&1 || missing+=(wrk)
command -v hyperfine >/dev/null 2>&1 || missing+=(hyperfine)
if [ ${#missing[@]} -gt 0 ]; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${missing[@]}"
fi
cargo build --release --locked -q -p ngi-cli
ngi=$PWD/target/release/ngi
work=target/serve-bench
rm -rf "$work"
mkdir -p "$work/root"
# 64 MiB of word salad with numbers: Deflate packs it to about a third.
python3 - "$work/big.txt" <<'PY'
import random, sys
rng = random.Random(14)
words = "iron strategy parkan mesh texture sector robot factory energy base".split()
out, size = [], 0
while size < 64 << 20:
    w = rng.choice(words) + (" %d" % rng.randrange(1 << 20) if rng.random() < 0.2 else "")
    out.append(w); size += len(w) + 1
open(sys.argv[1], "w").write(" ".join(out)[: 64 << 20])
PY
cp samples/sample.rsli "$work/root/bench.rsli"
cp samples/sample.nres "$work/root/sample.nres"
"$ngi" add --method deflate --name BIG.TXT "$work/root/bench.rsli" "$work/big.txt"
"$ngi" list "$work/root/bench.rsli" | grep BIG.TXT

"$ngi" serve "$work/root" --listen 127.0.0.1:0 >"$work/stdout" 2>/dev/null &
server=$!
trap 'kill -TERM $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$work/stdout" ] && break; sleep 0.05; done
url=$(sed -n 's/^listening on //p' "$work/stdout")
echo "server at $url"

echo; echo "== small entry (164 bytes, stored), keep-alive, 64 connections, ${seconds}s"
wrk -t2 -c64 -d"${seconds}s" --latency "$url/sample.nres/readme.txt"
echo; echo "== small entry (4 784 bytes, Deflate), keep-alive, 64 connections, ${seconds}s"
wrk -t2 -c64 -d"${seconds}s" --latency "$url/bench.rsli/DEFLATE.TXT"
echo; echo "== one 64 MiB Deflate entry, one connection, ${seconds}s"
wrk -t1 -c1 -d"${seconds}s" "$url/bench.rsli/BIG.TXT"
echo; echo "== ngi cat of the same entry to /dev/null"
hyperfine -N --warmup 2 --runs 10 "$ngi cat $work/root/bench.rsli BIG.TXT --max-entry-size none" \
  --output null
