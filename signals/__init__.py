"""Signal detectors, one per module, registered in one table.

Anchor signals find evidence on their own; co-signals qualify the anchors (see
``docs/detection.md``):

| code | module | kind |
|---|---|---|
| H | control_token | anchor |
| Q | cut_token | anchor (text and thinking; end of the text) |
| W | think_tag | anchor (text only) |
| K | stripped_envelope | anchor |
| O | forged_turn | anchor (text only) |
| V | reasoning_voice | anchor (text only; opening of the text) |
| L | reasoning_preamble | anchor (text only; an opening that announces reasoning) |
| D | reasoning_notes | anchor (text only; notes to self anywhere, by density) |
| J | tool_call_text | anchor (text only; end of the text) |
| F | named_arguments | anchor (text only; end of the text; with declared tools) |
| Y | inline_call | anchor (text only; anywhere in the text; with declared tools) |
| Z | trailing_text | anchor (tool arguments only; end of the text) |
| X | foreign_marker | anchor (tool arguments only; another dialect's call markers) |
| M | routing_marker | anchor |
| N | tool_name | anchor (tool names only) |
| U | undeclared_tool | anchor (tool names only; with declared tools) |
| C | channel_adjacency | co |
| G | glitch_token | co |
| S | script_mixing | co |
| B | body_cascade | co |
| R | fake_result | co |
| A | marker_alone | co |
| T | parse_boundary | co |
| E | embedded_junk | co (tool arguments only) |
| P | argument_token | co (tool arguments only) |
| I | named_token | co (text and thinking; a token named in prose, which vetoes H) |

Third parties add signals through the entry point group ``guard.signals`` (each entry point
loads a class or an instance) or :func:`register_signal`. A signal implements
:class:`guard.models.Signal`; one written for the first protocol (``code``, ``name``, ``kind``,
``surfaces``, ``max_span``, ``scan``) still works: it is scanned on every text and holds nothing
back in streams until it publishes its :class:`~guard.models.Triggers`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from guard.errors import PluginError
from guard.models import Dialect, Hit, Registry, ScanContext, Signal, Surface, TextView, Triggers

from .argument_token import ArgumentToken
from .body_cascade import BodyCascade
from .channel_adjacency import ChannelAdjacency
from .control_token import ControlToken
from .cut_token import CutToken
from .embedded_junk import EmbeddedJunk
from .fake_result import FakeResult
from .foreign_marker import ForeignMarker
from .forged_turn import ForgedTurn
from .glitch_token import GlitchToken
from .inline_call import InlineCall
from .marker_alone import MarkerAlone
from .named_arguments import NamedArguments
from .named_token import NamedToken
from .parse_boundary import ParseBoundary
from .reasoning_notes import ReasoningNotes
from .reasoning_preamble import ReasoningPreamble
from .reasoning_voice import ReasoningVoice
from .routing_marker import RoutingMarker
from .script_mixing import ScriptMixing
from .stripped_envelope import StrippedEnvelope
from .think_tag import ThinkTag
from .tool_call_text import ToolCallText
from .tool_name import ToolNameCharset
from .trailing_text import TrailingText
from .undeclared_tool import UndeclaredTool

__all__ = ["BUILTIN", "ENTRY_POINT_GROUP", "REGISTRY", "load_signals", "register_signal"]

ENTRY_POINT_GROUP = "guard.signals"

#: Built-in signals, in their ``order``: anchors first, then co-signals (C G S B R A T E P).
BUILTIN: tuple[Signal, ...] = (
    ControlToken(),
    CutToken(),
    ThinkTag(),
    StrippedEnvelope(),
    ForgedTurn(),
    ReasoningVoice(),
    ReasoningPreamble(),
    ToolCallText(),
    ReasoningNotes(),
    ForeignMarker(),
    RoutingMarker(),
    NamedArguments(),
    InlineCall(),
    TrailingText(),
    ToolNameCharset(),
    UndeclaredTool(),
    ChannelAdjacency(),
    GlitchToken(),
    ScriptMixing(),
    BodyCascade(),
    FakeResult(),
    MarkerAlone(),
    ParseBoundary(),
    EmbeddedJunk(),
    ArgumentToken(),
    NamedToken(),
)

_REQUIRED = ("code", "name", "kind", "surfaces", "max_span", "scan")


class _FirstProtocol:
    """A signal written for the first protocol, with the published facts it lacks filled in
    conservatively: scan every text, hold nothing back, read ``max_span`` around an anchor."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.code: str = inner.code
        self.name: str = inner.name
        self.kind: Literal["anchor", "co"] = inner.kind
        self.surfaces: frozenset[Surface] = frozenset(inner.surfaces)
        self.max_span: int = int(inner.max_span)
        self.reach: tuple[int, int] = (self.max_span, self.max_span)
        self.order: int = 1000
        self.weight: float = 0.0

    def triggers(self, dialect: Dialect) -> Triggers:
        return Triggers(always=self.kind == "anchor")

    def scan(self, text: TextView, ctx: ScanContext) -> Iterable[Hit]:
        result: Iterable[Hit] = self._inner.scan(text, ctx)
        return result

    def __repr__(self) -> str:
        return f"{type(self._inner).__name__}(code={self.code!r})"


def _signal(code: str, obj: object) -> Signal:
    """An entry point's or a registration's object as a signal (classes are instantiated)."""
    signal: Any = obj() if isinstance(obj, type) else obj
    missing = [a for a in _REQUIRED if not hasattr(signal, a)]
    if missing:
        raise PluginError(
            f"signal {code!r} ({type(signal).__name__}) lacks {', '.join(missing)}; a signal has"
            f" {', '.join(_REQUIRED)}"
        )
    if signal.code != code:
        raise PluginError(f"signal registered as {code!r} has code {signal.code!r}")
    if signal.kind not in ("anchor", "co"):
        raise PluginError(f"signal {code!r}: kind must be 'anchor' or 'co', got {signal.kind!r}")
    if not isinstance(signal, Signal):
        signal = _FirstProtocol(signal)
    return signal  # type: ignore[no-any-return]


class _SignalRegistry(Registry[Signal]):
    """Signals are keyed by code; an entry point's name is free, its signal's code is the key,
    and a code can be taken only once (codes name signals in policies and verdicts)."""

    _values: tuple[Signal, ...] = ()

    def _all_entry_points(self) -> dict[str, Signal]:
        if self._loaded is None:
            loaded: dict[str, Signal] = {}
            taken = {s.code: s.name for s in BUILTIN}
            for ep in self.discover():
                try:
                    obj = ep.load()
                except Exception as exc:
                    exc.add_note(f"while loading the signal plugin {ep.name!r} ({ep.value})")
                    raise
                code = getattr(obj, "code", None)
                if not isinstance(code, str) or not code:
                    raise PluginError(f"signal plugin {ep.name!r} has no code")
                if code in taken:
                    raise PluginError(
                        f"signal plugin {ep.name!r} uses code {code!r}, already taken by"
                        f" {taken[code]!r}"
                    )
                signal = _signal(code, obj)
                taken[code] = signal.name
                loaded[code] = signal
            self._loaded = loaded
        return self._loaded

    def items(self) -> tuple[tuple[str, Signal], ...]:
        """Every signal by code, in ``order`` (built-ins first among equals)."""
        cache = self._cache
        if cache is None:
            merged = super().items()
            cache = self._cache = tuple(sorted(merged, key=lambda kv: kv[1].order))
            self._values = tuple(signal for _, signal in cache)
        return cache

    def values(self) -> tuple[Signal, ...]:
        if self._cache is None:
            self.items()
        return self._values

    def names(self) -> tuple[str, ...]:
        return tuple(code for code, _ in self.items())

    def find(self, name: str) -> Signal | None:
        return dict(self.items()).get(name)


#: Every signal by code: built-ins, the ``guard.signals`` entry point group, registrations.
REGISTRY = _SignalRegistry(
    "signal",
    ENTRY_POINT_GROUP,
    {s.code: s for s in BUILTIN},
    key=str,
    check=_signal,
    replace=False,
)


def register_signal(signal: object) -> None:
    """Add a signal (an instance or a class) at run time; its code must be free."""
    code = getattr(signal, "code", None)
    if not isinstance(code, str) or not code:
        raise PluginError(f"a signal needs a non-empty code, got {code!r}")
    REGISTRY.register(code, signal)


def load_signals() -> tuple[Signal, ...]:
    """Every signal, in ``order`` (built-ins first among equals): built-ins, entry points,
    registrations. A plugin whose code is taken raises ``PluginError`` (a ``ValueError``)."""
    return REGISTRY.values()
