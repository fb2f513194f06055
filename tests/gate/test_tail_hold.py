"""The ending signals' tail test (``StreamPlan.tail_hold``) and the scanners' marker search
skip runs of one character (a model's flood of ``<`` or ``[``): both answer what a place-by-place
reading answers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, stream_plan
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
