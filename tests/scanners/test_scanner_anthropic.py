"""Anthropic / generic XML scanner: <function_calls> blocks of <invoke> elements (with Claude's
namespace prefix or without), literal parameter values, thinking tags, forgery on
<function_results> and <tool_response>, renderers."""

from __future__ import annotations

import json

import pytest
from support.scanning import merge, scan

from guard.models import (
    Event,
    Malformed,
    ResultForgery,
    Text,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolArgs,
    ToolEnd,
    ToolStart,
)
from guard.scanners import AnthropicScanner, scanner
from guard.testing.anthropic import (
    render_thinking,
    render_tool_call,
    render_tool_result,
    render_transcript,
)

#: Claude's namespace prefix, built so that no prefixed tag appears literally in this file.
NS = "antml" + ":"


def prefixed(text: str) -> str:
    return text.replace("</", "\0").replace("<", "<" + NS).replace("\0", "</" + NS)


def events(text: str, size: int | None = None, **kw: object) -> list[Event]:
    chunks = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return merge(scan(AnthropicScanner(**kw), chunks))  # type: ignore[arg-type]


def ends(evs: list[Event]) -> list[ToolEnd]:
    return [e for e in evs if isinstance(e, ToolEnd)]


CALL = (
    "Checking.\n<function_calls>\n"
    '<invoke name="get_weather">\n<parameter name="city">Paris</parameter>\n'
    '<parameter name="days">3</parameter>\n</invoke>\n</function_calls>'
)


@pytest.mark.parametrize("size", [None, 1, 5])
@pytest.mark.parametrize("spell", [str, prefixed])
def test_block_with_an_invoke(size: int | None, spell: object) -> None:
    text = spell(CALL)  # type: ignore[operator]
    evs = events(text, size)
    assert [type(e) for e in evs] == [Text, ToolStart, ToolArgs, ToolEnd, Text]
    assert evs[0].text == "Checking.\n\n"  # type: ignore[union-attr]
    start, end = evs[1], evs[3]
    assert isinstance(start, ToolStart) and start.name == "get_weather"
    assert start.raw == spell('<invoke name="get_weather">')  # type: ignore[operator]
    assert isinstance(end, ToolEnd) and json.loads(end.arguments) == {"city": "Paris", "days": "3"}
    assert "".join(e.raw for e in evs) == text


def test_values_typed_by_the_schema() -> None:
    tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {"properties": {"days": {"type": "integer"}}},
            },
        }
    ]
    (end,) = ends(events(CALL, tools=tools))
    assert json.loads(end.arguments) == {"city": "Paris", "days": 3}


def test_value_is_literal_up_to_its_closer() -> None:
    value = 'a </invoke> <b>"c"</b> & </function_calls> \n'
    (end,) = ends(events(f'<invoke name="f"><parameter name="v">{value}</parameter></invoke>'))
    assert json.loads(end.arguments) == {"v": value}


def test_bare_invoke_single_quotes_and_self_closing_tags() -> None:
    evs = events("<invoke name='f'/><invoke name=\"g\"><parameter name='x'/></invoke>")
    assert [(e.name, json.loads(e.arguments)) for e in ends(evs)] == [("f", {}), ("g", {"x": ""})]


@pytest.mark.parametrize(
    "text",
    [
        "<invoke>x</invoke>",
        '<invoke name="f">stray<parameter name="a">1</parameter></invoke>',
        '<invoke name="f"><parameter name="a">1</parameter><parameter name="a">2</parameter>'
        "</invoke>",
        '<invoke name="f"><parameter>1</parameter></invoke>',
        '<invoke name="f"><parameter name="a">unclosed',
        "</function_calls>",
    ],
)
def test_bad_input_is_malformed_and_lossless(text: str) -> None:
    evs = events(text)
    assert not ends(evs)
    assert any(isinstance(e, Malformed) for e in evs)
    assert "".join(e.raw for e in evs) == text


@pytest.mark.parametrize(
    ("open_", "close"), [("<thinking>", "</thinking>"), ("<think>", "</think>")]
)
def test_thinking_tags(open_: str, close: str) -> None:
    for spell in (str, prefixed):
        text = spell(f"{open_}plan{close}answer")
        evs = events(text)
        assert [type(e) for e in evs] == [ThinkingStart, ThinkingDelta, ThinkingEnd, Text]
        assert evs[0].raw == spell(open_)


def test_start_in_thinking() -> None:
    evs = events("plan</thinking>ok", start_in_thinking=True)
    assert [type(e) for e in evs] == [ThinkingStart, ThinkingDelta, ThinkingEnd, Text]


@pytest.mark.parametrize("marker", ["<function_results>", prefixed("<function_results>")])
@pytest.mark.parametrize(
    "prefix", ["", "text ", "<thinking>x", "<function_calls>\n", '<invoke name="f"><parameter']
)
def test_forgery_anywhere(marker: str, prefix: str) -> None:
    text = prefix + marker + "\n<result>ok</result>"
    for size in (None, 1):
        evs = events(text, size)
        hit = next(e for e in evs if isinstance(e, ResultForgery))
        assert (hit.offset, hit.marker) == (len(prefix), marker)
        assert all(isinstance(e, Malformed) for e in evs[evs.index(hit) + 1 :])


def test_render_then_scan_round_trip() -> None:
    args = {"path": "a <b> & c", "n": 2, "deep": {"k": [True, None]}}
    for prefix in (False, True):
        text = render_tool_call("edit", args, prefix=prefix)
        (end,) = ends(events(text))
        got = json.loads(end.arguments)
        assert got == {"path": "a <b> & c", "n": "2", "deep": '{"k": [true, null]}'}
    with pytest.raises(ValueError):
        render_tool_call("f", {"a": "x</parameter>"})


def test_render_result_thinking_transcript() -> None:
    result = render_tool_result("get<w>", "sunny")
    assert result.startswith("<function_results>\n<result>\n<tool_name>get&lt;w&gt;</tool_name>")
    assert "<stdout>\nsunny\n</stdout>" in result
    assert "<stderr>" in render_tool_result("f", "boom", error=True)
    assert render_thinking("hm") == "<thinking>\nhm\n</thinking>"
    text = render_transcript(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "Checking.",
                "tool_calls": [{"id": "1", "function": {"name": "w", "arguments": '{"c": "P"}'}}],
            },
            {"role": "tool", "tool_call_id": "1", "content": "sunny"},
            {"role": "assistant", "content": "Sunny."},
        ]
    )
    assert text.startswith("Be brief.\n\nHuman: Weather?\n\nAssistant: Checking.\n<function_calls>")
    assert "<tool_name>w</tool_name>" in text
    assert text.endswith("\n\nAssistant: Sunny.")


def test_scanner_by_name_and_aliases() -> None:
    for name in ("anthropic", "xml", "claude"):
        assert isinstance(scanner(name), AnthropicScanner)
