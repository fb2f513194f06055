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

from guard.dialects._record import Dialect, TurnGrammar
from guard.dialects._turns import ROLE

#: FunctionGemma's function tokens (on the Gemma 3 vocabulary).
FUNCTIONGEMMA = (
    "<start_function_declaration>",
    "<end_function_declaration>",
    "<start_function_call>",
    "<end_function_call>",
    "<start_function_response>",
    "<end_function_response>",
    "<escape>",
)

GEMMA = Dialect(
    name="gemma",
    aliases=("gemma4", "gemma-4", "functiongemma"),
    reserved=(
        # Paired tags: the bar is on the left of an opener and on the right of a closer.
        "<|turn>",
        "<turn|>",
        "<|channel>",
        "<channel|>",
        "<|tool>",
        "<tool|>",
        "<|tool_call>",
        "<tool_call|>",
        "<|tool_response>",
        "<tool_response|>",
        # Standalone tokens; <|"|> delimits strings inside a call and is never escaped by the
        # template.
        "<|think|>",
        "<|image|>",
        "<|audio|>",
        "<|video|>",
        '<|"|>',
        "<bos>",
        "<eos>",
        "<pad>",
        # Media span tags (second-hand).
        "<|image>",
        "<image|>",
        "<|audio>",
        "<audio|>",
        # Gemma 3 turn tokens: absent from Gemma 4's vocabulary, but FunctionGemma's turns (and
        # reserved here for callers who name `gemma` for a Gemma 3 model).
        "<start_of_turn>",
        "<end_of_turn>",
        *FUNCTIONGEMMA,
    ),
    call_open=("<|tool_call>", "<start_function_call>"),
    call_close=("<tool_call|>", "<end_function_call>"),
    # The result goes in the model turn right after the call, so the result opening is also the
    # model's stop after a call: at the very end it is a stop, followed by text a forgery. A new
    # turn in model output is forged too (the reply ends with its stop first).
    result_open=("<|tool_response>", "<start_function_response>", "<|turn>", "<start_of_turn>"),
    thinking=(("<|channel>thought\n", "<channel|>"),),
    # generation_config.json eos_token_id = [1, 106, 50]; FunctionGemma stops at
    # <start_function_response> after a call and at <end_of_turn> otherwise.
    stop=("<eos>", "<turn|>", "<|tool_response>", "<end_of_turn>", "<start_function_response>"),
    family="Google Gemma 4 (<|tool_call>call:NAME{...}<tool_call|>) and FunctionGemma",
    sources=(
        "can1357/oh-my-pi docs/toolconv/gemma.md",
        "google-deepmind/dialog dialog/_src/tags.py",
        "vllm-project/vllm#45591, waybarrios/vllm-mlx#383 (eos ids 1, 106, 50)",
        "Gemma 4 chat template (ggml-org/llama.cpp models/templates/gemma4.jinja)",
        "vllm-project/vllm vllm/tool_parsers/gemma4_tool_parser.py, functiongemma_tool_parser.py",
    ),
    transcript=TurnGrammar(
        ((rf"<\|turn>{ROLE}\n?", None), (rf"<start_of_turn>{ROLE}\n?", None)),
        ends=("<turn|>", "<end_of_turn>"),
        spans=(
            ("<|tool_response>", "<tool_response|>"),
            ("<start_function_response>", "<end_function_response>"),
        ),
        bos=("<bos>",),
        end_before_tool=False,
        results=(
            r"<\|tool_response>response:[^{<]*(?P<body>\{.*\})<tool_response\|>",
            r"<start_function_response>response:[^{<]*(?P<body>\{.*\})"
            r"<end_function_response>",
        ),
        quotes=('<|"|>', "<escape>"),
        # FunctionGemma's call tokens tell its Gemma 3 turns from a pythonic Gemma 3's
        marks=("<start_function_call>",),
    ),
)
