"""DeepSeek V3 / R1 / V3.1 renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.deepseek`'s markers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners import deepseek as mk
from guard.testing._messages import as_text, json_text


def _call(name: str, arguments: str | Mapping[str, Any], legacy: bool) -> str:
    check_name(name)
    args = json_text(arguments)
    if legacy:
        return f"{mk.CALL_BEGIN}{mk.TYPE_WORD}{mk.SEP}{name}\n```json\n{args}\n```{mk.CALL_END}"
    return f"{mk.CALL_BEGIN}{name}{mk.SEP}{args}{mk.CALL_END}"


def render_tool_call(name: str, arguments: str | Mapping[str, Any], *, legacy: bool = False) -> str:
    """One call in its own section: V3.1 spelling, or V3 / R1 (``function`` type word and a
    fenced ``json`` block) with ``legacy``."""
    return f"{mk.CALLS_BEGIN}{_call(name, arguments, legacy)}{mk.CALLS_END}"


def render_tool_result(content: Any) -> str:
    """One tool result as the host writes it (V3.1)."""
    return f"{mk.OUTPUT_BEGIN}{as_text(content)}{mk.OUTPUT_END}"


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{mk.THINK_OPEN}{text}{mk.THINK_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any]]) -> str:
    """A conversation (OpenAI chat messages) as the V3.1 template writes it in non-thinking mode
    without a generation prompt: system text first, each user turn, the assistant's ``</think>``,
    text and calls, ``<｜end▁of▁sentence｜>``, and each tool result."""
    msgs = list(messages)
    system = "\n\n".join(as_text(m.get("content")) for m in msgs if m.get("role") == "system")
    parts = [mk.BOS, system]
    after_user = False
    after_tool = False
    for msg in msgs:
        role = str(msg.get("role", ""))
        if role == "user":
            parts.append(mk.USER + as_text(msg.get("content")))
            after_user, after_tool = True, False
        elif role == "assistant":
            calls = msg.get("tool_calls") or []
            if after_user:
                parts.append(mk.ASSISTANT + mk.THINK_CLOSE)
            content = as_text(msg.get("content"))
            if not calls and not after_tool and mk.THINK_CLOSE in content:
                content = content.split(mk.THINK_CLOSE, 1)[1]
            parts.append(content)
            if calls:
                rendered = []
                for call in calls:
                    fn = call.get("function", call)
                    name = str(fn.get("name", ""))
                    rendered.append(_call(name, fn.get("arguments") or {}, legacy=False))
                parts.append(mk.CALLS_BEGIN + "".join(rendered) + mk.CALLS_END)
            parts.append(mk.EOS)
            after_user = after_tool = False
        elif role == "tool":
            parts.append(render_tool_result(msg.get("content")))
            after_user, after_tool = False, True
        elif role != "system":
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
