"""The compiled escaping machinery of one dialect: which text is a reserved spelling, and where
its backslashes go.

The scheme (the same for every dialect):

* A reserved spelling that contains a bar (``|`` or the fullwidth ``｜``) is escaped by putting a
  backslash before each of its bars: ``<|channel|>`` becomes ``<\\|channel\\|>`` (law E3, the form
  models and servers already see from the reference agent).
* A reserved spelling without a bar gets one backslash after its first character:
  ``<think>`` becomes ``<\\think>``, ``[gMASK]`` becomes ``[\\gMASK]``.

To make this reversible for *every* string, text that already looks escaped is escaped once more:
the escaper matches each spelling with any run of backslashes (zero or more) at its escape
positions and adds one backslash to each run; the unescaper matches runs of one or more and
removes one. Reserved spellings never contain a backslash (the `Dialect` record enforces it), so
the runs are unambiguous, and a match in the escaped text maps back to exactly the match it came
from. Dialects whose spellings can overlap (MiniMax's ``]~b]``) are matched at every position
(overlapping), and every escape position is bumped once.

Speed: the spellings are compiled as one prefix tree (a trie written as a regular expression,
with the pattern families hung under their first character), so a position costs one branch per
character it shares with some spelling, not one try per spelling: a run of ``<`` costs a small
constant per character under every dialect and under ``all`` (it cost one try per spelling that
opens with ``<``, nearly three hundred under ``all``). Overlapping search is a zero-width
lookahead (``(?=(...))``), which tries each position once in C. Texts under 64K characters are
searched by the stdlib engine, the faster one here; longer ones by ``regex`` with
``concurrent=True``, which lets go of the GIL while it reads (``_compile_free``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache, partial
from typing import Any

import regex

from guard._regex_source import opens_plain as _opens_plain
from guard.dialects import Dialect, get_dialect
from guard.models import lazy_regex

__all__ = ["Escaper", "escaper_for"]

_BARS = ("|", "\uff5c")
_RUN0 = r"\\*"
_RUN1 = r"\\+"
_NO_BACKSLASH_BEFORE = r"(?<!\\)"
#: regular-expression syntax: a pattern that opens with one of these is not hung in the tree
#: texts of this many characters or more are searched without holding the GIL (``_compile_free``)
_FREE_FROM = 1 << 16
#: final positions an overlapped rewrite writes out at a time (bounds what it holds)
_BLOCK = 4096
#: distinct spellings whose rewrite (or escape offsets) one call remembers
_SPELLINGS_KEPT = 1024

#: a token of a spelling: one character, or ``None`` for a backslash run
_Token = str | None
#: a node of the prefix tree: token -> child; the key ``""`` marks the end of a spelling
_Node = dict[_Token, "_Node"]
_END = ""


def _has_bar(s: str) -> bool:
    return "|" in s or "\uff5c" in s


def _pattern_has_bar(pattern: str) -> bool:
    """Whether a pattern spells a bar (``\\|`` or ``｜``; a bare ``|`` is an alternation)."""
    return "\\|" in pattern or "\uff5c" in pattern


def _tokens(spelling: str) -> tuple[_Token, ...]:
    """A spelling as the escaper reads it: its characters, with a backslash run where its
    backslashes go (before each bar, or after the first character of a bar-less spelling)."""
    if _has_bar(spelling):
        return tuple(t for ch in spelling for t in ((None, ch) if ch in _BARS else (ch,)))
    return (spelling[0], None, *spelling[1:])


def _pattern_source(pattern: str, run: str) -> str:
    # Convention of the Dialect record: bars of the spelling are written `\|` or `｜`, never
    # inside a character class, so a plain textual substitution finds every one of them. A
    # pattern without a bar (Gemma's `<unused[0-9]{1,4}>`) opens with a plain character, and
    # its run goes after it, as a bar-less literal's does.
    if not _pattern_has_bar(pattern):
        if not _opens_plain(pattern):
            raise ValueError(
                f"a reserved pattern without a bar must open with a plain character: {pattern!r}"
            )
        return pattern[0] + run + pattern[1:]
    out = pattern.replace("\\|", "\0BAR\0").replace("\uff5c", "\0FWBAR\0")
    return out.replace("\0BAR\0", run + "\\|").replace("\0FWBAR\0", run + "\uff5c")


def _branches(node: _Node, run: str, tails: dict[str, list[str]] | None = None) -> list[str]:
    """The alternatives of ``node``'s subtree: a backslash run before the characters that may
    follow it, longer spellings before one that ends here, so the match at a position is the one
    a longest-first alternation of the spellings finds (``tests/escape`` checks it for every
    dialect against that plain form). ``tails`` (at the root only): pattern families by their
    first character, tried after every spelling under that character."""
    out: list[str] = []
    for token in sorted((t for t in node if t != _END), key=lambda t: (t is not None, t or "")):
        if token is None:
            # A spelling that opens with a bar (DSML's `｜DSML｜`) opens with a backslash run.
            # Tried from every position inside a long run of backslashes, it would rescan the
            # rest of the run each time; it can only match from the run's first backslash (a
            # match never ends in a backslash), so it starts only where no backslash precedes.
            head = (_NO_BACKSLASH_BEFORE + run) if tails is not None else run
        else:
            head = re.escape(token)
        rest = _branches(node[token], run)
        if tails is not None and token is not None:
            rest += tails.get(token, [])
        out.append(head + _group(rest))
    if _END in node:
        out.append("")
    return out


def _group(branches: list[str]) -> str:
    if len(branches) == 1:
        return branches[0]
    return "(?:" + "|".join(branches) + ")"


def _source(literals: Sequence[str], patterns: Sequence[str], run: str) -> str:
    """One expression for every spelling: the literals as a prefix tree, each pattern family
    hung under its first character when it opens with a plain one, else tried last."""
    root: _Node = {}
    for spelling in literals:
        node = root
        for token in _tokens(spelling):
            node = node.setdefault(token, {})
        node[_END] = {}
    tails: dict[str, list[str]] = {}
    loose: list[str] = []
    for pattern in patterns:
        source = _pattern_source(pattern, run)
        if _opens_plain(source):
            root.setdefault(source[0], {})
            tails.setdefault(source[0], []).append(f"(?:{source[1:]})")
        else:
            loose.append(f"(?:{source})")
    branches = _branches(root, run, tails)
    loose = [_NO_BACKSLASH_BEFORE + a if a.startswith(f"(?:{run}") else a for a in loose]
    return _group(branches + loose) if branches or loose else "(?!)"


def _compile(source: str) -> Any:
    # The stdlib engine runs this tree faster than `regex` (about 3x on runs of `<`); `regex`
    # only for syntax `re` lacks.
    try:
        return re.compile(source)
    except re.error:
        return regex.compile(source, regex.V0)


def _compile_free(source: str) -> Any:
    """The same expression in the `regex` engine, compiled on first use, for texts of
    ``_FREE_FROM`` characters or more: searched with ``concurrent=True`` it lets go of the GIL
    while it reads, where a stdlib search holds it for the whole stretch between two matches
    (a proxy escapes and judges large bodies on worker threads beside its event loop)."""
    return lazy_regex.compile(source, lazy_regex.V0)


def _overlap(a: str, b: str) -> bool:
    """True when a proper suffix of ``a`` is a prefix of ``b``."""
    return any(b.startswith(a[-k:]) for k in range(1, len(a)))


def _can_overlap(literals: Sequence[str], patterns: Sequence[str]) -> bool:
    for a in literals:
        if "<" in a[1:] or ">" in a[:-1]:
            return True
        if any(_overlap(a, b) for b in literals):
            return True
    # Patterns are token-shaped (`<...>`): they can only overlap a literal that carries `<` or
    # `>` inside, which the loop above already answered; anything else is checked here.
    return any(not (p.startswith("<") and p.endswith(">")) for p in patterns)


def _escape_match(s: str) -> str:
    if _has_bar(s):
        return s.replace("|", "\\|").replace("\uff5c", "\\\uff5c")
    return s[0] + "\\" + s[1:]


def _unescape_match(s: str) -> str:
    if _has_bar(s):
        return s.replace("\\|", "|").replace("\\\uff5c", "\uff5c")
    return s[0] + s[2:]


def _escape_positions(s: str) -> Iterable[int]:
    """Offsets (within a match) before which one backslash is inserted."""
    if _has_bar(s):
        return [i for i, ch in enumerate(s) if ch in _BARS]
    # A bar-less spelling: after the first character, i.e. before whatever follows its run.
    return [1 + _run_length(s, 1)]


def _unescape_positions(s: str) -> Iterable[int]:
    """Offsets (within a match) of the backslash to remove from each run."""
    if _has_bar(s):
        return [i - 1 for i, ch in enumerate(s) if ch in _BARS]
    return [1]


def _run_length(s: str, i: int) -> int:
    n = 0
    while i + n < len(s) and s[i + n] == "\\":
        n += 1
    return n


def _quick_chars(literals: Sequence[str], patterns: Sequence[str]) -> tuple[str, ...]:
    chars: set[str] = set()
    for s in literals:
        chars.update(bar for bar in _BARS if bar in s) if _has_bar(s) else chars.add(s[0])
    for p in patterns:
        if "\\|" in p:
            chars.add("|")
        elif "\uff5c" in p:
            chars.add("\uff5c")
        else:  # a bar-less pattern opens with a plain character (see `_pattern_source`)
            chars.add(p[0])
    return tuple(sorted(chars))


def _by_positions(
    text: str,
    finditer: Callable[[str], Iterable[Any]],
    positions_of: Callable[[str], Iterable[int]],
    *,
    insert: bool,
) -> tuple[str, int]:
    """Overlapping matches: ``finditer`` searches a zero-width lookahead whose group 1 is the
    spelling at that position (at most one per position); every escape position is bumped
    once.

    Matches come in order of their start and a match's positions lie at or after its start,
    so every position before a match's start is final: it is written out then (a block of
    text at a time), and only the positions of the matches still open are held. Memory: the
    output, not a set of every position."""
    blocks: list[str] = []
    ready: list[int] = []  # final positions, ascending, not yet written
    held: list[int] = []  # positions of open matches, ascending, no duplicates
    offsets: dict[str, tuple[int, ...]] = {}  # a dense text repeats a few spellings
    last = 0
    count = 0
    glue = "\\" if insert else ""
    step = 0 if insert else 1  # unescaping drops the backslash at each position

    def write() -> None:
        nonlocal last
        pieces = []
        for pos in ready:
            pieces.append(text[last:pos])
            last = pos + step
        blocks.append(glue.join(pieces) + glue)
        ready.clear()

    for m in finditer(text):
        count += 1
        start = m.start()
        if held and held[0] < start:
            k = bisect.bisect_left(held, start)
            ready += held[:k]
            del held[:k]
            if len(ready) >= _BLOCK:
                write()
        spelling = m.group(1)
        at = offsets.get(spelling)
        if at is None:
            at = tuple(positions_of(spelling))
            if len(offsets) < _SPELLINGS_KEPT:
                offsets[spelling] = at
        new = [start + o for o in at]
        if not held or new[0] > held[-1]:
            held += new
        else:
            held = sorted({*held, *new})
    if not count:
        return text, 0
    ready += held
    if ready:
        write()
    blocks.append(text[last:])
    return "".join(blocks), count


def _by_substitution(
    text: str, sub: Callable[[Callable[[Any], str], str], str], rewrite: Callable[[str], str]
) -> tuple[str, int]:
    """Matches that cannot overlap: one substitution pass (each distinct spelling rewritten
    once: a dense text repeats a few)."""
    count = 0
    done: dict[str, str] = {}

    def one(m: Any) -> str:
        nonlocal count
        count += 1
        found = m.group()
        out = done.get(found)
        if out is None:
            out = rewrite(found)
            if len(done) < _SPELLINGS_KEPT:
                done[found] = out
        return out

    out = sub(one, text)
    return (out, count) if count else (text, 0)


@dataclass(frozen=True, slots=True)
class Escaper:
    """The compiled escaping machinery of one dialect (see the module docstring)."""

    name: str
    find: Any  # compiled: reserved spellings with backslash runs of length >= 0
    find_escaped: Any  # the same with runs of length >= 1
    find_free: Any  # `find` in the `regex` engine (large texts, searched without the GIL)
    find_escaped_free: Any  # `find_escaped` likewise
    quick: tuple[str, ...]  # every match contains at least one of these characters
    overlapped: bool  # `find` and `find_escaped` are lookaheads, tried at every position

    def escape(self, text: str) -> tuple[str, int]:
        """``text`` escaped, and how many spellings were found (0: ``text`` itself)."""
        if not any(ch in text for ch in self.quick):
            return text, 0
        return self._rewrite(text, self.find, self.find_free, True)

    def unescape(self, text: str) -> tuple[str, int]:
        """Undo :meth:`escape`, and how many spellings were found."""
        # an escaped spelling holds a backslash and what its spelling holds of `quick`
        if "\\" not in text or not any(ch in text for ch in self.quick):
            return text, 0
        return self._rewrite(text, self.find_escaped, self.find_escaped_free, False)

    def _rewrite(self, text: str, pattern: Any, free: Any, escape: bool) -> tuple[str, int]:
        """Escape (or, ``escape`` false, unescape) what ``pattern`` finds in ``text``; a large
        text is searched with ``free``, its `regex` twin, without the GIL."""
        if len(text) >= _FREE_FROM:
            find = partial(free.finditer, concurrent=True)
            sub = partial(free.sub, concurrent=True)
        else:
            find, sub = pattern.finditer, pattern.sub
        if self.overlapped:
            positions = _escape_positions if escape else _unescape_positions
            return _by_positions(text, find, positions, insert=escape)
        return _by_substitution(text, sub, _escape_match if escape else _unescape_match)


@cache
def _escaper_for(dialect: Dialect) -> Escaper:
    patterns = list(dict.fromkeys((*dialect.reserved_patterns, *dialect.escape_patterns)))
    compiled = [regex.compile(p) for p in patterns]
    # Literals a pattern already covers add nothing but branches.
    literals = sorted(
        {s for s in dialect.reserved if not any(c.fullmatch(s) for c in compiled)},
        key=lambda s: (-len(s), s),
    )
    overlapped = _can_overlap(literals, patterns)

    def source(run: str) -> str:
        tree = _source(literals, patterns, run)
        return f"(?=({tree}))" if overlapped else tree

    return Escaper(
        name=dialect.name,
        find=_compile(source(_RUN0)),
        find_escaped=_compile(source(_RUN1)),
        find_free=_compile_free(source(_RUN0)),
        find_escaped_free=_compile_free(source(_RUN1)),
        quick=_quick_chars(literals, patterns),
        overlapped=overlapped,
    )


def escaper_for(dialect: str | Dialect) -> Escaper:
    """The compiled escaper of ``dialect`` (cached per dialect), for callers that escape many
    strings of one request, such as the wire engine."""
    return _escaper_for(get_dialect(dialect))
