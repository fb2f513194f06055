"""Reading a regular expression's source text: its top-level alternatives, the longest text a
match can span, and whether it is a plain literal.

One scan of the alternatives serves the escaper (does a pattern family open with one plain
character every match starts with?) and the gate's wake test (which characters or words can
wake a quiet monitor?); the stream plan bounds its search for held spellings with the other two.
It imports nothing of the project, so every layer may use it.
"""

from __future__ import annotations

__all__ = ["literal_prefixes", "longest_match", "top_level_alternatives"]


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


def longest_match(patterns: list[str]) -> int | None:
    """The most characters a match of any of ``patterns`` can span, as the standard library's
    parser measures it; ``None`` when one is unbounded or cannot be measured (a syntax only the
    ``regex`` module reads, or another Python's private parser)."""
    if not patterns:
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        widths = [_parser.parse(p).getwidth()[1] for p in patterns]
    except Exception:  # not measurable here: the caller reads every place
        return None
    longest = max(widths)
    return longest if longest < _parser.MAXREPEAT else None


def literal_prefixes(patterns: list[str]) -> frozenset[str] | None:
    """Every proper prefix of ``patterns`` when each is a literal string (as the standard
    library's parser reads it), else ``None``."""
    if not patterns:
        return None
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        spellings = []
        for source in patterns:
            ops = list(_parser.parse(source))
            if any(op is not _constants.LITERAL for op, _ in ops):
                return None
            spellings.append("".join(chr(code) for _, code in ops))
    except Exception:  # not readable here: the caller runs the pattern everywhere
        return None
    return frozenset(s[:k] for s in spellings for k in range(1, len(s)))
