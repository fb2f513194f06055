"""What tests, benchmarks and labelled corpora use, and the library itself does not: one
renderer module per dialect (``guard.testing.chatml``, ``guard.testing.harmony``, ...) that
writes tool calls, tool results, reasoning and whole conversations as that dialect's chat
template does (docs/scanners.md, "Renderers"). :func:`renderer` picks one by dialect name."""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["RENDERED_DIALECTS", "renderer"]

#: the dialects with a renderer module (Qwen3-Coder's results and reasoning are ChatML's)
RENDERED_DIALECTS = (
    "anthropic",
    "chatglm3",
    "chatml",
    "deepseek",
    "deepseek_v32",
    "gemma",
    "glm",
    "harmony",
    "kimi",
    "kimi_k3",
    "llama3",
    "minimax",
    "pythonic",
    "qwen3_coder",
)


def renderer(dialect: str) -> ModuleType:
    """The renderer module of ``dialect`` (one of :data:`RENDERED_DIALECTS`).

    Raises:
        ValueError: no renderer for that name.
    """
    if dialect not in RENDERED_DIALECTS:
        known = ", ".join(RENDERED_DIALECTS)
        raise ValueError(f"no renderer for dialect {dialect!r}; expected one of: {known}")
    return importlib.import_module(f"guard.testing.{dialect}")
