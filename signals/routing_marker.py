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

from guard.models import Hit, ScanContext, TextView

from ._common import MODEL_OUTPUT, hit_from_norm

_MARKER = re.compile(
    r"to=[ \t]?(?:functions\.[^\W\d][\w-]*|browser\.\w+|python(?![\w.])"
    r"|multi_tool_use\.\w+|container\.\w+)"
)


class RoutingMarker:
    code = "M"
    name = "routing marker"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = MODEL_OUTPUT
    max_span = 96

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        if "to=" not in norm:
            return
        for m in _MARKER.finditer(norm):
            yield hit_from_norm(text, self.code, m.start(), m.end(), "routing marker")
