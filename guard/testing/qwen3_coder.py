"""Qwen3-Coder renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.qwen3_coder`'s markers."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import chatml as mk
from guard.testing._messages import arguments_object, json_text
from guard.testing.chatml import chatml_transcript, render_thinking, render_tool_result

__all__ = ["render_thinking", "render_tool_call", "render_tool_result", "render_transcript"]


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n...
    </function>\\n</tool_call>``. ``arguments`` is a JSON object (text or mapping)."""
    if not name or any(c.isspace() or c in "<>" for c in name):
        raise ValueError(f"invalid tool name {name!r}")
    parts = [f"{mk.CALL_OPEN}\n{mk.FUNCTION}{name}>\n"]
    for key, value in arguments_object(arguments).items():
        if not key or any(c.isspace() or c in "<>" for c in key):
            raise ValueError(f"invalid parameter name {key!r}")
        text = json_text(value)
        if mk.PARAMETER_CLOSE in text:
            raise ValueError(f"parameter {key!r}: the value holds {mk.PARAMETER_CLOSE}")
        parts.append(f"{mk.PARAMETER}{key}>\n{text}\n{mk.PARAMETER_CLOSE}\n")
    parts.append(f"{mk.FUNCTION_CLOSE}\n{mk.CALL_CLOSE}")
    return "".join(parts)


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Qwen3-Coder wire text: ChatML, XML calls, tool results in a ``user``
    turn (see :func:`guard.scanners.chatml.render_transcript`)."""
    return chatml_transcript(messages, render_tool_call, tool_role="user")
