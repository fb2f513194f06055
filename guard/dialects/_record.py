"""The `Dialect` record lives in :mod:`guard.models` (shared by every package); re-exported here
so dialect modules read as data next to their type."""

from __future__ import annotations

from guard.models import Dialect, TurnGrammar

__all__ = ["Dialect", "TurnGrammar"]
