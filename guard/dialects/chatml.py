"""ChatML with the Hermes tool convention (Qwen 2.5 / 3, QwQ, Hermes); summarised in
docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._load import builtin

CHATML = builtin("chatml").record
