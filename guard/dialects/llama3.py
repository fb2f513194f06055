"""Llama 3 / 3.1 / 3.2 / 3.3 (Meta); summarised in docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._load import builtin

LLAMA3 = builtin("llama3").record
