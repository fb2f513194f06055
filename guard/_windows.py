"""Scanning a long text in windows, so that no single regular-expression call reads all of it.

A call of the standard ``re`` engine holds the interpreter's lock (GIL) from start to end, and
the proxy judges large bodies on worker threads beside its event loop: one search over a 16 MiB
answer that finds nothing until its end kept ``/healthz`` waiting 250 ms. :func:`finditer` and
:func:`sub` give what ``pattern.finditer`` and ``pattern.sub`` give, with each call reading at
most :data:`WINDOW` characters plus the pattern's reach (:func:`guard._regex_source.reach`, the
most characters right of a match's start an attempt reads), so the lock changes hands between
windows. A match starting in a window is found whole, because the window reads that far past
its end; lookbehinds see the text before a window, because the text is never sliced.

Patterns of the ``regex`` module release the lock while they match, so they run as one call. So
does a pattern without a bounded reach (or one that can match the empty string), in the ``regex``
engine (its version 0 reads the standard syntax the standard way) when the text is long.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from typing import Any

import regex

from guard._regex_source import reach

__all__ = ["WINDOW", "finditer", "sub"]

#: the characters one call reads beyond the pattern's reach: a few milliseconds at the slowest
#: per-character cost measured (2 µs, a run of ``<|`` against every dialect's spellings)
WINDOW = 1 << 14


@lru_cache(maxsize=1024)
def _reach(pattern: re.Pattern[str]) -> int | None:
    return reach(pattern.pattern, pattern.flags)


@lru_cache(maxsize=256)
def _free(pattern: re.Pattern[str]) -> Any:
    """``pattern`` in the ``regex`` engine, which matches without holding the GIL."""
    flags = regex.V0 | (pattern.flags & (re.IGNORECASE | re.MULTILINE | re.DOTALL | re.VERBOSE))
    return regex.compile(pattern.pattern, flags)


def finditer(pattern: Any, text: str, pos: int = 0, endpos: int | None = None) -> Iterator[Any]:
    """``pattern.finditer(text, pos, endpos)``, one window at a time."""
    pattern = getattr(pattern, "compiled", pattern)  # a pattern compiled on first use
    end = len(text) if endpos is None else min(endpos, len(text))
    if end - pos <= WINDOW or not isinstance(pattern, re.Pattern):
        return pattern.finditer(text, pos, end)  # type: ignore[no-any-return]
    bound = _reach(pattern)
    if bound is None:
        return _free(pattern).finditer(text, pos, end, concurrent=True)  # type: ignore[no-any-return]
    return _windows(pattern.search, text, pos, end, bound)


def _windows(
    search: Callable[[str, int, int], Any], text: str, pos: int, end: int, bound: int
) -> Iterator[Any]:
    while pos < end:
        stop = min(end, pos + WINDOW)
        hi = min(end, stop + bound)
        m = search(text, pos, hi)
        # a match starting before `stop` ends (and its lookaheads read) before `hi`: the same
        # match as in the whole text; one starting later is found again from the next window
        while m is not None and (m.start() < stop or hi == end):
            yield m
            pos = m.end()  # never empty: `reach` refuses patterns that can match ""
            m = search(text, pos, hi)
        if hi == end:
            return
        pos = max(pos, stop)


def sub(pattern: Any, repl: Callable[[Any], str], text: str) -> str:
    """``pattern.sub(repl, text)`` for a function ``repl``, one window at a time."""
    pattern = getattr(pattern, "compiled", pattern)
    if len(text) <= WINDOW or not isinstance(pattern, re.Pattern):
        return pattern.sub(repl, text)  # type: ignore[no-any-return]
    pieces: list[str] = []
    last = 0
    for m in finditer(pattern, text):
        pieces.append(text[last : m.start()])
        pieces.append(repl(m))
        last = m.end()
    if not pieces:
        return text
    pieces.append(text[last:])
    return "".join(pieces)
