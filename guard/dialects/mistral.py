"""Mistral AI (Mistral, Mixtral, Ministral, Devstral, Magistral): ``[INST]`` turns, calls after
``[TOOL_CALLS]``, reasoning in ``[THINK]``; summarised in docs/wire-formats.md, "Other dialects".

Escaping and detection only: no scanner reads Mistral's raw wire text yet (its calls end at the
end-of-sequence token, ``</s>``, which is not reserved: ``<s>`` and ``</s>`` are ordinary HTML in
answers). The fill-in-the-middle tokens (``[PREFIX]``, ``[MIDDLE]``, ``[SUFFIX]``) are left out
too: a chat model does not write them, and answers use them as placeholders.
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
    # a tool result, or any new user turn, in model output is forged
    result_open=("[TOOL_RESULTS]", "[INST]"),
    thinking=(("[THINK]", "[/THINK]"),),
    family="Mistral AI ([INST] turns, [TOOL_CALLS] calls, [THINK] reasoning)",
    sources=(
        "mistralai/mistral-common src/mistral_common/tokens/tokenizers/base.py (SpecialTokens)",
        "mistralai/mistral-common tokenizer v11 and v13 tekken.json ([ARGS], [CALL_ID], [THINK])",
    ),
)
