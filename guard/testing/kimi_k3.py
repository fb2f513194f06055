"""Kimi K3 renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.kimi_k3`'s markers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from guard.dialects.kimi_k3 import CLOSE, END_OF_MSG, OPEN, SEP
from guard.scanners import check_name
from guard.scanners import kimi_k3 as mk
from guard.testing._messages import arguments_object, json_text


def _attr(value: Any) -> str:
    return str(value).replace("&", "&amp;").replace('"', "&quot;")


def _type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object" if isinstance(value, dict) else "array"


def render_tool_call(name: str, arguments: str | Mapping[str, Any], *, index: int = 1) -> str:
    """One call in its own ``tools`` section (strings raw, other values as JSON)."""
    check_name(name)
    parts = [f'{mk.TOOLS_OPEN}{mk.CALL_OPEN} tool="{_attr(name)}" index="{index}"{SEP}']
    for key, value in arguments_object(arguments).items():
        text = json_text(value)
        if f"{CLOSE}argument{SEP}" in text:
            raise ValueError(f"argument {key!r}: the value holds {CLOSE}argument{SEP}")
        parts.append(
            f'{OPEN}argument key="{_attr(key)}" type="{_type(value)}"{SEP}'
            f"{text}{CLOSE}argument{SEP}"
        )
    parts.append(f"{mk.CALL_CLOSE}{mk.TOOLS_CLOSE}")
    return "".join(parts)


def render_tool_result(name: str, content: Any, *, index: int = 1) -> str:
    """A tool result message, as only the host writes it."""
    text = json_text(content)
    return (
        f'{mk.MESSAGE_OPEN} role="tool" tool="{_attr(name)}" index="{index}"{SEP}'
        f"{text}{CLOSE}message{SEP}{END_OF_MSG}"
    )


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{mk.THINK_OPEN}{text}{mk.THINK_CLOSE}"
