"""Kimi K2 renderers (:mod:`guard.testing`), spelled with :mod:`guard.scanners.kimi`'s markers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners import kimi as mk
from guard.testing._messages import as_text, json_text

_DEFAULT_SYSTEM = "You are Kimi, an AI assistant created by Moonshot AI."


def _call_id(name: str, call_id: str | None, index: int) -> str:
    if call_id is not None and mk.parse_call_id(call_id):
        return call_id
    return f"functions.{name}:{index}"


def _calls(calls: Iterable[tuple[str, str]]) -> str:
    """A section of ``(id, arguments)`` calls."""
    body = "".join(
        f"{mk.CALL_BEGIN}{cid}{mk.ARGUMENT_BEGIN}{args}{mk.CALL_END}" for cid, args in calls
    )
    return f"{mk.SECTION_BEGIN}{body}{mk.SECTION_END}"


def render_tool_call(
    name: str, arguments: str | Mapping[str, Any], *, call_id: str | None = None, index: int = 0
) -> str:
    """One call in its own section. ``call_id`` is kept when it is ``functions.NAME:IDX``;
    otherwise the id is ``functions.NAME:index``."""
    check_name(name)
    return _calls([(_call_id(name, call_id, index), json_text(arguments))])


def render_tool_result(call_id: str, content: Any, *, name: str | None = None) -> str:
    """A tool result turn, as only the host writes it."""
    head = f"{mk.IM_SYSTEM}{name or 'tool'}{mk.IM_MIDDLE}"
    return f"{head}## Return of {call_id}\n{as_text(content)}{mk.IM_END}"


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{mk.THINK_OPEN}{text}{mk.THINK_CLOSE}"


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
        parts.append(f"{mk.IM_SYSTEM}system{mk.IM_MIDDLE}{_DEFAULT_SYSTEM}{mk.IM_END}")
    ids: dict[str, str] = {}
    counter = 0
    for k, msg in enumerate(msgs):
        role = str(msg.get("role", ""))
        who = str(msg.get("name") or role)
        if role == "assistant":
            reasoning = as_text(msg.get("reasoning_content")) if k > last_plain else ""
            text = f"{mk.IM_ASSISTANT}{who}{mk.IM_MIDDLE}{render_thinking(reasoning)}"
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
                calls.append((cid, json_text(fn.get("arguments") or {})))
            if calls:
                text += _calls(calls)
            parts.append(text + mk.IM_END)
        elif role == "tool":
            given = str(msg.get("tool_call_id", ""))
            cid = ids.get(given, given)
            parts.append(render_tool_result(cid, msg.get("content"), name=who))
        elif role in ("system", "user"):
            marker = mk.IM_USER if role == "user" else mk.IM_SYSTEM
            parts.append(f"{marker}{who}{mk.IM_MIDDLE}{as_text(msg.get('content'))}{mk.IM_END}")
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
