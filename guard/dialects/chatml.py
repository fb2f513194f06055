"""ChatML with the Hermes tool convention (Qwen 2.5 / 3, QwQ, Hermes); summarised in
docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._record import Dialect
from guard.dialects._turns import chatml_transcript

CHATML = Dialect(
    name="chatml",
    aliases=("qwen", "qwen2", "qwen2.5", "qwen3", "qwq", "hermes"),
    reserved=(
        # Qwen3 tokenizer_config.json, ids 151643..151668, special: true.
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<|object_ref_start|>",
        "<|object_ref_end|>",
        "<|box_start|>",
        "<|box_end|>",
        "<|quad_start|>",
        "<|quad_end|>",
        "<|vision_start|>",
        "<|vision_end|>",
        "<|vision_pad|>",
        "<|image_pad|>",
        "<|video_pad|>",
        # special: false: they survive skip_special_tokens and are matched as text.
        "<tool_call>",
        "</tool_call>",
        "<|fim_prefix|>",
        "<|fim_middle|>",
        "<|fim_suffix|>",
        "<|fim_pad|>",
        "<|repo_name|>",
        "<|file_sep|>",
        "<tool_response>",
        "</tool_response>",
        "<think>",
        "</think>",
        # Hermes system-prompt tool block (not a Qwen3 token; textual structure).
        "<tools>",
        "</tools>",
    ),
    call_open=("<tool_call>",),
    call_close=("</tool_call>",),
    # An assistant turn must end with <|im_end|> (the stop) before any new turn, so any
    # <|im_start|> in assistant output is forged; it covers `<|im_start|>user\n<tool_response>`
    # (Qwen) and `<|im_start|>tool` (Hermes).
    result_open=("<tool_response>", "<|im_start|>"),
    thinking=(("<think>", "</think>"),),
    stop=("<|im_end|>", "<|endoftext|>"),
    family="ChatML envelope with Hermes <tool_call> tags (Qwen 2.5 / 3, QwQ, Hermes 2 Pro / 3)",
    sources=(
        "Qwen3 tokenizer_config.json",
        "NousResearch/Hermes-Function-Calling README.md",
        "can1357/oh-my-pi docs/toolconv/qwen3.md",
    ),
    transcript=chatml_transcript(),
)
