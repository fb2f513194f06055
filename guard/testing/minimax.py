"""MiniMax M2 renderers: what the chat template writes for tool calls, results, reasoning and whole
conversations, spelled with :mod:`guard.scanners.minimax`'s markers (docs/scanners.md,
"Renderers"). For tests, benchmarks and corpora; the library itself never renders."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners.minimax import (
    BEGIN,
    END,
    INVOKE_CLOSE,
    PARAM_CLOSE,
    THINK_CLOSE,
    THINK_OPEN,
    TURN,
    WRAPPER_CLOSE,
    WRAPPER_OPEN,
)
from guard.testing._messages import arguments_object, as_text

_DEFAULT_SYSTEM = "You are a helpful assistant."


def _value(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    if PARAM_CLOSE in text:
        raise ValueError(f"a parameter value cannot contain {PARAM_CLOSE}")
    return text


def _invoke(name: str, arguments: str | Mapping[str, Any]) -> str:
    check_name(name)
    params = "".join(
        f'<parameter name="{check_name(k)}">{_value(v)}{PARAM_CLOSE}\n'
        for k, v in arguments_object(arguments).items()
    )
    return f'<invoke name="{name}">\n{params}{INVOKE_CLOSE}\n'


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """One call in its own ``<minimax:tool_call>`` block (strings as they are, other values as
    JSON)."""
    return f"{WRAPPER_OPEN}\n{_invoke(name, arguments)}{WRAPPER_CLOSE}"


def render_tool_result(content: Any) -> str:
    """One tool result turn, as only the host writes it."""
    return f"{TURN}tool\n<response>{as_text(content)}</response>{END}\n"


def render_thinking(text: str) -> str:
    """A reasoning section, as the template writes it."""
    return f"{THINK_OPEN}\n{text}\n{THINK_CLOSE}\n\n"


def render_transcript(messages: Iterable[Mapping[str, Any]]) -> str:
    """A conversation (OpenAI chat messages) as the MiniMax-M2 template writes it without tools
    and without a generation prompt. Reasoning (``reasoning_content``) is kept only after the last
    user message, as the template does."""
    msgs = list(messages)
    system = None
    if msgs and msgs[0].get("role") == "system":
        system, msgs = msgs[0], msgs[1:]
    last_user = max((k for k, m in enumerate(msgs) if m.get("role") == "user"), default=-1)
    head = as_text(system.get("content")) if system and system.get("content") else _DEFAULT_SYSTEM
    parts = [f"{BEGIN}{TURN}system\n{head}{END}\n"]
    for k, msg in enumerate(msgs):
        role = str(msg.get("role", ""))
        if role == "assistant":
            text = f"{TURN}ai\n"
            reasoning = as_text(msg.get("reasoning_content"))
            if reasoning and k > last_user:
                text += render_thinking(reasoning)
            text += as_text(msg.get("content"))
            calls = msg.get("tool_calls") or []
            if calls:
                text += f"\n{WRAPPER_OPEN}\n"
                for call in calls:
                    fn = call.get("function", call)
                    text += _invoke(str(fn.get("name", "")), fn.get("arguments") or {})
                text += WRAPPER_CLOSE
            parts.append(f"{text}{END}\n")
        elif role == "tool":
            first = k == 0 or msgs[k - 1].get("role") != "tool"
            last = k == len(msgs) - 1 or msgs[k + 1].get("role") != "tool"
            text = (f"{TURN}tool" if first else "") + f"\n<response>{as_text(msg.get('content'))}"
            parts.append(text + "</response>" + (f"{END}\n" if last else ""))
        elif role == "user":
            parts.append(f"{TURN}user\n{as_text(msg.get('content'))}{END}\n")
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
