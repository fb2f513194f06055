"""Kimi (Moonshot Kimi K2); summarised in docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._load import builtin

KIMI = builtin("kimi").record
