"""Deeply nested values: the escape walk refuses them with NestingError (an InputError and a
ValueError) instead of exhausting the interpreter's stack, for library callers and for the
SDK and proxy request escapers alike."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import escape_json, escape_messages, escape_tools, unescape_json
from guard._depth import MAX_DEPTH, check_depth
from guard.errors import GuardError, InputError, NestingError
from guard.integrations.anthropic.protocol import escape_messages_request
from guard.integrations.openai.protocol import escape_chat_request, escape_responses_request


def nested(depth: int, leaf: Any = "<|end|>") -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_nesting_error_is_an_input_error_and_a_value_error() -> None:
    assert issubclass(NestingError, InputError)
    assert issubclass(NestingError, ValueError) and issubclass(NestingError, GuardError)


@pytest.mark.parametrize("depth", [500, 5_000, 100_000])
def test_escape_functions_refuse_deep_values(depth: int) -> None:
    deep = nested(depth)
    message = {"role": "user", "content": [{"type": "text", "text": "x", "extra": deep}]}
    tool = {"type": "function", "function": {"name": "f", "parameters": {"items": deep}}}
    calls = [
        lambda: escape_messages([message]),
        lambda: escape_tools([tool]),
        lambda: escape_chat_request({"messages": [message], "tools": [tool]}),
        lambda: escape_responses_request({"input": [message]}),
        lambda: escape_messages_request({"messages": [message]}),
        lambda: escape_messages_request({"system": [{"type": "text", "text": "s", "x": deep}]}),
    ]
    for call in calls:
        with pytest.raises(NestingError, match=f"at most {MAX_DEPTH} levels"):
            call()


def test_deep_tool_result_content_and_arguments() -> None:
    block: Any = {"type": "text", "text": "<|end|>"}
    for _ in range(400):  # tool_result blocks inside tool_result blocks
        block = {"type": "tool_result", "tool_use_id": "t", "content": [block]}
    with pytest.raises(NestingError):
        escape_messages([{"role": "user", "content": [block]}])
    arguments = "[" * 100_000 + "]" * 100_000
    call = {
        "role": "assistant",
        "tool_calls": [{"function": {"name": "f", "arguments": arguments}}],
    }
    with pytest.raises(NestingError):
        escape_messages([call])
    doc = "[" * 100_000 + "]" * 100_000
    for func in (escape_json, unescape_json):
        with pytest.raises(NestingError):
            func(doc)


def test_values_at_the_cap_are_escaped() -> None:
    # the message dict, its content list and the part dict take three levels
    deep = nested(MAX_DEPTH - 3)
    out = escape_messages([{"role": "user", "content": [{"type": "text", "text": "<|end|>"}]}])
    assert out[0]["content"][0]["text"] == "<\\|end\\|>"
    tool = {"parameters": nested(MAX_DEPTH - 2)}
    escaped = escape_tools([tool])[0]["parameters"]
    for _ in range(MAX_DEPTH - 2):
        escaped = escaped[0]
    assert escaped == "<\\|end\\|>"
    check_depth(deep, "x")


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=300), st.sampled_from(["list", "dict"]))
def test_check_depth_agrees_with_the_depth(depth: int, kind: str) -> None:
    value: Any = 1
    for _ in range(depth):
        value = [value] if kind == "list" else {"k": value}
    if depth > MAX_DEPTH:
        with pytest.raises(NestingError):
            check_depth(value, "v")
    else:
        check_depth(value, "v")
