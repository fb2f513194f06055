"""The streamed parse boundary (``JsonEnd``) answers what the whole-text one (``json_end``)
answers, however the arguments are split: whole in the first piece (the decoder's fast path),
or in pieces (the structural walk)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.gate import JsonEnd, json_end

_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
#: JSON texts, whole or broken, with text after them
_TEXTS = st.builds(
    lambda value, cut, tail, pad: pad + json.dumps(value)[: cut or None] + tail,
    _VALUES,
    st.integers(min_value=-6, max_value=0),
    st.sampled_from(["", " <|call|>", "}", '"', "\\", "]]", " tail"]),
    st.sampled_from(["", " ", "\n\t"]),
)


def _fed(text: str, cuts: list[int]) -> int:
    end = JsonEnd()
    at = 0
    for cut in sorted(set(cuts)):
        end.feed(text[at:cut])
        at = cut
    end.feed(text[at:])
    return end.finish()


@pytest.mark.parametrize(
    "text",
    [
        '{"city": "Paris", "days": 2}',
        '{"a": "}"} <|call|>',
        '{"a": [1, {"b": "x\\"}"}]}]}',
        '{"a": 1,} rest',
        "[1, 2",
        '  {"a": NaN} x',
        '"scalar" x',
        "",
    ],
)
def test_whole_and_split_give_the_whole_text_answer(text: str) -> None:
    expected = json_end(text)
    assert _fed(text, []) == expected
    for cut in range(len(text) + 1):
        assert _fed(text, [cut]) == expected, cut


@settings(max_examples=400)
@given(_TEXTS, st.lists(st.integers(min_value=0, max_value=60), max_size=4))
def test_any_split_gives_the_whole_text_answer(text: str, cuts: list[int]) -> None:
    cuts = [c for c in cuts if c <= len(text)]
    assert _fed(text, cuts) == json_end(text)
