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

from guard.dialects._record import Dialect

MISTRAL = Dialect(
    name="mistral",
    aliases=("mixtral", "ministral", "devstral", "magistral", "codestral", "pixtral"),
    reserved=(
        # mistral-common's SpecialTokens (tokenizer v2 to v7), then v11's call tokens and
        # v13's reasoning tokens.
        "[INST]",
        "[/INST]",
        "[AVAILABLE_TOOLS]",
        "[/AVAILABLE_TOOLS]",
        "[TOOL_RESULTS]",
        "[/TOOL_RESULTS]",
        "[TOOL_CALLS]",
        "[TOOL_CONTENT]",
        "[SYSTEM_PROMPT]",
        "[/SYSTEM_PROMPT]",
        "[IMG]",
        "[IMG_BREAK]",
        "[IMG_END]",
        "[ARGS]",
        "[CALL_ID]",
        "[THINK]",
        "[/THINK]",
    ),
    # `[TOOL_CALLS][{"name": ..., "arguments": ...}]` (v3 to v7) or `[TOOL_CALLS]NAME[ARGS]{...}`
    # (v11 and later), up to the end-of-sequence token
    call_open=("[TOOL_CALLS]",),
    call_args=("[ARGS]",),
    call_id=("[CALL_ID]",),
    # a tool result, or any new user turn, in model output is forged
    result_open=("[TOOL_RESULTS]", "[INST]"),
    thinking=(("[THINK]", "[/THINK]"),),
    family="Mistral AI ([INST] turns, [TOOL_CALLS] calls, [THINK] reasoning)",
    sources=(
        "mistralai/mistral-common src/mistral_common/tokens/tokenizers/base.py (SpecialTokens)",
        "mistralai/mistral-common tokenizer v11 and v13 tekken.json ([ARGS], [CALL_ID], [THINK])",
        "mistralai/mistral-common instruct tokenizer encode of assistant tool calls (v3 to v13)",
        "mistralai Mistral-Small-4 and Ministral-3 chat_template.jinja (tool calls, [THINK])",
    ),
)
