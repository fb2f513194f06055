"""GLM-4.5 / 4.6 / 4.7 renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.glm`'s markers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners import glm as mk
from guard.testing._messages import arguments_object, as_text, checked_text


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_call>NAME``, one ``<arg_key>`` / ``<arg_value>`` pair per argument (strings
    as they are, other values as JSON), ``</tool_call>``."""
    check_name(name)
    parts = [mk.CALL_OPEN, name, "\n"]
    for key, value in arguments_object(arguments).items():
        if not key or mk.KEY_CLOSE in key:
            raise ValueError(f"invalid argument name {key!r}")
        text = checked_text(value, mk.VALUE_CLOSE, "an argument value")
        parts += [mk.KEY_OPEN, key, mk.KEY_CLOSE, "\n", mk.VALUE_OPEN, text, mk.VALUE_CLOSE, "\n"]
    parts.append(mk.CALL_CLOSE)
    return "".join(parts)


def render_tool_result(content: Any) -> str:
    """One tool result as the host writes it (a run of results shares one
    ``<|observation|>``; see :func:`render_transcript`)."""
    return f"{mk.OBSERVATION}\n{mk.RESPONSE}\n{as_text(content)}\n{mk.RESPONSE_CLOSE}"


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{mk.THINK_OPEN}{text}{mk.THINK_CLOSE}"


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
            parts.append(mk.ASSISTANT)
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
            parts.append(result if prev != "tool" else result[len(mk.OBSERVATION) :])
        else:
            raise ValueError(f"unknown role {role!r}")
        prev = role
    return "".join(parts)
