"""Liquid AI LFM2 and LFM2.5: ChatML-like turns and pythonic call lists between tool-call tokens;
summarised in docs/wire-formats.md, "Other dialects".

The record alone runs it: its calls are read by the generic grammar scanner (``call_body=
"pythonic"``), with no scanner class of its own.
"""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar
from guard.dialects._turns import CHATML_TURNS

#: The named special tokens, ids 0 to 13 (LiquidAI/LFM2 and LFM2.5 tokenizer_config.json).
LFM2_TOKENS = (
    "<|pad|>",
    "<|startoftext|>",
    "<|endoftext|>",
    "<|fim_pre|>",
    "<|fim_mid|>",
    "<|fim_suf|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|tool_list_start|>",
    "<|tool_list_end|>",
    "<|tool_call_start|>",
    "<|tool_call_end|>",
    "<|tool_response_start|>",
    "<|tool_response_end|>",
)

LFM2 = Dialect(
    name="lfm2",
    aliases=("lfm", "lfm-2", "lfm2.5", "lfm-2.5"),
    # the reasoning tags of LFM2.5's thinking models are written as text: reserved like ChatML's
    reserved=(*LFM2_TOKENS, "<think>", "</think>"),
    # `<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>`, then the answer
    call_open=("<|tool_call_start|>",),
    call_close=("<|tool_call_end|>",),
    call_body="pythonic",
    # the tool result is a `tool` turn (its body between the tool-response tokens): a turn
    # start or a tool-response opening in model output is forged
    result_open=("<|im_start|>", "<|tool_response_start|>"),
    thinking=(("<think>", "</think>"),),
    stop=("<|im_end|>", "<|endoftext|>"),
    family="Liquid AI LFM2 / LFM2.5 (ChatML-like turns, pythonic calls in tool-call tokens)",
    sources=(
        "LiquidAI/LFM2-1.2B and LFM2.5-1.2B-Instruct tokenizer_config.json, chat_template.jinja",
        "Liquid4All/docs lfm/key-concepts/chat-template.md",
        "Liquid4All/docs lfm/key-concepts/tool-use.md",
    ),
    transcript=TurnGrammar(
        CHATML_TURNS,
        ends=("<|im_end|>", "<|endoftext|>"),
        bos=("<|startoftext|>",),
        result_bodies=("<|tool_response_start|>",),
        results=(r"\s*<\|tool_response_start\|>(?P<body>.*?)<\|tool_response_end\|>\s*",),
    ),
)
