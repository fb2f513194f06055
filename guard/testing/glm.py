"""GLM-4.5 / 4.6 / 4.7 renderers: what the chat template writes for tool calls, results, reasoning
and whole conversations, spelled with :mod:`guard.scanners.glm`'s markers (docs/scanners.md,
"Renderers"). For tests, benchmarks and corpora; the library itself never renders."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners.glm import (
    ASSISTANT,
    CALL_CLOSE,
    CALL_OPEN,
    KEY_CLOSE,
    KEY_OPEN,
    OBSERVATION,
    RESPONSE,
    RESPONSE_CLOSE,
    THINK_CLOSE,
    THINK_OPEN,
    VALUE_CLOSE,
    VALUE_OPEN,
)
from guard.testing._messages import arguments_object, as_text


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if VALUE_CLOSE in text:
        raise ValueError(f"an argument value cannot contain {VALUE_CLOSE}")
    return text


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_call>NAME``, one ``<arg_key>`` / ``<arg_value>`` pair per argument (strings
    as they are, other values as JSON), ``</tool_call>``."""
    check_name(name)
    parts = [CALL_OPEN, name, "\n"]
    for key, value in arguments_object(arguments).items():
        if not key or KEY_CLOSE in key:
            raise ValueError(f"invalid argument name {key!r}")
        parts += [KEY_OPEN, key, KEY_CLOSE, "\n", VALUE_OPEN, _value(value), VALUE_CLOSE, "\n"]
    parts.append(CALL_CLOSE)
    return "".join(parts)


def render_tool_result(content: Any) -> str:
    """One tool result as the host writes it (a run of results shares one
    ``<|observation|>``; see :func:`render_transcript`)."""
    return f"{OBSERVATION}\n{RESPONSE}\n{as_text(content)}\n{RESPONSE_CLOSE}"


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{THINK_OPEN}{text}{THINK_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any]]) -> str:
    """A conversation (OpenAI chat messages) as the GLM-4.6 template writes it without tools
    and without a generation prompt: ``[gMASK]<sop>``, then each turn. Reasoning
    (``reasoning_content``) is kept only after the last user message, as the template does."""
    msgs = list(messages)
    last_user = max((k for k, m in enumerate(msgs) if m.get("role") == "user"), default=-1)
    parts = ["[gMASK]<sop>"]
    prev = ""
    for k, msg in enumerate(msgs):
        role = str(msg.get("role", ""))
        if role in ("system", "user"):
            parts.append(f"<|{role}|>\n{as_text(msg.get('content'))}")
        elif role == "assistant":
            parts.append(ASSISTANT)
            reasoning = as_text(msg.get("reasoning_content"))
            kept = reasoning.strip() if k > last_user and reasoning else ""
            parts.append("\n" + render_thinking(kept))
            content = as_text(msg.get("content")).strip()
            if content:
                parts.append("\n" + content)
            for call in msg.get("tool_calls") or []:
                fn = call.get("function", call)
                parts.append(
                    "\n" + render_tool_call(str(fn.get("name", "")), fn.get("arguments") or {})
                )
        elif role == "tool":
            result = render_tool_result(msg.get("content"))
            parts.append(result if prev != "tool" else result[len(OBSERVATION) :])
        else:
            raise ValueError(f"unknown role {role!r}")
        prev = role
    return "".join(parts)
