"""T: on ``tool_arg``, the evidence starts at or after the end of the valid arguments.

A tool's arguments may legitimately contain any spelling inside a JSON string; what leaks is what
comes after the arguments end. The gate computes ``ctx.parsed_end`` (the end of the first
complete JSON value by default, or a boundary function registered per tool) before scanning.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers


class ParseBoundary:
    code = "T"
    name = "past the parse boundary"
    kind: Literal["anchor", "co"] = "co"
    surfaces = frozenset({Surface.TOOL_ARG})
    max_span = 0
    reach = (0, 0)
    order = 100
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        boundary = ctx.parsed_end if ctx.parsed_end is not None else 0
        for index, anchor in enumerate(ctx.anchors):
            if anchor.start >= boundary:
                yield Hit(
                    signals=(self.code,),
                    start=anchor.start,
                    end=anchor.end,
                    evidence=anchor.evidence,
                    detail=f"after the arguments end at {boundary}",
                    anchor=index,
                )
