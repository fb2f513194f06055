"""Helpers for the chunk-split tests of the end-of-text and answer-only signals: a text fed to a
surface monitor in two chunks, and the same text streamed as chat chunks through
``guard_stream``."""

from __future__ import annotations

from typing import Any

from guard import guard_stream
from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, SurfaceMonitor
from guard.models import Surface, Verdict

__all__ = ["assert_every_split", "chat_chunks", "monitored", "relayed"]


def monitored(
    text: str, cut: int, surface: str, dialect: str, **context: Any
) -> tuple[Verdict, int]:
    """The monitor's final verdict, and the most it let out before that verdict (``-1`` from
    ``feed_release`` means a trip: nothing more goes out), when ``text`` arrives in two chunks
    cut at ``cut``."""
    monitor = SurfaceMonitor(Surface(surface), get_dialect(dialect), DEFAULT_POLICY, **context)
    shown = max(monitor.feed_release(text[:cut]), monitor.feed_release(text[cut:]), 0)
    return monitor.finish(), shown


def assert_every_split(
    text: str, surface: str, dialect: str, *, never_past_cut: bool = False, **context: Any
) -> Verdict:
    """Assert that ``text`` cut in two at every offset gets the whole text's verdict (leak,
    signals, cut) from a surface monitor, and with ``never_past_cut`` that nothing past the
    cut of a leak was let out; return the whole text's verdict."""
    from guard import detect

    whole = detect(text, surface, dialect, **context)
    for cut in range(1, len(text)):
        verdict, shown = monitored(text, cut, surface, dialect, **context)
        assert (verdict.leak, verdict.signals, verdict.cut) == (
            whole.leak,
            whole.signals,
            whole.cut,
        ), cut
        if never_past_cut and whole.cut is not None:
            assert shown <= whole.cut, cut
    return whole


def chat_chunks(pieces: list[str]) -> list[dict[str, Any]]:
    return [
        {"choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]} for p in pieces
    ]


def relayed(pieces: list[str], dialect: str, **options: Any) -> tuple[str, Any]:
    """The answer text ``guard_stream`` relays for chat chunks carrying ``pieces``, and the
    stream (for its ``verdicts`` and ``cut``)."""
    stream = guard_stream(iter(chat_chunks(pieces)), dialect=dialect, **options)
    out = "".join(
        choice["delta"].get("content") or ""
        for item in stream
        for choice in item.get("choices") or ()
        if "delta" in choice
    )
    return out, stream
