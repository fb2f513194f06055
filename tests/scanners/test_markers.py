"""guard.scanners.base.Markers: the earliest marker wins, a partial marker at the end is held,
and spellings that do not start with ``<`` (MiniMax's ``]~b]`` and ``[e~[``) are found too."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard.scanners.base import HOLD, Markers

SPELLINGS = ("<|im_end|>", "<think>", "</think>", "]~b]", "[e~[", "<｜tool▁sep｜>")


def _naive(buf: str, pos: int, final: bool) -> tuple[int, str | None]:
    """The earliest full spelling (longest at a tie), or a held partial one at the end."""
    for i in range(pos, len(buf)):
        full = [s for s in SPELLINGS if buf.startswith(s, i)]
        if full:
            return i, max(full, key=len)
        rest = buf[i:]
        if not final and any(s.startswith(rest) and s != rest for s in SPELLINGS):
            return i, HOLD
    return len(buf), None


@given(
    st.lists(
        st.sampled_from([*SPELLINGS, "]~", "[e", "<|", "<", "]", "[", "x", " ", "~b]"]), max_size=12
    ),
    st.booleans(),
)
def test_markers_find_matches_a_naive_search(pieces: list[str], final: bool) -> None:
    buf = "".join(pieces)
    markers = Markers(SPELLINGS)
    for pos in range(len(buf) + 1):
        assert markers.find(buf, pos, final) == _naive(buf, pos, final), (buf, pos)


def test_markers_spellings_without_angle_bracket() -> None:
    markers = Markers(("]~b]", "[e~["))
    assert markers.find("text [e~[ more", 0, False) == (5, "[e~[")
    assert markers.find("x]~b", 0, False) == (1, HOLD)
    assert markers.find("x]~b", 0, True) == (4, None)
    assert markers.find("a]b[c", 0, False) == (5, None)


def test_markers_reject_empty_spellings() -> None:
    with pytest.raises(ValueError):
        Markers(())
    with pytest.raises(ValueError):
        Markers(("<a>", ""))
