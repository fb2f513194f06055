"""LFM2 renderers: what the LFM2 / LFM2.5 chat template writes for tool calls, results and whole
conversations (docs/scanners.md, "Renderers"). For tests, benchmarks and corpora; the library
itself never renders."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.testing._messages import as_text, message_calls, message_thinking, result_name
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
    parts: list[str] = [BOS]
    call_names: dict[str, str] = {}
    for msg in messages:
        if isinstance(msg, str):
            parts.append(msg)
            continue
        role = str(msg.get("role", ""))
        if role in ("system", "developer", "user"):
            role = "system" if role == "developer" else role
            parts.append(f"{IM_START}{role}\n{as_text(msg.get('content'))}{IM_END}\n")
        elif role == "assistant":
            body = ""
            thinking = message_thinking(msg)
            if thinking:
                body += f"<think>{thinking}</think>"
            calls = message_calls(msg)
            for cid, name, _ in calls:
                if cid:
                    call_names[cid] = name
            if calls:
                body += render_tool_calls((name, args) for _, name, args in calls)
            body += as_text(msg.get("content") or "")
            parts.append(f"{IM_START}assistant\n{body}{IM_END}\n")
        elif role == "tool":
            parts.append(render_tool_result(result_name(msg, call_names), msg.get("content")))
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
