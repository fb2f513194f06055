"""MiniMax M2 renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.minimax`'s markers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import check_name
from guard.scanners import minimax as mk
from guard.testing._messages import arguments_object, as_text, checked_text

_DEFAULT_SYSTEM = "You are a helpful assistant."


def _parameter(key: str, value: Any) -> str:
    name = check_name(key)
    text = checked_text(value, mk.PARAM_CLOSE, "a parameter value")
    return f'<parameter name="{name}">{text}{mk.PARAM_CLOSE}\n'


def _invoke(name: str, arguments: str | Mapping[str, Any]) -> str:
    check_name(name)
    params = "".join(_parameter(k, v) for k, v in arguments_object(arguments).items())
    return f'<invoke name="{name}">\n{params}{mk.INVOKE_CLOSE}\n'


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """One call in its own ``<minimax:tool_call>`` block (strings as they are, other values as
    JSON)."""
    return f"{mk.WRAPPER_OPEN}\n{_invoke(name, arguments)}{mk.WRAPPER_CLOSE}"


def render_tool_result(content: Any) -> str:
    """One tool result turn, as only the host writes it."""
    return f"{mk.TURN}tool\n<response>{as_text(content)}</response>{mk.END}\n"


def render_thinking(text: str) -> str:
    """A reasoning section, as the template writes it."""
    return f"{mk.THINK_OPEN}\n{text}\n{mk.THINK_CLOSE}\n\n"


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
    parts = [f"{mk.BEGIN}{mk.TURN}system\n{head}{mk.END}\n"]
    for k, msg in enumerate(msgs):
        role = str(msg.get("role", ""))
        if role == "assistant":
            text = f"{mk.TURN}ai\n"
            reasoning = as_text(msg.get("reasoning_content"))
            if reasoning and k > last_user:
                text += render_thinking(reasoning)
            text += as_text(msg.get("content"))
            calls = msg.get("tool_calls") or []
            if calls:
                text += f"\n{mk.WRAPPER_OPEN}\n"
                for call in calls:
                    fn = call.get("function", call)
                    text += _invoke(str(fn.get("name", "")), fn.get("arguments") or {})
                text += mk.WRAPPER_CLOSE
            parts.append(f"{text}{mk.END}\n")
        elif role == "tool":
            first = k == 0 or msgs[k - 1].get("role") != "tool"
            last = k == len(msgs) - 1 or msgs[k + 1].get("role") != "tool"
            text = (
                f"{mk.TURN}tool" if first else ""
            ) + f"\n<response>{as_text(msg.get('content'))}"
            parts.append(text + "</response>" + (f"{mk.END}\n" if last else ""))
        elif role == "user":
            parts.append(f"{mk.TURN}user\n{as_text(msg.get('content'))}{mk.END}\n")
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
