"""Dialect scanners: pick one by dialect, register your own, render Harmony.

:func:`scanner` returns a fresh :class:`~guard.models.Scanner` for a dialect name, alias or
record. guard ships scanners for ``harmony``, ``chatglm3``, ``chatml`` and ``llama3``; others come
from :func:`register_scanner` or from the ``guard.scanners`` entry point group (name = dialect
name, value = a zero-argument factory), loaded only when that dialect is asked for.

A scanner keeps these laws (DESIGN.md "Scanner"; tests name them):

* **L1 lossless**: the raw text of all events, in order, concatenates to the input.
* **L2 chunk invariance**: after merging adjacent ``Text``, adjacent ``ThinkingDelta`` and
  adjacent ``ToolArgs`` of the same call, the events are the same for every split of the input.
* **L3 total**: model output never raises; what does not parse becomes ``Malformed``.
* **L4 bounded**: a scanner holds back at most the longest proper prefix of a marker, plus
  structures it holds on purpose, each capped (a header at 4096 characters, a call body at
  ``max_arguments``); work is linear in the input.
* **L5 forgery**: a result-open spelling in model output yields ``ResultForgery`` at its offset.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from importlib.metadata import EntryPoint, entry_points

from .dialects import Dialect, get_dialect
from .dialects._chatglm3_scan import ChatGLM3Scanner
from .dialects._chatml_scan import ChatMLScanner
from .dialects._harmony_scan import (
    HarmonyHeader,
    HarmonyScanner,
    render_thinking,
    render_tool_call,
    render_tool_result,
    render_transcript,
)
from .dialects._llama3_scan import Llama3Scanner
from .models import Scanner

__all__ = [
    "ENTRY_POINT_GROUP",
    "ChatGLM3Scanner",
    "ChatMLScanner",
    "HarmonyHeader",
    "HarmonyScanner",
    "Llama3Scanner",
    "ScannerFactory",
    "available_scanners",
    "register_scanner",
    "render_thinking",
    "render_tool_call",
    "render_tool_result",
    "render_transcript",
    "scanner",
]

ENTRY_POINT_GROUP = "guard.scanners"

ScannerFactory = Callable[[], Scanner]

_BUILTIN: dict[str, ScannerFactory] = {
    "harmony": HarmonyScanner,
    "chatglm3": ChatGLM3Scanner,
    "chatml": ChatMLScanner,
    "llama3": Llama3Scanner,
}
_registered: dict[str, ScannerFactory] = {}
_lock = threading.Lock()


def register_scanner(name: str, factory: ScannerFactory) -> None:
    """Make ``scanner(name)`` return ``factory()``. Overrides a built-in or entry-point scanner
    of the same name."""
    if not callable(factory):
        raise TypeError(f"scanner factory for {name!r} is not callable")
    with _lock:
        _registered[_key(name)] = factory


def _key(dialect: str | Dialect) -> str:
    """Canonical name for a known dialect (aliases resolve), else the name itself, lowered:
    a third-party scanner may serve a dialect guard has no record for."""
    if isinstance(dialect, Dialect):
        return dialect.name
    if not isinstance(dialect, str):
        raise TypeError(f"dialect must be a str or Dialect, got {type(dialect).__name__}")
    try:
        return get_dialect(dialect).name
    except ValueError:
        return dialect.strip().lower()


def _entry_points() -> dict[str, EntryPoint]:
    return {ep.name.strip().lower(): ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def available_scanners() -> tuple[str, ...]:
    """Dialect names :func:`scanner` can serve (built-in, registered, entry points)."""
    names = {*_BUILTIN, *_registered, *_entry_points()}
    return tuple(sorted(names))


def scanner(dialect: str | Dialect) -> Scanner:
    """A fresh scanner for ``dialect`` (a name, an alias, or a :class:`Dialect` record).

    Raises:
        ValueError: no scanner serves that dialect; the message lists the ones that do.
        TypeError: ``dialect`` is neither a str nor a Dialect, or a factory returned something
            that is not a scanner.
    """
    key = _key(dialect)
    factory = _registered.get(key) or _BUILTIN.get(key)
    if factory is None:
        ep = _entry_points().get(key)
        if ep is not None:
            loaded = ep.load()
            if not callable(loaded):
                raise TypeError(f"entry point {ep.value!r} for {key!r} is not callable")
            factory = loaded
    if factory is None:
        known = ", ".join(available_scanners())
        raise ValueError(f"no scanner for dialect {key!r}; scanners exist for: {known}")
    made = factory()
    if not isinstance(made, Scanner):
        raise TypeError(
            f"scanner factory for {key!r} returned {type(made).__name__}, not a Scanner"
        )
    return made
