"""ChatML / Hermes / Qwen renderers: what the chat template writes for tool calls, results,
reasoning and whole conversations, spelled with :mod:`guard.scanners.chatml`'s markers
(docs/scanners.md, "Renderers"). For tests, benchmarks and corpora; the library itself never
renders."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from guard.scanners.chatml import (
    CALL_CLOSE,
    CALL_OPEN,
    IM_END,
    IM_START,
    RESPONSE,
    RESPONSE_CLOSE,
    THINK_CLOSE,
    THINK_OPEN,
)
from guard.testing._messages import as_text, message_calls, message_thinking, result_name


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>`` (Hermes / Qwen)."""
    if not name:
        raise ValueError("empty tool name")
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    head = json.dumps(name, ensure_ascii=False)
    return f'{CALL_OPEN}\n{{"name": {head}, "arguments": {args}}}\n{CALL_CLOSE}'


def render_tool_result(name: str, content: Any) -> str:
    """``<tool_response>\\n...\\n</tool_response>`` (Qwen puts no name in it; ``name`` is
    accepted for a uniform signature)."""
    del name
    return f"{RESPONSE}\n{as_text(content)}\n{RESPONSE_CLOSE}"


def render_thinking(text: str) -> str:
    """``<think>\\n...\\n</think>\\n\\n``."""
    return f"{THINK_OPEN}\n{text}\n{THINK_CLOSE}\n\n"


def render_transcript(
    messages: Iterable[Mapping[str, Any] | str],
    *,
    tool_role: str = "user",
) -> str:
    """A conversation as ChatML wire text with Qwen's tool convention.

    Items are OpenAI chat messages (``role``, ``content``, ``tool_calls``, ``reasoning_content``
    / ``reasoning`` / ``thinking``) or raw stored wire text (kept as it is). Consecutive tool
    results share one turn of ``tool_role`` (``user`` for Qwen, ``tool`` for Hermes).
    """
    return chatml_transcript(messages, render_tool_call, tool_role=tool_role)


def chatml_transcript(
    messages: Iterable[Mapping[str, Any] | str],
    render_call: Any,
    *,
    tool_role: str = "user",
) -> str:
    """ChatML transcript with calls rendered by ``render_call(name, arguments)``."""
    parts: list[str] = []
    results: list[str] = []

    def close_results() -> None:
        if results:
            parts.append(f"{IM_START}{tool_role}\n" + "\n".join(results) + f"{IM_END}\n")
            results.clear()

    call_names: dict[str, str] = {}
    for msg in messages:
        if isinstance(msg, str):
            close_results()
            parts.append(msg)
            continue
        role = str(msg.get("role", ""))
        if role == "tool":
            name = result_name(msg, call_names)
            results.append(render_tool_result(name, msg.get("content")))
            continue
        close_results()
        if role in ("system", "developer", "user"):
            role = "system" if role == "developer" else role
            parts.append(f"{IM_START}{role}\n{as_text(msg.get('content'))}{IM_END}\n")
        elif role == "assistant":
            parts.append(f"{IM_START}assistant\n{_assistant(msg, render_call, call_names)}")
            parts.append(f"{IM_END}\n")
        else:
            raise ValueError(f"unknown role {role!r}")
    close_results()
    return "".join(parts)


def _assistant(msg: Mapping[str, Any], render_call: Any, call_names: dict[str, str]) -> str:
    body: list[str] = []
    thinking = message_thinking(msg)
    if thinking:
        body.append(render_thinking(thinking))
    content = as_text(msg.get("content") or "")
    calls: Sequence[tuple[str, str, Any]] = message_calls(msg)
    if content:
        body.append(content + ("\n" if calls else ""))
    rendered = []
    for cid, name, arguments in calls:
        if cid:
            call_names[cid] = name
        rendered.append(render_call(name, arguments))
    body.append("\n".join(rendered))
    return "".join(body)
