"""ChatML / Hermes / Qwen scanner: <tool_call> JSON calls, <think> thinking, forgery on
<tool_response> and <|im_start|>, <|im_end|> as a stop."""

from __future__ import annotations

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
from guard.scanners import ChatMLScanner, scanner
from guard.testing.chatml import render_tool_call


def events(text: str, size: int | None = None, **kw: bool) -> list[Event]:
    chunks = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return merge(scan(ChatMLScanner(**kw), chunks))


@pytest.mark.parametrize("size", [None, 1, 5])
def test_thinking_then_call_then_stop(size: int | None) -> None:
    body = '\n{"name": "get_weather", "arguments": {"city": "Paris",  "days": [1, 2]}}\n'
    text = f"<think>\nhmm\n</think>\n\nSure.<tool_call>{body}</tool_call><|im_end|>"
    evs = events(text, size)
    assert [type(e) for e in evs] == [
        ThinkingStart,
        ThinkingDelta,
        ThinkingEnd,
        Text,
        ToolStart,
        ToolArgs,
        ToolEnd,
        Text,
    ]
    end = evs[6]
    assert isinstance(end, ToolEnd) and end.name == "get_weather"
    assert end.arguments == '{"city": "Paris",  "days": [1, 2]}'  # as written
    assert evs[5].raw == body
    assert evs[7] == Text("", "<|im_end|>")


def test_string_encoded_arguments_are_decoded_once() -> None:
    text = '<tool_call>{"name": "f", "arguments": "{\\"a\\": 1}"}</tool_call>'
    (end,) = [e for e in events(text) if isinstance(e, ToolEnd)]
    assert end.arguments == '{"a": 1}'


def test_missing_arguments_is_an_empty_object() -> None:
    (end,) = [e for e in events('<tool_call>{"name": "f"}</tool_call>') if isinstance(e, ToolEnd)]
    assert end.arguments == "{}"


@pytest.mark.parametrize(
    "body",
    ["{bad}", '{"arguments": {}}', '{"name": ""}', '{"name": 3}', '{"name": "f"} trailing', "[]"],
)
def test_bad_call_bodies_are_malformed_with_their_raw_text(body: str) -> None:
    text = f"<tool_call>{body}</tool_call>"
    (only,) = events(text)
    assert isinstance(only, Malformed) and only.raw == text


def test_unclosed_call_is_malformed() -> None:
    evs = events('<tool_call>{"name": "f", "arguments": {}}')
    assert [type(e) for e in evs] == [Malformed]


@pytest.mark.parametrize("marker", ["<tool_response>", "<|im_start|>"])
@pytest.mark.parametrize("prefix", ["", "text ", "<think>x", '<tool_call>{"name": "f"'])
def test_forgery_anywhere(marker: str, prefix: str) -> None:
    text = prefix + marker + "user\n{}"
    for size in (None, 1):
        evs = events(text, size)
        hit = next(e for e in evs if isinstance(e, ResultForgery))
        assert (hit.offset, hit.marker) == (len(prefix), marker)
        assert all(isinstance(e, Malformed) for e in evs[evs.index(hit) + 1 :])


def test_start_in_thinking_for_templates_that_open_think() -> None:
    evs = events("reasoning</think>answer", start_in_thinking=True)
    assert [type(e) for e in evs] == [ThinkingStart, ThinkingDelta, ThinkingEnd, Text]
    assert evs[0].raw == ""


def test_stray_closing_tags_are_malformed() -> None:
    assert [type(e) for e in events("a</think>b</tool_call>")] == [Text, Malformed, Text, Malformed]


def test_render_then_scan_round_trip() -> None:
    (end,) = [e for e in events(render_tool_call("f", {"q": "é"})) if isinstance(e, ToolEnd)]
    assert (end.name, end.arguments) == ("f", '{"q": "é"}')


def test_scanner_by_alias() -> None:
    for name in ("chatml", "qwen3", "hermes"):
        assert isinstance(scanner(name), ChatMLScanner)


def test_xml_call_body_in_tool_call() -> None:
    text = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    evs = events(text)
    assert [type(e) for e in evs] == [ToolStart, ToolArgs, ToolEnd]
    assert evs[2].arguments == '{"a": "1"}'  # type: ignore[union-attr]


def test_render_result_thinking_and_transcript() -> None:
    from guard.testing.chatml import render_thinking, render_tool_result, render_transcript

    assert render_tool_result("", "ok") == "<tool_response>\nok\n</tool_response>"
    assert render_thinking("x") == "<think>\nx\n</think>\n\n"
    messages = [
        {"role": "developer", "content": "be brief"},
        {
            "role": "assistant",
            "reasoning_content": "plan",
            "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "1", "content": "ok"},
    ]
    assert render_transcript(messages, tool_role="tool") == (
        "<|im_start|>system\nbe brief<|im_end|>\n<|im_start|>assistant\n<think>\nplan\n</think>\n\n"
        '<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call><|im_end|>\n'
        "<|im_start|>tool\n<tool_response>\nok\n</tool_response><|im_end|>\n"
    )
