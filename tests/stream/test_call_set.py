"""CallSet: the same answers as a set of (choice, call) pairs, in memory that follows the gaps
between the calls in it rather than their count."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from guard.stream import CallSet

calls = st.tuples(st.integers(0, 3), st.integers(0, 40))


@settings(max_examples=300, deadline=None)
@given(st.lists(calls, max_size=80), st.lists(calls, max_size=40))
def test_a_call_set_answers_as_a_set(
    added: list[tuple[int, int]], asked: list[tuple[int, int]]
) -> None:
    ours, plain = CallSet(), set()
    for call in added:
        ours.add(call)
        plain.add(call)
        assert call in ours
    for call in [*added, *asked]:
        assert (call in ours) == (call in plain), call
    assert ours.choices() == {choice for choice, _ in plain}


def test_calls_in_order_keep_one_run() -> None:
    ours = CallSet()
    ours.update((0, k) for k in range(100_000))
    starts, stops = ours._runs[0]
    assert (starts, stops) == ([0], [100_000])
    assert sys.getsizeof(starts) + sys.getsizeof(stops) < 200
    assert (0, 99_999) in ours and (0, 100_000) not in ours and (1, 0) not in ours


def test_runs_merge_across_a_gap_that_fills() -> None:
    ours = CallSet()
    ours.update([(0, 5), (0, 7), (0, 6), (0, 4), (0, 8)])
    assert ours._runs[0] == ([4], [9])
