"""ChatML / Hermes / Qwen renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.chatml`'s markers."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import chatml as mk
from guard.testing._messages import as_text, assistant_parts, json_text, read_messages


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_call>\\n{"name": ..., "arguments": ...}\\n</tool_call>`` (Hermes / Qwen)."""
    if not name:
        raise ValueError("empty tool name")
    head = json.dumps(name, ensure_ascii=False)
    body = f'{{"name": {head}, "arguments": {json_text(arguments)}}}'
    return f"{mk.CALL_OPEN}\n{body}\n{mk.CALL_CLOSE}"


def render_tool_result(name: str, content: Any) -> str:
    """``<tool_response>\\n...\\n</tool_response>`` (Qwen puts no name in it; ``name`` is
    accepted for a uniform signature)."""
    del name
    return f"{mk.RESPONSE}\n{as_text(content)}\n{mk.RESPONSE_CLOSE}"


def render_thinking(text: str) -> str:
    """``<think>\\n...\\n</think>\\n\\n``."""
    return f"{mk.THINK_OPEN}\n{text}\n{mk.THINK_CLOSE}\n\n"


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
            parts.append(f"{mk.IM_START}{tool_role}\n" + "\n".join(results) + f"{mk.IM_END}\n")
            results.clear()

    for role, msg, name in read_messages(messages):
        if role == "tool":
            results.append(render_tool_result(name, msg.get("content")))
            continue
        close_results()
        if role == "raw":
            parts.append(msg["content"])
        elif role == "assistant":
            parts.append(f"{mk.IM_START}assistant\n{_assistant(msg, render_call)}{mk.IM_END}\n")
        else:
            parts.append(f"{mk.IM_START}{role}\n{as_text(msg.get('content'))}{mk.IM_END}\n")
    close_results()
    return "".join(parts)


def _assistant(msg: Mapping[str, Any], render_call: Any) -> str:
    thinking, content, calls = assistant_parts(msg)
    body = [render_thinking(thinking)] if thinking else []
    if content:
        body.append(content + ("\n" if calls else ""))
    body.append("\n".join(render_call(name, arguments) for _, name, arguments in calls))
    return "".join(body)
