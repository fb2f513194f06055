"""Reading a regular expression's source text: its top-level alternatives.

One scan serves the escaper (does a pattern family open with one plain character every match
starts with?) and the gate's wake test (which characters or words can wake a quiet monitor?).
It imports nothing of the project, so every layer may use it.
"""

from __future__ import annotations

__all__ = ["top_level_alternatives"]


def top_level_alternatives(source: str) -> list[str]:
    """The top-level alternatives of a regex source: split on ``|`` outside groups and
    character classes, an escaped character never counting. One item when there is no
    top-level ``|``."""
    out: list[str] = []
    depth = 0
    in_class = False
    start = 0
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(source[start:i])
            start = i + 1
        i += 1
    out.append(source[start:])
    return out
