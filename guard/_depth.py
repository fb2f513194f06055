"""How deep guard walks JSON-like values: one cap, checked without recursion.

The escape walk, ``copy.deepcopy`` and the ``json`` module recurse once (or more) per level of
nesting, so a hostile value nested thousands of levels deep would end in ``RecursionError``
somewhere inside them. Values are measured first, iteratively, and refused with
:class:`guard.errors.NestingError` above :data:`MAX_DEPTH`; below it every recursive walk stays
far from the interpreter's limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from guard.errors import NestingError

__all__ = ["MAX_DEPTH", "check_depth", "nesting_error"]

#: The deepest nesting of lists and objects guard accepts (serde_json's default limit too).
MAX_DEPTH = 128


def _children(value: Any) -> Any:
    if isinstance(value, Mapping):
        return value.values()
    if isinstance(value, list | tuple):
        return value
    return None


def nesting_error(what: str, limit: int = MAX_DEPTH) -> NestingError:
    """The error for ``what`` nested deeper than ``limit`` levels."""
    return NestingError(
        f"{what} must be nested at most {limit} levels of lists and objects deep;"
        f" got one nested deeper"
    )


def check_depth(value: Any, what: str, limit: int = MAX_DEPTH) -> None:
    """Raise :class:`NestingError` if ``value`` holds lists/objects nested deeper than
    ``limit`` levels (``{"a": [1]}`` is two levels deep). Iterative: any depth is safe."""
    top = _children(value)
    if top is None:
        return
    stack = [(top, 1)]
    while stack:
        children, depth = stack.pop()
        if depth > limit:
            raise nesting_error(what, limit)
        for child in children:
            inner = _children(child)
            if inner is not None:
                stack.append((inner, depth + 1))
