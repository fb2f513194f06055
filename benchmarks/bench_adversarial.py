"""Adversarial model output through `guard_stream`: seconds per MB and traced peak memory per
family and dialect, each beside the clean-prose floor of the same dialect in the same run.

Each family (``_adversarial.py``) is built to ``--size`` characters with the dialect's own
markers and calls and fed as raw wire-text chunks of 4,096 characters with ``on_leak="report"``
(everything passes, every verdict is recorded). Time is the best of ``--runs`` CPU-time runs;
the peak is the tracemalloc peak of one more run (tracing slows it, so it is not timed). The
target of issue 33 is under 1.5 s per MB and under 16 MB traced for 1 MB, on every row.

    python benchmarks/bench_adversarial.py [--size 1000000] [--runs 1] [--dialects harmony,...]

``--entry`` times another entry point on the same families instead: ``stream dicts`` (chat
chunks of 1,024 characters), ``detect``, ``escape`` or ``unescape`` on the whole text; with
``--families`` it measures the whole-text findings of issue 33's second list, e.g.
``--entry detect --families "escaped backticks,backtick triples"`` or ``--entry unescape
--dialects deepseek,deepseek_v32,all --families "backslash run"``.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

from _adversarial import SCANNER_DIALECTS, STREAM_FAMILIES, build, chat_chunk, chunked
from _common import add_quick, machine, print_table, quick_note, ratio

from guard import detect, escape, guard_stream, unescape

ENTRIES = ("stream", "stream dicts", "detect", "escape", "unescape")
#: the entry point being measured (set by ``main``)
ENTRY = "stream"


def inputs(text: str) -> list[object]:
    """What :func:`run` takes for ``text``: chunks for the streams, the text for the rest."""
    if ENTRY == "stream":
        return list(chunked(text))
    if ENTRY == "stream dicts":
        return [chat_chunk(p) for p in chunked(text, 1024)]
    return [text]


def run(dialect: str, chunks: list[object]) -> int:
    if ENTRY in ("detect", "escape", "unescape"):
        text = str(chunks[0])
        if ENTRY == "detect":
            return len(detect(text, dialect=dialect).hits)
        return len((escape if ENTRY == "escape" else unescape)(text, dialect))
    stream = guard_stream(iter(chunks), dialect=dialect, on_leak="report", raw=ENTRY == "stream")
    n = 0
    for _ in stream:
        n += 1
    return n


def cpu_seconds(dialect: str, chunks: list[object], runs: int) -> float:
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        run(dialect, chunks)
        best = min(best, time.process_time() - t0)
    return best


def traced_peak(dialect: str, chunks: list[object]) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        run(dialect, chunks)
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


_TITLES = {
    "stream": "guard_stream, raw 4,096-char chunks, on_leak=report",
    "stream dicts": "guard_stream, chat chunks of 1,024 chars, on_leak=report",
    "detect": "detect on the whole text",
    "escape": "escape of the whole text",
    "unescape": "unescape of the whole text",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, default=1_000_000, help="characters per family")
    parser.add_argument("--runs", type=int, default=1, help="best of this many timed runs")
    parser.add_argument(
        "--dialects",
        default="harmony",
        help="comma-separated dialects, or 'all' alone (every dialect with a scanner); 'all' in"
        " a list (e.g. 'all,harmony') is the union dialect, its families built with Harmony's"
        " markers and calls",
    )
    parser.add_argument("--families", default="", help="comma-separated subset of the families")
    parser.add_argument("--entry", default="stream", choices=ENTRIES, help="entry point to time")
    add_quick(parser)
    args = parser.parse_args()
    global ENTRY
    ENTRY = args.entry
    size = 4_096 if args.quick else args.size
    runs = 1 if args.quick else args.runs
    dialects = SCANNER_DIALECTS if args.dialects == "all" else tuple(args.dialects.split(","))
    families = tuple(args.families.split(",")) if args.families else STREAM_FAMILIES
    if args.quick:
        dialects = dialects[:1]
    mb = size / 1e6
    for dialect in dialects:
        run(dialect, inputs("warm up <|end|> `x`"))  # plans and patterns are built once
        floor_chunks = inputs(build("clean prose", dialect, size))
        floor = cpu_seconds(dialect, floor_chunks, runs) / mb
        floor_peak = traced_peak(dialect, floor_chunks) / 1e6 / mb
        rows: list[list[object]] = [
            ["clean prose (floor)", f"{floor:.2f}", "1.00x", f"{floor_peak:.1f}", "1.00x"]
        ]
        for family in families:
            chunks = inputs(build(family, dialect, size))
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
            f"{_TITLES[ENTRY]}, {dialect}, "
            f"{size:,} chars per family ({machine()}){quick_note(args.quick)}",
            ["input", "CPU s per MB", "time ratio", "traced peak MB per MB", "peak ratio"],
            rows,
        )


if __name__ == "__main__":
    main()
