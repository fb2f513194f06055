"""Every exception guard raises on purpose, under one base class.

Each one also subclasses the builtin a caller would expect for that kind of fault (attrs style),
so ``except ValueError`` keeps working for bad arguments and ``except guard.GuardError`` catches
everything guard raises on purpose. This module imports nothing else of the project, so every
package (``signals`` and ``recovery`` included) may raise these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from guard.models import Verdict

__all__ = [
    "ConfigError",
    "GuardError",
    "InputError",
    "LeakAborted",
    "NestingError",
    "PluginError",
    "PolicyError",
    "UnknownNameError",
    "VocabularyError",
]


class GuardError(Exception):
    """Base class of every exception guard raises on purpose."""


class UnknownNameError(GuardError, ValueError):
    """A name that no registry knows: dialect, scanner, signal, surface, recovery strategy,
    parse boundary or audit format. The message lists the names that are known."""


class PolicyError(GuardError, ValueError):
    """A policy file or mapping that does not describe a valid policy."""


class ConfigError(GuardError, ValueError):
    """Settings that cannot work together (``guard serve``'s upstream, limits, modes)."""


class InputError(GuardError, ValueError):
    """Input that cannot be used at all: invalid UTF-8 or JSON where it is required, a file
    that cannot be read."""


class NestingError(InputError):
    """A JSON-like value nested deeper than guard walks (``guard._depth.MAX_DEPTH`` levels of
    lists and objects): refused with this error instead of exhausting the interpreter's stack.
    Also an :class:`InputError` and so a ``ValueError``."""


class PluginError(GuardError, TypeError, ValueError):
    """A plugin (entry point or registered object) that does not fit its protocol (a
    ``TypeError``), or whose name or code clashes with one already taken (a ``ValueError``);
    either ``except`` catches it."""


class VocabularyError(GuardError, RuntimeError):
    """The o200k vocabulary is missing or does not match its pinned SHA-256."""


class LeakAborted(GuardError, RuntimeError):
    """A stream was stopped on a leak (``on_leak="abort"``). ``verdict`` explains it and
    ``withheld`` is the text that was not delivered."""

    def __init__(self, verdict: Verdict, withheld: str) -> None:
        super().__init__(verdict.reason)
        self.verdict = verdict
        self.withheld = withheld

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.verdict, self.withheld))
