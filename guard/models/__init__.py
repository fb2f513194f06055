"""Models shared by guard, signals and recovery.

This package imports nothing else of the project but :mod:`guard.errors`, so every package can
depend on it without cycles (``import signals`` first works). It holds the dialect record, the
surfaces, the evidence a signal reports (`Hit`), the gate's answer (`Verdict`), what a signal is
told about the text it scans (`ScanContext`), the normalised view of a text that makes lookalike
spellings match (`TextView`), the signal, scanner and recovery protocols with their events and
outcomes, and the one registry pattern every kind of plugin uses.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guard.models._dialect import Dialect as Dialect
    from guard.models._dialect import TurnGrammar as TurnGrammar
    from guard.models._events import Event as Event
    from guard.models._events import Malformed as Malformed
    from guard.models._events import ResultForgery as ResultForgery
    from guard.models._events import Scanner as Scanner
    from guard.models._events import Text as Text
    from guard.models._events import ThinkingDelta as ThinkingDelta
    from guard.models._events import ThinkingEnd as ThinkingEnd
    from guard.models._events import ThinkingStart as ThinkingStart
    from guard.models._events import ToolArgs as ToolArgs
    from guard.models._events import ToolEnd as ToolEnd
    from guard.models._events import ToolStart as ToolStart
    from guard.models._evidence import Hit as Hit
    from guard.models._evidence import ScanContext as ScanContext
    from guard.models._evidence import Verdict as Verdict
    from guard.models._recovery import Abort as Abort
    from guard.models._recovery import CallSplit as CallSplit
    from guard.models._recovery import Outcome as Outcome
    from guard.models._recovery import Recovered as Recovered
    from guard.models._recovery import RecoveredCall as RecoveredCall
    from guard.models._recovery import Recovery as Recovery
    from guard.models._recovery import Retry as Retry
    from guard.models._recovery import Split as Split
    from guard.models._registry import Registry as Registry
    from guard.models._signal import Detection as Detection
    from guard.models._signal import Signal as Signal
    from guard.models._signal import StreamHints as StreamHints
    from guard.models._signal import Triggers as Triggers
    from guard.models._surface import Surface as Surface
    from guard.models._text import TextView as TextView

#: public name -> the module that defines it (loaded on first use: the dialect records need
#: no pydantic, so the CLI starts fast)
_EXPORTS: dict[str, str] = {
    "Abort": "guard.models._recovery",
    "CallSplit": "guard.models._recovery",
    "Detection": "guard.models._signal",
    "Dialect": "guard.models._dialect",
    "TurnGrammar": "guard.models._dialect",
    "Event": "guard.models._events",
    "Hit": "guard.models._evidence",
    "Malformed": "guard.models._events",
    "Outcome": "guard.models._recovery",
    "Recovered": "guard.models._recovery",
    "RecoveredCall": "guard.models._recovery",
    "Recovery": "guard.models._recovery",
    "Registry": "guard.models._registry",
    "ResultForgery": "guard.models._events",
    "Retry": "guard.models._recovery",
    "ScanContext": "guard.models._evidence",
    "Scanner": "guard.models._events",
    "Signal": "guard.models._signal",
    "Split": "guard.models._recovery",
    "StreamHints": "guard.models._signal",
    "Surface": "guard.models._surface",
    "Text": "guard.models._events",
    "TextView": "guard.models._text",
    "ThinkingDelta": "guard.models._events",
    "ThinkingEnd": "guard.models._events",
    "ThinkingStart": "guard.models._events",
    "ToolArgs": "guard.models._events",
    "ToolEnd": "guard.models._events",
    "ToolStart": "guard.models._events",
    "Triggers": "guard.models._signal",
    "Verdict": "guard.models._evidence",
}

__all__ = [
    "Abort",
    "CallSplit",
    "Detection",
    "Dialect",
    "Event",
    "Hit",
    "Malformed",
    "Outcome",
    "Recovered",
    "RecoveredCall",
    "Recovery",
    "Registry",
    "ResultForgery",
    "Retry",
    "ScanContext",
    "Scanner",
    "Signal",
    "Split",
    "StreamHints",
    "Surface",
    "Text",
    "TextView",
    "ThinkingDelta",
    "ThinkingEnd",
    "ThinkingStart",
    "ToolArgs",
    "ToolEnd",
    "ToolStart",
    "Triggers",
    "TurnGrammar",
    "Verdict",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'guard.models' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
