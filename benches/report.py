#!/usr/bin/env python3
"""Markdown table of the Deflate bench (benches/benches/inflate.rs) from criterion's results.

Reads every criterion/<group>/<decoder>/<mode>/new/{benchmark,estimates}.json below the
target directory whose group is `inflate/<input>/level<N>` and prints, per input and level,
each decoder's time with its speed as a ratio to miniz_oxide one-shot (above 1 = faster),
ngi streaming / ngi one-shot, and then the geometric means of the main ratios over all
(input, level) rows.

    python3 benches/report.py [TARGET_DIR] [--stat median|mean|slope]

TARGET_DIR defaults to $CARGO_TARGET_DIR, else ./target, else the workspace's target/.
Python 3 standard library only.
"""

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path

# (criterion function_id/value_str, column title), in the bench's order.
DECODERS = [
    ("miniz_oxide/one-shot", "miniz_oxide one-shot"),
    ("miniz_oxide/streaming", "miniz_oxide streaming"),
    ("zlib-rs/one-shot", "zlib-rs one-shot"),
    ("libdeflate/one-shot", "libdeflate one-shot"),
    ("ngi/one-shot", "ngi one-shot"),
    ("ngi-round1/one-shot", "ngi round 1 one-shot"),
    ("ngi/streaming", "ngi streaming"),
    ("ngi/in-place", "ngi in place"),
]
BASE = "miniz_oxide/one-shot"
INPUT_ORDER = ["text", "binary", "perl", "gz"]
# (numerator, denominator, label): speed of the first relative to the second.
MEANS = [
    ("zlib-rs/one-shot", BASE, "zlib-rs / miniz_oxide one-shot"),
    ("libdeflate/one-shot", BASE, "libdeflate / miniz_oxide one-shot"),
    ("ngi/one-shot", BASE, "ngi one-shot / miniz_oxide one-shot"),
    ("ngi/one-shot", "zlib-rs/one-shot", "ngi one-shot / zlib-rs one-shot"),
    ("ngi/one-shot", "libdeflate/one-shot", "ngi one-shot / libdeflate one-shot"),
    ("ngi/one-shot", "ngi-round1/one-shot", "ngi one-shot / ngi round 1 one-shot"),
    ("ngi/streaming", "ngi/one-shot", "ngi streaming / ngi one-shot"),
    ("ngi/in-place", "ngi/one-shot", "ngi in place / ngi one-shot"),
    ("miniz_oxide/streaming", BASE, "miniz_oxide streaming / miniz_oxide one-shot"),
]
GROUP = re.compile(r"^inflate/(?P<input>[^/]+)/level(?P<level>\d+)$")


def target_dir(arg):
    if arg:
        return Path(arg)
    if os.environ.get("CARGO_TARGET_DIR"):
        return Path(os.environ["CARGO_TARGET_DIR"])
    here = Path("target")
    if (here / "criterion").is_dir():
        return here
    return Path(__file__).resolve().parent.parent / "target"


def load(criterion, stat):
    """{(input, level): {decoder: nanoseconds}} from criterion's `new` results."""
    rows = {}
    for bench in sorted(criterion.glob("**/new/benchmark.json")):
        meta = json.loads(bench.read_text())
        m = GROUP.match(meta.get("group_id", ""))
        if not m:
            continue
        estimates = json.loads((bench.parent / "estimates.json").read_text())
        if estimates.get(stat) is None:
            sys.exit(f"{bench.parent}/estimates.json has no '{stat}' estimate")
        decoder = f"{meta['function_id']}/{meta['value_str']}"
        key = (m["input"], int(m["level"]))
        rows.setdefault(key, {})[decoder] = estimates[stat]["point_estimate"]
    return rows


def fmt_time(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            value = ns / scale
            break
    else:
        unit, value = "ns", ns
    digits = 0 if value >= 100 else 1 if value >= 10 else 2
    return f"{value:.{digits}f} {unit}"


def speed(times, num, den):
    """How many times faster `num` is than `den`, or None when either is missing."""
    if num in times and den in times:
        return times[den] / times[num]
    return None


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def sort_key(key):
    name, level = key
    rank = INPUT_ORDER.index(name) if name in INPUT_ORDER else len(INPUT_ORDER)
    return (rank, name, level)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target_dir", nargs="?", help="cargo's target directory")
    parser.add_argument("--stat", default="median", choices=["median", "mean", "slope"])
    args = parser.parse_args()
    criterion = target_dir(args.target_dir) / "criterion"
    if not criterion.is_dir():
        sys.exit(f"{criterion} does not exist: run the inflate bench first")
    rows = load(criterion, args.stat)
    if not rows:
        sys.exit(f"no inflate/* results below {criterion}")

    cols = [title for _, title in DECODERS] + [
        "ngi streaming / one-shot",
        "ngi in place / one-shot",
    ]
    print(f"Criterion {args.stat} per call; × = speed relative to miniz_oxide one-shot.")
    print()
    print("| input | level | " + " | ".join(cols) + " |")
    print("|---|---:|" + "---:|" * len(cols))
    for key in sorted(rows, key=sort_key):
        times = rows[key]
        cells = []
        for decoder, _ in DECODERS:
            if decoder not in times:
                cells.append("—")
                continue
            ratio = speed(times, decoder, BASE)
            tail = f" · {ratio:.2f}×" if ratio is not None else ""
            cells.append(fmt_time(times[decoder]) + tail)
        for form in ("ngi/streaming", "ngi/in-place"):
            s = speed(times, form, "ngi/one-shot")
            cells.append(f"{s:.2f}" if s is not None else "—")
        print(f"| {key[0]} | {key[1]} | " + " | ".join(cells) + " |")

    print()
    print("| geometric mean over all (input, level) rows | ratio | rows |")
    print("|---|---:|---:|")
    for num, den, label in MEANS:
        values = [v for t in rows.values() if (v := speed(t, num, den)) is not None]
        g = geomean(values)
        print(f"| {label} | {g:.2f} | {len(values)} |" if g else f"| {label} | — | 0 |")


if __name__ == "__main__":
    main()
