"""H: an exact reserved control spelling of the dialect, or a lookalike of one.

Matching runs on the normalised view, so fullwidth or other bar lookalikes, zero-width characters
and homoglyphs inside a spelling still match; bar-delimited names also match in any case and with
a stray space inside the bars (``<| CHANNEL |>``). The dialect's reserved patterns cover families
such as ``<|reserved_N|>`` and header forms (``<|assistant to=functions.bash|>``); its output
patterns (``chatml``'s special-token shape ``<|NAME|>``) are read on model output only, as they
are never escaped in input. A spelling
that holds a double quote is also matched as JSON escapes it inside a string (Gemma's string
delimiter ``<|"|>`` reads ``<|\\"|>`` in a tool argument's JSON text).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from functools import cache
from operator import methodcaller
from typing import Any, Literal

import regex

from guard._regex_source import first_chars, literal_head, top_level_alternatives
from guard._windows import finditer as windowed
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

_BARS = ("|", "\uff5c")
#: untrusted input: H's findings there are what escaping removes, so the output patterns (never
#: escaped) are not read
_INPUT = frozenset((Surface.USER, Surface.TOOL_RESULT))


def _normalise_spelling(spelling: str) -> str:
    return TextView(spelling).norm


def _literal(spelling: str) -> str:
    norm = _normalise_spelling(spelling)
    if norm.startswith("<|") and norm.endswith("|>") and len(norm) > 4:
        name = regex.escape(norm[2:-2])
        return rf"<\| ?(?i:{name}) ?\|>"
    return str(regex.escape(norm))


@cache
def _quick(dialect: Dialect) -> tuple[str, ...]:
    """A character of each trigger literal (the bar where there is one)."""
    return tuple(sorted({"|" if "|" in lit else lit[0] for lit in _triggers(dialect).literals}))


#: a bar-name spelling as `_literal` writes it, its name an escaped literal
_BAR_FORM = regex.compile(r"<\\\| \?\(\?i:(?P<name>(?:\\.|[^\\()|\[\]{}.*+?^$ ])+)\) \?\\\|>")


def _case_group(names: list[str]) -> str:
    return f"(?i:{'|'.join(names)})"


_ESCAPED = re.compile(r"\\(.)", re.DOTALL)


def _ascii_trie(names: list[str]) -> str:
    """What ``(?i:A|B|...)`` matches in ASCII text, for the standard engine: the names (escaped
    literals, longest first) as a trie of case classes (``[sS][tT]...``), so a position is
    tried against the names sharing its first character rather than each name in turn. Names
    with a non-ASCII character keep the case-insensitive group."""
    plain = [_ESCAPED.sub(r"\1", name) for name in names]
    if not all(name.isascii() for name in plain):
        return _case_group(names)
    return _trie(plain)


def _trie(words: list[str]) -> str:
    if "" in words:
        # a word ends here: the longer ones are tried first, as longest-first order does
        rest = [word for word in words if word]
        return f"(?:{_trie(rest)})?" if rest else ""
    heads: dict[str, list[str]] = {}
    for word in words:
        heads.setdefault(word[0].lower(), []).append(word[1:])
    branches = [
        (f"[{head}{head.upper()}]" if head.isalpha() else re.escape(head)) + _trie(tails)
        for head, tails in heads.items()
    ]
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _alternation(patterns: tuple[str, ...], group: Callable[[list[str]], str] = _case_group) -> str:
    """One pattern matching what ``A|B|...`` matches, shaped for speed: consecutive bar-name
    spellings (``<\\| ?(?i:NAME) ?\\|>``) share one group of names (written by ``group``), and
    a ``<|`` every alternative starts with is written once. Order is kept, so the leftmost-first
    choice between alternatives is the same (a name never starts or ends with a space, so the
    optional spaces around it are decided by the text alone). Alternatives that cannot start
    where a ``<|`` stands (``<tool_call>``, ``[TOOL_CALLS]``) go after the ``<|`` group: no text
    position is a choice between the two, so the order between them changes no match."""
    bars = tuple(p for p in patterns if p.startswith("<\\|"))
    others = [p for p in patterns if not p.startswith("<\\|")]
    if others and (not bars or all(map(_never_at_bar, others))):
        grouped = [_alternation(bars, group)] if bars else []
        return "|".join([*grouped, _by_first_character(others)])
    parts: list[str] = []
    names: list[str] = []
    for pattern in patterns:
        bar = _BAR_FORM.fullmatch(pattern)
        name = bar.group("name") if bar else ""
        if bar and not name.startswith("\\ ") and not name.endswith("\\ "):
            names.append(name)
            continue
        if names:
            parts.append(rf"<\| ?{group(names)} ?\|>")
            names = []
        parts.append(pattern)
    if names:
        parts.append(rf"<\| ?{group(names)} ?\|>")
    if all(p.startswith("<\\|") for p in parts):
        rest = "|".join(f"(?:{p[3:]})" for p in parts)
        return "<\\|" + _first_char_test(rest) + "(?:" + rest + ")"
    return "|".join(f"(?:{p})" for p in parts)


def _by_first_character(patterns: list[str]) -> str:
    """``A|B|...`` with the alternatives that open with the same plain character written after
    it once, each group behind a lookahead for what can follow (as for ``<|``). Alternatives
    opening with different characters never compete for a position, and each group keeps its
    order, so every match is the same. Kept as it is when one alternative opens otherwise."""
    groups: dict[str, list[str]] = {}
    for pattern in patterns:
        head = _opening_character(pattern)
        if head is None:
            return "|".join(f"(?:{p})" for p in patterns)
        char, rest = head
        groups.setdefault(char, []).append(rest)
    out = []
    for char, rests in groups.items():
        rest = "|".join(f"(?:{r})" for r in rests)
        out.append(re.escape(char) + _first_char_test(rest) + f"(?:{rest})")
    return "|".join(out)


def _opening_character(pattern: str) -> tuple[str, str] | None:
    """(the plain character ``pattern`` opens with, the pattern after it), or ``None``."""
    if len(top_level_alternatives(pattern)) > 1:
        return None
    for size in (1, 2):
        char = pattern[size - 1]
        if (
            pattern[:size] in (char, "\\" + char)
            and pattern[size:]
            and first_chars(pattern[:size]) == (frozenset(char), False)
        ):
            return char, pattern[size:]
    return None


def _never_at_bar(pattern: str) -> bool:
    """Whether no match of ``pattern`` can start with ``<|`` (as the parser can tell)."""
    found = first_chars(pattern)
    if found is None:
        return False
    if "<" not in found[0]:
        return True
    if not pattern.startswith("<") or len(top_level_alternatives(pattern)) > 1:
        return False
    after = first_chars(pattern[1:])
    return after is not None and "|" not in after[0]


def _first_char_test(rest: str) -> str:
    """A lookahead for the characters a spelling can go on with after its ``<|``: text dense
    with ``<|`` (a run of it) then fails each position at one class test, not at each of the
    dialect's alternatives in turn (every dialect's spellings at once: 2 µs a character)."""
    found = first_chars(rest)
    if found is None:
        return ""
    chars, folded = found
    cls = "[" + "".join(re.escape(ch) for ch in sorted(chars)) + "]"
    return f"(?=(?i:{cls}))" if folded else f"(?={cls})"


def harmony_spelling(spelling: str) -> bool:
    """Whether ``spelling`` (an H hit's evidence) is one Harmony reserves: under ``all`` those
    keep Harmony's own rules where the other dialects have exemptions (I in prose, P in tool
    arguments)."""
    from guard.dialects import get_dialect

    return _compiled(get_dialect("harmony")).fullmatch(TextView(spelling).norm) is not None


def shape_only(dialect: Dialect, spelling: str) -> bool:
    """Whether ``spelling`` (an H hit's evidence) matched only one of the dialect's output
    patterns (a token of a family the record does not list) and holds no spelling the record
    reserves: P lets such a token pass where a query names it (see
    ``signals/argument_token.py``), never the dialect's own."""
    if not dialect.output_patterns:
        return False
    # (a shape may hold a reserved spelling without being one: ``</｜DSML｜`` holds ``｜DSML｜``)
    return _compiled(dialect, False).search(TextView(spelling).norm) is None


#: a match's span, from either engine (a long text may be searched in the other one)
_SPAN = methodcaller("span")


@cache
def _ascii_twin(dialect: Dialect, output: bool = True) -> Any:
    """H's pattern for ASCII text, in the standard ``re`` engine with its names as a trie of
    case classes: the same spans, found faster (the engines differ only on non-ASCII case folds
    and digits). The ``regex`` pattern itself when ``re`` cannot compile the dialect's patterns."""
    try:
        return re.compile(_alternation(_triggers(dialect, output).hold_patterns, _ascii_trie))
    except re.error:
        return _compiled(dialect, output)


@cache
def _compiled(dialect: Dialect, output: bool = True) -> regex.Pattern[str]:
    """H's pattern: the hold patterns are exactly the spellings this signal matches, longest
    first; ``output``: with the dialect's output patterns (model output), or without them
    (untrusted input, whose findings must be what escaping removes)."""
    return regex.compile(_alternation(_triggers(dialect, output).hold_patterns))


def _pattern_literals(pattern: str) -> tuple[str, ...]:
    """Literals one of which every match of a dialect pattern contains: ``<|`` for a bar form
    (patterns spell their bars as ``\\|`` or ``｜``, see :class:`~guard.models.Dialect`, which
    the normalised view folds), else the pattern's literal head (Gemma's ``<unused``), else the
    characters a match can open with, else the bar."""
    if pattern.startswith(("<\\|", "<\uff5c")):
        return ("<|",)
    head = _normalise_spelling(literal_head(pattern))
    if head:
        return (head,)
    found = first_chars(pattern)
    if found is None:
        return ("|",)
    chars, folded = found
    if folded:
        chars = frozenset(c for ch in chars for c in (ch.lower(), ch.upper()))
    return tuple(sorted(_normalise_spelling(ch) for ch in chars))


@cache
def _triggers(dialect: Dialect, output: bool = True) -> Triggers:
    literals: set[str] = set()
    holds: list[str] = []
    # a spelling with a quote also as JSON writes it inside a string (Gemma's ``<|"|>`` is
    # ``<|\"|>`` in a tool argument's JSON text)
    quoted = {s.replace('"', '\\"') for s in dialect.reserved if '"' in s}
    for spelling in sorted(set(dialect.reserved) | quoted, key=lambda s: (-len(s), s)):
        norm = _normalise_spelling(spelling)
        literals.add("<|" if norm.startswith("<|") else norm)
        holds.append(_literal(spelling))
    # the output patterns last: a shape gives way to the spellings it also matches
    shapes = dialect.output_patterns if output else ()
    for pattern in (*dialect.reserved_patterns, *shapes):
        literals.update(_pattern_literals(pattern))
        holds.append(pattern.replace("\uff5c", r"\|"))
    return Triggers(literals=tuple(sorted(literals)), hold_patterns=tuple(holds))


class ControlToken:
    code = "H"
    name = "control token"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset(Surface)
    max_span = 96
    reach = (0, 0)
    order = 10
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _triggers(dialect)

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        # one character per literal: a one-character `in` test is a memchr, the fastest scan
        if not any(ch in norm for ch in _quick(ctx.dialect)):
            return ()
        signals = (self.code,)
        output = ctx.surface not in _INPUT
        if norm is text.original:
            # the usual case (ASCII text): offsets and spellings are the original's
            return self._scan_same(ctx.dialect, norm, signals, output)
        return self._scan_mapped(_compiled(ctx.dialect, output), text, signals)

    @staticmethod
    def _scan_same(
        dialect: Dialect, norm: str, signals: tuple[str, ...], output: bool
    ) -> list[Hit]:
        # a dense text repeats a few spellings: one evidence and one detail string per distinct
        # spelling keep each hit's memory to the hit itself (a stream may park thousands)
        shared: dict[str, tuple[str, str]] = {}
        hits: list[Hit] = []
        append = hits.append
        found = _ascii_twin(dialect, output) if norm.isascii() else _compiled(dialect, output)
        for start, end in map(_SPAN, windowed(found, norm)):
            spelled = norm[start:end]
            strings = shared.get(spelled)
            if strings is None:
                strings = shared[spelled] = (spelled, f"control token {spelled!r}")
            append(Hit(signals, start, end, strings[0], strings[1]))
        return hits

    @staticmethod
    def _scan_mapped(
        pattern: regex.Pattern[str], text: TextView, signals: tuple[str, ...]
    ) -> Iterator[Hit]:
        seen: dict[tuple[str, str], tuple[str, str]] = {}
        norm = text.norm
        original = text.original
        for m in pattern.finditer(norm):
            start, end = text.span(m.start(), m.end())
            spelled = m.group()
            key = (spelled, original[start:end])
            shared = seen.get(key)
            if shared is None:
                evidence = key[1]
                kind = "control token" if evidence == spelled else "lookalike of control token"
                shared = seen[key] = (evidence, f"{kind} {spelled!r}")
            yield Hit(signals, start, end, shared[0], shared[1])
