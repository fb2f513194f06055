"""Code exemption (rule D6, docs/detection.md, "Code exemption"): the incremental tracker against
a whole-text oracle, chunk invariance, and the certainty bound streaming relies on."""

from __future__ import annotations

import bisect
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard.gate import CodeTracker, code_ranges

_LINE = re.compile(r"[^\n]*(?:\n|\Z)")
_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})([^\n]*)")
_TICKS = re.compile(r"`+")
_BLANK = re.compile(r"\n[ \t]*\r?\n")


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


def reference_code_ranges(text: str) -> list[tuple[int, int]]:
    """The first (whole-text, regex-based) implementation, kept as an oracle."""
    if "`" not in text and "~~~" not in text:
        return []
    blocks, unclosed = _fences(text)
    ranges = list(blocks)
    lo = 0
    for start, end in [*blocks, (unclosed, unclosed)]:
        _spans(text, lo, start, ranges)
        lo = end
    return sorted(ranges)


PIECES = [
    "`",
    "``",
    "```",
    "~~~",
    "````",
    "\n",
    "\n\n",
    " ",
    "   ",
    "\t",
    "\r\n",
    "\\",
    "x",
    "ab",
    "<|end|>",
    "py",
    "\r",
]
markdown = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=3)), max_size=40).map(
    "".join
)
PROPS = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def tracked(chunks: list[str]) -> list[tuple[int, int]]:
    tracker = CodeTracker()
    for chunk in chunks:
        tracker.feed(chunk)
    tracker.finish()
    return sorted(tracker.ranges)


@PROPS
@given(markdown)
def test_d6_tracker_agrees_with_the_whole_text_oracle(text: str) -> None:
    assert code_ranges(text).as_list() == reference_code_ranges(text)
    assert tracked([text]) == reference_code_ranges(text)


#: pieces that stress the whole-text pass: fence candidates at every indentation, escaped and
#: unescaped runs, blank lines made of spaces, tabs and carriage returns, tildes
DENSE_PIECES = [
    "`",
    "``",
    "```",
    "````",
    "~~~",
    "~~~~",
    "\n",
    "\n\n",
    "\n \n",
    "\n\t\r\n",
    "\r",
    " ",
    "   ",
    "    ",
    "\\",
    "x",
    "<|end|>",
]
dense_markdown = st.lists(st.sampled_from(DENSE_PIECES), max_size=60).map("".join)


@PROPS
@given(st.one_of(markdown, dense_markdown))
def test_d6_whole_text_pass_equals_the_tracker(text: str) -> None:
    """`code_ranges` skips the tracker's per-character state machine (it visits only backtick
    and tilde runs); its answer must be the tracker's, character for character."""
    assert code_ranges(text).as_list() == tracked([text])


@PROPS
@given(markdown, st.data())
def test_tracker_is_chunk_invariant(text: str, data: st.DataObject) -> None:
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    chunks = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    assert tracked(chunks) == tracked([text])
    assert tracked(list(text)) == tracked([text])


@PROPS
@given(markdown, st.data())
def test_certain_prefix_never_changes(text: str, data: st.DataObject) -> None:
    """What the tracker calls certain at any point is what the whole text says."""
    final = code_ranges(text)
    tracker = CodeTracker()
    cut = data.draw(st.integers(0, len(text)))
    tracker.feed(text[:cut])
    bound = tracker.certain_upto
    probes = data.draw(st.lists(st.integers(0, max(0, bound - 1)), max_size=5))
    for p in probes:
        if p < bound:
            for end in (p + 1, min(bound, p + 5)):
                if end <= bound:
                    assert tracker.in_code(p, end) == final.contains(p, end), (text, cut, p, end)


def test_examples() -> None:
    t = "a `<|x|>` b\n```py\ncode <|y|>\n```\nc ``no\n\nclose`` ```\nunclosed <|z|>"
    got = [t[s:e] for s, e in code_ranges(t).as_list()]
    assert got == ["`<|x|>`", "```py\ncode <|y|>\n```\n"]
