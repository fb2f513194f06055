"""Deadlines of one upstream exchange.

Two bounds hold for every upstream call: *idle* (the longest wait for the next byte, httpx's
read timeout) and *total* (from sending the request to the last byte of the answer). Missing
either before the proxy answers gives ``504``; once a stream has started, an error event ends
it (the relays write it). Each wait is bounded on its own, never a scope held across a
``yield``.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import anyio

__all__ = ["Deadline", "DeadlineExceeded"]

T = TypeVar("T")


class DeadlineExceeded(Exception):
    """The upstream did not finish within the total deadline."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the upstream did not finish within the proxy's {seconds:g} s deadline")
        self.seconds = seconds


class Deadline:
    """The total deadline of one exchange, started when it is made."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.end = time.monotonic() + seconds

    def remaining(self) -> float:
        return max(0.0, self.end - time.monotonic())

    async def run(self, fn: Callable[[], Awaitable[T]]) -> T:
        """``await fn()``, cancelled with :class:`DeadlineExceeded` when the time is up."""
        with anyio.move_on_after(self.remaining()):
            return await fn()
        raise DeadlineExceeded(self.seconds)

    async def next(self, pieces: AsyncIterator[T]) -> T | None:
        """The next item of ``pieces`` (None at their end), awaited within what is left of the
        deadline (a call per item: no generator between the reader and ``pieces``)."""
        with anyio.move_on_after(self.remaining()):
            try:
                return await pieces.__anext__()
            except StopAsyncIteration:
                return None
        raise DeadlineExceeded(self.seconds)
