#!/usr/bin/env python3
"""Markdown table of the ngi-tokio bench (benches/benches/tokio.rs) from criterion's results.

Reads criterion/tokio/<method>/<function>/<value>/new/estimates.json below the target
directory and prints, per method, each row's time and its speed as a ratio to the core's
one-shot decode from memory (above 1 = faster), plus stream() with 64 KiB chunks against
4 KiB chunks. Ratios are of one run: read them, not the absolute times.

    python3 benches/report_tokio.py [TARGET_DIR] [--stat median|mean|slope]

Python 3 standard library only.
"""

import argparse
import json
import os
from pathlib import Path

METHODS = ["stored", "xor", "lzss", "lzhuf", "deflate"]
ROWS = [
    ("core/one-shot", "core one-shot (memory)"),
    ("reader/file", "reader() file"),
    ("reader/file-pool", "reader() file, pool only"),
    ("reader/memory", "reader() memory"),
    ("stream-64k/file", "stream() 64 KiB file"),
    ("stream-4k/file", "stream() 4 KiB file"),
]
BASE = "core/one-shot"


def target_dir(arg):
    for candidate in [arg, os.environ.get("CARGO_TARGET_DIR"), "target"]:
        if candidate and (Path(candidate) / "criterion").is_dir():
            return Path(candidate)
    here = Path(__file__).resolve().parent.parent / "target"
    return here


def estimate(root, method, row, stat):
    path = root / "criterion" / f"tokio_{method}" / row / "new" / "estimates.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text())
    entry = data.get(stat) or data["mean"]
    return entry["point_estimate"]


def show(ns):
    return f"{ns / 1000:.0f} µs" if ns < 1e6 else f"{ns / 1e6:.2f} ms"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("target", nargs="?")
    parser.add_argument("--stat", default="median", choices=["median", "mean", "slope"])
    args = parser.parse_args()
    root = target_dir(args.target) 
    header = ["method"] + [title for _, title in ROWS] + ["64 KiB / 4 KiB chunks"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for method in METHODS:
        times = {row: estimate(root, method, row, args.stat) for row, _ in ROWS}
        base = times.get(BASE)
        if base is None:
            continue
        cells = [method]
        for row, _ in ROWS:
            t = times[row]
            if t is None:
                cells.append("–")
            elif row == BASE:
                cells.append(show(t))
            else:
                cells.append(f"{show(t)} ({base / t:.2f}x)")
        big, small = times.get("stream-64k/file"), times.get("stream-4k/file")
        cells.append(f"{small / big:.2f}x" if big and small else "–")
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
