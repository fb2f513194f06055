"""Gemma 4 (token syntax with half-bar tags) and FunctionGemma; summarised in
docs/wire-formats.md, "Other dialects".

Both write a call as ``call:NAME{key:value,...}`` between a pair of call tokens, with strings
between delimiter tokens: Gemma 4 ``<|tool_call>call:f{k:<|"|>v<|"|>}<tool_call|>`` (Gemma 4 chat
template; vLLM and SGLang ``gemma4`` parsers), FunctionGemma
``<start_function_call>call:f{k:<escape>v<escape>}<end_function_call>`` (FunctionGemma chat
template; vLLM ``functiongemma`` parser). After its calls the model writes the result opening
itself (``<|tool_response>`` / ``<start_function_response>``) and stops there.

Gemma 3 and hosted Gemini (```` ```tool_code ```` fences) are :mod:`guard.dialects.gemini`.
"""

from __future__ import annotations

from guard.dialects._load import builtin

_DATA = builtin("gemma")
GEMMA = _DATA.record
#: FunctionGemma's function tokens (on the Gemma 3 vocabulary).
FUNCTIONGEMMA = _DATA.sets["functiongemma"]
