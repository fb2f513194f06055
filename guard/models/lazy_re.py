"""The part of :mod:`re` that signal modules use, with ``compile`` deferred to first use
(:class:`guard.models._deferred.Deferred`): ``from guard.models import lazy_re as re`` at the top
of a module that compiles its patterns at import keeps the module's text as it was and its
import cheap. The result behaves as the compiled pattern for every method and attribute; it is
not an instance of ``re.Pattern`` and the module-level functions of ``re`` do not take it (they
are not exported here)."""

from __future__ import annotations

import re as _re
from re import (
    ASCII,
    DOTALL,
    IGNORECASE,
    MULTILINE,
    VERBOSE,
    Match,
    Pattern,
    RegexFlag,
    error,
    escape,
)
from typing import cast

from guard.models._deferred import Deferred

__all__ = [
    "ASCII",
    "DOTALL",
    "IGNORECASE",
    "MULTILINE",
    "VERBOSE",
    "Match",
    "Pattern",
    "RegexFlag",
    "compile",
    "error",
    "escape",
]


def compile(pattern: str, flags: int | RegexFlag = 0) -> Pattern[str]:
    """``re.compile(pattern, flags)``, built on first use."""
    return cast("Pattern[str]", Deferred(_re.compile, pattern, flags, {}))
