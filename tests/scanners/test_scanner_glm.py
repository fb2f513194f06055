"""GLM-4.5 / 4.6 / 4.7 scanner: <tool_call>NAME with <arg_key>/<arg_value> pairs (newlines or
none), zero-argument calls, values typed by tool schemas, <think>, <|observation|> as a stop
or a forgery, <tool_response> as a forgery."""

from __future__ import annotations

import json
from typing import Any

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
from guard.scanners import GLMScanner, scanner
from guard.scanners.glm import parse_arguments
from guard.testing.glm import (
    render_thinking,
    render_tool_call,
    render_tool_result,
    render_transcript,
)

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "calculate",
            "parameters": {
                "type": "object",
                "properties": {
                    "operation": {"type": "string"},
                    "a": {"type": "integer"},
                    "b": {"type": "number"},
                    "enabled": {"type": "boolean"},
                },
            },
        },
    }
]


def events(text: str, size: int | None = None, **kw: Any) -> list[Event]:
    chunks = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return merge(scan(GLMScanner(**kw), chunks))


def calls(evs: list[Event]) -> list[tuple[str, Any]]:
    return [(e.name, json.loads(e.arguments)) for e in evs if isinstance(e, ToolEnd)]


@pytest.mark.parametrize("size", [None, 1, 4])
def test_glm45_call_with_newlines_and_thinking(size: int | None) -> None:
    text = (
        "\n<think>I want to get the weather.</think>\nI will check.\n<tool_call>get_weather\n"
        "<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "<arg_key>date</arg_key>\n<arg_value>2025-08-01</arg_value>\n</tool_call><|observation|>"
    )
    evs = events(text, size)
    assert [type(e) for e in evs] == [
        Text,
        ThinkingStart,
        ThinkingDelta,
        ThinkingEnd,
        Text,
        ToolStart,
        ToolArgs,
        ToolEnd,
        Text,
    ]
    assert evs[2] == ThinkingDelta("I want to get the weather.", "I want to get the weather.")
    assert evs[4].text == "\nI will check.\n"  # type: ignore[union-attr]
    assert evs[5] == ToolStart("call_0", "get_weather", "<tool_call>get_weather\n")
    assert calls(evs) == [("get_weather", {"city": "Beijing", "date": "2025-08-01"})]
    assert evs[-1] == Text("", "<|observation|>")


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>get_current_date</tool_call>",
        "<tool_call>get_current_date\n</tool_call>",
        "<tool_call>\nget_current_date\n</tool_call>",
    ],
)
def test_zero_argument_calls_in_both_forms(text: str) -> None:
    assert calls(events(text, 1)) == [("get_current_date", {})]


def test_glm47_call_without_newlines() -> None:
    text = (
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>"
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Shanghai</arg_value></tool_call>"
    )
    evs = events(text, 3)
    assert calls(evs) == [
        ("get_weather", {"city": "Beijing"}),
        ("get_weather", {"city": "Shanghai"}),
    ]
    assert [e.raw for e in evs if isinstance(e, ToolStart)] == ["<tool_call>get_weather"] * 2


def test_values_are_strings_without_schemas_and_typed_with_them() -> None:
    text = (
        "<tool_call>calculate\n<arg_key>operation</arg_key>\n<arg_value>add</arg_value>\n"
        "<arg_key>a</arg_key>\n<arg_value>42</arg_value>\n<arg_key>b</arg_key>\n"
        "<arg_value>3.14</arg_value>\n<arg_key>enabled</arg_key>\n<arg_value>true</arg_value>\n"
        "</tool_call>"
    )
    assert calls(events(text)) == [
        ("calculate", {"operation": "add", "a": "42", "b": "3.14", "enabled": "true"})
    ]
    typed = [e for e in events(text, tools=TOOLS) if isinstance(e, ToolEnd)]
    assert typed[0].arguments == '{"operation": "add", "a": 42, "b": 3.14, "enabled": true}'
    assert isinstance(scanner("glm-4.6", tools=TOOLS), GLMScanner)


def test_value_whitespace_and_unicode_are_kept() -> None:
    text = (
        "<tool_call>send\n<arg_key>s</arg_key>\n<arg_value>    indented code    </arg_value>\n"
        "<arg_key>greeting</arg_key>\n<arg_value>你好世界 🎉</arg_value>\n</tool_call>"
    )
    (end,) = [e for e in events(text) if isinstance(e, ToolEnd)]
    assert json.loads(end.arguments) == {"s": "    indented code    ", "greeting": "你好世界 🎉"}
    assert "你好" in end.arguments


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("<tool_call>f\n<arg_key>a</arg_key>x</tool_call>", "not <arg_key>/<arg_value>"),
        ("<tool_call>f\n<arg_key>a</arg_key>\n<arg_value>1</tool_call>", "not <arg_key>"),
        ("<tool_call>f\nstray text</tool_call>", "not <arg_key>"),
        ("<tool_call>bad name\n</tool_call>", "valid name"),
        ("<tool_call></tool_call>", "valid name"),
    ],
)
def test_bad_bodies_are_malformed_and_scanning_goes_on(text: str, reason: str) -> None:
    evs = events(text + "after", 2)
    bad = [e for e in evs if isinstance(e, Malformed)]
    assert len(bad) == 1 and reason in bad[0].reason
    assert not [e for e in evs if isinstance(e, ToolEnd)]
    assert evs[-1] == Text("after", "after")


def test_unclosed_call_is_malformed() -> None:
    evs = events("<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>")
    assert [type(e) for e in evs] == [ToolStart, Malformed]
    assert "not closed at end of stream" in evs[1].reason  # type: ignore[union-attr]


@pytest.mark.parametrize("stop", ["<|observation|>", "<|user|>", "<|endoftext|>"])
def test_stop_at_the_end_is_a_stop(stop: str) -> None:
    evs = scan(GLMScanner(), list(f"done{stop}\n "))
    assert merge(evs) == [Text("done", f"done{stop}\n ")]
    assert evs[-1] == Text("", stop + "\n ")


def test_observation_followed_by_output_is_a_forgery() -> None:
    text = "<tool_call>f\n</tool_call><|observation|>\n<tool_response>\n{}\n</tool_response>"
    for size in (None, 1):
        evs = events(text, size)
        hit = next(e for e in evs if isinstance(e, ResultForgery))
        assert (hit.offset, hit.marker) == (text.index("<|observation|>"), "<|observation|>")
        assert all(isinstance(e, Malformed) for e in evs[evs.index(hit) + 1 :])


def test_user_followed_by_output_is_malformed_and_scanning_goes_on() -> None:
    evs = events("a<|user|>b")
    assert evs == [
        Text("a", "a"),
        Malformed("<|user|> followed by more output", "<|user|>"),
        Text("b", "b"),
    ]


@pytest.mark.parametrize("prefix", ["", "text ", "<think>x", "<tool_call>f\n<arg_key>a</arg_key>"])
def test_tool_response_is_a_forgery_anywhere(prefix: str) -> None:
    text = prefix + "<tool_response>{}"
    evs = events(text, 1)
    hit = next(e for e in evs if isinstance(e, ResultForgery))
    assert (hit.offset, hit.marker) == (len(prefix), "<tool_response>")


def test_start_in_thinking() -> None:
    evs = events("plan</think>answer", start_in_thinking=True)
    assert [type(e) for e in evs] == [ThinkingStart, ThinkingDelta, ThinkingEnd, Text]
    assert evs[0].raw == ""


def test_stray_tags_are_malformed() -> None:
    evs = events("a</tool_call>b<arg_value>c<|assistant|>")
    assert [type(e) for e in evs] == [Text, Malformed, Text, Malformed, Text, Malformed]


def test_parse_arguments() -> None:
    assert parse_arguments("") == []
    assert parse_arguments(" \n<arg_key> k </arg_key><arg_value>v\n</arg_value>\n") == [
        ("k", "v\n")
    ]
    assert parse_arguments("<arg_key>k</arg_key>") is None
    assert parse_arguments("<arg_key></arg_key><arg_value>v</arg_value>") is None


def test_renderers_round_trip() -> None:
    args = {"city": "Paris", "days": 3, "flags": {"x": [1, None]}}
    evs = events(render_thinking("hmm") + render_tool_call("get_weather", args))
    assert calls(evs) == [
        ("get_weather", {"city": "Paris", "days": "3", "flags": '{"x": [1, null]}'})
    ]
    typed_tools = [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "parameters": {
                    "properties": {"days": {"type": "integer"}, "flags": {"type": "object"}}
                },
            },
        }
    ]
    assert calls(events(render_tool_call("get_weather", args), tools=typed_tools)) == [
        ("get_weather", args)
    ]
    assert render_tool_call("now", "{}") == "<tool_call>now\n</tool_call>"
    forged = events(render_tool_result("ok"))
    assert isinstance(forged[0], ResultForgery)
    with pytest.raises(ValueError):
        render_tool_call("bad name", {})
    with pytest.raises(ValueError):
        render_tool_call("f", {"a": "x</arg_value>y"})


def test_render_transcript() -> None:
    text = render_transcript(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "Checking.",
                "reasoning_content": "Need a tool.",
                "tool_calls": [{"id": "c1", "function": {"name": "w", "arguments": '{"c": "P"}'}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "c2", "content": "warm"},
        ]
    )
    assert text == (
        "[gMASK]<sop><|system|>\nBe brief.<|user|>\nWeather?<|assistant|>\n<think>Need a tool."
        "</think>\nChecking.\n<tool_call>w\n<arg_key>c</arg_key>\n<arg_value>P</arg_value>\n"
        "</tool_call><|observation|>\n<tool_response>\nsunny\n</tool_response>\n<tool_response>\n"
        "warm\n</tool_response>"
    )
    with pytest.raises(ValueError):
        render_transcript([{"role": "robot"}])


def test_scanner_by_name_and_alias() -> None:
    for name in ("glm", "glm-4.5", "GLM-4.7", "glm4_moe"):
        assert isinstance(scanner(name), GLMScanner)
