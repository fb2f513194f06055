"""Escape throughput (MB/s) on clean and dense text, in one run beside two floors: seven
`str.replace` calls for the core Harmony spellings (the reference agent's approach) and one
`text.replace("|", "\\|")` (a single pass that escapes every bar, the least any escaper does).

    python benchmarks/bench_escape.py [--size 1000000] [--quick]
"""

from __future__ import annotations

import argparse
import random

from _common import Timer, add_quick, machine, mbps, print_table, prose, quick_note, ratio

from guard import escape, unescape
from guard.dialects.harmony import CORE


def baseline(text: str) -> str:
    for spelling in CORE:
        text = text.replace(spelling, spelling.replace("|", "\\|"))
    return text


def every_bar(text: str) -> str:
    return text.replace("|", "\\|")


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
    add_quick(parser)
    args = parser.parse_args()
    size = 20_000 if args.quick else args.size
    timer = Timer.make(args.quick)
    inputs = {
        "clean prose": prose(size),
        "clean, with | tables": prose(size).replace(", and ", " | "),
        "dense (spelling / 40 chars)": dense(size),
    }
    rows = []
    for name, text in inputs.items():
        mb = len(text.encode()) / 1e6
        assert unescape(escape(text)) == text
        t_guard = timer.median(lambda text=text: escape(text))
        t_base = timer.median(lambda text=text: baseline(text))
        t_bars = timer.median(lambda text=text: every_bar(text))
        rows.append(
            [
                name,
                mbps(mb, t_guard),
                mbps(mb, t_base),
                ratio(t_guard, t_base),
                mbps(mb, t_bars),
                ratio(t_guard, t_bars),
            ]
        )
    print_table(
        f"escape throughput, {size:,} chars per input, {machine()}{quick_note(args.quick)}",
        [
            "input",
            "guard.escape MB/s",
            "str.replace x7 MB/s",
            "time ratio vs replace x7",
            "replace('|') MB/s",
            "time ratio vs replace('|')",
        ],
        rows,
    )


if __name__ == "__main__":
    main()
