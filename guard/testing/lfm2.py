"""LFM2 / LFM2.5 renderers (:mod:`guard.testing`): the record alone runs the dialect, so its
markers are spelled here."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.testing._messages import as_text, assistant_parts, render_messages
from guard.testing.pythonic import render_tool_calls as _pythonic_list

IM_START, IM_END = "<|im_start|>", "<|im_end|>"
CALL_START, CALL_END = "<|tool_call_start|>", "<|tool_call_end|>"
RESPONSE_START, RESPONSE_END = "<|tool_response_start|>", "<|tool_response_end|>"
BOS = "<|startoftext|>"


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<|tool_call_start|>[NAME(k=v, ...)]<|tool_call_end|>``."""
    return render_tool_calls([(name, arguments)])


def render_tool_calls(calls: Iterable[tuple[str, str | Mapping[str, Any]]]) -> str:
    """Several calls in one list between the tool-call tokens."""
    return f"{CALL_START}{_pythonic_list(calls)}{CALL_END}"


def render_tool_result(name: str, content: Any) -> str:
    """A ``tool`` turn whose body is the result between the tool-response tokens."""
    del name
    body = content if isinstance(content, str) else json.dumps(content)
    return f"{IM_START}tool\n{RESPONSE_START}{as_text(body)}{RESPONSE_END}{IM_END}\n"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as LFM2 wire text: ``<|startoftext|>``, then ``<|im_start|>ROLE\\n...
    <|im_end|>`` turns; an assistant's calls as one list before its text, its reasoning in
    ``<think>`` first; tool results as ``tool`` turns. Raw strings are kept as they are."""
    return render_messages(
        messages, head=BOS, turn=_turn, assistant=_assistant, tool=render_tool_result
    )


def _turn(role: str, text: str) -> str:
    return f"{IM_START}{role}\n{text}{IM_END}\n"


def _assistant(msg: Mapping[str, Any]) -> str:
    thinking, content, calls = assistant_parts(msg)
    body = f"<think>{thinking}</think>" if thinking else ""
    if calls:
        body += render_tool_calls((name, args) for _, name, args in calls)
    return _turn("assistant", body + content)
