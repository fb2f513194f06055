"""Qwen3-Coder scanner and renderers.

Qwen3-Coder speaks ChatML with XML-style calls (Qwen3-Coder chat template; vLLM and SGLang
``qwen3_coder`` parsers)::

    <tool_call>
    <function=NAME>
    <parameter=KEY>
    VALUE
    </parameter>
    </function>
    </tool_call>

The scanner is the ChatML scanner (:mod:`guard.scanners.chatml`: thinking, JSON and XML call
bodies, forgery on ``<tool_response>`` / ``<|im_start|>``, stops) that also takes a
``<function=...>`` call written without the ``<tool_call>`` wrapper, as vLLM's parser does. A
value is the text up to its ``</parameter>`` less one leading and one trailing newline; it stays
a string unless the ``tools`` schemas type it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners._messages import arguments_object
from guard.scanners.base import MAX_ARGUMENTS
from guard.scanners.chatml import (
    CALL_CLOSE,
    CALL_OPEN,
    FUNCTION,
    FUNCTION_CLOSE,
    PARAMETER,
    PARAMETER_CLOSE,
    ChatMLScanner,
    chatml_transcript,
    render_thinking,
    render_tool_result,
)

__all__ = [
    "Qwen3CoderScanner",
    "render_thinking",
    "render_tool_call",
    "render_tool_result",
    "render_transcript",
]


class Qwen3CoderScanner(ChatMLScanner):
    """Scanner for Qwen3-Coder output (see the module docstring)."""

    def __init__(
        self,
        *,
        start_in_thinking: bool = False,
        tools: Iterable[Mapping[str, Any]] | None = None,
        max_arguments: int = MAX_ARGUMENTS,
    ) -> None:
        super().__init__(
            start_in_thinking=start_in_thinking,
            tools=tools,
            bare_functions=True,
            max_arguments=max_arguments,
        )


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
