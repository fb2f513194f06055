"""Closed Markdown code (SPEC.md 4.4 code exemption): fenced blocks and inline spans.

CommonMark rules, as far as they decide what is code: a fence is three or more backticks or
tildes indented at most three spaces; it closes on a line of the same character, at least as
long, with nothing else on it. A backtick fence's info string may not contain a backtick. An
inline span opens on a run of backticks and closes on the next run of exactly the same length,
never across a blank line. An unclosed fence or span exempts nothing: a stray fence cannot hide a
leak.
"""

from __future__ import annotations

import bisect
import re

__all__ = ["CodeRanges", "code_ranges"]

_LINE = re.compile(r"[^\n]*(?:\n|\Z)")
_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_TICKS = re.compile(r"`+")
_BLANK = re.compile(r"\n[ \t]*\r?\n")


class CodeRanges:
    """Sorted, disjoint ``[start, end)`` ranges of closed code, with containment queries."""

    __slots__ = ("_ends", "_starts")

    def __init__(self, ranges: list[tuple[int, int]]) -> None:
        ranges.sort()
        self._starts = [s for s, _ in ranges]
        self._ends = [e for _, e in ranges]

    def contains(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self._starts, start) - 1
        return i >= 0 and end <= self._ends[i]

    def __bool__(self) -> bool:
        return bool(self._starts)

    def as_list(self) -> list[tuple[int, int]]:
        return list(zip(self._starts, self._ends, strict=True))


def _fences(text: str) -> tuple[list[tuple[int, int]], int]:
    """Closed fenced blocks, and the offset where an unclosed fence starts (or len(text))."""
    blocks: list[tuple[int, int]] = []
    lines = [(m.start(), m.group()) for m in _LINE.finditer(text) if m.group()]
    i = 0
    while i < len(lines):
        start, line = lines[i]
        m = _OPEN.match(line.rstrip("\r\n"))
        if not m or (m.group(1)[0] == "`" and "`" in m.group(2)):
            i += 1
            continue
        fence = m.group(1)
        close = re.compile(rf" {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*")
        for j in range(i + 1, len(lines)):
            if close.fullmatch(lines[j][1].rstrip("\r\n")):
                end = lines[j][0] + len(lines[j][1])
                blocks.append((start, end))
                i = j + 1
                break
        else:
            return blocks, start
    return blocks, len(text)


def _spans(text: str, lo: int, hi: int, out: list[tuple[int, int]]) -> None:
    """Append the closed inline code spans of ``text[lo:hi]`` to ``out``."""
    runs = [(m.start(), m.end()) for m in _TICKS.finditer(text, lo, hi)]
    if len(runs) < 2:
        return
    blanks = [m.start() for m in _BLANK.finditer(text, lo, hi)]
    k = 0
    while k < len(runs):
        s, e = runs[k]
        if s > 0 and text[s - 1] == "\\":
            s += 1  # an escaped backtick opens nothing; the rest of its run may
            if s == e:
                k += 1
                continue
        width = e - s
        closing = None
        for j in range(k + 1, len(runs)):
            s2, e2 = runs[j]
            b = bisect.bisect_left(blanks, e)
            if b < len(blanks) and blanks[b] < s2:
                break  # a span never crosses a blank line
            if e2 - s2 == width:
                closing = j
                break
        if closing is None:
            k += 1  # the opening run is literal text
            continue
        out.append((s, runs[closing][1]))
        k = closing + 1


def code_ranges(text: str) -> CodeRanges:
    """Closed code in ``text``: fenced blocks, then inline spans in the text between them."""
    if "`" not in text and "~~~" not in text:
        return CodeRanges([])
    blocks, unclosed = _fences(text)
    ranges = list(blocks)
    lo = 0
    for start, end in [*blocks, (unclosed, unclosed)]:
        _spans(text, lo, start, ranges)
        lo = end
    # From an unclosed fence on, CommonMark would read everything as code; SPEC.md 4.4 exempts
    # none of it, and its backtick runs open no inline span either.
    return CodeRanges(ranges)
