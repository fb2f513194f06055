"""M finds its markers from each ``=`` (a one-character scan) and checks the ``to`` behind it;
its spans are exactly those of the marker pattern as written, overlapping candidates included
(docs/detection.md, signal M)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from guard.signals.routing_marker import _MARKER, marker_spans

_PIECES = st.sampled_from(
    [
        "to=",
        "to",
        "=",
        "go",
        "functions.",
        "functions.goto",
        "python",
        "python.",
        "browser.",
        "multi_tool_use.",
        "container.",
        "x",
        "-",
        "1",
        " ",
        "\t",
        "\n",
        "é",
        "ｔｏ=",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_marker_spans_equal_the_pattern_as_written(text: str) -> None:
    assert marker_spans(text) == [m.span() for m in _MARKER.finditer(text)]


def test_a_match_starting_inside_the_one_before_is_dropped() -> None:
    # "goto" ends the first name; from the next "=", "to=" is seen behind it
    text = "to=functions.goto=functions.x"
    assert marker_spans(text) == [(0, 17)]
    assert [m.span() for m in _MARKER.finditer(text)] == [(0, 17)]


def test_markers_at_the_very_start_and_end() -> None:
    assert marker_spans("to=python") == [(0, 9)]
    assert marker_spans("=python") == []
    assert marker_spans("o=python") == []
    assert marker_spans("x to= browser.search") == [(2, 20)]
