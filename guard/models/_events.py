"""Scanner events and the scanner protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = [
    "Event",
    "Malformed",
    "ResultForgery",
    "Scanner",
    "Text",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "ToolArgs",
    "ToolEnd",
    "ToolStart",
]

# Frozen slotted dataclasses rather than pydantic models: a scanner emits several per chunk on the
# hot path of a stream. Every event carries ``raw``, the exact input text it covers, so that the
# concatenation of the raw text of all events equals the scanner's input (law L1).


@dataclass(frozen=True, slots=True)
class Text:
    """Visible text (``text`` is what a user would see; ``raw`` may also hold markers)."""

    text: str
    raw: str


@dataclass(frozen=True, slots=True)
class ThinkingStart:
    raw: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    delta: str
    raw: str


@dataclass(frozen=True, slots=True)
class ThinkingEnd:
    raw: str


@dataclass(frozen=True, slots=True)
class ToolStart:
    id: str
    name: str
    raw: str


@dataclass(frozen=True, slots=True)
class ToolArgs:
    id: str
    delta: str
    raw: str


@dataclass(frozen=True, slots=True)
class ToolEnd:
    """A complete call. ``arguments`` is the raw argument text (never re-encoded)."""

    id: str
    name: str
    arguments: str
    raw: str
    channel: str | None = None
    content_type: str | None = None


@dataclass(frozen=True, slots=True)
class ResultForgery:
    """Model output started writing a tool result (docs/detection.md, "Forgery"). ``offset`` is
    absolute in the scanner's input; ``raw`` holds the marker (what comes after it follows as
    ``Malformed``)."""

    offset: int
    marker: str
    raw: str


@dataclass(frozen=True, slots=True)
class Malformed:
    """Input the scanner could not parse; kept whole in ``raw`` so nothing is lost."""

    reason: str
    raw: str


Event = (
    Text
    | ThinkingStart
    | ThinkingDelta
    | ThinkingEnd
    | ToolStart
    | ToolArgs
    | ToolEnd
    | ResultForgery
    | Malformed
)


@runtime_checkable
class Scanner(Protocol):
    """A dialect scanner: feed raw model output in chunks, get events (docs/scanners.md,
    "Contract")."""

    def feed(self, text: str) -> list[Event]: ...

    def flush(self) -> list[Event]: ...
