"""Shared helpers for the benchmarks: deterministic inputs and a median-of-runs timer."""

from __future__ import annotations

import platform
import random
import statistics
import time
from collections.abc import Callable

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


def timeit(fn: Callable[[], object], *, runs: int = 7, min_time: float = 0.2) -> float:
    """Median seconds per call over ``runs`` batches (each batch long enough to time well)."""
    fn()
    loops = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        if time.perf_counter() - t0 >= min_time / runs or loops > 1 << 20:
            break
        loops *= 2
    samples = []
    for _ in range(runs):
        t0 = time.perf_counter()
        for _ in range(loops):
            fn()
        samples.append((time.perf_counter() - t0) / loops)
    return statistics.median(samples)


def machine() -> str:
    return f"{platform.python_implementation()} {platform.python_version()} on {platform.machine()}"
