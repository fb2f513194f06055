"""N: a tool name with characters no real tool name has.

Hosts accept more than ``[A-Za-z0-9_.:-]`` (ollama takes ``$`` and Unicode identifier letters,
MCP servers name tools in any script), so a name may hold identifier characters (Unicode
letters, digits, marks, ``_``), ``$``, ``.``, ``:`` and ``-``. Whitespace, markup, other
punctuation and symbols, and invisible characters are what a corrupted header leaves in a name
(``lookup<|channel|>commentary``, ``get_weather json``); reserved spellings are signal H.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

_BAD = re.compile(r"[^\w$.:\-]+")
_TRIGGERS = Triggers(pattern=r"[^\w$.:\-]")


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
                detail="character that is not an identifier character, $, '.', ':' or '-'",
            )
