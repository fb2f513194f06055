"""Where a JSON value ends, at any depth of nesting.

The standard decoder recurses once per level of nesting, so a valid value nested deeper than
the interpreter's stack allows (a 2 KB ``[[[...]]]`` of 990 levels, parsed a few frames down)
ends in ``RecursionError``. :func:`value_end` asks the fast decoder first and, when it runs out
of stack, :func:`walk_end`, which reads the same grammar with a stack of its own.
"""

from __future__ import annotations

import json
import json.decoder
import re
import sys
from collections.abc import Callable

__all__ = ["value_end", "walk_end"]

_DECODERS = {True: json.JSONDecoder(strict=True), False: json.JSONDecoder(strict=False)}


def value_end(text: str, i: int, *, strict: bool = False) -> int:
    """End of the JSON value starting at ``i`` as ``json.JSONDecoder(strict=strict)``
    ``.raw_decode`` reads it, at any depth; ``ValueError`` when none starts there."""
    try:
        return int(_DECODERS[strict].raw_decode(text, i)[1])
    except RecursionError:
        return walk_end(text, i, strict=strict)


_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_SPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_LITERALS = ("null", "true", "false", "NaN", "Infinity", "-Infinity")


def _space(text: str, i: int) -> int:
    return _SPACE.match(text, i).end()  # type: ignore[union-attr]


def _key(text: str, i: int, strict: bool) -> int:
    """After an object's ``{`` or ``,`` and its whitespace: a key, ``:`` and whitespace."""
    if not text.startswith('"', i):
        raise ValueError("expected a string key")
    i = _space(text, _scanstring(text, i + 1, strict)[1])
    if not text.startswith(":", i):
        raise ValueError("expected ':'")
    return _space(text, i + 1)


def _scalar_end(text: str, i: int, strict: bool) -> int:
    """End of the string, literal or number at ``i`` (as the standard decoder reads them,
    ``NaN`` and ``Infinity`` included); ``ValueError`` if none starts there."""
    if text.startswith('"', i):
        return int(_scanstring(text, i + 1, strict)[1])
    for word in _LITERALS:
        if text.startswith(word, i):
            return i + len(word)
    m = _NUMBER.match(text, i)
    if m is None:
        raise ValueError("expected a value")
    if m.group(2) is None and m.group(3) is None:
        # an integer is converted with int(), which refuses more digits than the limit
        digits = len(m.group(1).lstrip("-"))
        limit = sys.get_int_max_str_digits()
        if limit and digits > limit:
            raise ValueError("integer with too many digits")
    return m.end()


#: the closer of each opening bracket
_CLOSERS = {"[": "]", "{": "}"}


def walk_end(text: str, i: int, *, strict: bool = False) -> int:
    """End of the JSON value at ``i``, read iteratively (``ValueError`` if none is there).

    The grammar of ``json.JSONDecoder(strict=strict).raw_decode``: no leading whitespace, no
    trailing commas, ``NaN`` and ``Infinity`` read, control characters in strings only when
    not ``strict``."""
    stack: list[str] = []  # the closers of the open arrays and objects
    while True:
        # a value starts at i
        closer = _CLOSERS.get(text[i : i + 1])
        if closer is not None:
            i = _space(text, i + 1)
            if text.startswith(closer, i):
                i += 1
            else:
                stack.append(closer)
                if closer == "}":
                    i = _key(text, i, strict)
                continue
        else:
            i = _scalar_end(text, i, strict)
        # a value ended at i: close what it completes, or go on after a comma
        while True:
            if not stack:
                return i
            i = _space(text, i)
            if text.startswith(",", i):
                i = _space(text, i + 1)
                if stack[-1] == "}":
                    i = _key(text, i, strict)
                break
            if not text.startswith(stack[-1], i):
                raise ValueError(f"expected ',' or {stack[-1]!r}")
            stack.pop()
            i += 1
