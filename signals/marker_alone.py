"""A: the routing marker opens the text, or is all of it.

``to=functions.get_weather`` as the whole answer, or followed only by blanks, invisible
characters or the call's body (``to=functions.search {"q": ...}``), is a stripped call header:
prose and docs that quote a marker put words before it. The co-signal fires when only blanks
(and characters the normalised view deletes) precede the marker and the marker starts within
the first :data:`WINDOW` characters of the text; the cut is the marker's start.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers

from ._common import MARKER_SPAN, MODEL_OUTPUT, hit_from_norm, neighbours

#: the marker must start within this many characters of the text's start
WINDOW = 64


class MarkerAlone:
    code = "A"
    name = "marker alone"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = WINDOW + MARKER_SPAN
    reach = (WINDOW, 0)
    order = 95
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if ctx.offset != 0:
            return
        norm = text.norm
        for index, start, end, _prev, _next in neighbours(text, ctx):
            if text.to_original(start) <= WINDOW and not norm[:start].strip():
                yield hit_from_norm(text, self.code, start, end, "marker opens the text", index)
            break  # only the first marker can open the text
