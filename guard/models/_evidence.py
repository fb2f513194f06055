"""Evidence and answers: what a signal reports (`Hit`), what the gate answers (`Verdict`), and
what a signal is told about the text it scans (`ScanContext`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from guard.models._dialect import Dialect
from guard.models._surface import Surface

__all__ = ["Hit", "ScanContext", "Verdict"]


@dataclass(slots=True, eq=True)
class Hit:
    """One piece of evidence: a span of the original text and the signals that fired on it.

    ``signals`` starts with the signal that found the span (``H``, ``K``, ``M``, ...) and lists
    the co-signals that attached to it, in their ``order``. Offsets are absolute positions in the
    original text (Python string indices), even when the match was made in the normalised view.

    A slotted dataclass rather than a pydantic model: a dense text yields thousands of hits and
    each costs a fraction of a microsecond this way. Pydantic models that hold hits
    (:class:`Verdict`) validate, serialise and round-trip them like any other field. Treat a hit
    as immutable (``replace`` makes a changed copy): verdicts share them.
    """

    signals: tuple[str, ...]
    start: int
    end: int
    evidence: str
    detail: str = ""
    #: for a co-signal's hit: the index in ``ScanContext.anchors`` of the anchor it supports
    anchor: int | None = None
    #: for an anchor: the co-signal hits attached to it (their own spans and details)
    support: tuple[Hit, ...] = ()
    in_code: bool = False
    trips: bool = False
    score: float = 0.0
    #: where the untrusted text starts when that is before ``start``: the adjacent evidence a
    #: co-signal found (a channel word and the junk glued before it); ``None`` means ``start``
    lead: int | None = None

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < 0 or (self.lead is not None and self.lead < 0):
            raise ValueError(
                f"hit offsets must be >= 0, got start={self.start}, end={self.end},"
                f" lead={self.lead}"
            )

    def replace(self, **changes: Any) -> Hit:
        """A copy with ``changes`` applied (the fields are frozen)."""
        return dataclasses.replace(self, **changes)

    @property
    def cut(self) -> int:
        """Where the untrusted text starts for this hit (``lead``, else ``start``)."""
        return self.start if self.lead is None else self.lead

    @property
    def code(self) -> str:
        """The signal that found this span."""
        return self.signals[0]

    @property
    def label(self) -> str:
        """``M+C+S`` style label."""
        return "+".join(self.signals)


class Verdict(BaseModel):
    """The gate's answer for one piece of text on one surface.

    ``cut`` is the offset from which the text is untrusted (the earliest evidence of the first
    tripping hit: its start, or the adjacent channel word and junk before it), ``None`` when
    nothing trips. For input surfaces ``leak`` is always false and
    ``injection`` lists the reserved spellings found (escaping required).

    ``hits`` holds at most the policy's ``max_hits`` hits: the earliest ones, always including
    the first tripping hit; ``hits_total`` counts every hit found. ``signals``, ``cut``,
    ``score``, ``reason`` and ``injection`` are decided over every hit, kept or not.
    """

    model_config = ConfigDict(frozen=True)

    leak: bool
    surface: Surface
    dialect: str
    signals: tuple[str, ...] = ()
    hits: tuple[Hit, ...] = ()
    #: hits found but not kept in ``hits`` (the policy's ``max_hits`` caps what a verdict holds)
    hits_dropped: int = Field(default=0, ge=0)
    cut: int | None = None
    score: float = 0.0
    reason: str = "clean"
    injection: tuple[str, ...] = ()
    part: str | None = None
    tool_name: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def hits_total(self) -> int:
        """Every hit found: the kept ``hits`` plus the ``hits_dropped`` beyond the cap."""
        return len(self.hits) + self.hits_dropped

    def __bool__(self) -> bool:  # pragma: no cover - convenience
        return self.leak


class ScanContext(BaseModel):
    """What a signal is told about the text it scans."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    dialect: Dialect
    surface: Surface
    parsed_end: int | None = None
    tool_name: str | None = None
    #: Hits of the anchor signals (H, K, M, ...): co-signals attach to these.
    anchors: tuple[Hit, ...] = ()
    #: Where the scanned text starts in the whole text (a stream scans windows); signals that
    #: look at the start of the text (K's glued opening) fire only when this is 0.
    offset: int = 0
    #: Scratch space shared by the signals of one scan (derived data several co-signals need,
    #: such as the marker neighbourhoods); the gate gives every scan a fresh one.
    shared: dict[str, Any] = Field(default_factory=dict, exclude=True, repr=False)
    #: The text scanned ends where the whole text ends, for good (a whole text, or a stream's
    #: final scan). Signals whose hits depend on the end of the text (a lone channel word, a
    #: trailing tool call) fire only then.
    final: bool = True
    #: Whether the message this text belongs to carried a reasoning part: ``True`` or ``False``
    #: when the caller knows (``detect_message``, streams, audit), ``None`` when unknown.
    reasoning: bool | None = None
    #: The names of the tools the request declared; ``None`` when unknown (no ``tools=``).
    tools: frozenset[str] | None = None
    #: Indices in ``anchors`` of the anchors that lie inside closed code (``text`` and
    #: ``thinking``). Such a hit never trips and the gate drops its co-signal evidence, so a
    #: co-signal may skip them; skipping is an optimisation, never required.
    exempt: frozenset[int] = frozenset()
