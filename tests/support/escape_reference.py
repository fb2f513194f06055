"""The escaping scheme in its plain, slow form, as a reference for the compiled escaper: one
alternative per spelling (longest first, then the pattern families), tried at every position
with the `regex` engine's overlapped search, every escape position of every match bumped once.

It is the form the escaper had before it was compiled as a prefix tree; the tests check the
tree gives the same text for every input (``tests/escape/test_escape_engine.py``).
"""

from __future__ import annotations

from functools import cache

import regex

from guard.dialects import get_dialect

_BARS = ("|", "\uff5c")


def _has_bar(s: str) -> bool:
    return any(bar in s for bar in _BARS)


def _alternative(spelling: str, run: str) -> str:
    if _has_bar(spelling):
        return "".join(
            run + regex.escape(ch) if ch in _BARS else regex.escape(ch) for ch in spelling
        )
    return regex.escape(spelling[0]) + run + regex.escape(spelling[1:])


def _family(pattern: str, run: str) -> str:
    if "\\|" not in pattern and "\uff5c" not in pattern:
        # a bar-less family (Gemma's `<unused[0-9]{1,4}>`) opens with a plain character: the
        # run goes after it, as for a bar-less literal
        return pattern[0] + run + pattern[1:]
    return pattern.replace("\\|", run + "\\|").replace("\uff5c", run + "\uff5c")


@cache
def _compiled(dialect: str, run: str) -> regex.Pattern[str]:
    d = get_dialect(dialect)
    patterns = list(dict.fromkeys((*d.reserved_patterns, *d.escape_patterns)))
    families = [regex.compile(p) for p in patterns]
    literals = sorted(
        {s for s in d.reserved if not any(f.fullmatch(s) for f in families)},
        key=lambda s: (-len(s), s),
    )
    alternatives = [_alternative(s, run) for s in literals] + [_family(p, run) for p in patterns]
    return regex.compile("|".join(f"(?:{a})" for a in alternatives), regex.V0)


def _positions(match: str, *, escaped: bool) -> list[int]:
    if _has_bar(match):
        return [i - escaped for i, ch in enumerate(match) if ch in _BARS]
    if escaped:
        return [1]
    run = len(match[1:]) - len(match[1:].lstrip("\\"))
    return [1 + run]


def _rewrite(text: str, dialect: str, *, escaped: bool) -> str:
    found = _compiled(dialect, r"\\+" if escaped else r"\\*")
    positions: set[int] = set()
    for m in found.finditer(text, overlapped=True):
        positions.update(m.start() + p for p in _positions(m.group(), escaped=escaped))
    pieces: list[str] = []
    last = 0
    for pos in sorted(positions):
        pieces.append(text[last:pos])
        if escaped:
            last = pos + 1
        else:
            pieces.append("\\")
            last = pos
    pieces.append(text[last:])
    return "".join(pieces)


def reference_escape(text: str, dialect: str) -> str:
    """Every reserved spelling of ``dialect`` in ``text`` escaped (the plain form)."""
    return _rewrite(text, dialect, escaped=False)


def reference_unescape(text: str, dialect: str) -> str:
    """:func:`reference_escape` undone (the plain form)."""
    return _rewrite(text, dialect, escaped=True)
