"""Gemma 4 (token syntax with half-bar tags); summarised in docs/wire-formats.md, "Other dialects".

Gemma 3 and hosted Gemini (```` ```tool_code ```` fences) are :mod:`guard.dialects.gemini`.
"""

from __future__ import annotations

from guard.dialects._record import Dialect

GEMMA = Dialect(
    name="gemma",
    aliases=("gemma4", "gemma-4"),
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
        # Gemma 3 turn tokens: absent from Gemma 4's vocabulary, reserved here for callers who
        # name `gemma` for a Gemma 3 model.
        "<start_of_turn>",
        "<end_of_turn>",
    ),
    call_open=("<|tool_call>",),
    call_close=("<tool_call|>",),
    # The result goes in the model turn right after the call, so <|tool_response> is also the
    # model's stop after a call: at the very end it is a stop, followed by text a forgery.
    result_open=("<|tool_response>",),
    thinking=(("<|channel>thought\n", "<channel|>"),),
    # generation_config.json eos_token_id = [1, 106, 50].
    stop=("<eos>", "<turn|>", "<|tool_response>"),
    family='Google Gemma 4 (<|tool_call>call:NAME{...}<tool_call|>, <|"|> strings)',
    sources=(
        "can1357/oh-my-pi docs/toolconv/gemma.md",
        "google-deepmind/dialog dialog/_src/tags.py",
        "vllm-project/vllm#45591, waybarrios/vllm-mlx#383 (eos ids 1, 106, 50)",
    ),
)
