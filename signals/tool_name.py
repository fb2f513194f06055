"""N: a tool name with characters no real tool name has.

Rule D5 (docs/detection.md, "Rules"): a tool name leaks when it contains a reserved spelling
(signal H) or anything outside ``[A-Za-z0-9_.:-]``, as in ``lookup<|channel|>commentary`` or
``get_weather json``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

_BAD = re.compile(r"[^A-Za-z0-9_.:\-]+")
_TRIGGERS = Triggers(pattern=r"[^A-Za-z0-9_.:\-]")


class ToolNameCharset:
    code = "N"
    name = "tool name charset"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TOOL_NAME})
    max_span = 256
    reach = (0, 0)
    order = 40
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        original = text.original
        for m in _BAD.finditer(original):
            yield Hit(
                signals=(self.code,),
                start=m.start(),
                end=m.end(),
                evidence=m.group(),
                detail="character outside [A-Za-z0-9_.:-] in a tool name",
            )
