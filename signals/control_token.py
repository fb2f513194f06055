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

from guard.models import Dialect, Hit, ScanContext, Surface, TextView

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
def _compiled(dialect: Dialect) -> tuple[regex.Pattern[str], tuple[str, ...]]:
    literals = sorted(set(dialect.reserved), key=lambda s: (-len(s), s))
    alternatives = [_literal(s) for s in literals]
    alternatives += [p.replace("\uff5c", r"\|") for p in dialect.reserved_patterns]
    quick: set[str] = set()
    for s in literals:
        norm = _normalise_spelling(s)
        quick.add("|" if "|" in norm else norm[0])
    if dialect.reserved_patterns:
        quick.add("|")
    return regex.compile("|".join(f"(?:{a})" for a in alternatives)), tuple(sorted(quick))


class ControlToken:
    code = "H"
    name = "control token"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset(Surface)
    max_span = 96

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        pattern, quick = _compiled(ctx.dialect)
        norm = text.norm
        if not any(ch in norm for ch in quick):
            return
        for m in pattern.finditer(norm):
            start, end = text.span(m.start(), m.end())
            evidence = text.original[start:end]
            kind = "control token" if evidence == m.group() else "lookalike of control token"
            yield Hit(
                signals=(self.code,),
                start=start,
                end=end,
                evidence=evidence,
                detail=f"{kind} {m.group()!r}",
            )
