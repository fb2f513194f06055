"""X: another dialect's call or section marker inside a tool argument.

A server that parses one dialect can still receive another's call syntax in an argument (a
proxy routing between families, a model fine-tuned on several formats): Kimi's
``<|tool_call_argument_begin|>`` in the arguments of a model served as ChatML is as much a leak
as in Kimi's own. H knows only the serving dialect's spellings, so X finds the others' call,
section and result markers: the token-shaped spellings (a bar, a fullwidth bar, or MiniMax's
bracket soup) among each other dialect's call and result markers and its reserved spellings that
name a tool or a call (``<|tool_call_begin|>``, ``<｜tool▁sep｜>``, ``]<]minimax[>[<tool_call>``,
``<|open|>call``, ...), and the plain spellings no HTML or XML writes (GLM's ``</arg_value>``,
``<minimax:tool_call>``, Qwen3-Coder's ``<function=``). Other plain tags (``<tool_call>``,
``<invoke``) are left out: HTML and XML in arguments use them.

On ``tool_arg`` an X hit trips past the parse boundary (with T) or, inside a string, with P
(not quoted as data), as H's do. Silent for Harmony (its own rule judges its arguments) and for
the union dialect ``all`` (H already holds every spelling).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import Literal

from guard._windows import finditer as windowed
from guard.dialects import DIALECTS, table_version
from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

from ._common import hit_from_norm

#: Dialects for which X is silent.
SILENT = frozenset({"harmony", "all"})
_SHAPED = re.compile(r"[|\uff5c\u2581]|^[\[\]].*[\[\]]")
_CALL_WORD = re.compile(r"tool|call", re.IGNORECASE)
#: plain spellings that no HTML or XML writes: GLM's argument tags, a namespaced call tag
#: (``<minimax:tool_call>``), and the ``=`` openers of Qwen3-Coder's and Llama's function tags
_DISTINCT = re.compile(r"</?(?:arg_key|arg_value|\w+:tool_call)>|<(?:function|parameter)=")


def distinct_spelling(spelling: str) -> bool:
    """Whether ``spelling`` is a plain spelling no HTML or XML writes (see :data:`_DISTINCT`)."""
    return _DISTINCT.fullmatch(spelling) is not None


def _foreign(dialect: Dialect) -> tuple[str, ...]:
    """The other dialects' call and section markers that ``dialect`` does not reserve."""
    return _foreign_in(dialect, table_version())


@cache
def _foreign_in(dialect: Dialect, version: int) -> tuple[str, ...]:
    own = set(dialect.reserved)
    found: dict[str, None] = {}
    for other in DIALECTS.values():
        if other.name == dialect.name:
            continue
        markers = (*other.call_open, *other.call_close, *other.result_open)
        named = (s for s in other.reserved if _CALL_WORD.search(s) or _DISTINCT.fullmatch(s))
        for spelling in (*markers, *named):
            shaped = _SHAPED.search(spelling) or _DISTINCT.fullmatch(spelling)
            if shaped and not any(r in spelling for r in own):
                found[spelling] = None
    return tuple(found)


def _pattern(dialect: Dialect) -> re.Pattern[str] | None:
    return _pattern_in(dialect, table_version())


@cache
def _pattern_in(dialect: Dialect, version: int) -> re.Pattern[str] | None:
    spellings = sorted({TextView(s).norm for s in _foreign(dialect)}, key=len, reverse=True)
    return re.compile("|".join(map(re.escape, spellings))) if spellings else None


class ForeignMarker:
    code = "X"
    name = "another dialect's call marker"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TOOL_ARG})
    max_span = 64
    reach = (0, 0)
    order = 29
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        if dialect.name in SILENT:
            return Triggers()
        spellings = _foreign(dialect)
        norms = tuple(TextView(s).norm for s in spellings)
        literals = tuple(dict.fromkeys((*spellings, *norms)))
        return Triggers(literals=literals, hold_words=tuple(dict.fromkeys(norms)))

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        if ctx.dialect.name in SILENT:
            return
        pattern = _pattern(ctx.dialect)
        if pattern is None:
            return
        for m in windowed(pattern, text.norm):
            yield hit_from_norm(
                text, self.code, m.start(), m.end(), f"another dialect's marker {m.group()!r}"
            )
