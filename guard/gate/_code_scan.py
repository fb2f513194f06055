"""Closed Markdown code in a whole text, in one pass over its backtick and tilde runs (what
:class:`~guard.gate.CodeTracker` finds when fed the text; the rules are in that module), and the
pending inline runs of a paragraph, which the tracker shares."""

from __future__ import annotations

import re
from array import array

__all__ = ["Runs", "pair_rest", "whole_ranges"]

#: runs that can open or close code: backtick runs, and tilde runs long enough for a fence
#: (spelled with a literal first character, which the regex engine finds by a fast scan)
_RUN = re.compile(r"``*|~~~~*")
#: a blank line (spaces and tabs, a `\r` only right before its `\n`) between two newlines
_BLANK_LINE = re.compile(r"\n[ \t]*\r?\n")


def _fence_start(text: str, start: int) -> int:
    """The line start when the run at ``start`` is indented at most three spaces, else -1.

    Looks back over at most three spaces (never to the line's start: on one long line that
    would cost a scan per run)."""
    line = start
    while line > 0 and start - line < 3 and text[line - 1] == " ":
        line -= 1
    if line == 0 or text[line - 1] == "\n":
        return line
    return -1


def whole_ranges(text: str, heads: dict[int, int] | None = None) -> list[tuple[int, int]]:
    """The tracker's answer for a whole text, without its per-character state machine: only
    runs of backticks (and of three or more tildes) are visited, and lines between them only
    when a pending inline run needs to know whether a blank line ended its paragraph. ``heads``
    receives, for each fenced block, its range's start and where its content starts (after the
    opening fence line)."""
    ranges: list[tuple[int, int]] = []
    para = Runs()  # pending inline runs: (start, end, escaped)
    n = len(text)
    pos = 0
    last = 0  # end of the last run taken into the paragraph
    tildes = "~" in text and "~~~" in text  # one character: a memchr
    search = _RUN.search
    find = text.find
    while True:
        if tildes:
            m = search(text, pos)
            if m is None:
                break
            s, e = m.span()
            ch = text[s]
        else:
            s = find("`", pos)
            if s < 0:
                break
            e = s + 1
            while e < n and text[e] == "`":
                e += 1
            ch = "`"
        if not para and e - s < 3 and (s == 0 or text[s - 1] != "\\"):
            # the usual inline span: its partner is the next run on the same line
            k = _partner_on_line(text, e, e - s)
            if k >= 0:
                ranges.append((s, k))
                pos = last = k
                continue
        if para and _BLANK_LINE.search(text, last, s):
            pair_rest(para, ranges)
        if e - s >= 3:
            block = _fence_block(text, s, e, ch)
            if block is not None:
                # a fence line: the paragraph ends; the block runs to its closing line
                pair_rest(para, ranges)
                if block[1] < 0:
                    return ranges  # unclosed: from here on nothing is code
                ranges.append(block)
                if heads is not None:
                    le = text.find("\n", e)
                    heads[block[0]] = len(text) if le < 0 else le + 1
                pos = last = block[1]
                continue
        if ch == "`":
            _take_run(text, s, e, para, ranges)
            last = e
        pos = e  # tildes matter only as a fence
    pair_rest(para, ranges)
    return ranges


def _partner_on_line(text: str, e: int, width: int) -> int:
    """The end of the run closing an inline span of ``width`` backticks that opened right
    before ``e``, when it is the next run on the same line; else -1."""
    j = text.find("`", e)
    if j < 0 or "\n" in text[e:j]:  # a slice and `in`: cheaper than find
        return -1
    k = j + 1
    n = len(text)
    while k < n and text[k] == "`":
        k += 1
    return k if k - j == width else -1


def _fence_block(text: str, s: int, e: int, ch: str) -> tuple[int, int] | None:
    """For a run of three or more ``ch`` at ``[s, e)``: ``None`` when it does not open a fence
    (indented too far, or a backtick fence whose info string holds a backtick), else the block
    from its line's start to the end of its closing line (-1: it never closes)."""
    line = _fence_start(text, s)
    if line < 0:
        return None
    le = text.find("\n", e)
    end = len(text) if le < 0 else le
    if ch == "`" and "`" in text[e:end]:
        return None
    return line, _fence_close(text, end if le < 0 else le + 1, ch, e - s)


def _take_run(text: str, s: int, e: int, para: Runs, ranges: list[tuple[int, int]]) -> None:
    """A backtick run ``[s, e)`` inside a paragraph: it closes the paragraph's first pending
    run when as wide as that run opens, else it waits (an escaped single backtick opens
    nothing)."""
    esc = 1 if s and text[s - 1] == "\\" else 0
    width = e - s
    if para and width == para[0][1] - para[0][0] - para[0][2]:
        first = para[0]
        ranges.append((first[0] + first[2], e))
        para.clear()
    elif para or width - esc > 0:
        para.append((s, e, esc))


def _fence_close(text: str, pos: int, char: str, length: int) -> int:
    """The end of the line that closes a fence of ``length`` ``char`` opened before ``pos``
    (the end of the text when that line has no newline), or -1 when none does."""
    n = len(text)
    run = char * 3
    while True:
        s = text.find(run, pos)
        if s < 0:
            return -1
        e = s + 3
        while e < n and text[e] == char:
            e += 1
        le = text.find("\n", e)
        rest = text[e : (n if le < 0 else le)]
        if e - s >= length and _fence_start(text, s) >= 0 and not rest.strip(" \t\r"):
            return n if le < 0 else le + 1
        if le < 0:
            return -1
        pos = le + 1


class Runs:
    """The backtick runs waiting in a paragraph, ``(start, end, escaped)`` each, kept in three
    arrays: a paragraph of many runs that never pair costs 17 bytes a run, not a tuple."""

    __slots__ = ("ends", "escs", "starts")

    def __init__(self) -> None:
        self.starts = array("q")
        self.ends = array("q")
        self.escs = array("b")

    def append(self, run: tuple[int, int, int]) -> None:
        self.starts.append(run[0])
        self.ends.append(run[1])
        self.escs.append(run[2])

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, i: int) -> tuple[int, int, int]:
        return self.starts[i], self.ends[i], self.escs[i]

    def clear(self) -> None:
        if self.starts:
            self.starts = array("q")
            self.ends = array("q")
            self.escs = array("b")


def pair_rest(para: Runs, ranges: list[tuple[int, int]]) -> None:
    """The paragraph ends: pair the runs left (after the first, which found no partner: it is
    literal) with later runs of their width; the rest is literal.

    Each run's partner is the next run of its width, found for every run in one backward pass
    (the nearest later run of each width), so a paragraph of runs that never pair costs time in
    proportion to its runs, not their square."""
    n = len(para)
    if n < 3:
        para.clear()
        return
    starts, ends, escs = para.starts, para.ends, para.escs
    partner = array("q", [-1]) * n
    nearest: dict[int, int] = {}  # raw width -> the nearest later run of that width
    for k in range(n - 1, 0, -1):
        width = ends[k] - starts[k]
        opens = width - escs[k]
        if opens:
            partner[k] = nearest.get(opens, -1)
        nearest[width] = k
    k = 1
    while k < n:
        j = partner[k]
        if j > 0:
            ranges.append((starts[k] + escs[k], ends[j]))
            k = j + 1
        else:
            k += 1
    para.clear()
