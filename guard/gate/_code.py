"""Closed Markdown code (docs/detection.md, "Code exemption"): fenced blocks and inline spans.

CommonMark rules, as far as they decide what is code: a fence is three or more backticks or
tildes indented at most three spaces; it closes on a line of the same character, at least as
long, with nothing else on it. A backtick fence's info string may not contain a backtick. An
inline span opens on a run of backticks and closes on the next run of exactly the same length,
never across a blank line. An unclosed fence or span exempts nothing: a stray fence cannot hide a
leak, and from an unclosed fence on nothing is code.

:class:`CodeTracker` computes this incrementally (a stream feeds it chunk by chunk) and says up to
which offset its answer is final; :func:`code_ranges` gives its answer for a whole text in one
pass over the text's backtick and tilde runs (``_code_scan``), and the tests hold the two equal.
"""

from __future__ import annotations

import bisect
import re

from guard.gate._code_scan import Runs, pair_rest, whole_ranges

__all__ = ["CodeRanges", "CodeTracker", "code_ranges"]

_INTERESTING = re.compile(r"[`\n]")
#: with nothing open or pending, only a backtick or a tilde fence can change the structure
_IDLE_STOP = re.compile(r"`|\n {0,3}~~~")


class CodeRanges:
    """Sorted, disjoint ``[start, end)`` ranges of closed code, with containment queries."""

    __slots__ = ("ends", "heads", "starts")

    def __init__(self, ranges: list[tuple[int, int]], heads: dict[int, int] | None = None) -> None:
        ranges.sort()
        #: range starts and ends, in order (disjoint ranges: both are sorted)
        self.starts = [s for s, _ in ranges]
        self.ends = [e for _, e in ranges]
        #: for a fenced block, its range's start -> where its content starts: a span that starts
        #: on the opening fence line is the fence's header, not code (a spelling that is itself a
        #: fence, as Gemini's ```` ```tool_code ````, opens the dialect's call)
        self.heads = heads or {}

    def contains(self, start: int, end: int) -> bool:
        i = bisect.bisect_right(self.starts, start) - 1
        if i < 0 or end > self.ends[i]:
            return False
        head = self.heads.get(self.starts[i])
        return head is None or start >= head

    def __bool__(self) -> bool:
        return bool(self.starts)

    def as_list(self) -> list[tuple[int, int]]:
        return list(zip(self.starts, self.ends, strict=True))


class CodeTracker:
    """Incremental closed-code tracker over a text fed in chunks (absolute offsets).

    ``ranges`` holds the closed code found so far. ``certain_upto`` is the offset before which
    the answer can no longer change: text after an open fence, after a backtick run still
    waiting for its partner in the current paragraph, or on a line that may still turn out to
    open a fence, is undecided until more text (or :meth:`finish`) arrives.
    """

    __slots__ = (
        "_fchar",
        "_fence",
        "_finished",
        "_frun",
        "_lead",
        "_line_blank",
        "_line_runs",
        "_line_start",
        "_para_runs",
        "_phase",
        "_prev",
        "_rest_blank",
        "_rest_tick",
        "_run_esc",
        "_run_start",
        "_unclosed",
        "heads",
        "pos",
        "ranges",
    )

    # the per-line state (:meth:`_new_line`)
    _line_start: int
    _phase: int
    _lead: int
    _fchar: str
    _frun: int
    _rest_tick: bool
    _rest_blank: bool
    _line_blank: bool

    def __init__(self) -> None:
        self.pos = 0
        self.ranges: list[tuple[int, int]] = []
        #: a fenced block's range start -> where its content starts (see :class:`CodeRanges`)
        self.heads: dict[int, int] = {}
        self._fence: tuple[str, int, int] | None = None  # (char, length, line start)
        self._unclosed: int | None = None  # set at finish when a fence never closed
        self._finished = False
        self._new_line(0)
        self._line_runs: list[tuple[int, int, int]] = []  # (start, end, escaped)
        self._para_runs = Runs()
        self._run_start: int | None = None
        self._run_esc = False
        self._prev = ""

    # --- feeding ---------------------------------------------------------------------------

    def feed(self, text: str) -> None:
        if self._finished:
            raise RuntimeError("CodeTracker.feed() after finish()")
        if not text:
            return
        if (
            self._phase == 2
            and self._run_start is None
            and not self._line_blank
            and "\n" not in text
            and "`" not in text
        ):
            # the common case mid-line: nothing here can change the code structure
            self.pos += len(text)
            self._prev = text[-1]
            if self._rest_blank and text.strip(" \t\r"):
                self._rest_blank = False
            return
        i = 0
        n = len(text)
        while i < n:
            if self._phase < 2:
                self._line_prefix_char(text[i])
                i += 1
                continue
            if (
                self._fence is None
                and self._run_start is None
                and not self._para_runs
                and not self._line_runs
                and not self._may_be_fence_line()
            ):
                i = self._skip_idle(text, i, n)
                if self._phase < 2:
                    continue
            m = _INTERESTING.search(text, i)
            j = m.start() if m else n
            if j > i:
                self._plain(text, i, j)
                i = j
            if m is None:
                break
            ch = text[i]
            if ch == "`":
                self._tick()
            else:
                self._newline()
            i += 1

    def _skip_idle(self, text: str, i: int, n: int) -> int:
        """Jump over whole lines that cannot change the structure: with no fence open and no
        backtick run pending, lines without a backtick or a tilde fence are plain text (a blank
        line among them closes an empty paragraph). Returns where to go on: the start of the
        line holding the next backtick or tilde fence, or ``i`` when no line ends before it."""
        m = _IDLE_STOP.search(text, i)
        if m is None:
            nl = text.rfind("\n", i)
        elif text[m.start()] == "\n":
            nl = m.start()
        else:
            nl = text.rfind("\n", i, m.start())
        if nl < 0:
            return i
        nxt = nl + 1
        self.pos += nxt - i
        self._prev = "\n"
        self._new_line(self.pos)
        return nxt

    def _advance(self, ch: str) -> None:
        self.pos += 1
        self._prev = ch

    def _plain(self, text: str, i: int, j: int) -> None:
        """Characters other than backtick and newline, in the rest of a line."""
        self._end_run()
        segment = text[i:j]
        if self._rest_blank and segment.strip(" \t\r"):
            self._rest_blank = False
        if self._line_blank and (
            segment.strip(" \t\r") or self._prev == "\r" or "\r" in segment[:-1]
        ):
            self._line_blank = False  # blank: spaces and tabs, `\r` only right before `\n`
        self.pos += j - i
        self._prev = segment[-1]

    def _line_prefix_char(self, ch: str) -> None:
        """The start of a line, where a fence may begin (phases 0 and 1)."""
        if ch == "\n":
            self._end_prefix_as_rest()
            self._newline()
            return
        if self._phase == 0:
            if ch == " " and self._lead < 3:
                self._lead += 1
                self._advance(ch)
                return
            if ch in "`~":
                self._phase = 1
                self._fchar = ch
                self._frun = 0
            else:
                self._end_prefix_as_rest()
                self._rest_char(ch)
                return
        if ch == self._fchar:
            self._frun += 1
            if ch == "`":
                self._tick()
            else:
                self._line_blank = False
                self._advance(ch)
            return
        self._phase = 2
        self._rest_char(ch)

    def _end_prefix_as_rest(self) -> None:
        self._phase = 2

    def _rest_char(self, ch: str) -> None:
        if ch == "`":
            self._tick()
        elif ch == "\n":
            self._newline()
        else:
            self._end_run()
            if ch not in " \t\r":
                self._rest_blank = False
                self._line_blank = False
            elif self._prev == "\r":
                self._line_blank = False
            self._advance(ch)

    def _tick(self) -> None:
        if self._run_start is None:
            self._run_start = self.pos
            self._run_esc = self._prev == "\\"
        if self._phase == 2:
            self._rest_tick = True
            self._rest_blank = False
        self._line_blank = False
        self._advance("`")

    def _end_run(self) -> None:
        if self._run_start is None:
            return
        # An escaped backtick opens nothing (the rest of its run may), but a run closes a span
        # whatever precedes it: backslash escapes do not work inside code spans.
        run = (self._run_start, self.pos, int(self._run_esc))
        self._run_start = None
        if self._fence is not None:
            return  # inside a fence: a closing line or code, never an inline span
        if self._phase == 2 and not self._may_be_fence_line():
            self._flush_line_runs()
            self._add_run(run)
        else:
            self._line_runs.append(run)  # decided when the line is known (fence or not)

    def _may_be_fence_line(self) -> bool:
        return self._frun >= 3 and not (self._fchar == "`" and self._rest_tick)

    def _flush_line_runs(self) -> None:
        if self._line_runs:
            runs = self._line_runs
            self._line_runs = []
            for run in runs:
                self._add_run(run)

    def _newline(self) -> None:
        self._end_run()
        line_start = self._line_start
        self._advance("\n")
        self._end_line(line_start, self.pos)

    def _end_line(self, line_start: int, line_end: int) -> None:
        runs = self._line_runs
        self._line_runs = []
        is_fence_line = self._frun >= 3 and not (self._fchar == "`" and self._rest_tick)
        if self._fence is not None:
            self._close_fence(self._fence, line_end)
        elif is_fence_line:
            self._close_paragraph()
            self._fence = (self._fchar, self._frun, line_start)
            self.heads[line_start] = line_end
        else:
            for run in runs:
                self._add_run(run)
            if self._line_blank:
                self._close_paragraph()
        self._new_line(line_end)

    def _new_line(self, start: int) -> None:
        """A line starts at ``start``: its per-line state is fresh."""
        self._line_start = start
        self._phase = 0  # 0 leading spaces, 1 fence run, 2 rest of line
        self._lead = 0
        self._fchar = ""
        self._frun = 0
        self._rest_tick = False
        self._rest_blank = True
        self._line_blank = True

    # --- inline spans ----------------------------------------------------------------------

    def _add_run(self, run: tuple[int, int, int]) -> None:
        runs = self._para_runs
        if runs and run[1] - run[0] == runs[0][1] - runs[0][0] - runs[0][2]:
            self.ranges.append((runs[0][0] + runs[0][2], run[1]))
            runs.clear()
            return
        if runs or run[1] - run[0] - run[2] > 0:
            runs.append(run)

    def _close_paragraph(self) -> None:
        """A blank line or a fence ends the paragraph: pair what is left, the rest is literal."""
        pair_rest(self._para_runs, self.ranges)

    # --- answers ---------------------------------------------------------------------------

    def finish(self) -> None:
        """End of text: a final line without newline counts, open constructs exempt nothing."""
        if self._finished:
            return
        self._end_run()
        if self.pos > self._line_start or self._line_runs:
            self._end_line_at_eof()
        if self._fence is not None:
            self._unclosed = self._fence[2]
            self._fence = None
        self._close_paragraph()
        self._finished = True

    def _close_fence(self, fence: tuple[str, int, int], end: int) -> None:
        """The line that ends at ``end`` closes the open ``fence`` when its run matches the
        fence's (the fence's range is recorded then)."""
        char, length, start = fence
        if (
            self._fchar == char
            and self._frun >= length
            and self._rest_blank
            and not (char == "`" and self._rest_tick)
        ):
            self.ranges.append((start, end))
            self._fence = None

    def _end_line_at_eof(self) -> None:
        # The last line has no newline: it may still close a fence or add inline runs, but it
        # cannot open a fence that encloses anything.
        runs = self._line_runs
        self._line_runs = []
        if self._fence is not None:
            self._close_fence(self._fence, self.pos)
            return
        is_fence_line = self._frun >= 3 and not (self._fchar == "`" and self._rest_tick)
        if is_fence_line:
            self._close_paragraph()
            self._fence = (self._fchar, self._frun, self._line_start)
            return
        for run in runs:
            self._add_run(run)

    @property
    def certain_upto(self) -> int:
        """Offsets below this have their final code status."""
        if self._finished:
            return self.pos
        bound = self.pos
        if self._fence is not None:
            bound = min(bound, self._fence[2])
        if self._para_runs:
            bound = min(bound, self._para_runs[0][0])
        if self._line_runs:
            bound = min(bound, self._line_runs[0][0])
        if self._run_start is not None:
            bound = min(bound, self._run_start)
        if self._phase < 2 or (self._frun >= 3 and not (self._fchar == "`" and self._rest_tick)):
            bound = min(bound, self._line_start)  # this line may still open a fence
        return bound

    def in_code(self, start: int, end: int) -> bool:
        """Whether ``[start, end)`` lies inside closed code found so far (a span on a fenced
        block's opening line is its header, see :class:`CodeRanges`)."""
        heads = self.heads
        return any(
            s <= start and end <= e and start >= heads.get(s, s) for s, e in reversed(self.ranges)
        )

    def prune(self, before: int) -> None:
        """Forget ranges that end before ``before`` (a stream no longer asks about them)."""
        if self.ranges and self.ranges[0][1] < before:
            self.ranges = [r for r in self.ranges if r[1] >= before]
            self.heads = {s: h for s, h in self.heads.items() if h >= before}


def code_ranges(text: str) -> CodeRanges:
    """Closed code in ``text``: fenced blocks and inline spans (what :class:`CodeTracker` finds
    when fed the whole text, computed in one pass over backtick and tilde runs)."""
    if "`" not in text and "~~~" not in text:
        return CodeRanges([])
    heads: dict[int, int] = {}
    return CodeRanges(whole_ranges(text, heads), heads)
