"""K: channel words glued the way only a stripped decode produces.

When a server decodes with special tokens skipped, ``<|start|>assistant<|channel|>final<|message|>``
collapses to ``assistantfinal``; a reasoning message at the start of the output becomes
``analysisThe user asks ...``; a constrained header becomes ``commentary json{``. Ordinary prose
and code do not glue these words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, TextView, Triggers

from ._common import MODEL_OUTPUT, hit_from_norm

_GLUED = re.compile(r"assistant(?:final|analysis|commentary)")
_OPENING = re.compile(r"\A\s*analysis(?=\w)")
_HEADER = re.compile(r"(?<![A-Za-z])(?:final|commentary|analysis)[ \t]*json\{")

_TRIGGERS = Triggers(
    literals=("analysis", "assistant", "json{"),
    hold_words=(
        "assistantfinal",
        "assistantanalysis",
        "assistantcommentary",
        *(f"{w}{sep}json{{" for w in ("final", "commentary", "analysis") for sep in " \t"),
        *(f"{w}json{{" for w in ("final", "commentary", "analysis")),
    ),
    opening=("analysis",),
)


class StrippedEnvelope:
    code = "K"
    name = "stripped envelope"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = MODEL_OUTPUT
    max_span = 32
    reach = (0, 0)
    order = 20
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        norm = text.norm
        if "assistant" in norm:
            for m in _GLUED.finditer(norm):
                yield hit_from_norm(text, self.code, m.start(), m.end(), "glued role and channel")
        if ctx.offset == 0 and norm[:64].lstrip().startswith("analysis"):
            opening = _OPENING.match(norm)
            if opening and norm[opening.end()].isupper():
                end = opening.end()
                yield hit_from_norm(
                    text, self.code, end - 8, end, "text opens with a glued analysis channel"
                )
        if "json{" in norm:
            for m in _HEADER.finditer(norm):
                yield hit_from_norm(
                    text, self.code, m.start(), m.end() - 1, "stripped constrained header"
                )
