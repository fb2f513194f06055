"""Dialect scanners: pick one by dialect, register your own (renderers: :mod:`guard.testing`).

:func:`scanner` returns a fresh :class:`~guard.models.Scanner` for a dialect name, alias or
record. guard ships scanners for ``harmony``, ``chatglm3``, ``chatml``, ``llama3``, ``glm``,
``kimi``, ``kimi_k3``, ``deepseek``, ``deepseek_v32``, ``minimax``, ``qwen3_coder``,
``anthropic`` (also ``xml``), ``gemma`` and ``pythonic``; others come from
:func:`register_scanner` or from the ``guard.scanners`` entry point group (name = dialect name,
value = a factory), loaded only when that dialect is asked for. A dialect added with
:func:`guard.dialects.register` that has no scanner of its own gets the generic grammar scanner,
which reads its record (``guard/scanners/_grammar.py``).

A factory is called with the keywords ``start_in_thinking`` and ``tools`` when it takes them (the
built-in scanner classes do); a factory that takes no arguments still works, as long as the
caller does not ask it to start inside reasoning (see :func:`scanner`).

A scanner keeps these laws (docs/scanners.md, "Laws"; tests name them):

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

import inspect
from collections.abc import Callable, Iterable, Mapping
from typing import Any, cast

from guard.dialects import Dialect, get_dialect, registered_dialects
from guard.errors import ConfigError, PluginError, UnknownNameError
from guard.models import Registry, Scanner
from guard.scanners._grammar import grammar_scanner
from guard.scanners._tagged import check_name
from guard.scanners.anthropic import AnthropicScanner
from guard.scanners.chatglm3 import ChatGLM3Scanner
from guard.scanners.chatml import ChatMLScanner
from guard.scanners.deepseek import DeepSeekScanner
from guard.scanners.deepseek_v32 import DeepSeekV32Scanner
from guard.scanners.gemma import GemmaScanner
from guard.scanners.glm import GLMScanner
from guard.scanners.harmony import (
    HarmonyHeader,
    HarmonyScanner,
    parse_header,
)
from guard.scanners.kimi import KimiScanner
from guard.scanners.kimi_k3 import KimiK3Scanner
from guard.scanners.llama3 import Llama3Scanner
from guard.scanners.minimax import MiniMaxScanner
from guard.scanners.pythonic import PythonicScanner
from guard.scanners.qwen3_coder import Qwen3CoderScanner

__all__ = [
    "ENTRY_POINT_GROUP",
    "REGISTRY",
    "AnthropicScanner",
    "ChatGLM3Scanner",
    "ChatMLScanner",
    "DeepSeekScanner",
    "DeepSeekV32Scanner",
    "GLMScanner",
    "GemmaScanner",
    "HarmonyHeader",
    "HarmonyScanner",
    "KimiK3Scanner",
    "KimiScanner",
    "Llama3Scanner",
    "MiniMaxScanner",
    "PythonicScanner",
    "Qwen3CoderScanner",
    "ScannerFactory",
    "available_scanners",
    "check_name",
    "parse_header",
    "register_scanner",
    "scanner",
    "scanner_factory",
]

ENTRY_POINT_GROUP = "guard.scanners"

#: Makes a fresh scanner. Called with no arguments, or with the keywords ``start_in_thinking``
#: (bool) and ``tools`` (OpenAI tool definitions) when it takes them.
ScannerFactory = Callable[..., Scanner]


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


def _factory(name: str, value: object) -> ScannerFactory:
    if not callable(value):
        raise PluginError(f"scanner factory for {name!r} is not callable: {value!r}")
    return cast(ScannerFactory, value)


#: Scanner factories by dialect: built-ins, the ``guard.scanners`` entry point group (name =
#: dialect name, value = a factory, loaded only when that dialect is asked for), and
#: :func:`register_scanner` (which overrides both).
REGISTRY: Registry[ScannerFactory] = Registry(
    "scanner",
    ENTRY_POINT_GROUP,
    {
        "harmony": HarmonyScanner,
        "chatglm3": ChatGLM3Scanner,
        "chatml": ChatMLScanner,
        "llama3": Llama3Scanner,
        "glm": GLMScanner,
        "kimi": KimiScanner,
        "kimi_k3": KimiK3Scanner,
        "deepseek": DeepSeekScanner,
        "deepseek_v32": DeepSeekV32Scanner,
        "minimax": MiniMaxScanner,
        "qwen3_coder": Qwen3CoderScanner,
        "anthropic": AnthropicScanner,
        "gemma": GemmaScanner,
        "pythonic": PythonicScanner,
        # a record alone: its calls are read by the generic grammar scanner
        "lfm2": grammar_scanner(get_dialect("lfm2")),
        "hunyuan": grammar_scanner(get_dialect("hunyuan")),
        "mistral": grammar_scanner(get_dialect("mistral")),
    },
    key=_key,
    check=_factory,
)


def register_scanner(name: str, factory: ScannerFactory) -> None:
    """Make ``scanner(name)`` return ``factory(...)``. Overrides a built-in or entry-point
    scanner of the same name. ``factory`` may take no arguments, or the keywords
    ``start_in_thinking`` and ``tools`` (see :func:`scanner`)."""
    REGISTRY.register(name, factory)


def available_scanners() -> tuple[str, ...]:
    """Dialect names :func:`scanner` can serve (built-in, registered, entry points, and
    registered dialects through the generic grammar scanner)."""
    return tuple(sorted({*REGISTRY.names(), *registered_dialects()}))


def _takes(factory: ScannerFactory, keyword: str) -> bool | None:
    """Whether ``factory`` accepts ``keyword`` (``None``: its signature cannot be read)."""
    try:
        params = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):
        return None
    return any(
        p.kind is inspect.Parameter.VAR_KEYWORD
        or (
            p.name == keyword
            and p.kind in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
        )
        for p in params
    )


def scanner_factory(dialect: str | Dialect) -> ScannerFactory:
    """What makes scanners for ``dialect``: its registered factory, else (for a dialect added
    with :func:`guard.dialects.register`) the generic grammar scanner of its record.

    Raises:
        UnknownNameError: no scanner serves that dialect; the message lists the ones that do.
    """
    key = _key(dialect)
    factory = REGISTRY.find(key)
    if factory is None and key in registered_dialects():
        record = dialect if isinstance(dialect, Dialect) else get_dialect(key)
        factory = grammar_scanner(record)
    if factory is None:
        known = ", ".join(available_scanners())
        raise UnknownNameError(f"no scanner for dialect {key!r}; scanners exist for: {known}")
    return factory


def scanner(
    dialect: str | Dialect,
    *,
    start_in_thinking: bool = False,
    tools: Iterable[Mapping[str, Any]] | None = None,
) -> Scanner:
    """A fresh scanner for ``dialect`` (a name, an alias, or a :class:`Dialect` record).

    Args:
        start_in_thinking: the output starts inside reasoning, because the chat template put the
            opening think tag in the prompt; only the closing tag arrives.
        tools: the OpenAI tool definitions of the request. Formats that send parameter values
            as text (GLM, XML invoke tags, ...) type them by these schemas (``"42"`` becomes 42
            only where the schema says ``integer``); without them values stay strings. A
            factory that does not take ``tools`` gets none.

    Only keywords that differ from their defaults are passed on, so a zero-argument factory
    works for every default call.

    Raises:
        UnknownNameError: no scanner serves that dialect (a ``ValueError``); the message lists
            the ones that do.
        ConfigError: ``start_in_thinking`` was asked of a factory that does not take it, or of a
            dialect without reasoning sections (a ``ValueError``).
        TypeError: ``dialect`` is neither a str nor a Dialect, ``tools`` is not a list of tool
            definitions, or a factory returned something that is not a scanner.
    """
    key = _key(dialect)
    factory = scanner_factory(dialect)
    if tools is not None:
        if isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Iterable):
            raise TypeError(
                f"tools must be a list of OpenAI tool definitions, got {type(tools).__name__}"
            )
        tools = list(tools)
    kwargs: dict[str, Any] = {}
    if start_in_thinking:
        if _takes(factory, "start_in_thinking") is False:
            raise ConfigError(
                f"the scanner factory for {key!r} takes no start_in_thinking keyword, so it"
                " cannot start inside reasoning"
            )
        kwargs["start_in_thinking"] = True
    if tools is not None and _takes(factory, "tools") is not False:
        kwargs["tools"] = tools
    made = factory(**kwargs)
    if not isinstance(made, Scanner):
        raise PluginError(
            f"scanner factory for {key!r} returned {type(made).__name__}, not a Scanner"
        )
    return made
