"""Q: the text ends in the opening of a control spelling, cut short.

A server that stops generation inside a token, or a tool parser that took the complete calls
but not the one the model had just begun, leaves the first part of a spelling at the very end
of the answer: ``I'll look up the invoice now.<|tool_call`` (Gemma 4's call opener without its
half-bar). Bar forms count with at least :data:`LEAST_NAME` characters of the name after the
bar (``<|tool``, not ``<|t``): a shorter opening is what prose and code end with too. A
dialect's call opener in angle brackets (``<function=``, ``<tool_call>``) counts with at least
:data:`LEAST_ANGLE` characters of its name, at the text's start or right after the end of a
sentence or a line (``fix.<function``, ``Done.\n<tool_call``): ``the tag <tool_call`` names it,
and code ends in ``std::vector<function`` or ``</span><functi``.
In the reasoning part (the ``thinking`` surface) only, the dialect's reasoning closer in angle
brackets counts with at least :data:`LEAST_CLOSER` characters of its name (``</th`` for
``</think>``), glued to a sentence's end or a line's or after a sentence's end and blanks
(``keep it light. </th``), or glued to a word with at least three of them (``확인하자</thi``;
``cell</th`` is HTML's): the parser that splits the reasoning from the answer missed a closer
the stream delivered in pieces. In the answer that is W's and prose's ground.
This depends on the end of the text, so a stream decides it at the end (it holds such a tail
back already, as a prefix of a control token).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

from ._common import hit_from_norm

#: characters of a spelling's name (after ``<|``) the cut opening must keep
LEAST_NAME = 4
#: characters of an angle-bracket call opener's name (after ``<``) the cut opening must keep
LEAST_ANGLE = 6
#: characters of a reasoning closer's name (after ``</``) the cut closer must keep
LEAST_CLOSER = 2
_BAR = "<|"
#: what a cut call opener is glued to: the end of a sentence or a line (``fix.<function``), not
#: code (``std::vector<function``, ``<span>ok</span><functi``, an inline code span)
_GLUE = frozenset(".!?:;)\n\u3002\uff01\uff1f\uff1a")


def _angle_openers(dialect: Dialect) -> tuple[str, ...]:
    """The dialect's call openers in angle brackets, no bar (normalised view)."""
    found = (TextView(s).norm for s in dialect.call_open)
    return tuple(
        sorted({n for n in found if n.startswith("<") and not n.startswith(_BAR) and len(n) > 2})
    )


def _closers(dialect: Dialect) -> tuple[str, ...]:
    """The dialect's reasoning closers in angle brackets, no bar (``</think>``; normalised)."""
    found = (TextView(close).norm for _, close in dialect.thinking)
    return tuple(sorted({n for n in found if n.startswith("</") and n.endswith(">")}))


@cache
def _cut_closers(dialect: Dialect) -> frozenset[str]:
    """The proper prefixes of the dialect's reasoning closers that keep at least
    :data:`LEAST_CLOSER` name characters (``</th``, ``</thi``, ..., ``</think``)."""
    return frozenset(n[:k] for n in _closers(dialect) for k in range(2 + LEAST_CLOSER, len(n)))


#: a sentence's end (a closing bracket, quote or emphasis after it allowed) then blanks, right
#: before a cut reasoning closer
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f][)\]\"'*\u201d]{0,3}[ \t]+\Z")


#: an HTML table's tags: reasoning that writes a table and is cut after ``</th`` ends in
#: HTML's closer, not the reasoning's
_TABLE_TAG = re.compile(r"<(?:th|tr|td|table|thead)[\s>]", re.IGNORECASE)
#: the same, named in the sentence right before the cut tag (``Close the cell. </th``)
_TABLE_WORDS = re.compile(
    r"\b(?:closing\s+tags?|cells?)\b[^\n]{0,60}(?:\n[ \t]*)?\Z", re.IGNORECASE
)


def _html_cell(norm: str, at: int, tail: str) -> bool:
    """Whether a cut ``</th`` at ``at`` may close an HTML table cell: the reasoning writes a
    table's tags before it, or names a cell or closing tags right before it (a longer cut,
    ``</thin``, is no HTML tag)."""
    return tail == "</th" and (
        _TABLE_TAG.search(norm, 0, at) is not None
        or _TABLE_WORDS.search(norm, max(0, at - 80), at) is not None
    )


@cache
def _triggers(dialect: Dialect) -> Triggers:
    heads = tuple(sorted({n[: 1 + LEAST_ANGLE] for n in _angle_openers(dialect)}))
    heads += tuple(sorted({n[: 2 + LEAST_CLOSER] for n in _closers(dialect)}))
    if not heads:  # bar forms only: a stream tries only the places a bar opens
        return Triggers(
            literals=(_BAR,),
            scope="ending",
            tail=rf"<\|[^\s|>]{{{LEAST_NAME},64}}",
            tail_start=r"<\|",
        )
    return Triggers(
        literals=(_BAR, *heads),
        scope="ending",
        tail=(
            rf"<\|[^\s|>]{{{LEAST_NAME},64}}|<[^\s|<>]{{{LEAST_ANGLE},64}}"
            rf"|</[^\s|<>]{{{LEAST_CLOSER},64}}"
        ),
        tail_start=r"<",
    )


@cache
def _openings(dialect: Dialect) -> tuple[frozenset[str], frozenset[str], int]:
    """The proper prefixes of the dialect's bar spellings that keep at least
    :data:`LEAST_NAME` name characters, those of its angle call openers that keep at least
    :data:`LEAST_ANGLE` (normalised view), and the longest one's length."""
    bars: set[str] = set()
    for spelling in dialect.reserved:
        norm = TextView(spelling).norm
        if norm.startswith(_BAR):
            bars.update(norm[:k] for k in range(len(_BAR) + LEAST_NAME, len(norm)))
    angles: set[str] = set()
    for norm in _angle_openers(dialect):
        angles.update(norm[:k] for k in range(1 + LEAST_ANGLE, len(norm)))
    # a complete spelling at the end is H's finding, not a cut one
    whole = {TextView(s).norm for s in dialect.reserved}
    bars -= whole
    angles -= whole
    return frozenset(bars), frozenset(angles), max(map(len, bars | angles), default=0)


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
        return _triggers(dialect)

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if not ctx.final:
            return
        norm = text.norm
        end = len(norm)  # the very end: a blank after it is more text (an event's string)
        at = norm.rfind("<", max(0, end - self.max_span), end)
        if at < 0:
            return
        bars, angles, longest = _openings(ctx.dialect)
        tail = norm[at:end]
        if end - at > longest and (ctx.surface is not Surface.THINKING or end - at > 16):
            return
        if tail in bars or (tail in angles and (at == 0 or norm[at - 1] in _GLUE)):
            kind = "a control token" if tail in bars else "a tool call"
            detail = f"text ends in {tail!r}, the opening of {kind}"
            yield hit_from_norm(text, self.code, at, end, detail)
        elif (
            ctx.surface is Surface.THINKING
            and tail in _cut_closers(ctx.dialect)
            and (
                at == 0
                or norm[at - 1] in _GLUE
                or _SENTENCE_END.search(norm, max(0, at - 16), at) is not None
                # glued to a word, with more of the name than an HTML tag has (``</thi``): the
                # reasoning's last word runs into its cut closer (``날짜부터 확인하자</thi``)
                or (len(tail) > len("</th") and norm[at - 1].isalnum())
            )
            and not _html_cell(norm, at, tail)
        ):
            detail = f"reasoning ends in {tail!r}, the opening of its closer"
            yield hit_from_norm(text, self.code, at, end, detail)
