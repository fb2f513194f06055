"""The request's context in the wire-protocol layers (docs/detection.md, "Context"): declared
tools read leniently from request bodies, the complete-response judges and the event streams
take ``tools=``, and a message's reasoning part is context for its text, as in
``guard.detect_message``."""

from __future__ import annotations

from typing import Any

import pytest

from guard import detect_message
from guard.integrations.anthropic.protocol import guard_message, guard_message_events
from guard.integrations.openai.protocol import (
    GuardSettings,
    declared_tools,
    guard_chat_completion,
    guard_response,
    guard_response_events,
    request_tools,
)

VOICE = "The user is asking for the time. Answer briefly: noon."
CALL_TEXT = '{"name": "get_weather", "arguments": {"city": "Oslo"}}'


def completion(content: str | None, calls: list[str] = (), **message: Any) -> dict[str, Any]:
    tool_calls = [
        {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": "{}"}}
        for i, n in enumerate(calls)
    ]
    msg = {"role": "assistant", "content": content, "tool_calls": tool_calls or None, **message}
    reason = "tool_calls" if calls else "stop"
    return {
        "id": "x",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": msg, "finish_reason": reason}],
    }


def test_declared_tools_are_read_leniently_from_request_bodies() -> None:
    chat = {"tools": [{"type": "function", "function": {"name": "a"}}, {"type": "web_search"}]}
    assert request_tools(chat) == frozenset({"a"})
    assert request_tools({"functions": [{"name": "b"}]}) == frozenset({"b"})
    assert request_tools({"tools": [{"name": "c", "input_schema": {}}]}) == frozenset({"c"})
    for body in ({}, {"tools": []}, {"tools": [{"type": "web_search"}]}, {"tools": "a"}):
        assert request_tools(body) is None, body
    assert declared_tools(["x", {"name": "y"}]) == frozenset({"x", "y"})
    base = GuardSettings.resolve()
    assert base.for_request({}) is base
    assert base.for_request(chat).tools == frozenset({"a"})


def test_chat_completion_undeclared_call_is_dropped_only_with_tools() -> None:
    data = completion(None, ["get_weathr"])
    out, result = guard_chat_completion(data, tools=["get_weather"])
    assert out["choices"][0]["message"]["tool_calls"] is None and "U" in result.verdicts[0].signals
    same, result = guard_chat_completion(data)
    assert same is data and not result.leak


def test_chat_completion_tool_call_as_text_needs_a_declared_name() -> None:
    data = completion("Checking.\n" + CALL_TEXT, reasoning_content="Weather question.")
    out, _ = guard_chat_completion(data, tools=["get_weather"])
    assert out["choices"][0]["message"]["content"] == "Checking.\n"
    same, _ = guard_chat_completion(data, tools=["get_time"])
    assert same is data


@pytest.mark.parametrize("reasoning", [None, "Time question."])
def test_chat_completion_reasoning_part_is_context_as_in_detect_message(
    reasoning: str | None,
) -> None:
    extra = {"reasoning_content": reasoning} if reasoning else {}
    data = completion(VOICE, **extra)
    _, result = guard_chat_completion(data)
    expected = detect_message(data["choices"][0]["message"])
    assert [v.leak for v in result.verdicts] == [v.leak for v in expected]
    assert result.leak is (reasoning is None)


def test_responses_reasoning_item_and_tools() -> None:
    text = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": VOICE}],
    }
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Time."}]}
    _, bare = guard_response({"output": [text]})
    _, reasoned = guard_response({"output": [reasoning, text]})
    assert bare.leak and not reasoned.leak
    call = {"type": "function_call", "call_id": "1", "name": "get_weathr", "arguments": "{}"}
    out, result = guard_response({"output": [reasoning, call]}, tools=["get_weather"])
    assert out["output"] == [reasoning] and result.leak


def test_response_events_take_tools() -> None:
    events = [
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "sequence_number": 0,
            "item": {
                "type": "function_call",
                "id": "f",
                "call_id": "1",
                "name": "get_weathr",
                "arguments": "",
            },
        },
        {
            "type": "response.function_call_arguments.delta",
            "output_index": 0,
            "item_id": "f",
            "sequence_number": 1,
            "delta": "{}",
        },
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "sequence_number": 2,
            "item": {
                "type": "function_call",
                "id": "f",
                "call_id": "1",
                "name": "get_weathr",
                "arguments": "{}",
            },
        },
    ]
    stream = guard_response_events(iter(events), tools=["get_weather"])
    list(stream)
    assert any("U" in v.signals for v in stream.verdicts)
    clean = guard_response_events(iter(events), tools=["get_weathr"])
    list(clean)
    assert not any(v.leak for v in clean.verdicts)


def test_anthropic_message_and_events_take_tools() -> None:
    message = {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "content": [{"type": "tool_use", "id": "t", "name": "get_weathr", "input": {}}],
        "stop_reason": "tool_use",
    }
    out, result = guard_message(message, dialect="harmony", tools=[{"name": "get_weather"}])
    assert result.leak and out["content"] == []
    _, clean = guard_message(message, dialect="harmony", tools=[{"name": "get_weathr"}])
    assert not clean.leak
    stream = guard_message_events(iter([]), tools=["x"])
    assert list(stream) == []
