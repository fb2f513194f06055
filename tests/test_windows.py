"""guard._windows: a scan in windows finds exactly what one whole-text call finds."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import guard._windows as windows
from guard._regex_source import reach

PATTERNS = [
    r"<\|(?:start|end|channel)\|>",
    r"ab(?=cab)",
    r"\bab\b",
    r"(?<=c)ab",
    r"(?<!a)b{1,3}c?",
    r"<\|start\|>(?!assistant)[a-z]{1,5}",
    r"a[bc]{2}|ca",
]


@pytest.fixture(autouse=True)
def small_window(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(windows, "WINDOW", 7)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(PATTERNS),
    st.text(alphabet="abc <|>startendchanelsi", max_size=200),
    st.integers(0, 20),
)
def test_finditer_equals_one_call(source: str, text: str, pos: int) -> None:
    pattern = re.compile(source)
    assert reach(source) is not None
    got = [m.span() for m in windows.finditer(pattern, text, pos)]
    assert got == [m.span() for m in pattern.finditer(text, pos)]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(PATTERNS), st.text(alphabet="abc <|>startendchanelsi", max_size=200))
def test_sub_equals_one_call(source: str, text: str) -> None:
    pattern = re.compile(source)

    def repl(m: re.Match[str]) -> str:
        return f"[{m.group()}]"

    assert windows.sub(pattern, repl, text) == pattern.sub(repl, text)


def test_each_call_reads_a_window() -> None:
    """The search calls are bounded: no call is given more than WINDOW + reach characters."""
    source = r"<\|start\|>"
    pattern = re.compile(source)
    text = "<|" * 200 + "<|start|>" + "x" * 50
    seen: list[int] = []

    def search(t: str, lo: int, hi: int) -> re.Match[str] | None:
        seen.append(hi - lo)
        return pattern.search(t, lo, hi)

    bound = reach(source)
    assert bound is not None
    found = [m.span() for m in windows._windows(search, text, 0, len(text), bound)]
    assert found == [m.span() for m in pattern.finditer(text)]
    assert len(seen) > 10 and max(seen) <= windows.WINDOW + bound


@pytest.mark.parametrize("source", [r"a*", r"a+", r"(a)\1", r"x?", r"to=functions\.[\w-]+"])
def test_unbounded_or_empty_patterns_run_whole_in_the_free_engine(source: str) -> None:
    assert reach(source) is None
    pattern = re.compile(source)
    text = "aab to=functions.get-x " * 20
    found = windows.finditer(pattern, text)
    assert not isinstance(found, type(pattern.finditer("")))  # the `regex` engine's iterator
    assert [m.span() for m in found] == [m.span() for m in pattern.finditer(text)]

    def repl(m: re.Match[str]) -> str:
        return "<" + m.group() + ">"

    assert windows.sub(pattern, repl, text) == pattern.sub(repl, text)


def test_reach_counts_lookaheads_and_anchors() -> None:
    assert reach("abc") == 4
    assert reach("a(?=bcd)") == 5
    assert reach(r"x|yy(?!zzz)") == 6
    assert reach(r"(?<=abc)d") == 2


@pytest.mark.parametrize("source", PATTERNS)
def test_a_match_at_every_alignment_with_a_window_edge(source: str) -> None:
    """Each pattern's longest shapes placed at every offset around the first window edges."""
    pattern = re.compile(source)
    samples = ["<|channel|>", "abcab", "cab ab", "bbbc", "<|start|>tools", "acc"]
    for sample in samples:
        for offset in range(3 * windows.WINDOW + 2):
            text = "x" * offset + sample + " " + sample + "x" * 3
            got = [m.span() for m in windows.finditer(pattern, text)]
            assert got == [m.span() for m in pattern.finditer(text)], (sample, offset)


PIECES = [
    "<|start|>",
    "<|start|>functions.get_weather to=assistant<|message|>",
    "<|channel|>commentary to=functions.bash",
    " to=functions.lookup ",
    "<|assistant to=functions.x|>",
    "assistantfinal",
    "analysis json{",
    "code_output\nCell 3:",
    "<tool_call>",
    "[TOOL_CALLS]",
    "<|im_start|>",
    "<｜tool▁calls▁begin｜>",
    "`<|end|>`",
    "<",
    "<|",
    "\n\n",
    "The user asked for the weather. ",
    "plain words and more plain words ",
]


@settings(max_examples=60, deadline=None)
@given(
    st.sampled_from(["harmony", "chatml", "deepseek", "all"]),
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=60),
)
def test_detect_in_windows_finds_what_one_call_finds(dialect: str, pieces: list[str]) -> None:
    """Every signal that searches a whole text through guard._windows gives the same verdict
    with windows of 7 characters as with one call over the whole text."""
    from guard import detect

    text = "".join(pieces)
    windows.WINDOW = 7  # each example sets both sizes; the fixture restores the module's
    small = detect(text, dialect=dialect)
    windows.WINDOW = 10**9
    whole = detect(text, dialect=dialect)
    assert small.model_dump() == whole.model_dump()


def test_a_header_form_with_a_long_name_is_still_escaped_and_found() -> None:
    """The Harmony header form keeps an unbounded name: a long text is searched for it in the
    `regex` engine rather than in windows, never by giving up matches."""
    from guard import detect, escape

    spelling = "<|functions." + "a" * 200 + "|>"
    text = "plain words " * 3000 + spelling
    assert escape(spelling, dialect="harmony") != spelling
    assert any(h.evidence == spelling for h in detect(text, dialect="harmony").hits)
