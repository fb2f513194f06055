"""R: fake tool-result framing.

Two shapes: ``code_output`` + newline + ``Cell N:`` within 80 characters after a routing marker
(a model imitating a notebook result), and a dialect's result-open spelling (Harmony:
``<|start|>`` followed by an author other than ``assistant``): the model writing the host's part.
The second kind is standalone evidence; the gate attaches it to the control token it overlaps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Literal

from guard._windows import finditer as windowed
from guard.models import Dialect, Hit, ScanContext, TextView, Triggers

from ._common import MARKER_SPAN, MODEL_OUTPUT, hit_from_norm, neighbours

REACH = 80
_CELL = re.compile(r"code_output[ \t]*\r?\n[ \t]*Cell[ \t]+\d+:")


@cache
def _result_open(dialect: Dialect) -> re.Pattern[str] | None:
    alternatives = [re.escape(TextView(s).norm) for s in dialect.result_open]
    alternatives += [p.replace("\uff5c", r"\|") for p in dialect.result_open_patterns]
    if not alternatives:
        return None
    return re.compile("|".join(f"(?:{a})" for a in alternatives))


class FakeResult:
    code = "R"
    name = "fake result framing"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = REACH + 40 + MARKER_SPAN
    reach = (0, REACH + 40)
    order = 90
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        for index, _start, end, _prev, next_start in neighbours(text, ctx):
            m = _CELL.search(norm, end, min(len(norm), end + REACH + 40))
            if m and m.start() - end <= REACH and m.start() < next_start:
                yield hit_from_norm(
                    text, self.code, m.start(), m.end(), "notebook result framing", index
                )
        pattern = _result_open(ctx.dialect)
        if pattern is None or not ctx.anchors:
            return
        for m in windowed(pattern, norm):
            yield hit_from_norm(text, self.code, m.start(), m.end(), "tool result opening")
