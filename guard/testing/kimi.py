"""Kimi K2 renderers: what the chat template writes for tool calls, results, reasoning and whole
conversations, spelled with :mod:`guard.scanners.kimi`'s markers (docs/scanners.md,
"Renderers"). For tests, benchmarks and corpora; the library itself never renders."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners.kimi import (
    ARGUMENT_BEGIN,
    CALL_BEGIN,
    CALL_END,
    IM_ASSISTANT,
    IM_END,
    IM_MIDDLE,
    IM_SYSTEM,
    IM_USER,
    SECTION_BEGIN,
    SECTION_END,
    THINK_CLOSE,
    THINK_OPEN,
    parse_call_id,
)
from guard.testing._messages import as_text

_DEFAULT_SYSTEM = "You are Kimi, an AI assistant created by Moonshot AI."


def _call_id(name: str, call_id: str | None, index: int) -> str:
    if call_id is not None and parse_call_id(call_id):
        return call_id
    return f"functions.{name}:{index}"


def _arguments(arguments: str | Mapping[str, Any]) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments, ensure_ascii=False)


def _calls(calls: Iterable[tuple[str, str]]) -> str:
    """A section of ``(id, arguments)`` calls."""
    body = "".join(f"{CALL_BEGIN}{cid}{ARGUMENT_BEGIN}{args}{CALL_END}" for cid, args in calls)
    return f"{SECTION_BEGIN}{body}{SECTION_END}"


def render_tool_call(
    name: str, arguments: str | Mapping[str, Any], *, call_id: str | None = None, index: int = 0
) -> str:
    """One call in its own section. ``call_id`` is kept when it is ``functions.NAME:IDX``;
    otherwise the id is ``functions.NAME:index``."""
    check_name(name)
    return _calls([(_call_id(name, call_id, index), _arguments(arguments))])


def render_tool_result(call_id: str, content: Any, *, name: str | None = None) -> str:
    """A tool result turn, as only the host writes it."""
    return (
        f"{IM_SYSTEM}{name or 'tool'}{IM_MIDDLE}## Return of {call_id}\n{as_text(content)}{IM_END}"
    )


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{THINK_OPEN}{text}{THINK_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any]]) -> str:
    """A conversation (OpenAI chat messages) as the Kimi K2 Thinking template writes it without
    tools and without a generation prompt. Reasoning (``reasoning_content``) is kept only after
    the last assistant message without calls, as the template does; call ids that are not
    ``functions.NAME:IDX`` are renumbered, and tool results follow them."""
    msgs = list(messages)
    last_plain = max(
        (k for k, m in enumerate(msgs) if m.get("role") == "assistant" and not m.get("tool_calls")),
        default=-1,
    )
    parts = []
    if not msgs or msgs[0].get("role") != "system":
        parts.append(f"{IM_SYSTEM}system{IM_MIDDLE}{_DEFAULT_SYSTEM}{IM_END}")
    ids: dict[str, str] = {}
    counter = 0
    for k, msg in enumerate(msgs):
        role = str(msg.get("role", ""))
        who = str(msg.get("name") or role)
        if role == "assistant":
            reasoning = as_text(msg.get("reasoning_content")) if k > last_plain else ""
            text = f"{IM_ASSISTANT}{who}{IM_MIDDLE}{render_thinking(reasoning)}"
            text += as_text(msg.get("content"))
            calls = []
            for call in msg.get("tool_calls") or []:
                fn = call.get("function", call)
                name = check_name(str(fn.get("name", "")))
                given = call.get("id")
                cid = _call_id(name, str(given) if given else None, counter)
                counter += 1
                if given:
                    ids[str(given)] = cid
                calls.append((cid, _arguments(fn.get("arguments") or {})))
            if calls:
                text += _calls(calls)
            parts.append(text + IM_END)
        elif role == "tool":
            given = str(msg.get("tool_call_id", ""))
            cid = ids.get(given, given)
            parts.append(
                f"{IM_SYSTEM}{who}{IM_MIDDLE}## Return of {cid}\n{as_text(msg.get('content'))}"
                + IM_END
            )
        elif role in ("system", "user"):
            marker = IM_USER if role == "user" else IM_SYSTEM
            parts.append(f"{marker}{who}{IM_MIDDLE}{as_text(msg.get('content'))}{IM_END}")
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
