"""Judging off the event loop: expensive work runs on a bounded pool of worker threads.

The proxy's event loop answers every connection (``/healthz`` too), so nothing that may take long
runs on it: escaping a large request, judging a large complete answer, judging a large stream
event. Such work goes to a worker thread; at most ``judge_threads`` run at a time (the rest
wait their turn, on no thread). Work on fewer than :data:`INLINE_BYTES` bytes runs on the loop
as before: handing it to a thread costs more than it takes (tens of microseconds against a few
milliseconds at worst), and ordinary chat traffic is all of that size.

Why threads and not processes: a stream's judge is a stateful monitor fed chunk by chunk, which
cannot move to another process between chunks, and a complete body would be copied there and
its judged copy back (a second copy of up to ``max_response_bytes`` each way). Threads share the
interpreter's lock, so judging in a thread does not make the proxy faster; it keeps the loop
answering, because Python hands the lock back and forth every few milliseconds
(``sys.getswitchinterval``). What holds the lock longer is one C call on a whole body
(``json.loads`` of 16 MiB holds it ~0.1 s): complete answers are therefore parsed with a
Python hook per object (:func:`guard.wire.loads_yielding`), which lets the loop in between, and
signals search long texts in windows (``guard._windows``). And one thread by default: two busy
threads hand the lock to each other while the loop waits behind both.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread

__all__ = ["INLINE_BYTES", "Offload"]

T = TypeVar("T")

#: work on fewer bytes than this runs on the event loop (a few milliseconds at worst)
INLINE_BYTES = 16 * 1024


class Offload:
    """The proxy's worker threads: :meth:`run` runs a function on one of at most ``threads``
    threads, or inline when its input is small."""

    def __init__(self, threads: int) -> None:
        if threads < 1:
            raise ValueError(f"judge_threads must be at least 1, got {threads}")
        self.threads = threads
        self._limiter: anyio.CapacityLimiter | None = None
        #: how many calls went to a thread (for tests and metrics)
        self.dispatched = 0

    @property
    def limiter(self) -> anyio.CapacityLimiter:
        if self._limiter is None:  # made on the loop that uses it
            self._limiter = anyio.CapacityLimiter(self.threads)
        return self._limiter

    async def run(self, size: int, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)``: on the loop when ``size`` (the bytes it works on) is under
        :data:`INLINE_BYTES`, else on a worker thread. A cancelled caller still waits for
        the thread to finish, so whatever ``fn`` changes is never seen half done."""
        if size < INLINE_BYTES:
            return fn(*args)
        self.dispatched += 1
        return await anyio.to_thread.run_sync(fn, *args, limiter=self.limiter)
