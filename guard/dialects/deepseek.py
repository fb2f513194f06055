"""DeepSeek (V3 / R1 / V3.1 tokens; DSML tags for V3.2 / V4); summarised in
docs/wire-formats.md, "Other dialects".

Two records share DeepSeek's tokenizer (so one reserved set): ``deepseek`` for the tool tokens of
V3, R1 and V3.1, and ``deepseek_v32`` for the DSML tags of V3.2 (and V4, second-hand), whose
result opening is ``<function_results>``. Their records are ``data/deepseek.toml`` and
``data/deepseek_v32.toml``.

The bars in DeepSeek tokens are FULLWIDTH VERTICAL LINE (U+FF5C, ``｜``) and the word separator
is LOWER ONE EIGHTH BLOCK (U+2581, ``▁``); ASCII look-alikes are different text. The exception is
``<|EOT|>``, which uses ASCII bars.
"""

from __future__ import annotations

from guard.dialects._load import builtin

DEEPSEEK = builtin("deepseek").record
DEEPSEEK_V32 = builtin("deepseek_v32").record
