"""M: a routing marker, ``to=`` followed by a tool namespace.

Matches ``functions.NAME``, ``browser.*``, ``python``, ``multi_tool_use.*`` and ``container.*``
on the normalised view (so zero-width characters and homoglyphs inside do not hide it), with an
optional space after ``=`` and no word boundary before ``to=`` (a model glues letters to it:
``analysisto=functions.edit``). A marker alone is not a leak: prose and docs quote it. It is the
anchor that the co-signals C, G, S, B, R and T qualify.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers

from ._common import MODEL_OUTPUT, hit_from_norm

_MARKER = re.compile(
    r"to=[ \t]?(?:functions\.[^\W\d][\w-]*|browser\.\w+|python(?![\w.])"
    r"|multi_tool_use\.\w+|container\.\w+)"
)


_span = re.Match.span

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
            return [
                Hit(signals, s, e, norm[s:e], "routing marker")
                for s, e in map(_span, _MARKER.finditer(norm))
            ]
        return [
            hit_from_norm(text, self.code, m.start(), m.end(), "routing marker")
            for m in _MARKER.finditer(norm)
        ]
