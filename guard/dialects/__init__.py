"""Dialect records: every in-band tool-calling wire format guard knows, as data.

``DIALECTS`` maps each canonical name to its :class:`Dialect`; :func:`get_dialect` also resolves
aliases and the pseudo-dialect ``"all"`` (the union of every reserved set, for when the model
behind an endpoint is unknown).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from types import MappingProxyType

from guard.dialects._model_names import FALLBACK_DIALECT, MODEL_DIALECTS, dialect_for_model
from guard.dialects._record import Dialect
from guard.dialects.anthropic import ANTHROPIC
from guard.dialects.chatglm3 import CHATGLM3
from guard.dialects.chatml import CHATML
from guard.dialects.deepseek import DEEPSEEK, DEEPSEEK_V32
from guard.dialects.gemini import GEMINI
from guard.dialects.gemma import GEMMA
from guard.dialects.glm import GLM
from guard.dialects.harmony import HARMONY
from guard.dialects.kimi import KIMI
from guard.dialects.kimi_k3 import KIMI_K3
from guard.dialects.llama3 import LLAMA3
from guard.dialects.minimax import MINIMAX
from guard.dialects.pythonic import PYTHONIC
from guard.dialects.qwen3_coder import QWEN3_CODER
from guard.errors import UnknownNameError

__all__ = [
    "ALL",
    "DIALECTS",
    "FALLBACK_DIALECT",
    "MODEL_DIALECTS",
    "Dialect",
    "dialect_for_model",
    "get_dialect",
]

DIALECTS: Mapping[str, Dialect] = MappingProxyType(
    {
        d.name: d
        for d in (
            HARMONY,
            CHATGLM3,
            CHATML,
            QWEN3_CODER,
            LLAMA3,
            PYTHONIC,
            DEEPSEEK,
            DEEPSEEK_V32,
            KIMI,
            KIMI_K3,
            GLM,
            GEMMA,
            GEMINI,
            MINIMAX,
            ANTHROPIC,
        )
    }
)

ALL = "all"


def _unique(items: list[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


@cache
def _union() -> Dialect:
    ds = list(DIALECTS.values())
    return Dialect(
        name=ALL,
        reserved=_unique([s for d in ds for s in d.reserved]),
        reserved_patterns=_unique([p for d in ds for p in d.reserved_patterns]),
        escape_patterns=_unique([p for d in ds for p in d.escape_patterns]),
        call_open=_unique([s for d in ds for s in d.call_open]),
        call_close=_unique([s for d in ds for s in d.call_close]),
        result_open=_unique([s for d in ds for s in d.result_open]),
        result_open_patterns=_unique([p for d in ds for p in d.result_open_patterns]),
        thinking=tuple(dict.fromkeys(t for d in ds for t in d.thinking)),
        stop=_unique([s for d in ds for s in d.stop]),
        family="union of every known dialect (model unknown)",
    )


def _alias_table() -> dict[str, str]:
    table: dict[str, str] = {}
    for d in DIALECTS.values():
        for key in (d.name, *d.aliases):
            table[key.lower()] = d.name
    return table


_ALIASES = _alias_table()


def get_dialect(name: str | Dialect) -> Dialect:
    """Return the dialect record called ``name`` (canonical name or alias, any case).

    A :class:`Dialect` passes through unchanged, so callers may hand in their own record.

    Raises:
        TypeError: ``name`` is neither a string nor a Dialect.
        ValueError: no dialect has that name; the message lists the known ones.
    """
    if isinstance(name, Dialect):
        return name
    if not isinstance(name, str):
        raise TypeError(f"dialect must be a str or Dialect, got {type(name).__name__}")
    key = name.strip().lower()
    if key == ALL:
        return _union()
    canonical = _ALIASES.get(key)
    if canonical is None:
        known = ", ".join([*DIALECTS, ALL])
        raise UnknownNameError(f"unknown dialect {name!r}; expected one of: {known}")
    return DIALECTS[canonical]
