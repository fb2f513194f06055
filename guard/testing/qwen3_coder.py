"""Qwen3-Coder renderers: what the chat template writes for tool calls, results, reasoning and
whole conversations, spelled with :mod:`guard.scanners.qwen3_coder`'s markers (docs/scanners.md,
"Renderers"). For tests, benchmarks and corpora; the library itself never renders."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.chatml import (
    CALL_CLOSE,
    CALL_OPEN,
    FUNCTION,
    FUNCTION_CLOSE,
    PARAMETER,
    PARAMETER_CLOSE,
)
from guard.testing._messages import arguments_object
from guard.testing.chatml import chatml_transcript, render_thinking, render_tool_result

__all__ = ["render_thinking", "render_tool_call", "render_tool_result", "render_transcript"]


def _value_text(value: Any) -> str:
    """A value as the template writes it: strings as they are, objects and arrays as JSON,
    other scalars as JSON too (``true``, ``42``, ``null``)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n...
    </function>\\n</tool_call>``. ``arguments`` is a JSON object (text or mapping)."""
    if not name or any(c.isspace() or c in "<>" for c in name):
        raise ValueError(f"invalid tool name {name!r}")
    parts = [f"{CALL_OPEN}\n{FUNCTION}{name}>\n"]
    for key, value in arguments_object(arguments).items():
        if not key or any(c.isspace() or c in "<>" for c in key):
            raise ValueError(f"invalid parameter name {key!r}")
        text = _value_text(value)
        if PARAMETER_CLOSE in text:
            raise ValueError(f"parameter {key!r}: the value holds {PARAMETER_CLOSE}")
        parts.append(f"{PARAMETER}{key}>\n{text}\n{PARAMETER_CLOSE}\n")
    parts.append(f"{FUNCTION_CLOSE}\n{CALL_CLOSE}")
    return "".join(parts)


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Qwen3-Coder wire text: ChatML, XML calls, tool results in a ``user``
    turn (see :func:`guard.scanners.chatml.render_transcript`)."""
    return chatml_transcript(messages, render_tool_call, tool_role="user")
