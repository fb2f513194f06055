"""Escape throughput (MB/s) on clean and dense text, beside `str.replace` of the seven core
Harmony spellings as the baseline, in one run.

    python benchmarks/bench_escape.py [--size 1000000]
"""

from __future__ import annotations

import argparse
import random

from _common import machine, prose, timeit

from guard import escape, unescape
from guard.dialects.harmony import CORE


def baseline(text: str) -> str:
    for spelling in CORE:
        text = text.replace(spelling, spelling.replace("|", "\\|"))
    return text


def dense(size: int, seed: int = 11) -> str:
    """Text with a reserved spelling about every 40 characters."""
    rng = random.Random(seed)
    base = prose(size, seed)
    pieces = []
    for i in range(0, len(base), 40):
        pieces.append(base[i : i + 40])
        pieces.append(rng.choice(CORE))
    return "".join(pieces)[:size]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per input")
    args = parser.parse_args()
    inputs = {
        "clean prose": prose(args.size),
        "clean, with | tables": prose(args.size).replace(", and ", " | "),
        "dense (spelling / 40 chars)": dense(args.size),
    }
    print(f"# escape throughput, {args.size:,} chars per input, {machine()}")
    print("| input | guard.escape MB/s | str.replace x7 MB/s | ratio (guard/baseline time) |")
    print("|---|---:|---:|---:|")
    for name, text in inputs.items():
        mb = len(text.encode()) / 1e6
        assert unescape(escape(text)) == text
        t_guard = timeit(lambda text=text: escape(text))
        t_base = timeit(lambda text=text: baseline(text))
        print(f"| {name} | {mb / t_guard:,.0f} | {mb / t_base:,.0f} | {t_guard / t_base:.2f} |")


if __name__ == "__main__":
    main()
