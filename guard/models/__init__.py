"""Models shared by guard, signals and recovery.

This package imports nothing else of the project but :mod:`guard.errors`, so every package can
depend on it without cycles (``import signals`` first works). It holds the dialect record, the
surfaces, the evidence a signal reports (`Hit`), the gate's answer (`Verdict`), what a signal is
told about the text it scans (`ScanContext`), the normalised view of a text that makes lookalike
spellings match (`TextView`), the signal, scanner and recovery protocols with their events and
outcomes, and the one registry pattern every kind of plugin uses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from guard._lazy import lazy_exports as _lazy_exports

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
    from guard.models._evidence import ALL_SCOPES as ALL_SCOPES
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

# loaded on first use: the dialect records need no pydantic, so the CLI starts fast
__getattr__, __dir__ = _lazy_exports(__name__, globals())
