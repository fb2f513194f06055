"""Typing of parameter values that a format sends as text, by the OpenAI tool definitions
(guard.scanners.base.ToolTypes, typed_value, json_value)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard.scanners.base import ToolTypes, json_value, typed_value

PROPS: dict[str, Any] = {
    "city": {"type": "string"},
    "days": {"type": "integer"},
    "ratio": {"type": "number"},
    "metric": {"type": "boolean"},
    "filters": {"type": "object"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "limit": {"type": ["integer", "null"]},
    "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    "count": {"oneOf": [{"type": "integer"}, {"type": "boolean"}]},
    "anything": {"description": "no type"},
    "nickname": {"anyOf": [{"type": "string"}, {"type": "null"}]},
}
TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": PROPS},
        },
    },
    # Responses API shape: the function's fields at the top level.
    {"type": "function", "name": "flat", "parameters": {"properties": {"n": {"type": "integer"}}}},
    {"type": "web_search"},
    {"type": "function", "function": {"name": "bare"}},
]


@pytest.mark.parametrize(
    ("key", "text", "value"),
    [
        ("days", "42", 42),
        ("days", " 42\n", 42),
        ("days", "4.5", "4.5"),
        ("days", "forty", "forty"),
        ("days", "true", "true"),
        ("ratio", "4.5", 4.5),
        ("ratio", "3", 3),
        ("ratio", "NaN", "NaN"),
        ("ratio", "1e400", "1e400"),
        ("metric", "true", True),
        ("metric", "False", False),
        ("metric", "yes", "yes"),
        ("filters", '{"a": [1, 2]}', {"a": [1, 2]}),
        ("filters", "[1]", "[1]"),
        ("tags", '["x", "y"]', ["x", "y"]),
        ("tags", "x, y", "x, y"),
        ("limit", "null", None),
        ("limit", "7", 7),
        ("count", "false", False),
        ("count", "3", 3),
        ("nickname", "null", None),
        ("nickname", " null ", None),
        ("nickname", "Alice", "Alice"),
        ("nickname", "Null", "Null"),
    ],
)
def test_typed_where_the_schema_says_a_non_string_type(key: str, text: str, value: Any) -> None:
    assert ToolTypes(TOOLS).value("get_weather", key, text) == value


@pytest.mark.parametrize(
    ("tool", "key", "text"),
    [
        ("get_weather", "city", "42"),
        ("get_weather", "either", "42"),  # a string is a valid reading: kept
        ("get_weather", "anything", "42"),
        ("get_weather", "unknown", "42"),
        ("other_tool", "days", "42"),
        ("bare", "x", "true"),
    ],
)
def test_strings_stay_strings_otherwise(tool: str, key: str, text: str) -> None:
    assert ToolTypes(TOOLS).value(tool, key, text) == text


def test_responses_shape_and_sdk_objects_are_read() -> None:
    class SdkTool:
        def model_dump(self) -> dict[str, Any]:
            return TOOLS[0]

    assert ToolTypes(TOOLS).value("flat", "n", "5") == 5
    assert ToolTypes([SdkTool()]).value("get_weather", "days", "5") == 5  # type: ignore[list-item]


def test_no_tools_means_every_value_stays_a_string() -> None:
    none: list[dict[str, Any]] = []
    for tools in (None, none):
        types = ToolTypes(tools)
        assert not types
        assert types.value("get_weather", "days", "42") == "42"
    assert ToolTypes(TOOLS)


@pytest.mark.parametrize("bad", ["tools", {"type": "function"}, 3, b"x"])
def test_tools_must_be_a_list_of_definitions(bad: Any) -> None:
    with pytest.raises(TypeError, match="list of OpenAI tool definitions"):
        ToolTypes(bad)


def test_arguments_are_json_text_of_the_typed_object_in_order() -> None:
    types = ToolTypes(TOOLS)
    pairs = [("city", "Paris"), ("days", "3"), ("metric", "true"), ("city", "Lyon")]
    text = types.arguments("get_weather", pairs)
    assert text == '{"city": "Lyon", "days": 3, "metric": true}'
    # Values a format sent typed are taken as they are; text is not ASCII-escaped.
    assert (
        types.arguments("get_weather", [("days", 3), ("city", "é")]) == '{"days": 3, "city": "é"}'
    )


def test_json_value_reads_json_or_keeps_the_text() -> None:
    assert json_value('{"a": 1}') == {"a": 1}
    assert json_value(" 3 ") == 3
    assert json_value("NaN") == "NaN"
    assert json_value("[" * 100_000) == "[" * 100_000
    assert json_value("not json") == "not json"


@given(st.text(), st.sampled_from([*PROPS.values(), None, {}]))
def test_typed_value_never_raises_and_round_trips_through_json(text: str, schema: Any) -> None:
    value = typed_value(schema, text)
    assert json.loads(json.dumps(value)) == value
    if isinstance(value, str):
        assert value == text
