"""The ending signals' tail test (``StreamPlan.tail_hold``) and the scanners' marker search
skip runs of one character (a model's flood of ``<`` or ``[``): both answer what a place-by-place
reading answers."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, bracket_hold, stream_plan
from guard.models import Surface
from guard.scanners.base import Markers

_PIECES = st.sampled_from(["<", "<<<<", "[", "[[[[[[", "{", '"', "a", " ", "<tool_call>", "}"])


def _naive_tail_hold(plan, norm: str, lo: int) -> int | None:  # type: ignore[no-untyped-def]
    for at in range(lo, len(norm)):
        if plan.tail.fullmatch(norm, at, partial=True):
            return at
    return None


@pytest.mark.parametrize("dialect", ["chatml", "anthropic", "harmony", "llama3"])
@settings(max_examples=150)
@given(pieces=st.lists(_PIECES, max_size=40), runs=st.integers(min_value=0, max_value=60))
def test_tail_hold_answers_place_by_place(dialect: str, pieces: list[str], runs: int) -> None:
    plan = stream_plan(get_dialect(dialect), Surface.TEXT, DEFAULT_POLICY.disabled)
    assert plan.tail is not None
    norm = "<" * runs + "".join(pieces)
    for lo in (0, runs // 2, len(norm)):
        assert plan.tail_hold(norm, lo) == _naive_tail_hold(plan, norm, lo)


def _naive_find(spellings: tuple[str, ...], buf: str, pos: int) -> int:
    hits = [i for i in range(pos, len(buf)) if any(buf.startswith(s, i) for s in spellings)]
    return hits[0] if hits else len(buf)


@settings(max_examples=200)
@given(st.lists(st.sampled_from(["<", "<<<", "<|im_end|>", "<tool_call>", "x", "|>"]), max_size=30))
def test_marker_search_skips_runs_of_lt(pieces: list[str]) -> None:
    spellings = ("<|im_end|>", "<tool_call>", "</tool_call>")
    markers = Markers(spellings)
    buf = "".join(pieces)
    at, spelling = markers.find(buf, 0, final=True)
    assert at == _naive_find(spellings, buf, 0)
    assert spelling is None or buf.startswith(spelling, at)


_TAIL_PIECES = st.sampled_from(
    ["<", "</", "<param", "<parameter", "</invoke", "<|", "<| im_", "<|IM_end", "x", " ", "\n", ">"]
)


@pytest.mark.parametrize("dialect", ["anthropic", "minimax", "chatml", "harmony", "deepseek"])
@settings(max_examples=150)
@given(data=st.data())
def test_held_spellings_are_looked_for_near_the_end_only(dialect: str, data: st.DataObject) -> None:
    """The bound (the longest spelling) and the prefix table change which places are tried,
    never the answer: tails that end in prefixes of the plan's own spellings, long ones too."""
    plan = stream_plan(get_dialect(dialect), Surface.TOOL_ARG, DEFAULT_POLICY.disabled)
    plain = dataclasses.replace(plan, hold_reach=None, hold_prefixes=None)
    known = sorted(plan.hold_prefixes or ())
    pieces = st.sampled_from(known) | _TAIL_PIECES if known else _TAIL_PIECES
    tail = "".join(data.draw(st.lists(pieces, max_size=6)))
    assert bracket_hold(plan, tail, len(tail) + 7) == bracket_hold(plain, tail, len(tail) + 7)


@pytest.mark.parametrize("dialect", ["anthropic", "minimax"])
def test_the_longest_prefixes_are_still_held(dialect: str) -> None:
    plan = stream_plan(get_dialect(dialect), Surface.TOOL_ARG, DEFAULT_POLICY.disabled)
    assert plan.hold_reach is not None and plan.hold_prefixes
    longest = [p for p in plan.hold_prefixes or () if len(p) >= plan.hold_reach - 4]
    for prefix in longest:
        tail = "text before " + prefix
        assert bracket_hold(plan, tail, len(tail)) == len("text before "), prefix
