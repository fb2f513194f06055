"""M: a routing marker, ``to=`` followed by a tool namespace.

Matches ``functions.NAME``, ``browser.*``, ``python``, ``multi_tool_use.*`` and ``container.*``
on the normalised view (so zero-width characters and homoglyphs inside do not hide it), with an
optional space after ``=`` and no word boundary before ``to=`` (a model glues letters to it:
``analysisto=functions.edit``). A marker alone is not a leak: prose and docs quote it. It is the
anchor that the co-signals C, G, S, B, R and T qualify.
"""

from __future__ import annotations

from collections.abc import Iterable
from operator import methodcaller
from typing import Literal

from guard._windows import finditer as windowed
from guard.models import Dialect, Hit, ScanContext, TextView, Triggers
from guard.models import lazy_re as re

from ._common import MODEL_OUTPUT, hit_from_norm

_AFTER_TO = (
    r"[ \t]?(?:functions\.[^\W\d][\w-]*|browser\.\w+|python(?![\w.])"
    r"|multi_tool_use\.\w+|container\.\w+)"
)
#: the marker as written
_MARKER = re.compile("to=" + _AFTER_TO)
#: the same marker found from its ``=``: the regex engine scans for a one-character literal
#: prefix far faster than for ``to=`` (two common letters), and the ``to`` is checked behind.
#: A match starts two characters early, and one may start inside the match before it (``goto``
#: ending a name); :func:`marker_spans` drops those, so the spans are exactly ``_MARKER``'s
_FROM_EQUALS = re.compile("=(?<=to=)" + _AFTER_TO)


_span = methodcaller("span")  # a long text may be searched in the `regex` engine


def marker_spans(norm: str) -> list[tuple[int, int]]:
    """The spans of ``_MARKER.finditer(norm)``, found from each ``=``. No match holds an ``=``
    but its own, so one that starts inside the match before it (dropped here) never hides one
    that ``_MARKER`` finds."""
    spans = []
    last = 0
    for start, end in map(_span, windowed(_FROM_EQUALS, norm)):
        if start - 2 >= last:
            spans.append((start - 2, end))
            last = end
    return spans


#: Tool namespaces a routing marker may name.
NAMESPACES = ("functions.", "browser.", "python", "multi_tool_use.", "container.")

_TRIGGERS = Triggers(
    literals=("to=",),
    hold_words=tuple(f"to={sp}{ns}" for sp in ("", " ") for ns in NAMESPACES),
)


class RoutingMarker:
    code = "M"
    name = "routing marker"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = MODEL_OUTPUT
    max_span = 96
    reach = (0, 0)
    order = 30
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        if "to=" not in norm:
            return []
        if norm is text.original:  # ASCII text: offsets and evidence are the view's own
            signals = (self.code,)
            return [Hit(signals, s, e, norm[s:e], "routing marker") for s, e in marker_spans(norm)]
        return [
            hit_from_norm(text, self.code, s, e, "routing marker") for s, e in marker_spans(norm)
        ]
