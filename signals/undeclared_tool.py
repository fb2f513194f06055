"""U: a tool name that is not one of the request's declared tools.

Only with declared tools (``tools=`` on :func:`guard.detect`, ``detect_message``, streams and
audit): a call to ``get_weathr`` when ``get_weather`` was declared, or to a tool the request
never offered, is the model's invention or a corrupted header, and executing it fails or worse.
A Harmony recipient's namespace left on the name (``functions.bash`` for a declared ``bash``)
is no declared name either: a server's parser strips it, so a call that keeps it fails in the
host's dispatcher (guard's own Harmony scanner names such calls ``bash``). Without
declared tools the signal is silent (the charset rule, N, still applies).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from guard.models import Dialect, Hit, ScanContext, Surface, TextView, Triggers

# any name can be undeclared: no prefilter is possible, except that without declared tools
# the signal is silent
_TRIGGERS = Triggers(always=True, needs_tools=True)


class UndeclaredTool:
    code = "U"
    name = "undeclared tool"
    kind: Literal["anchor", "co"] = "anchor"
    surfaces = frozenset({Surface.TOOL_NAME})
    max_span = 256
    reach = (0, 0)
    order = 45
    weight = 1.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return _TRIGGERS

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        tools = ctx.tools
        name = text.original
        if tools is None or ctx.offset != 0 or not ctx.final:
            return
        if name in tools:
            return
        bare = name.removeprefix("functions.")
        if bare in tools:
            # the namespace a Harmony header writes before the name, left on it: a server's
            # parser strips it, and the host's dispatcher knows no tool of this name
            detail = f"tool {name!r} is not declared: the recipient's namespace left on {bare!r}"
        else:
            detail = f"tool {name!r} is not declared ({len(tools)} declared)"
        yield Hit(signals=(self.code,), start=0, end=len(name), evidence=name, detail=detail)
