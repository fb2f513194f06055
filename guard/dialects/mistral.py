"""Mistral AI (Mistral, Mixtral, Ministral, Devstral, Magistral): ``[INST]`` turns, calls after
``[TOOL_CALLS]``, reasoning in ``[THINK]``; summarised in docs/wire-formats.md, "Other dialects".

The record alone runs it: the generic grammar scanner reads its open-ended calls (no closing
marker: a call runs to the next ``[TOOL_CALLS]`` or the end of the output, where the server
consumed the end-of-sequence token ``</s>``) in all three bodies the tokenizer versions write:
a JSON list (v3 to v7), ``NAME[CALL_ID]ID[ARGS]{...}`` (v11) and ``NAME[ARGS]{...}`` (v13 and
later). ``<s>`` and ``</s>`` are not reserved: they are ordinary HTML in answers. The
fill-in-the-middle tokens (``[PREFIX]``, ``[MIDDLE]``, ``[SUFFIX]``) are left out too: a chat
model does not write them, and answers use them as placeholders.
"""

from __future__ import annotations

from guard.dialects._load import builtin

MISTRAL = builtin("mistral").record
