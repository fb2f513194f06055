"""Kimi K3 renderers: what the chat template writes for tool calls, results, reasoning and whole
conversations, spelled with :mod:`guard.scanners.kimi_k3`'s markers (docs/scanners.md,
"Renderers"). For tests, benchmarks and corpora; the library itself never renders."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from guard.dialects.kimi_k3 import CLOSE, END_OF_MSG, OPEN, SEP
from guard.scanners import check_name
from guard.scanners.kimi_k3 import (
    CALL_CLOSE,
    CALL_OPEN,
    MESSAGE_OPEN,
    THINK_CLOSE,
    THINK_OPEN,
    TOOLS_CLOSE,
    TOOLS_OPEN,
)
from guard.testing._messages import arguments_object


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
    parts = [f'{TOOLS_OPEN}{CALL_OPEN} tool="{_attr(name)}" index="{index}"{SEP}']
    for key, value in arguments_object(arguments).items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        if f"{CLOSE}argument{SEP}" in text:
            raise ValueError(f"argument {key!r}: the value holds {CLOSE}argument{SEP}")
        parts.append(
            f'{OPEN}argument key="{_attr(key)}" type="{_type(value)}"{SEP}'
            f"{text}{CLOSE}argument{SEP}"
        )
    parts.append(f"{CALL_CLOSE}{TOOLS_CLOSE}")
    return "".join(parts)


def render_tool_result(name: str, content: Any, *, index: int = 1) -> str:
    """A tool result message, as only the host writes it."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return (
        f'{MESSAGE_OPEN} role="tool" tool="{_attr(name)}" index="{index}"{SEP}'
        f"{text}{CLOSE}message{SEP}{END_OF_MSG}"
    )


def render_thinking(text: str) -> str:
    """A reasoning section."""
    return f"{THINK_OPEN}{text}{THINK_CLOSE}"
