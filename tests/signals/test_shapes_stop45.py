"""Shapes added in stop 45: Gemini's namespace glued to the text before it (J), with near
misses and every split."""

from __future__ import annotations

import pytest
from support.splits import assert_every_split

from guard import detect

# --- J: Gemini's namespace glued to the text before it ----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'Here is your summary.default_api:mandatory_tool{categoryNames:["housing"]}',
        "Lie:default_api:mandatory_tool{categoryNames:[],suggestedTitle:null}",
    ],
)
def test_a_glued_default_api_call_at_the_end_trips(text: str) -> None:
    v = assert_every_split(text, "text", "gemma", tools=frozenset({"mandatory_tool"}))
    assert v.leak and v.signals == ("J",) and v.cut == text.index("default_api:"), v.reason


def test_a_namespace_inside_a_word_is_no_call() -> None:
    text = "my_default_api:mandatory_tool{a:1}"
    assert "J" not in detect(text, dialect="gemma", tools=["mandatory_tool"]).signals
