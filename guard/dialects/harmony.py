"""Harmony (OpenAI gpt-oss, o200k_harmony): docs/wire-formats.md, "Harmony"."""

from __future__ import annotations

from guard.dialects._load import builtin

_DATA = builtin("harmony")
HARMONY = _DATA.record
#: The seven structural tokens, in order of their ids (docs/wire-formats.md, "Special tokens").
CORE = _DATA.sets["core"]
