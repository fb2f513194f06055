"""Parse boundaries for tool arguments: where the valid arguments end.

Signal T asks whether evidence starts at or after this offset. The policy names a boundary
function per tool (``"json"`` by default); functions are registered here by name so a policy
stays plain data (TOML/JSON).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from guard._json_walk import value_end
from guard.errors import PluginError
from guard.models import Registry

__all__ = ["BOUNDARIES", "Boundary", "JsonEnd", "get_boundary", "json_end", "register_boundary"]

Boundary = Callable[[str], int]

_WS = " \t\r\n"


def json_end(text: str) -> int:
    """End offset of the first complete JSON value (after leading whitespace), or 0 when the
    text does not start with one: then nothing in it is trusted structure. Any depth of
    nesting is measured (:func:`guard._json_walk.value_end`), never a ``RecursionError``."""
    start = len(text) - len(text.lstrip(_WS))
    try:
        return value_end(text, start)
    except ValueError:
        return 0


def _zero(text: str) -> int:
    return 0


def _whole(text: str) -> int:
    return len(text)


def _callable(name: str, value: object) -> Boundary:
    if not callable(value):
        raise PluginError(f"boundary function {name!r} is not callable: {value!r}")
    return cast(Boundary, value)


#: Boundary functions by name: built-ins, the ``guard.boundaries`` entry point group, and
#: :func:`register_boundary`.
BOUNDARIES: Registry[Boundary] = Registry(
    "boundary function",
    "guard.boundaries",
    {
        "json": json_end,
        # free-form arguments: everything is past the boundary, so any leak trips
        "none": _zero,
        # trust the whole text (T never fires): for tools whose input is itself protocol text
        "whole": _whole,
    },
    key=str,
    check=_callable,
)


def register_boundary(name: str, function: Boundary) -> None:
    """Register a boundary function that policies can name (e.g. a patch-format parser)."""
    BOUNDARIES.register(name, function)


def get_boundary(name: str) -> Boundary:
    """The boundary function called ``name``; unknown names raise ``UnknownNameError``."""
    return BOUNDARIES.get(name)


class JsonEnd:
    """Incremental twin of :func:`guard.boundary.json_end` for a text fed in chunks.

    Structure is tracked (depth, strings, escapes) to see where the first object or array
    ends; the retained prefix is then checked with the real decoder, so the answer equals the
    whole-text one. For a scalar first value the answer waits for :meth:`finish`.
    """

    __slots__ = ("_depth", "_esc", "_in_str", "_kind", "_length", "_text", "end")

    def __init__(self) -> None:
        self._text: list[str] = []
        self._length = 0
        self._kind = ""  # "", "{", "[" or "scalar"
        self._depth = 0
        self._in_str = False
        self._esc = False
        self.end: int | None = None  # decided boundary

    def feed(self, chunk: str) -> None:
        if self.end is not None:
            return
        base = self._length
        self._text.append(chunk)
        self._length += len(chunk)
        if self._kind == "scalar":
            return
        i = 0
        if not self._kind:
            stripped = chunk.lstrip(" \t\r\n")
            if not stripped:
                return
            i = len(chunk) - len(stripped)
            first = stripped[0]
            if first not in "{[":
                self._kind = "scalar"
                return
            self._kind = first
            if not base:
                # most arguments come whole in their first piece: the decoder (C) says where
                # the value ends, as the walk below and its check would; an unfinished or
                # broken value is walked
                try:
                    self.end = value_end(chunk, i)
                except ValueError:
                    pass
                else:
                    self._text = []
                    return
        for j in range(i, len(chunk)):
            ch = chunk[j]
            if self._in_str:
                if self._esc:
                    self._esc = False
                elif ch == "\\":
                    self._esc = True
                elif ch == '"':
                    self._in_str = False
            elif ch == '"':
                self._in_str = True
            elif ch in "{[":
                self._depth += 1
            elif ch in "}]":
                self._depth -= 1
                if self._depth == 0:
                    text = "".join(self._text)
                    self.end = _json_end_checked(text, base + j + 1)
                    self._text = []
                    return

    def finish(self) -> int:
        if self.end is None:
            self.end = json_end("".join(self._text))
            self._text = []
        return self.end


def _json_end_checked(text: str, candidate: int) -> int:
    end = json_end(text[:candidate])
    return end if end == candidate else 0
