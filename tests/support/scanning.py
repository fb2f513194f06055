"""Helpers for scanner tests: feed chunks, merge deltas, split texts."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from guard.models import Event, Scanner, Text, ThinkingDelta, ToolArgs

__all__ = ["merge", "raw", "scan", "split"]


def scan(scanner: Scanner, chunks: Iterable[str]) -> list[Event]:
    """Feed ``chunks`` then flush; all events in order."""
    events: list[Event] = []
    for chunk in chunks:
        events += scanner.feed(chunk)
    events += scanner.flush()
    return events


def merge(events: Sequence[Event]) -> list[Event]:
    """Merge adjacent deltas of the same kind (Text, ThinkingDelta, ToolArgs of one call)."""
    out: list[Event] = []
    for e in events:
        last = out[-1] if out else None
        if isinstance(e, Text) and isinstance(last, Text):
            out[-1] = Text(last.text + e.text, last.raw + e.raw)
        elif isinstance(e, ThinkingDelta) and isinstance(last, ThinkingDelta):
            out[-1] = ThinkingDelta(last.delta + e.delta, last.raw + e.raw)
        elif isinstance(e, ToolArgs) and isinstance(last, ToolArgs) and e.id == last.id:
            out[-1] = ToolArgs(e.id, last.delta + e.delta, last.raw + e.raw)
        else:
            out.append(e)
    return out


def split(text: str, points: Iterable[int]) -> list[str]:
    cuts = sorted({p for p in points if 0 < p < len(text)})
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def raw(events: Iterable[Event]) -> str:
    return "".join(e.raw for e in events)
