"""Llama 3 renderers: what the chat template writes for tool calls, results, reasoning and whole
conversations, spelled with :mod:`guard.scanners.llama3`'s markers (docs/scanners.md,
"Renderers"). For tests, benchmarks and corpora; the library itself never renders."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.llama3 import END_HEADER, EOM, EOT, PYTHON_TAG, START_HEADER
from guard.testing._messages import as_text, message_calls


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<|python_tag|>{"name": ..., "parameters": ...}<|eom_id|>``."""
    if not name:
        raise ValueError("empty tool name")
    args = arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)
    return (
        f'{PYTHON_TAG}{{"name": {json.dumps(name, ensure_ascii=False)}, "parameters": {args}}}{EOM}'
    )


def render_tool_result(name: str, content: Any) -> str:
    """An ``ipython`` turn with the result (mappings as JSON, as the Llama 3.1 template writes
    them)."""
    del name
    return f"{START_HEADER}ipython{END_HEADER}\n\n{as_text(content)}{EOT}"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Llama 3 wire text: ``<|start_header_id|>ROLE<|end_header_id|>\\n\\n
    ...<|eot_id|>`` turns; a call is its own assistant message ending in ``<|eom_id|>``; results
    are ``ipython`` turns. Raw strings are kept as they are. Llama 3 has no reasoning section:
    reasoning on a message is left out."""
    parts: list[str] = []
    for msg in messages:
        if isinstance(msg, str):
            parts.append(msg)
            continue
        role = str(msg.get("role", ""))
        head = f"{START_HEADER}{{}}{END_HEADER}\n\n"
        if role in ("system", "developer", "user"):
            role = "system" if role == "developer" else role
            parts.append(head.format(role) + as_text(msg.get("content")) + EOT)
        elif role == "assistant":
            content = as_text(msg.get("content") or "")
            if content:
                parts.append(head.format("assistant") + content + EOT)
            for _, name, arguments in message_calls(msg):
                parts.append(head.format("assistant") + render_tool_call(name, arguments))
        elif role == "tool":
            parts.append(render_tool_result("", msg.get("content")))
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
