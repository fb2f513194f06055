"""The progress bar of ``guard audit``: one line on a terminal, with throughput."""

from __future__ import annotations

import time
from typing import TextIO

from guard.audit._table import format_size

__all__ = ["ProgressBar"]


class ProgressBar:
    """A one-line progress bar with throughput, drawn on a terminal only.

    Nothing is drawn before ``delay`` seconds have passed (short runs stay quiet), and the line
    is redrawn at most every ``interval`` seconds, then erased by :meth:`close`.
    """

    def __init__(
        self,
        stream: TextIO,
        total_bytes: int | None,
        *,
        delay: float = 0.5,
        interval: float = 0.1,
    ) -> None:
        self.stream = stream
        self.total = total_bytes or None
        self.delay = delay
        self.interval = interval
        self.start = time.perf_counter()
        self.last = 0.0
        self.drawn = False

    @classmethod
    def for_terminal(cls, stream: TextIO, total_bytes: int | None) -> ProgressBar | None:
        try:
            return cls(stream, total_bytes) if stream.isatty() else None
        except (AttributeError, ValueError):
            return None

    def __call__(self, nbytes: int, messages: int) -> None:
        now = time.perf_counter()
        elapsed = now - self.start
        if elapsed < self.delay or now - self.last < self.interval:
            return
        self.last = now
        rate = f"{nbytes / 1e6 / elapsed:,.1f} MB/s, {messages / elapsed:,.0f} messages/s"
        if self.total:
            frac = min(nbytes / self.total, 1.0)
            bar = "#" * int(frac * 24)
            text = f"audit {frac:4.0%} [{bar:<24}] {format_size(nbytes)} {rate}"
        else:
            text = f"audit {format_size(nbytes)} {rate}"
        self.stream.write("\r" + text + "\x1b[K")
        self.stream.flush()
        self.drawn = True

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
