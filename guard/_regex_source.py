"""Reading a regular expression's source text: its top-level alternatives, the longest text a
match can span (and how far right of its start a match attempt reads), and whether it is a plain
literal.

One scan of the alternatives serves the escaper (does a pattern family open with one plain
character every match starts with?) and the gate's wake test (which characters or words can
wake a quiet monitor?); the stream plan bounds its search for held spellings with the other two.
It imports nothing of the project, so every layer may use it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

__all__ = [
    "HEAD_CHARS",
    "ascii_heads",
    "first_chars",
    "heads_gate",
    "literal_prefixes",
    "longest_match",
    "reach",
    "top_level_alternatives",
]


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


_ASCII = frozenset(map(chr, range(128)))
#: the characters a head may open with: a letter or a digit (patterns allow a run of blanks,
#: bullets or markup first, whose heads would outnumber the texts they gate)
_OPENING = frozenset(ch for ch in _ASCII if ch.isalnum())


#: how many characters of a text :func:`heads_gate`'s lookahead reads by default
HEAD_CHARS = 6


def heads_gate(source: str, flags: int = 0, n: int = HEAD_CHARS) -> str | None:
    """A lookahead that every text a ``match`` of ``source`` succeeds on passes, and most
    others fail at their first characters: the texts :func:`ascii_heads` does not speak for (a
    first character that is no letter or digit, a character past printable ASCII among the
    first ``n``), or a head of the set as a trie. Put before ``source``, it makes a failing
    match cheap (a long alternation otherwise tries each branch in turn). ``None`` where
    :func:`ascii_heads` gives nothing."""
    heads = ascii_heads(source, flags, n)
    if heads is None:
        return None
    return rf"(?=(?![A-Za-z0-9])|(?![\x00-\x7f]{{{n}}})|{_trie(sorted(heads))})"


def _trie(words: list[str]) -> str:
    """``A|B|...`` for literal words as a trie (a word that another one extends matches as
    the shorter: the lookahead asks only for an opening)."""
    if "" in words:
        return ""
    if not words:
        return "(?!)"  # no text of those the set speaks for can match
    branches: dict[str, list[str]] = {}
    for word in words:
        branches.setdefault(word[0], []).append(word[1:])
    # a head's space stands for any blank (see ``_Heads.chars``)
    parts = [
        (r"[\s\x1c-\x1f]" if head == " " else re.escape(head)) + _trie(tails)
        for head, tails in branches.items()
    ]
    return parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"


#: a head set past this size costs more to build than it saves: given up
_HEADS_CAP = 50_000
#: ends a head that any text opening with it fits, whatever follows (a wide class was met)
_OPEN = "\uffff"
#: a class admitting more characters than this (``\\w``, ``[^\\n]``) is not listed, it opens
#: the head (see :data:`_OPEN`): listing it would multiply the set without narrowing it much
_WIDE = 16


class _Allow:
    """A constraint on what a text holds from a point on: it opens with one of ``heads``."""

    __slots__ = ("_after", "closure", "heads", "lengths")

    def __init__(self, heads: frozenset[str]) -> None:
        # an open head says no more than its characters: the text opens with them
        self.heads = frozenset(h.rstrip(_OPEN) for h in heads)
        heads = self.heads
        #: every opening of a head: a string that fits it and says no more
        self.closure = frozenset(h[:i] for h in heads for i in range(len(h) + 1))
        self.lengths = sorted({len(h) for h in heads})
        self._after: dict[str, _Allow | None] = {}

    def fits(self, s: str) -> bool:
        """Whether a text holding ``s`` there (``s`` open or not) can fit."""
        s = s.rstrip(_OPEN)
        return s in self.closure or any(s[:k] in self.heads for k in self.lengths if k < len(s))

    def after(self, s: str) -> _Allow | None:
        """The constraint on the text after ``s`` (which fits)."""
        found = self._after.get(s, self)
        if found is self:
            if any(s[:k] in self.heads for k in self.lengths if k <= len(s)):
                found = None  # a head is whole within ``s``: nothing more is said
            else:
                found = _Allow(frozenset(h[len(s) :] for h in self.heads if h.startswith(s)))
            self._after[s] = found
        return found


class _Unreadable(Exception):
    """A construct :func:`ascii_heads` does not read (a back reference, a conditional), or a
    head set past :data:`_HEADS_CAP`."""


def ascii_heads(source: str, flags: int = 0, n: int = HEAD_CHARS) -> frozenset[str] | None:
    """What the first ``n`` characters of a text must be for a ``match`` of ``source`` to
    succeed on it, for the texts whose first ``n`` characters are ASCII and whose first is a
    letter or a digit (others are not read), with every blank read as a space: a set ``S`` of
    strings of at most ``n`` characters, one of which opens each such text that matches (a
    superset). A string shorter than ``n`` may open a match that reads no further (a match
    that ends, or a wide class such as ``[^\\n]``). ``None`` when a match can be empty, the
    set grows too large, or the standard library's parser cannot read the pattern.

    Lookaheads narrow what follows them; other lookarounds and anchors are read as if absent
    (they only narrow a match), so the set is never too small. A non-ASCII literal matches no
    ASCII text, save through a case fold (``ſ`` reads ``s``)."""
    try:
        from re import _constants, _parser  # type: ignore[attr-defined]

        parsed = _parser.parse(source, flags)
        reader = _Heads(
            _constants,
            bool(parsed.state.flags & _constants.SRE_FLAG_IGNORECASE),
            bool(parsed.state.flags & _constants.SRE_FLAG_DOTALL),
            parsed.state.flags & _constants.SRE_FLAG_ASCII,
        )
        opening = _Allow(_OPENING)
        found = reader.sequence(list(parsed.data), n, opening, reader.fold, reader.dotall)
    except (_Unreadable, RecursionError):
        return None
    except Exception:  # not readable here
        return None
    heads = {h.rstrip(_OPEN) for h in found}
    if "" in heads:
        return None
    return frozenset(heads)


def _fits(s: str, allow: _Allow | None) -> bool:
    return allow is None or allow.fits(s)


def _merge(match: str, look: str) -> str | None:
    """What a text holds where a match's head and a lookahead's head both hold there (one
    opens the other), else ``None``: the match's head when it says as much, else the
    lookahead's, open (the match consumed less than the lookahead read)."""
    a, b = match.rstrip(_OPEN), look.rstrip(_OPEN)
    if not (a.startswith(b) or b.startswith(a)):
        return None
    if len(a) >= len(b):
        return match
    return b + _OPEN


class _Heads:
    """The reading of one parsed pattern (see :func:`ascii_heads`): each method gives the
    strings of at most ``n`` characters a part's match can open with under the constraint
    ``allow``, one of ``n`` characters cut there, a shorter one the part's whole match."""

    def __init__(self, c: Any, fold: bool, dotall: bool, ascii_flag: int) -> None:
        self.c = c
        self.fold = fold
        self.dotall = dotall
        #: ``re.ASCII`` when the pattern is read so (its classes then admit ASCII only)
        self.ascii_flag = ascii_flag

    def sequence(
        self, items: list[Any], n: int, allow: _Allow | None, fold: bool, dotall: bool
    ) -> set[str]:
        if n == 0 or not items:
            return {""}
        c = self.c
        (op, av), rest = items[0], items[1:]
        if op is c.ASSERT and av[0] == 1:
            # a lookahead: what follows must open as it says too
            look = self.sequence(list(av[1].data), n, allow, fold, dotall)
            if "" in look:
                return self.sequence(rest, n, allow, fold, dotall)
            after = self.sequence(rest, n, _Allow(frozenset(look)), fold, dotall)
            return {m for t in after for x in look if (m := _merge(t, x)) is not None}
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            return self.sequence(rest, n, allow, fold, dotall)
        first = self.item(op, av, n, allow, fold, dotall)
        return self.concat(
            first, lambda room, a: self.sequence(rest, room, a, fold, dotall), n, allow
        )

    def concat(self, left: set[str], right: Any, n: int, allow: _Allow | None) -> set[str]:
        """Each string of ``left`` followed by each of ``right(room, constraint)``, cut at
        ``n``."""
        out: set[str] = set()
        memo: dict[tuple[int, _Allow | None], set[str]] = {}
        for s in sorted(left):
            if not _fits(s, allow):
                continue
            room = n - len(s)
            if room == 0 or s.endswith(_OPEN):
                out.add(s)
                continue
            key = (room, None if allow is None else allow.after(s))
            got = memo.get(key)
            if got is None:
                got = memo[key] = right(*key)
            out.update(s + t for t in got)
            if len(out) > _HEADS_CAP:
                raise _Unreadable
        return out

    def chars(self, chars: set[str] | frozenset[str], fold: bool, allow: _Allow | None) -> set[str]:
        if fold:
            chars = {f for ch in chars for f in (ch, ch.lower(), ch.upper())}
        # every blank reads as a space: a class that admits one admits the space (ten
        # spellings of each gap would multiply the set for nothing)
        found = {" " if ch.isspace() else ch for ch in chars if ch in _ASCII}
        found = {ch for ch in found if _fits(ch, allow)}
        return {_OPEN} if len(found) > _WIDE else found

    def item(
        self, op: Any, av: Any, n: int, allow: _Allow | None, fold: bool, dotall: bool
    ) -> set[str]:
        c = self.c
        if op is c.LITERAL:
            if av > 127 and fold:
                # a case fold may reach ASCII (``ſ`` reads ``s``, ``İ`` reads ``i``): asked of
                # the engine itself, character by character
                folded = self.ascii_flag | int(re.IGNORECASE)
                return self.chars(_admitted(re.escape(chr(av)), folded), False, allow)
            return self.chars({chr(av)}, fold, allow)
        if op is c.NOT_LITERAL:
            return self.chars(set(_ASCII), False, allow)
        if op is c.ANY:
            return self.chars(set(_ASCII), False, allow)
        if op is c.IN:
            cased = self.ascii_flag | (int(re.IGNORECASE) if fold else 0)
            return self.chars(_admitted(_class_source(av, c), cased), False, allow)
        if op is c.BRANCH:
            out: set[str] = set()
            for alt in av[1]:
                out |= self.sequence(list(alt.data), n, allow, fold, dotall)
            return out
        if op is c.SUBPATTERN:
            add, remove = av[1], av[2]
            ic = c.SRE_FLAG_IGNORECASE
            inner = (fold or bool(add & ic)) and not remove & ic
            dot = (dotall or bool(add & c.SRE_FLAG_DOTALL)) and not remove & c.SRE_FLAG_DOTALL
            return self.sequence(list(av[-1].data), n, allow, inner, dot)
        if op is c.ATOMIC_GROUP:
            return self.sequence(list(av.data), n, allow, fold, dotall)
        if op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT):
            return self.repeat(av, n, allow, fold, dotall)
        raise _Unreadable(op)

    def repeat(self, av: Any, n: int, allow: _Allow | None, fold: bool, dotall: bool) -> set[str]:
        # a string of at most ``n`` characters takes at most ``n`` repetitions that add a
        # character; any others add nothing, so ``lo + n`` repetitions cover every count
        lo, hi, body = av
        items = list(body.data)
        out: set[str] = {""} if lo == 0 else set()
        current = {""}
        for count in range(1, min(hi, lo + n) + 1):
            current = self.concat(
                current, lambda room, a: self.sequence(items, room, a, fold, dotall), n, allow
            )
            if count >= lo:
                out |= current
            if not current:
                break
        return out


def _class_source(items: Any, c: Any) -> str:
    """A parsed character class written back as a class."""
    named = {
        c.CATEGORY_DIGIT: r"\d",
        c.CATEGORY_NOT_DIGIT: r"\D",
        c.CATEGORY_SPACE: r"\s",
        c.CATEGORY_NOT_SPACE: r"\S",
        c.CATEGORY_WORD: r"\w",
        c.CATEGORY_NOT_WORD: r"\W",
    }
    out: list[str] = []
    for op, av in items:
        if op is c.NEGATE:
            out.insert(0, "^")
        elif op is c.LITERAL:
            out.append(re.escape(chr(av)))
        elif op is c.RANGE:
            out.append(f"{re.escape(chr(av[0]))}-{re.escape(chr(av[1]))}")
        elif op is c.CATEGORY and av in named:
            out.append(named[av])
        else:
            raise _Unreadable(op)
    return "[" + "".join(out) + "]"


@lru_cache(maxsize=1024)
def _admitted(source: str, flags: int) -> frozenset[str]:
    """The ASCII characters the one-character pattern ``source`` matches, asked of the engine:
    case folds, negations and categories as it reads them."""
    pattern = re.compile(source, flags)
    return frozenset(ch for ch in _ASCII if pattern.fullmatch(ch) is not None)
