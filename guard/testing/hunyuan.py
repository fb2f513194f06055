"""Hunyuan-A13B renderers (:mod:`guard.testing`): the record alone runs the dialect, so its
markers are spelled here, as the model's chat template writes a conversation with tools."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.testing._messages import (
    arguments_object,
    as_text,
    assistant_parts,
    json_text,
    render_messages,
)

BOS, EOS = "<|startoftext|>", "<|eos|>"
#: the end of a system part, and of a user or tool turn
END_SYSTEM, END_TURN = "<|extra_4|>", "<|extra_0|>"
CALLS_OPEN, CALLS_CLOSE = "<tool_calls>", "</tool_calls>"
RESULT_OPEN, RESULT_CLOSE = "<tool_response>", "</tool_response>"
THINK_OPEN, THINK_CLOSE = "<think>", "</think>"
ANSWER_OPEN, ANSWER_CLOSE = "<answer>", "</answer>"
#: the labels the template puts before a user's words and an assistant's text ("User:",
#: "Assistant:")
USER_LABEL, ASSISTANT_LABEL = "用户：", "助手："


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_calls>[{"name": NAME, "arguments": {...}}]</tool_calls>``."""
    return render_tool_calls([(name, arguments)])


def render_tool_calls(calls: Iterable[tuple[str, str | Mapping[str, Any]]]) -> str:
    """Several calls in one JSON list between the tool-calls tags."""
    items = [{"name": name, "arguments": arguments_object(args)} for name, args in calls]
    return f"{CALLS_OPEN}{json.dumps(items, ensure_ascii=False)}{CALLS_CLOSE}"


def render_tool_result(name: str, content: Any) -> str:
    """``<tool_response>...</tool_response><|extra_0|>``: a tool message (it carries no name)."""
    del name
    return f"{RESULT_OPEN}{json_text(content)}{RESULT_CLOSE}{END_TURN}"


def render_answer(text: str, thinking: str = "") -> str:
    """A reply in the reasoning format a server's parser splits: ``<think>...</think>`` (when
    there is reasoning), then ``<answer>...</answer>``."""
    head = f"{THINK_OPEN}\n{thinking}\n{THINK_CLOSE}\n" if thinking else ""
    return f"{head}{ANSWER_OPEN}\n{text}\n{ANSWER_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Hunyuan-A13B wire text with tools: ``<|startoftext|>``, a system part
    ended by ``<|extra_4|>``, user turns as ``用户：...<|extra_0|>``, an assistant's calls as one
    ``<tool_calls>`` list or its text after ``助手：``, each ended by ``<|eos|>``, tool results in
    ``<tool_response>``. Raw strings are kept as they are."""
    return render_messages(
        messages,
        head=BOS,
        turn=_turn,
        system=_system,
        assistant=_assistant,
        tool=render_tool_result,
    )


def _system(role: str, text: str) -> str:
    del role
    return f"{text}{END_SYSTEM}"


def _turn(role: str, text: str) -> str:
    del role
    return f"{USER_LABEL}{text}{END_TURN}"


def _assistant(msg: Mapping[str, Any]) -> str:
    _thinking, content, calls = assistant_parts(msg)
    if calls:
        return render_tool_calls((name, args) for _, name, args in calls) + EOS
    return f"{ASSISTANT_LABEL}{as_text(content)}{EOS}"
