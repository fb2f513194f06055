"""Measuring growth: best-of-3 CPU time and the tracemalloc peak of one call, at two sizes.

A linear path costs about 4x the time at 4x the input; the bound is 5x. A path whose memory is
bounded by a window keeps the same peak at 4x the input, give or take ``slack`` bytes; one that
must hold its input or output (``detect``, ``escape``, ``audit``) may grow in proportion.
"""

from __future__ import annotations

import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

#: time at 4x the input may be at most this many times the time at 1x
TIME_RATIO = 5.0
#: peak at 4x the input may be at most this many times the peak at 1x, plus a constant
PEAK_RATIO = 1.2
#: a CPU time below this is noise: a case this fast at 4x passes whatever its ratio
NOISE_SECONDS = 0.02


@dataclass(frozen=True)
class Cost:
    seconds: float
    peak: int


def cost(run: Callable[[], object], runs: int = 3) -> Cost:
    """Best-of-``runs`` CPU seconds of ``run()``, then its traced peak (one more call)."""
    run()  # warm: lazy plans and compiled patterns are built once per process
    best = float("inf")
    for _ in range(runs):
        t0 = time.process_time()
        run()
        best = min(best, time.process_time() - t0)
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    return Cost(best, peak)


def check_growth(small: Cost, large: Cost, *, bounded: bool, slack: int, what: str) -> None:
    """Assert the bounds of the module docstring between a size and 4x that size."""
    if large.seconds > NOISE_SECONDS:
        assert large.seconds <= TIME_RATIO * max(small.seconds, NOISE_SECONDS / 4), (
            f"{what}: time grew {large.seconds / max(small.seconds, 1e-9):.1f}x for 4x the input "
            f"({small.seconds:.4f}s -> {large.seconds:.4f}s)"
        )
    allowed = (PEAK_RATIO if bounded else 4 * PEAK_RATIO) * small.peak + slack
    assert large.peak <= allowed, (
        f"{what}: traced peak {small.peak:,} -> {large.peak:,} bytes for 4x the input "
        f"(allowed {allowed:,.0f})"
    )
