"""N: a tool name with characters no real tool name has.

Rule D5 (docs/detection.md, "Rules"). Hosts accept more than ``[A-Za-z0-9_.:-]`` (ollama
takes ``$`` and Unicode identifier letters, MCP servers name tools in any script), so a name
may hold identifier characters (Unicode letters, digits, marks, ``_``), ``$``, ``.``, ``:`` and
``-``. Whitespace, markup, other
punctuation and symbols, and invisible characters are what a corrupted header leaves in a name
(``lookup<|channel|>commentary``, ``get_weather json``); reserved spellings are signal H.
A name in one script is fine (``获取天气``, ``búsqueda``); Latin letters mixed with a run of
another script (``get_weather大发``, a Greek ``Ο`` in ``lооkup``) are spam glued to the name or a
spoof, and flagged. A name the request declared, exactly as spelled, passes when it holds only
ASCII letters, digits and ``_$.:-/@#+`` (a framework's ``code/shell/execute``): a declared name
holding a look-alike, an invisible character, a blank or markup is still read (a tool list may
come from a third-party server). A stream's name that may still grow into such a declared name
(``code/``) is held until it ends.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers
from guard.models import lazy_re as re
from guard.models import lazy_regex as regex

from .script_mixing import SCRIPTS

_BAD = re.compile(r"[^\w$.:\-]+")
#: a run of another script's letters in a name that also has Latin letters (``get_weather大发``)
_FOREIGN = regex.compile("[" + "".join(rf"\p{{{s}}}" for s in SCRIPTS) + "]+")
_LATIN = regex.compile(r"\p{Latin}")
_TRIGGERS = Triggers(pattern=r"[^\w$.:\-]|[^\x00-\x7f]")
#: the names a request may declare with punctuation of its own (``code/shell/execute``,
#: ``team@search``): ASCII letters, digits and ``_$.:-/@#+``; a declared name with anything else
#: (a look-alike letter, an invisible character, a blank, a token) is still read
_PLAIN_DECLARED = re.compile(r"[A-Za-z0-9_$.:\-/@#+]+\Z")


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
        if ctx.tools and _PLAIN_DECLARED.match(original):
            if original in ctx.tools:
                return  # the request declared this very name (``code/shell/execute``)
            if not ctx.final and any(
                t.startswith(original) and _PLAIN_DECLARED.match(t) for t in ctx.tools
            ):
                return  # a stream's name that may still grow into such a declared one
        for m in _BAD.finditer(original):
            yield Hit(
                signals=(self.code,),
                start=m.start(),
                end=m.end(),
                evidence=m.group(),
                detail="character that is not an identifier character, $, '.', ':' or '-'",
            )
        if not original.isascii() and _LATIN.search(original):
            for m in _FOREIGN.finditer(original):
                yield Hit(
                    signals=(self.code,),
                    start=m.start(),
                    end=m.end(),
                    evidence=m.group(),
                    detail="letters of another script mixed with Latin letters in a tool name",
                )
