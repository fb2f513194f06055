"""B: a cascade of routing headers: marker, whitespace, ``code``, then another marker within
200 characters (``to=functions.edit code ... to=functions.edit``), the shape of a model that keeps
writing headers into a tool body."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from guard.models import Hit, ScanContext, TextView

from ._common import MODEL_OUTPUT, hit_from_norm, neighbours

REACH = 200
_CODE = re.compile(r"[ \t\r\n]+code\b")


class BodyCascade:
    code = "B"
    name = "body cascade"
    kind: Literal["anchor", "co"] = "co"
    surfaces = MODEL_OUTPUT
    max_span = REACH + 2 * 96

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        spans = neighbours(text, ctx)
        for k, (index, _start, end, _prev, next_start) in enumerate(spans):
            if k + 1 == len(spans):
                break
            m = _CODE.match(norm, end)
            if m and next_start - m.end() <= REACH:
                code_start = m.end() - len("code")
                yield hit_from_norm(
                    text, self.code, code_start, m.end(), "another marker follows `code`", index
                )
