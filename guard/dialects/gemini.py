"""Gemini (hosted, Python tool_code fences) and the Gemma 3 template; summarised in
docs/wire-formats.md, "Other dialects".

Hosted Gemini has no control tokens: its markers are Markdown fences, reserved as text. The
Gemma 3 chat tokens and FunctionGemma's tags are here too, since Gemma 3 can be prompted to speak
the same fences. Gemma 3's documented list-of-calls form (and the model-name entries for Gemma 3)
is :mod:`guard.dialects.pythonic`; FunctionGemma's calls are :mod:`guard.dialects.gemma`.
"""

from __future__ import annotations

from guard.dialects._load import builtin

GEMINI = builtin("gemini").record
