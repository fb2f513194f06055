"""Parse boundaries for tool arguments: where the valid arguments end.

Signal T asks whether evidence starts at or after this offset. The policy names a boundary
function per tool (``"json"`` by default); functions are registered here by name so a policy
stays plain data (TOML/JSON).
"""

from __future__ import annotations

import json
from collections.abc import Callable

__all__ = ["BOUNDARIES", "get_boundary", "json_end", "register_boundary"]

Boundary = Callable[[str], int]

_DECODER = json.JSONDecoder(strict=False)
_WS = " \t\r\n"


def json_end(text: str) -> int:
    """End offset of the first complete JSON value (after leading whitespace), or 0 when the
    text does not start with one: then nothing in it is trusted structure."""
    start = len(text) - len(text.lstrip(_WS))
    try:
        _, end = _DECODER.raw_decode(text, start)
    except ValueError:
        return 0
    return int(end)


def _zero(text: str) -> int:
    return 0


def _whole(text: str) -> int:
    return len(text)


BOUNDARIES: dict[str, Boundary] = {
    "json": json_end,
    # free-form arguments: everything is past the boundary, so any leak trips
    "none": _zero,
    # trust the whole text (T never fires): for tools whose input is itself protocol text
    "whole": _whole,
}


def register_boundary(name: str, function: Boundary) -> None:
    """Register a boundary function that policies can name (e.g. a patch-format parser)."""
    if not name or not callable(function):
        raise ValueError("register_boundary() expects a non-empty name and a callable")
    BOUNDARIES[name] = function


def get_boundary(name: str) -> Boundary:
    try:
        return BOUNDARIES[name]
    except KeyError:
        known = ", ".join(sorted(BOUNDARIES))
        raise ValueError(f"unknown boundary function {name!r}; expected one of: {known}") from None
