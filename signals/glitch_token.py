"""G: a near-untrained "glitch" word next to the routing marker.

The reference agent's corpus shows these words right before a collapse into the plain-text
routing header (``changedFiles``, ``RTLU``, ``Jsii``, ``Japgolly``, ...). Within 16 characters of
the marker, never past a neighbouring marker.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers
from guard.models import lazy_re as re

from ._common import MARKER_SPAN, MODEL_OUTPUT, hit_from_norm, neighbours

WINDOW = 16
GLITCH_WORDS = (
    "changedFiles",
    "RTLU",
    "Jsii",
    "Jsii_commentary",
    "Japgolly",
    "tRTLUfunctions",
    "Joshi_commentary",
    "Japgolly_commentary",
    "jsii_commentary",
)
_LONGEST = max(map(len, GLITCH_WORDS))
_GLITCH = re.compile(
    "|".join(re.escape(w) for w in sorted(GLITCH_WORDS, key=lambda w: (-len(w), w)))
)


class GlitchToken:
    code = "G"
    name = "glitch token"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = 2 * WINDOW + MARKER_SPAN
    reach = (WINDOW + _LONGEST, WINDOW + _LONGEST)
    order = 60
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        for index, start, end, prev_end, next_start in neighbours(text, ctx):
            # A word counts when any part of it lies within WINDOW characters of the marker.
            lo = max(start - WINDOW - _LONGEST, prev_end)
            hi = min(end + WINDOW + _LONGEST, next_start)
            for m in _GLITCH.finditer(norm, lo, hi):
                if m.end() > start - WINDOW and m.start() < end + WINDOW:
                    yield hit_from_norm(
                        text, self.code, m.start(), m.end(), f"glitch word {m.group()!r}", index
                    )
                    break
