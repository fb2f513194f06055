"""Signal detectors, one per module, registered in one table.

Anchor signals find evidence on their own; co-signals qualify the anchors (SPEC.md 4.3):

| code | module | kind |
|---|---|---|
| H | control_token | anchor |
| K | stripped_envelope | anchor |
| M | routing_marker | anchor |
| N | tool_name | anchor (tool names only) |
| C | channel_adjacency | co |
| G | glitch_token | co |
| S | script_mixing | co |
| B | body_cascade | co |
| R | fake_result | co |
| T | parse_boundary | co |

Third parties add signals through the entry point group ``guard.signals``: each entry point loads
a class or instance with ``code``, ``name``, ``kind``, ``surfaces``, ``max_span`` and
``scan(text, ctx)``.
"""

from __future__ import annotations

from functools import cache
from importlib.metadata import entry_points

from guard.models import Signal

from .body_cascade import BodyCascade
from .channel_adjacency import ChannelAdjacency
from .control_token import ControlToken
from .fake_result import FakeResult
from .glitch_token import GlitchToken
from .parse_boundary import ParseBoundary
from .routing_marker import RoutingMarker
from .script_mixing import ScriptMixing
from .stripped_envelope import StrippedEnvelope
from .tool_name import ToolNameCharset

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "load_signals"]

ENTRY_POINT_GROUP = "guard.signals"

#: Built-in signals, cheap anchors first; co-signals in label order (C G S B R T).
BUILTIN: tuple[Signal, ...] = (
    ControlToken(),
    StrippedEnvelope(),
    RoutingMarker(),
    ToolNameCharset(),
    ChannelAdjacency(),
    GlitchToken(),
    ScriptMixing(),
    BodyCascade(),
    FakeResult(),
    ParseBoundary(),
)


@cache
def load_signals() -> tuple[Signal, ...]:
    """Built-in signals plus those installed through the ``guard.signals`` entry point group.

    A plugin whose code clashes with a built-in one raises ``ValueError``: codes are how
    policies and verdicts name signals, so they must be unique.
    """
    signals = list(BUILTIN)
    codes = {s.code for s in signals}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        obj = ep.load()
        signal = obj() if isinstance(obj, type) else obj
        if signal.code in codes:
            raise ValueError(
                f"signal plugin {ep.name!r} uses code {signal.code!r}, already taken by"
                f" {next(s.name for s in signals if s.code == signal.code)!r}"
            )
        codes.add(signal.code)
        signals.append(signal)
    return tuple(signals)
