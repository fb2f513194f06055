"""H: an exact reserved control spelling of the dialect, or a lookalike of one.

Matching runs on the normalised view, so fullwidth or other bar lookalikes, zero-width characters
and homoglyphs inside a spelling still match; bar-delimited names also match in any case and with
a stray space inside the bars (``<| CHANNEL |>``). The dialect's reserved patterns cover families
such as ``<|reserved_N|>`` and header forms (``<|assistant to=functions.bash|>``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Literal

import regex

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

_BARS = ("|", "\uff5c")


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


@cache
def _compiled(dialect: Dialect) -> regex.Pattern[str]:
    # the hold patterns are exactly the spellings this signal matches, longest first
    return regex.compile("|".join(f"(?:{a})" for a in _triggers(dialect).hold_patterns))


def _pattern_literal(pattern: str) -> str:
    """A literal every match of a dialect pattern contains: patterns spell their bars as
    ``\\|`` or ``｜`` (see :class:`~guard.models.Dialect`), which the normalised view folds."""
    return "<|" if pattern.startswith(("<\\|", "<\uff5c")) else "|"


@cache
def _triggers(dialect: Dialect) -> Triggers:
    literals: set[str] = set()
    holds: list[str] = []
    for spelling in sorted(set(dialect.reserved), key=lambda s: (-len(s), s)):
        norm = _normalise_spelling(spelling)
        literals.add("<|" if norm.startswith("<|") else norm)
        holds.append(_literal(spelling))
    for pattern in dialect.reserved_patterns:
        literals.add(_pattern_literal(pattern))
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
            return
        pattern = _compiled(ctx.dialect)
        signals = (self.code,)
        # a dense text repeats a few spellings: one evidence and detail string per distinct
        # spelling keeps each hit's memory to the hit itself
        seen: dict[tuple[str, str], tuple[str, str]] = {}
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
