"""Gemini (hosted, Python tool_code fences) and the Gemma 3 template; summarised in
docs/wire-formats.md, "Other dialects".

Hosted Gemini has no control tokens: its markers are Markdown fences, reserved as text. The
Gemma 3 chat tokens and FunctionGemma's tags are here too, since Gemma 3 can be prompted to speak
the same fences. Gemma 3's documented list-of-calls form (and the model-name entries for Gemma 3)
is :mod:`guard.dialects.pythonic`; FunctionGemma's calls are :mod:`guard.dialects.gemma`.
"""

from __future__ import annotations

from guard.dialects._record import Dialect

GEMINI = Dialect(
    name="gemini",
    reserved=(
        # Textual fences.
        "```tool_code",
        "```tool_outputs",
        # oh-my-pi's own reasoning fence.
        "```thinking",
        # Gemma 3 template tokens (the list beyond the turn tokens is unverified).
        "<bos>",
        "<eos>",
        "<pad>",
        "<unk>",
        "<mask>",
        "<start_of_turn>",
        "<end_of_turn>",
        "<start_of_image>",
        "<end_of_image>",
        "<image_soft_token>",
        # FunctionGemma (second-hand).
        "<start_function_declaration>",
        "<end_function_declaration>",
        "<start_function_call>",
        "<end_function_call>",
        "<start_function_response>",
        "<end_function_response>",
        "<escape>",
    ),
    call_open=("```tool_code",),
    # The call fence closes at the first bare fence (textual, not reserved).
    call_close=("```",),
    result_open=("```tool_outputs",),
    thinking=(("```thinking", "```"),),
    stop=("<end_of_turn>", "<eos>"),
    family="Google Gemini (```tool_code Python calls) and the Gemma 3 chat template",
    sources=("can1357/oh-my-pi docs/toolconv/gemini.md",),
)
