"""Where the strings of a streamed event sit (:mod:`guard.wire._events`): walking an event's
strings (the fields of :mod:`guard.wire._exempt` skipped), naming a place, setting or joining a
string at a path, and which strings of the Messages events the stream engine reads."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

from guard.wire._exempt import STREAM_EXEMPT_KEYS, skipped

_EXEMPT = STREAM_EXEMPT_KEYS
#: a place in an event: its keys and list indexes
_Path = tuple[Any, ...]
_TOOL_BLOCKS = ("tool_use", "server_tool_use")
_BLOCK_TEXT = {"text": "text", "thinking": "thinking"}
_DELTA_TEXT = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "input_json_delta": "partial_json",
}


def _judged(key: str, value: str) -> bool:
    """Whether the string ``value`` of field ``key`` is judged (:func:`skipped`)."""
    return not skipped(key, value, _EXEMPT)


def _walk(node: Any, path: _Path) -> Iterator[tuple[_Path, str]]:
    """(path, string) of every string under ``node``, exempt keys skipped."""
    if type(node) is dict:
        for key, value in node.items():
            if type(value) is str:
                if value and _judged(key, value):
                    yield (*path, key), value
            elif (type(value) is dict or type(value) is list) and not skipped(key, value, _EXEMPT):
                yield from _walk(value, (*path, key))
    elif type(node) is list:
        for i, value in enumerate(node):
            if type(value) is str:
                if value:
                    yield (*path, i), value
            elif type(value) is dict or type(value) is list:
                yield from _walk(value, (*path, i))


def _set(item: Any, path: _Path, value: str) -> None:
    node = item
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value


def _put(node: dict[str, Any], field: _Path, text: str) -> None:
    """Set the string at ``field`` (keys) of ``node``, made where missing, joined to a string
    already there."""
    for key in field[:-1]:
        child = node.get(key)
        if type(child) is not dict:
            child = node[key] = {}
        node = child
    last = field[-1]
    there = node.get(last)
    node[last] = text + there if type(there) is str else text


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def _name(path: _Path) -> str:
    """A place's name as the JSON judge names parts: ``choices[1].delta.refusal``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def _delta_field(body: Any) -> str | None:
    """The field of a Messages ``content_block_delta`` body the stream guard reads."""
    delta_kind = body.get("type") if type(body) is dict else None
    return _DELTA_TEXT.get(delta_kind) if type(delta_kind) is str else None


def _usual_delta(
    event: dict[str, Any], body: dict[str, Any], field_name: str, place: _Path
) -> list[tuple[_Path, _Path, str, int | None]]:
    """The usual delta event, read without a list of every string: all but the text."""
    found: list[tuple[_Path, _Path, str, int | None]] = []
    for key, value in event.items():
        if key == "delta":
            rest = {k: v for k, v in body.items() if k != field_name}
            for inner, text in _walk(rest, ("delta",)):
                found.append((inner, (*place, *inner), text, None))
        elif type(value) is str:
            if value and _judged(key, value):
                found.append(((key,), (*place, key), value, None))
        elif (type(value) is dict or type(value) is list) and not skipped(key, value, _EXEMPT):
            found += [(p, (*place, *p), t, None) for p, t in _walk(value, (key,))]
    return found


def _unread_of_block(event: dict[str, Any]) -> list[tuple[_Path, str]]:
    """The strings of a ``content_block_start`` event the stream guard does not read."""
    strings = list(_walk(event, ()))
    block = event.get("content_block")
    block_kind = block.get("type") if type(block) is dict else None
    if block_kind in _TOOL_BLOCKS:
        return [
            (p, t)
            for p, t in strings
            if p != ("content_block", "name") and p[:2] != ("content_block", "input")
        ]
    if block_kind in _BLOCK_TEXT:
        text_path = ("content_block", _BLOCK_TEXT[block_kind])
        return [(p, t) for p, t in strings if p != text_path]
    return strings
