"""Shared helpers for the benchmarks: deterministic inputs, timers, the ``--quick`` flag and the
Markdown tables every script prints, each figure beside its ratio to a floor measured in the same
run.

Every script accepts ``--quick``: tiny inputs and one timing run, so that it finishes in a few
seconds and still goes through every code path and prints the same table shape. The smoke test
(``tests/test_benchmarks.py``) runs each script that way; its figures mean nothing. A script that
needs an optional package names its import names in a module-level ``REQUIRES`` tuple, so the
smoke test can skip it when one is missing.
"""

from __future__ import annotations

import argparse
import math
import platform
import random
import re
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

WORDS = [
    "the",
    "model",
    "reads",
    "a",
    "file",
    "and",
    "then",
    "writes",
    "a",
    "short",
    "answer",
    "for",
    "the",
    "user",
    "about",
    "the",
    "weather",
    "in",
    "Paris",
    "while",
    "the",
    "agent",
    "loop",
    "waits",
    "for",
    "tool",
    "results",
    "and",
    "streams",
    "tokens",
    "to",
    "a",
    "terminal",
]


def prose(size: int, seed: int = 7) -> str:
    """Clean English-like prose of about ``size`` characters, with lines and punctuation."""
    rng = random.Random(seed)
    out: list[str] = []
    n = 0
    while n < size:
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 18))).capitalize()
        sentence += rng.choice([". ", ".\n", "? ", ", and "])
        out.append(sentence)
        n += len(sentence)
    return "".join(out)[:size]


# ---------------------------------------------------------------------------------------------
# Command line


def add_quick(parser: argparse.ArgumentParser) -> None:
    """Add ``--quick``: tiny inputs, one run (a smoke test of the script, not a measurement)."""
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny inputs and one run: checks that the script works; the figures mean nothing",
    )


def quick_note(quick: bool) -> str:
    """A remark for the title line of a quick run."""
    return "; QUICK RUN (tiny inputs, one run: not a measurement)" if quick else ""


# ---------------------------------------------------------------------------------------------
# Timing


@dataclass(frozen=True)
class Timer:
    """How a script times its work: ``runs`` batches (median) or runs (best), each batch at
    least ``min_time / runs`` seconds long. :meth:`quick` is one short run."""

    runs: int = 7
    min_time: float = 0.2

    @classmethod
    def make(cls, quick: bool, runs: int = 7, min_time: float = 0.2) -> Timer:
        return cls(1, 0.0) if quick else cls(runs, min_time)

    def median(self, fn: Callable[[], object]) -> float:
        """Median seconds per call of ``fn`` over the batches."""
        return timeit(fn, runs=self.runs, min_time=self.min_time)

    def best(self, fn: Callable[[], object]) -> float:
        """Best wall seconds of one call of ``fn`` over the runs (for long single calls)."""
        best = math.inf
        for _ in range(self.runs):
            t0 = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t0)
        return best

    def interleaved_best(
        self, fn: Callable[[], object], floor: Callable[[], object], rounds: int = 40
    ) -> tuple[float, float]:
        """Best seconds per call of ``fn`` and of ``floor``, timed in alternation (one call
        of ``fn``, then a batch of ``floor`` calls long enough to time) over ``rounds`` rounds.
        On a shared machine whose speed drifts (CPU steal), both are measured in the same
        windows, and the best of each is the one least slowed by other work: their ratio is
        the code's own."""
        if self.runs == 1:
            rounds = 1
        fn()
        loops = _loops(floor, 1e-3)
        best_fn = best_floor = math.inf
        for _ in range(rounds):
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            for _ in range(loops):
                floor()
            t2 = time.perf_counter()
            best_fn = min(best_fn, t1 - t0)
            best_floor = min(best_floor, (t2 - t1) / loops)
        return best_fn, best_floor


def timeit(fn: Callable[[], object], *, runs: int = 7, min_time: float = 0.2) -> float:
    """Median seconds per call over ``runs`` batches (each batch long enough to time well)."""
    loops = _loops(fn, min_time / runs)
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


def _loops(fn: Callable[[], object], seconds: float) -> int:
    """How many calls of ``fn`` make a batch of at least ``seconds`` (after one warm-up
    call; doubling, at most about a million)."""
    fn()
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        if time.perf_counter() - t0 >= seconds or loops > 1 << 20:
            return loops
        loops *= 2


def machine() -> str:
    return f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}"


# ---------------------------------------------------------------------------------------------
# Figures and tables


def ratio(value: float, floor: float) -> str:
    """``value / floor`` as ``2.35x`` (how many times the floor's cost); ``-`` without a floor."""
    if not floor or math.isnan(value) or math.isnan(floor):
        return "-"
    r = value / floor
    if abs(r) < 0.1:
        return f"{r:.2g}x"
    if abs(r) >= 100:
        return f"{r:,.0f}x"
    if abs(r) >= 10:
        return f"{r:,.1f}x"
    return f"{r:,.2f}x"


def mbps(megabytes: float, seconds: float) -> str:
    """Throughput in MB/s with a precision that suits its size."""
    if seconds <= 0:
        return "-"
    rate = megabytes / seconds
    return f"{rate:,.0f}" if rate >= 100 else f"{rate:,.1f}" if rate >= 1 else f"{rate:,.2f}"


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print ``# title`` and a Markdown table: the first column left-aligned, the rest right.

    Every script gives each figure a ``ratio`` column (or several, named for their floor),
    so readers and the smoke test find the comparison in the same place."""
    if not any("ratio" in c for c in columns):
        raise ValueError(f"table {title!r} has no ratio column: {list(columns)}")
    print(f"# {title}")
    print("| " + " | ".join(_cell(c) for c in columns) + " |")
    print("|" + "|".join(["---", *(["---:"] * (len(columns) - 1))]) + "|")
    for row in rows:
        if len(row) != len(columns):
            raise ValueError(f"row {row!r} has {len(row)} cells for {len(columns)} columns")
        print("| " + " | ".join(_cell(cell) for cell in row) + " |")
    print()


def _cell(value: object) -> str:
    """A table cell: a bar that is not escaped yet is escaped, so it stays inside its cell."""
    return _BAR.sub(r"\\|", str(value))


_BAR = re.compile(r"(?<!\\)\|")
