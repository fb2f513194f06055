"""Adversarial model output through `guard_stream`: seconds per MB and traced peak memory per
family and dialect, each beside the clean-prose floor of the same dialect in the same run.

Each family (``_adversarial.py``) is built to ``--size`` characters with the dialect's own
markers and calls and fed as raw wire-text chunks of 4,096 characters with ``on_leak="report"``
(everything passes, every verdict is recorded). Time is the best of ``--runs`` CPU-time runs;
the peak is the tracemalloc peak of one more run (tracing slows it, so it is not timed). The
target of issue 33 is under 1.5 s per MB and under 16 MB traced for 1 MB, on every row.

    python benchmarks/bench_adversarial.py [--size 1000000] [--runs 1] [--dialects harmony,...]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from _adversarial import SCANNER_DIALECTS, STREAM_FAMILIES, build, chunked
from _common import add_quick, machine, print_table, quick_note, ratio

from guard import guard_stream


def run(dialect: str, chunks: list[str]) -> int:
    stream = guard_stream(iter(chunks), dialect=dialect, on_leak="report", raw=True)
    n = 0
    for piece in stream:
        n += len(piece)
    return n


def cpu_seconds(dialect: str, chunks: list[str], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        run(dialect, chunks)
        best = min(best, time.process_time() - t0)
    return best


def traced_peak(dialect: str, chunks: list[str]) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        run(dialect, chunks)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per family")
    parser.add_argument("--runs", type=int, default=1, help="best of this many timed runs")
    parser.add_argument(
        "--dialects", default="harmony", help="comma-separated dialects, or 'all' (with scanners)"
    )
    parser.add_argument("--families", default="", help="comma-separated subset of the families")
    add_quick(parser)
    args = parser.parse_args()
    size = 4_096 if args.quick else args.size
    runs = 1 if args.quick else args.runs
    dialects = SCANNER_DIALECTS if args.dialects == "all" else tuple(args.dialects.split(","))
    families = tuple(args.families.split(",")) if args.families else STREAM_FAMILIES
    if args.quick:
        dialects = dialects[:1]
    mb = size / 1e6
    run("harmony", ["warm up <|end|> `x`"])  # plans and patterns are built once per process
    for dialect in dialects:
        floor_chunks = chunked(build("clean prose", dialect, size))
        floor = cpu_seconds(dialect, floor_chunks, runs) / mb
        floor_peak = traced_peak(dialect, floor_chunks) / 1e6 / mb
        rows: list[list[object]] = [
            ["clean prose (floor)", f"{floor:.2f}", "1.00x", f"{floor_peak:.1f}", "1.00x"]
        ]
        for family in families:
            chunks = chunked(build(family, dialect, size))
            seconds = cpu_seconds(dialect, chunks, runs) / mb
            peak = traced_peak(dialect, chunks) / 1e6 / mb
            rows.append(
                [
                    family,
                    f"{seconds:.2f}",
                    ratio(seconds, floor),
                    f"{peak:.1f}",
                    ratio(peak, floor_peak),
                ]
            )
        print_table(
            f"guard_stream, raw 4,096-char chunks, {dialect}, on_leak=report, "
            f"{size:,} chars per family ({machine()}){quick_note(args.quick)}",
            ["input", "CPU s per MB", "time ratio", "traced peak MB per MB", "peak ratio"],
            rows,
        )


if __name__ == "__main__":
    main()
