"""Surfaces: where a piece of text sits (model output or untrusted input)."""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Surface"]


class Surface(StrEnum):
    """Where a piece of text sits. Model output: ``text``, ``thinking``, ``tool_arg``,
    ``tool_name`` (leak verdicts). Untrusted input: ``user``, ``tool_result`` (injection
    findings, never a leak)."""

    TEXT = "text"
    THINKING = "thinking"
    TOOL_ARG = "tool_arg"
    TOOL_NAME = "tool_name"
    USER = "user"
    TOOL_RESULT = "tool_result"
