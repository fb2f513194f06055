"""Qwen3-Coder: ChatML with XML-style tool calls inside ``<tool_call>``.

The model writes ``<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n
</function>\\n</tool_call>`` (Qwen3-Coder chat template; vLLM and SGLang ``qwen3_coder`` parsers),
sometimes without the ``<tool_call>`` wrapper. The envelope and its special tokens are Qwen's
ChatML (:mod:`guard.dialects.chatml`); the ``<function=`` / ``<parameter=`` tags are plain text
to the tokenizer, so they are reserved as text.
"""

from __future__ import annotations

from guard.dialects._load import builtin
from guard.dialects.chatml import SEED_OSS

_DATA = builtin("qwen3_coder")
QWEN3_CODER = _DATA.record
#: The XML call tags. ``<function=`` and ``<parameter=`` are open-ended: a name and ``>`` follow.
CALL_TAGS = _DATA.sets["call_tags"]
#: (ByteDance Seed-OSS's spellings, reserved too, are :data:`guard.dialects.chatml.SEED_OSS`,
#: importable from here as before.)
__all__ = ["CALL_TAGS", "QWEN3_CODER", "SEED_OSS"]
