"""Reading Python call source in bounded memory: a list split into its elements, and the size of
the syntax tree ``ast`` would build, both found in one linear pass without parsing.

``ast.parse`` keeps about 500 bytes per node, and a node needs at least one character of code
outside string literals (``1,`` is a node per two characters), so a call list a model writes on
one line can cost hundreds of times its length. Parsing each call of a list on its own, and only
when its code is under :data:`MAX_CALL_CODE` characters, bounds the tree by that cap whatever the
length of the list; a call over it is not read as a call (its text stays text).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["MAX_CALL_CODE", "code_size", "is_blank", "list_elements"]

#: The most characters of code outside string literals (blanks included) one call may hold to
#: be parsed: about 8 MB of syntax tree at the worst (measured: 400-550 bytes per character for
#: lists of numbers, names, tuples, dicts).
MAX_CALL_CODE: Final = 16_384

_STOP = re.compile(r"[\[\](){}'\"#,]")
_NEWLINE = re.compile(r"[\r\n]")
#: the rest of a string literal after its opening quote(s), closing quote(s) included
_REST = {
    "'": re.compile(r"[^'\\\r\n]*(?:\\[\s\S][^'\\\r\n]*)*'"),
    '"': re.compile(r'[^"\\\r\n]*(?:\\[\s\S][^"\\\r\n]*)*"'),
    "'''": re.compile(r"[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''"),
    '"""': re.compile(r'[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""'),
}
_TAIL = re.compile(r"(?:[ \t\r\n\f]|#[^\r\n]*)*")


def _walk(text: str, start: int, split: bool) -> tuple[list[tuple[int, int, int]], int] | None:
    """From ``start``, follow Python source through strings, comments and brackets.

    ``split``: ``text[start - 1]`` is a list's ``[``; stop after its closing ``]`` and return
    each element's ``(start, end, code size)``. Otherwise read to the end and return one span.
    Returns ``(spans, end)``, or ``None`` for an unterminated string or unbalanced brackets."""
    spans: list[tuple[int, int, int]] = []
    depth = 0
    size = 0  # code characters of the current element (a string counts one)
    first = i = start
    n = len(text)
    while True:
        m = _STOP.search(text, i)
        j = n if m is None else m.start()
        size += j - i
        if m is None:
            if split or depth:
                return None
            spans.append((first, n, size))
            return spans, n
        ch = text[j]
        if ch in "'\"":
            quote = text[j : j + 3] if text.startswith(ch * 3, j) else ch
            rest = _REST[quote].match(text, j + len(quote))
            if rest is None:
                return None
            size += 1
            i = rest.end()
            continue
        i = j + 1
        if ch == "#":
            nl = _NEWLINE.search(text, i)
            i = n if nl is None else nl.start()
        elif ch in "[({":
            depth += 1
            size += 1
        elif ch in "])}":
            if depth == 0:
                if not split or ch != "]":
                    return None
                spans.append((first, j, size))
                return spans, i
            depth -= 1
            size += 1
        elif depth == 0 and split:  # a comma between elements
            spans.append((first, j, size))
            first, size = i, 0
        else:
            size += 1


def list_elements(text: str) -> list[tuple[int, int, int]] | None:
    """The elements of the Python list ``text`` (blanks and comments around it allowed):
    ``(start, end, code size)`` of each, as character offsets in ``text``, the blank element
    after a trailing comma included (see :func:`is_blank`); ``None`` when the text is not one
    bracketed list. Brackets are balanced but not matched by kind here: parsing each element
    checks that."""
    lead = _TAIL.match(text).end()  # type: ignore[union-attr]
    if not text.startswith("[", lead):
        return None
    walked = _walk(text, lead + 1, split=True)
    if walked is None:
        return None
    spans, end = walked
    if _TAIL.match(text, end).end() != len(text):  # type: ignore[union-attr]
        return None
    return spans


def code_size(text: str) -> int | None:
    """Characters of code in ``text`` outside string literals (a string counts one): a bound
    on the nodes of its syntax tree. ``None`` when a string does not end or the brackets do not
    balance."""
    walked = _walk(text, 0, split=False)
    return None if walked is None else walked[0][0][2]


def is_blank(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` holds only blanks and comments."""
    return _TAIL.match(text, start, end).end() == end  # type: ignore[union-attr]
