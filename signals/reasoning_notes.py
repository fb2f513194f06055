"""D: reasoning notes anywhere in the answer, scored by density (the last :data:`SPAN`
characters).

The reasoning voice V reads only the opening; reasoning also leaks in the middle or at the end
of an answer: a derailed summary whose bullets turn into notes to self ("Need correct
multiline."), a sentence that corrects itself ("... twenty minutes? No. Ensure user sees
normal."), a block of drafting instructions ("Need final concise. Let's craft. Wait, must
ensure."). D scores every cue of the reasoning voice in the text (:mod:`._voice`: kinds,
weights, the densest cluster, the opening bonus, the threshold of the context) and fires on a
decisive cluster that holds a self-correction, a terse note or a self-check ("Did I miss the
mock? Yes, one more there."), the kinds whose spelling (``? No``, ``? no``, ``Need ``,
``Did I ``, ``Have I ``) it publishes as its trigger: a text without them costs a prefilter one
search, never a full detection.

Quoted cues (code, a double-quoted phrase, a ``>`` line) do not count. The hit starts at the
cluster's first self-correction or note and ends at the end of the paragraph of its last cue;
its detail lists the score, the threshold and its context, and every cue. It depends on the end
of the text: a stream decides it at the end and holds back from the first ``Need ``, ``? No``,
``Did I `` or ``Have I `` on (ordinary answers rarely hold them; an answer's own "? Yes" is
common, so the self-check is held from its question's first words instead).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

from ._common import hit_from_norm
from ._voice import judge

#: characters at the end of the text that are read
SPAN = 4096
#: the kinds whose spellings are the trigger; a decisive cluster holds one
_KEYS = frozenset({"self-correction", "terse note", "self-check"})
_LITERALS = ("? No", "? no", "Need ", "Did I ", "Have I ")
#: weak kinds read only in an answer's opening (signal L): anywhere in a text, "I need to
#: submit by Friday" and "Now write the summary" are a person's own plans as often as a model's
#: (and an interface header counts only as the text's first line)
_OPENING_ONLY = frozenset(
    {"first-person modal", "reply step", "reasoning header, interface", "the answer a note"}
)
_TRIGGERS = Triggers(
    literals=_LITERALS,
    scope="ending",
    tail=r"(?:\? [Nn]o|Need |Did I |Have I )[\s\S]*",
    tail_start=r"\? [Nn]o|Need |Did I |Have I ",
    hold_words=("Need", "? No", "? no", "Did I", "Have I"),
)


class ReasoningNotes:
    code = "D"
    name = "reasoning notes"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TEXT})
    max_span = SPAN
    reach = (0, 0)
    order = 28
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if not ctx.final:
            return
        norm = text.norm
        lo = text.to_norm(max(0, len(text.original) - SPAN))
        window = norm[lo:]
        if not any(lit in window for lit in _LITERALS):
            return
        found = judge(window, ctx, base=ctx.offset + lo, require=_KEYS, ignore=_OPENING_ONLY)
        if found is None or not found.decisive:
            return
        # the hit starts at the first key a stream holds back from (its spelling is one of the
        # literals: a lowercase "need verify" counts for the score, but a stream has let it
        # through by the time the cluster is decided)
        held = [
            c.start for c in found.cues if c.kind in _KEYS and window.startswith(_LITERALS, c.start)
        ]
        if not held:
            return
        start = lo + held[0]
        last = lo + found.cues[-1].end
        paragraph = norm.find("\n\n", last)
        end = len(norm.rstrip()) if paragraph < 0 else paragraph
        yield hit_from_norm(
            text, self.code, start, max(end, last), found.explain(window, ctx.offset + lo)
        )
