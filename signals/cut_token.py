"""Q: the text ends in the opening of a control spelling, cut short.

A server that stops generation inside a token, or a tool parser that took the complete calls
but not the one the model had just begun, leaves the first part of a spelling at the very end
of the answer: ``I'll look up the invoice now.<|tool_call`` (Gemma 4's call opener without its
half-bar). Only bar forms count, and only with at least :data:`LEAST_NAME` characters of the
name after the bar (``<|tool``, not ``<|t``): a shorter opening, or one without a bar, is what
prose and code end with too. This depends on the end of the text, so a stream decides it at the
end (it holds such a tail back already, as a prefix of a control token).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

from ._common import hit_from_norm

#: characters of a spelling's name (after ``<|``) the cut opening must keep
LEAST_NAME = 4
_BAR = "<|"

_TRIGGERS = Triggers(
    literals=(_BAR,),
    scope="ending",
    tail=rf"<\|[^\s|>]{{{LEAST_NAME},64}}",
    tail_start=r"<\|",
)


@cache
def _openings(dialect: Dialect) -> tuple[frozenset[str], int]:
    """The proper prefixes of the dialect's bar spellings that keep at least
    :data:`LEAST_NAME` name characters (normalised view), and the longest one's length."""
    found: set[str] = set()
    for spelling in dialect.reserved:
        norm = TextView(spelling).norm
        if norm.startswith(_BAR):
            found.update(norm[:k] for k in range(len(_BAR) + LEAST_NAME, len(norm)))
    # a complete spelling at the end is H's finding, not a cut one
    found.difference_update(TextView(s).norm for s in dialect.reserved)
    return frozenset(found), max(map(len, found), default=0)


class CutToken:
    code = "Q"
    name = "control token cut short"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT, Surface.THINKING})
    max_span = 64
    reach = (0, 0)
    order = 12
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if not ctx.final:
            return
        norm = text.norm
        end = len(norm)  # the very end: a blank after it is more text (an event's string)
        bar = norm.rfind(_BAR, max(0, end - self.max_span), end)
        if bar < 0:
            return
        openings, longest = _openings(ctx.dialect)
        if end - bar <= longest and norm[bar:end] in openings:
            detail = f"text ends in {norm[bar:end]!r}, the opening of a control token"
            yield hit_from_norm(text, self.code, bar, end, detail)
