"""The judged parts of a complete response: where each text sits and how to cut or drop it.

A chat completion's parts are each choice's ``message.content`` (a string or a list of text
pieces), ``reasoning_content`` / ``reasoning`` and each tool call's ``function.name`` and
``function.arguments``; a Responses API response's are the text of ``message`` output items,
the ``summary`` / ``content`` text of ``reasoning`` items and the name and arguments (input) of
``function_call`` / ``custom_tool_call`` items. Parts are named by their path
(``content``, ``choices[1].tool_calls[0].function.arguments``, ``output[2].content[0]``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from guard._fields import get_field
from guard.models import Surface

__all__ = ["Part", "call_parts", "chat_parts", "response_parts"]


@dataclass
class Part:
    """One judged piece of a response, and how to cut or drop it."""

    name: str
    surface: Surface
    text: str
    owner: Any  # the object holding the text
    key: str  # the field holding the text
    tool_name: str | None = None
    container: Any = None  # for a droppable part (a tool call): the object holding the list ...
    list_key: str = ""  # ... under this field
    element: Any = None  # ... and the element to remove
    choice: Any = None  # chat: the choice the part belongs to


def _text_pieces(path: str, pieces: Iterable[Any], surface: Surface) -> list[Part]:
    """``path[j]`` for each piece with a string ``text``."""
    parts: list[Part] = []
    for j, piece in enumerate(pieces):
        text = get_field(piece, "text")
        if isinstance(text, str):
            parts.append(Part(f"{path}[{j}]", surface, text, piece, "text"))
    return parts


def call_parts(
    path: str, fields: Any, arg_key: str, container: Any, list_key: str, element: Any
) -> list[Part]:
    """The name and arguments of one tool call (``fields`` holds both), droppable as
    ``element`` of ``container.list_key``."""
    name = get_field(fields, "name")
    parts: list[Part] = []
    for key, surface in (("name", Surface.TOOL_NAME), (arg_key, Surface.TOOL_ARG)):
        value = get_field(fields, key)
        if isinstance(value, str):
            parts.append(
                Part(
                    f"{path}.{key}",
                    surface,
                    value,
                    fields,
                    key,
                    tool_name=name if isinstance(name, str) else None,
                    container=container,
                    list_key=list_key,
                    element=element,
                )
            )
    return parts


def chat_parts(completion: Any) -> list[Part]:
    """The parts of a chat completion (dict or SDK object), in order."""
    parts: list[Part] = []
    for choice in get_field(completion, "choices") or ():
        message = get_field(choice, "message")
        if message is None:
            continue
        index = get_field(choice, "index") or 0
        prefix = "" if index == 0 else f"choices[{index}]."
        found: list[Part] = []
        content = get_field(message, "content")
        if isinstance(content, str):
            found.append(Part(prefix + "content", Surface.TEXT, content, message, "content"))
        elif isinstance(content, list):
            found += _text_pieces(prefix + "content", content, Surface.TEXT)
        for key in ("reasoning_content", "reasoning"):
            value = get_field(message, key)
            if isinstance(value, str):
                found.append(Part(prefix + key, Surface.THINKING, value, message, key))
        for i, call in enumerate(get_field(message, "tool_calls") or ()):
            function = get_field(call, "function")
            if function is not None:
                path = f"{prefix}tool_calls[{i}].function"
                found += call_parts(path, function, "arguments", message, "tool_calls", call)
        for part in found:
            part.choice = choice
        parts += found
    return parts


def response_parts(response: Any) -> list[Part]:
    """The parts of a Responses API response (dict or SDK object), in order."""
    parts: list[Part] = []
    for i, item in enumerate(get_field(response, "output") or ()):
        kind = get_field(item, "type")
        if kind == "message":
            pieces = get_field(item, "content") or ()
            parts += _text_pieces(f"output[{i}].content", pieces, Surface.TEXT)
        elif kind in ("function_call", "custom_tool_call"):
            arg_key = "arguments" if kind == "function_call" else "input"
            parts += call_parts(f"output[{i}]", item, arg_key, response, "output", item)
        elif kind == "reasoning":
            for key in ("summary", "content"):
                pieces = get_field(item, key) or ()
                parts += _text_pieces(f"output[{i}].{key}", pieces, Surface.THINKING)
    return parts
