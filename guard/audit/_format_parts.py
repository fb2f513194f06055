"""What the transcript adapters of :mod:`guard.audit._formats` share: the surfaces as plain
strings, the part tuple, the sink they hand parts to, and the helpers of their error messages."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Protocol

from guard.models import Surface

__all__ = [
    "Part",
    "ShapeError",
    "Sink",
    "add_part",
    "each_message",
    "json_type",
    "short",
    "text_field",
]

# Parts carry surfaces as plain strings: hashing an enum member runs Python code, and the engine
# sorts every part into its scan group.
TEXT: str = Surface.TEXT.value
THINKING: str = Surface.THINKING.value
TOOL_ARG: str = Surface.TOOL_ARG.value
TOOL_NAME: str = Surface.TOOL_NAME.value
USER: str = Surface.USER.value
TOOL_RESULT: str = Surface.TOOL_RESULT.value


_USER_ROLES = frozenset({"user", "system", "developer"})
_TOOL_ROLES = frozenset({"tool", "function"})


class ShapeError(ValueError):
    """A JSON value that is not a transcript of the file's format."""


#: One text to judge: (sequence number, surface value, text, line, message, role, part,
#: tool_name). The sequence number orders findings as the input does.
Part = tuple[int, str, str, int, int, str, str, str | None]


class Sink(Protocol):
    """Where adapters put what they read. Parts go straight to the list of their scan group
    (``out``: text, thinking, tool_arg; ``inp``: user, tool_result; ``names``: tool_name),
    numbered by ``next(seq)``: appending a tuple is the whole per-part cost on the hot path.
    Problems go through ``error``, forged tool results through ``forgery``."""

    out: list[Part]
    inp: list[Part]
    names: list[Part]
    seq: Iterator[int]

    def error(self, line: int, text: str) -> None: ...

    def forgery(self, line: int, message: int, role: str, reason: str, marker: str) -> None:
        """``marker``: the forging opening as it stands (format, shown as evidence)."""


def _target(sink: Sink, surface: str) -> list[Part]:
    if surface in (USER, TOOL_RESULT):
        return sink.inp
    return sink.names if surface == TOOL_NAME else sink.out


def add_part(
    sink: Sink,
    surface: Surface,
    text: str,
    line: int,
    i: int,
    role: str,
    part: str,
    tool_name: str | None = None,
) -> None:
    """Hand one part to the sink, in the list of its scan group. For the adapters off the hot
    path (raw transcripts, ChatGLM3, ShareGPT); the OpenAI ones append their tuples inline."""
    value = surface.value
    _target(sink, value).append((next(sink.seq), value, text, line, i, role, part, tool_name))


def each_message(
    sink: Sink, items: list[Any], line: int, key: str = "role", offset: int = 0
) -> Iterator[tuple[int, dict[str, Any], str]]:
    """``(number, message, role)`` of each message of a list (numbered from ``offset``) that is
    an object with a string role under ``key``; any other item is an error entry."""
    for i, m in enumerate(items, offset):
        if type(m) is not dict:
            sink.error(line, f"message {i}: expected an object, got {json_type(m)}")
            continue
        role = m.get(key)
        if type(role) is not str:
            sink.error(line, f"message {i}: {key} must be a string, got {json_type(role)}")
            continue
        yield i, m, role


def text_field(sink: Sink, m: dict[str, Any], key: str, line: int, i: int) -> str | None:
    """Message ``i``'s string under ``key``, or None: absent, null, or (an error entry) not a
    string."""
    value = m.get(key)
    if type(value) is str:
        return value
    if value is not None:
        sink.error(line, f"message {i}: {key} must be a string, got {json_type(value)}")
    return None


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def short(value: object, limit: int = 40) -> str:
    """A name from the data, for an error message: shape kept, letters not masked but cut."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return repr(text[:limit] + ("..." if len(text) > limit else ""))
