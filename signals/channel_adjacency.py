"""C: a channel or role word directly before *this* routing marker.

``analysis to=functions.edit``, ``assistant<|channel|>commentary to=functions.f``,
``analysisto=functions.edit``: the word sits right before the marker (only whitespace between),
within 64 characters and never past the previous marker, so one marker's channel word does not
lend itself to the next (the reference detector's window bleed). Homoglyphs are folded by the
normalised view, so a Cyrillic ``аnalysis`` counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers

from ._common import MARKER_SPAN, MODEL_OUTPUT, hit_from_norm, neighbours

WINDOW = 64
_WORD = re.compile(
    r"(?<![A-Za-z])(?i:analysis|commentary|final|assistant|user|system|developer|tool)"
    r"[ \t\r\n]*\Z"
)


class ChannelAdjacency:
    code = "C"
    name = "channel adjacency"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = WINDOW + MARKER_SPAN
    reach = (WINDOW, 0)
    order = 50
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        for index, start, _end, prev_end, _next in neighbours(text, ctx):
            lo = max(start - WINDOW, prev_end)
            m = _WORD.search(norm, lo, start)
            if m:
                word_end = m.start() + len(m.group().rstrip())
                yield hit_from_norm(
                    text, self.code, m.start(), word_end, "channel word before marker", index
                )
