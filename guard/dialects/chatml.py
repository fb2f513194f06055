"""ChatML with the Hermes tool convention (Qwen 2.5 / 3, QwQ, Hermes); summarised in
docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._load import builtin

_DATA = builtin("chatml")
CHATML = _DATA.record
#: ByteDance Seed-OSS's spellings, reserved here (stacks without its parser serve it as
#: ``chatml``) and in ``qwen3_coder`` (its envelope around Qwen3-Coder's call body).
SEED_OSS = _DATA.sets["seed_oss"]
