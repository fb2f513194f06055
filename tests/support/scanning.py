"""Helpers for scanner tests: feed chunks, merge deltas, split texts."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence

from guard.models import (
    Event,
    Malformed,
    ResultForgery,
    Scanner,
    Text,
    ThinkingDelta,
    ToolArgs,
    ToolStart,
)

__all__ = ["assert_forgery_at", "assert_malformed_only", "merge", "raw", "scan", "split"]


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


def assert_malformed_only(events: Sequence[Event], text: str) -> None:
    """``events`` (of ``text``) start no call, report the text as malformed and lose nothing."""
    assert not any(isinstance(e, ToolStart) for e in events)
    assert any(isinstance(e, Malformed) for e in events) and raw(events) == text


def assert_forgery_at(events: Sequence[Event], offset: int) -> None:
    """``events`` hold one forged result, at ``offset``."""
    (forgery,) = [e for e in events if isinstance(e, ResultForgery)]
    assert forgery.offset == offset
