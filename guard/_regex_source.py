"""Reading a regular expression's source text: its top-level alternatives, the longest text a
match can span (and how far right of its start a match attempt reads), and whether it is a plain
literal.

One scan of the alternatives serves the escaper (does a pattern family open with one plain
character every match starts with?) and the gate's wake test (which characters or words can
wake a quiet monitor?); the stream plan bounds its search for held spellings with the other two.
It imports nothing of the project, so every layer may use it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["first_chars", "literal_prefixes", "longest_match", "reach", "top_level_alternatives"]


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


def literal_head(source: str) -> str:
    """The literal characters every match of ``source`` opens with (as the standard library's
    parser reads it; case-sensitive only), or ``""``."""
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source)
        if parsed.state.flags & _constants.SRE_FLAG_IGNORECASE:
            return ""
        head = []
        for op, code in parsed:
            if op is not _constants.LITERAL:
                break
            head.append(chr(code))
    except Exception:  # not readable here
        return ""
    return "".join(head)


def reach(source: str, flags: int = 0) -> int | None:
    """How far right of a match's start an attempt of ``source`` can read: its longest match,
    lookaheads counted as if consumed, plus one character for an anchor such as ``\\b`` or
    ``$`` at its end. ``None`` when unbounded, when a match can be empty, or when the standard
    library's parser cannot read it (a scan in windows then reads the whole text at once)."""
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source, flags)
        if parsed.getwidth()[0] == 0:
            return None
        longest = _reach(parsed, _constants)
    except Exception:  # not measurable here
        return None
    return longest + 1 if longest < _parser.MAXREPEAT else None


def _reach(sub: Any, c: Any) -> int:
    """The most characters one attempt of a parsed (sub)pattern reads from where it starts."""
    from re import _parser  # type: ignore[attr-defined]

    big: int = _parser.MAXREPEAT
    total = 0
    for op, av in sub.data:
        if op is c.BRANCH:
            total += max(_reach(alt, c) for alt in av[1])
        elif op is c.SUBPATTERN:
            total += _reach(av[-1], c)
        elif op is c.ATOMIC_GROUP:
            total += _reach(av, c)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            inner = _reach(av[2], c)
            if inner and av[1] >= big:
                return big
            total += inner * av[1]
        elif op in (c.ASSERT, c.ASSERT_NOT):
            direction, pattern = av
            total += _reach(pattern, c) if direction == 1 else 0
        elif op is c.GROUPREF_EXISTS:
            total += max(_reach(av[1], c), _reach(av[2], c) if av[2] is not None else 0)
        elif op is c.GROUPREF:
            return big
        elif op in (c.ANY, c.RANGE, c.IN, c.LITERAL, c.NOT_LITERAL, c.CATEGORY):
            total += 1
        if total >= big:
            return big
    return total


def first_chars(source: str) -> tuple[frozenset[str], bool] | None:
    """The characters a match of ``source`` can start with, and whether any of them is read
    case-insensitively (match them with ``(?i:...)`` then); ``None`` when a match can start with
    any character, can be empty, or the standard library's parser cannot read the pattern."""
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source)
        if parsed.getwidth()[0] == 0:
            return None
        found = _first(parsed, _constants, parsed.state.flags & _constants.SRE_FLAG_IGNORECASE)
    except Exception:  # not readable here
        return None
    if found is None or found[2]:
        return None
    return frozenset(found[0]), found[1]


def _first(sub: Any, c: Any, fold: int) -> tuple[set[str], bool, bool] | None:
    """(first characters, any read case-insensitively, can be empty) of a parsed sequence;
    ``None`` for "any character"."""
    chars: set[str] = set()
    folded = False
    for op, av in sub.data:
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue  # zero width: the next item decides (a lookahead only narrows it)
        if op is c.LITERAL:
            return chars | {chr(av)}, folded or bool(fold), False
        if op is c.IN:
            got = _class_chars(av, c)
            if got is None:
                return None
            return chars | got, folded or bool(fold), False
        if op is c.BRANCH:
            item = _union([_first(alt, c, fold) for alt in av[1]])
        elif op is c.SUBPATTERN:
            add, remove = av[1], av[2]
            inner = (fold | (add & c.SRE_FLAG_IGNORECASE)) & ~remove
            item = _first(av[-1], c, inner)
        elif op is c.ATOMIC_GROUP:
            item = _first(av, c, fold)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            item = _first(av[2], c, fold)
            if item is not None and av[0] == 0:
                item = (item[0], item[1], True)
        else:
            return None
        if item is None:
            return None
        chars |= item[0]
        folded = folded or item[1]
        if not item[2]:
            return chars, folded, False
    return chars, folded, True


def _union(items: list[tuple[set[str], bool, bool] | None]) -> tuple[set[str], bool, bool] | None:
    if any(item is None for item in items):
        return None
    chars: set[str] = set()
    for item in items:
        chars |= item[0]  # type: ignore[index]
    return (
        chars,
        any(item[1] for item in items),  # type: ignore[index]
        any(item[2] for item in items),  # type: ignore[index]
    )


def _class_chars(items: Any, c: Any) -> set[str] | None:
    chars: set[str] = set()
    for op, av in items:
        if op is c.LITERAL:
            chars.add(chr(av))
        elif op is c.RANGE and av[1] - av[0] < 512:
            chars.update(chr(cp) for cp in range(av[0], av[1] + 1))
        else:  # a negated class, a category, a wide range: too many to list
            return None
    return chars


_PLAIN = frozenset("\\.^$*+?{}[]|()")
_QUANTIFIERS = frozenset("*+?{")


def opens_plain(source: str) -> bool:
    """True when ``source`` opens with a plain character that every match starts with (no
    quantifier on it, no alternation at the top level): the escaper hangs such a pattern under
    that character, and escapes a match after it as it does a bar-less spelling."""
    if not source or source[0] in _PLAIN or source[1:2] in _QUANTIFIERS:
        return False
    return len(top_level_alternatives(source)) == 1
