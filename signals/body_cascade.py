"""B: a cascade of routing headers: marker, whitespace, ``code``, then another marker within
200 characters (``to=functions.edit code ... to=functions.edit``), the shape of a model that keeps
writing headers into a tool body."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers
from guard.models import lazy_re as re

from ._common import MARKER_SPAN, MODEL_OUTPUT, hit_from_norm, neighbours

REACH = 200
#: Longest blank run between the marker and ``code`` (bounded, so a stream knows when B is
#: settled).
BLANKS = 128
_CODE = re.compile(rf"[ \t\r\n]{{1,{BLANKS}}}code\b")


class BodyCascade:
    code = "B"
    name = "body cascade"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = BLANKS + 4 + REACH + 2 * MARKER_SPAN
    reach = (0, BLANKS + 4 + REACH + MARKER_SPAN)
    order = 80
    weight = 0.5

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers()  # a co-signal never starts a hit on its own

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        spans = neighbours(text, ctx)
        last = len(norm)  # the next start of the last marker: no marker follows
        for index, _start, end, _prev, next_start in spans:
            if next_start == last:
                continue
            m = _CODE.match(norm, end)
            if m and next_start - m.end() <= REACH:
                code_start = m.end() - len("code")
                yield hit_from_norm(
                    text, self.code, code_start, m.end(), "another marker follows `code`", index
                )
