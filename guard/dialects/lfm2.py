"""Liquid AI LFM2 and LFM2.5: ChatML-like turns and pythonic call lists between tool-call tokens;
summarised in docs/wire-formats.md, "Other dialects".

The record alone runs it: its calls are read by the generic grammar scanner (``call_body=
"pythonic"``), with no scanner class of its own.
"""

from __future__ import annotations

from guard.dialects._load import builtin

_DATA = builtin("lfm2")
LFM2 = _DATA.record
#: The named special tokens, ids 0 to 13 (LiquidAI/LFM2 and LFM2.5 tokenizer_config.json).
LFM2_TOKENS = _DATA.sets["tokens"]
