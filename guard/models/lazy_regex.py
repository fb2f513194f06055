"""The part of the ``regex`` package that signal modules use, with ``compile`` deferred to first
use (see :mod:`guard.models.lazy_re`): ``from guard.models import lazy_regex as regex``."""

from __future__ import annotations

from typing import Any

import regex as _regex
from regex import (
    DOTALL,
    IGNORECASE,
    MULTILINE,
    REVERSE,
    V0,
    V1,
    VERBOSE,
    VERSION0,
    VERSION1,
    Match,
    Pattern,
    error,
    escape,
)

from guard.models._deferred import Deferred

__all__ = [
    "DOTALL",
    "IGNORECASE",
    "MULTILINE",
    "REVERSE",
    "V0",
    "V1",
    "VERBOSE",
    "VERSION0",
    "VERSION1",
    "Match",
    "Pattern",
    "compile",
    "error",
    "escape",
]


def compile(pattern: str, flags: int = 0, **options: Any) -> Any:
    """``regex.compile(pattern, flags, **options)``, built on first use."""
    return Deferred(_regex.compile, pattern, flags, options)
