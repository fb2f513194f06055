"""Call shapes the hostile review of stop 43 found slipping through: a call by a declared
tool's name with a positional string, ``await``, ``functions.`` or a closing ``;`` (F);
single-quoted attributes and a tool wrapper left open at the end (J)."""

from __future__ import annotations

import pytest

from guard import detect

TOOLS = ["get_weather", "read"]


@pytest.mark.parametrize(
    "text",
    [
        'Sure.\nget_weather("Paris")',
        'Ok.\nget_weather(city="Paris");',
        'Ok.\nawait get_weather(city="Paris")',
        'Ok.\nfunctions.get_weather(city="Paris")',
    ],
)
def test_a_call_by_name_trips(text: str) -> None:
    v = detect(text, tools=TOOLS)
    assert v.leak and v.signals == ("F",), v.explain()
    assert v.cut == text.index("\n") + 1


@pytest.mark.parametrize(
    "text",
    [
        'Call it like this:\nget_weather("Paris")',  # an example introduced by a colon
        'Ok.\nget_weather("Paris") returns a dict.',  # prose after it
        "Ok.\nget_weather()",  # no arguments
    ],
)
def test_a_call_by_name_near_miss_passes(text: str) -> None:
    assert not detect(text, tools=TOOLS).leak


@pytest.mark.parametrize(
    ("text", "tools"),
    [
        ("<call_record tool='read'><parameter name='path'>a</parameter></call_record>", None),
        ('<tool_call>{"cmd": ["ls"]}', None),  # left open at the end
        ('Look:\n<tool_call>{"name": "read", "arguments": {}}', TOOLS),
    ],
)
def test_more_wrapper_shapes_trip(text: str, tools: list[str] | None) -> None:
    v = detect(text, dialect="gemini", tools=tools)
    assert v.leak and v.signals == ("J",), v.explain()


def test_an_open_wrapper_followed_by_prose_passes() -> None:
    assert not detect('<tool_call>{"cmd": ["ls"]} is the shape.', dialect="gemini").leak


def test_a_function_element_and_json_in_a_tool_wrapper_trips() -> None:
    text = (
        'Let me check.\n<tool_call>\n<function>terminal</function>\n{"command": "lsof"}\n'
        "</tool_call>"
    )
    v = detect(text, dialect="gemma", tools=["terminal"])
    assert v.leak and v.signals == ("J",) and v.cut == text.index("<tool_call>")


@pytest.mark.parametrize("tools", [None, ["read_file"]])
def test_a_tool_use_block_printed_as_a_python_dict_trips(tools: list[str] | None) -> None:
    text = (
        "Let me look at the settings module.\n{'id': 'toolu_01', 'input': {'path': 'a.py'}, "
        "'name': 'read_file', 'type': 'tool_use'}"
    )
    v = detect(text, dialect="anthropic", tools=tools)
    assert v.leak and v.signals == ("J",) and v.cut == text.index("{")


def test_a_tool_use_block_named_in_prose_passes() -> None:
    assert not detect("It looks like {'type': 'tool_use', 'name': 'x'} in the SDK.").leak
