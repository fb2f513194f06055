"""Helpers for stream-monitor tests: a text fed to a surface monitor in two chunks."""

from __future__ import annotations

from typing import Any

from guard.dialects import get_dialect
from guard.gate import DEFAULT_POLICY, SurfaceMonitor
from guard.models import Surface

__all__ = ["streamed"]


def streamed(text: str, cut: int, surface: str, dialect: str, **context: Any) -> Any:
    """The monitor's final verdict and release when ``text`` arrives in two chunks (cut at
    ``cut``); what it released never shrinks, and never passes a trip's cut."""
    monitor = SurfaceMonitor(Surface(surface), get_dialect(dialect), DEFAULT_POLICY, **context)
    monitor.feed(text[:cut])
    first = monitor.release
    if monitor.tripped is not None:
        assert first <= monitor.tripped.cut
    monitor.feed(text[cut:])
    assert monitor.release >= first
    return monitor.finish(), monitor.release
