"""Measuring growth: best-of-3 CPU time and the tracemalloc peak of one call, at two sizes.

A linear path costs about 4x the time at 4x the input; the bound is 5x. A path whose memory is
bounded by a window keeps the same peak at 4x the input, give or take ``slack`` bytes; one that
must hold its input or output (``detect``, ``escape``, ``audit``) may grow in proportion.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass

#: time at 4x the input may be at most this many times the time at 1x
TIME_RATIO = 5.0
#: peak at 4x the input may be at most this many times the peak at 1x, plus a constant
PEAK_RATIO = 1.2
#: a CPU time below this is noise: a case this fast at its smaller size is checked for memory
#: only (the larger sizes of the ``slow`` run time it)
NOISE_SECONDS = 0.01


@dataclass(frozen=True)
class Cost:
    seconds: float
    peak: int


def _peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        run()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def costs(
    small: Callable[[], object], large: Callable[[], object], runs: int = 3
) -> tuple[Cost, Cost]:
    """Best-of-``runs`` CPU seconds of each call, timed in alternation (a machine whose speed
    drifts slows both alike), then the traced peak of each (one more call)."""
    small()  # warm: lazy plans and compiled patterns are built once per process
    best = [float("inf"), float("inf")]
    # the cyclic collector's passes cost more the more objects live elsewhere in the process:
    # off while timing, so the ratio is the code's own (memory is checked by the peak)
    gc.collect()
    gc.disable()
    try:
        for _ in range(runs):
            for i, run in enumerate((small, large)):
                t0 = time.process_time()
                run()
                best[i] = min(best[i], time.process_time() - t0)
    finally:
        gc.enable()
    return Cost(best[0], _peak(small)), Cost(best[1], _peak(large))


def check_growth(small: Cost, large: Cost, *, bounded: bool, slack: int, what: str) -> None:
    """Assert the bounds of the module docstring between a size and 4x that size."""
    if small.seconds >= NOISE_SECONDS:
        assert large.seconds <= TIME_RATIO * small.seconds, (
            f"{what}: time grew {large.seconds / small.seconds:.1f}x for 4x the input "
            f"({small.seconds:.4f}s -> {large.seconds:.4f}s)"
        )
    allowed = (PEAK_RATIO if bounded else 4 * PEAK_RATIO) * small.peak + slack
    assert large.peak <= allowed, (
        f"{what}: traced peak {small.peak:,} -> {large.peak:,} bytes for 4x the input "
        f"(allowed {allowed:,.0f})"
    )
