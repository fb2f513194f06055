"""Reading OpenAI chat messages for the renderers (:mod:`guard.testing`): content as text,
reasoning, tool calls, the tool a result answers. Text is returned verbatim: escape untrusted
text first."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

__all__ = ["arguments_object", "as_text", "message_calls", "message_thinking", "result_name"]


def as_text(value: Any) -> str:
    """Message content as text: a string as it is, OpenAI content parts joined, ``None`` empty,
    anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # OpenAI content parts
        return "".join(str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in value)
    return json.dumps(value, ensure_ascii=False)


def message_thinking(msg: Mapping[str, Any]) -> str:
    """The reasoning of an assistant message (``reasoning_content``, ``reasoning`` or
    ``thinking``), or ``""``."""
    return as_text(msg.get("reasoning_content") or msg.get("reasoning") or msg.get("thinking"))


def message_calls(msg: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """``(id, name, arguments)`` of each tool call of an assistant message; ``arguments`` as
    given (JSON text or a mapping)."""
    calls: list[tuple[str, str, Any]] = []
    for call in msg.get("tool_calls") or []:
        if not isinstance(call, Mapping):
            raise ValueError(f"a tool call must be an object, got {type(call).__name__}")
        fn = call.get("function", call)
        name = str(fn.get("name") or "")
        if not name:
            raise ValueError("a tool call without a name")
        calls.append((str(call.get("id") or ""), name, fn.get("arguments", "{}")))
    return calls


def arguments_object(arguments: Any) -> dict[str, Any]:
    """Call arguments as a dict: JSON text is decoded; it must hold an object."""
    value = json.loads(arguments) if isinstance(arguments, str) else arguments
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"tool call arguments must be a JSON object, got {value!r}")
    return dict(value)


def result_name(msg: Mapping[str, Any], call_names: Mapping[str, str]) -> str:
    """The tool a ``tool`` message answers: its ``name``, else the name of the call its
    ``tool_call_id`` refers to, else ``""``."""
    name = msg.get("name") or call_names.get(str(msg.get("tool_call_id", "")))
    return str(name or "")
