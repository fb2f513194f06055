"""Kimi (Moonshot Kimi K2); summarised in docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar
from guard.dialects._turns import ROLE

KIMI = Dialect(
    name="kimi",
    aliases=("kimi-k2", "kimi_k2", "moonshot"),
    reserved=(
        # Named specials of the 256-token block from id 163584.
        "[BOS]",
        "[EOS]",
        "<|im_end|>",
        "<|im_user|>",
        "<|im_assistant|>",
        "<|start_header_id|>",
        "<|end_header_id|>",
        "[EOT]",
        "<|im_system|>",
        "<|tool_calls_section_begin|>",
        "<|tool_calls_section_end|>",
        "<|tool_call_begin|>",
        "<|tool_call_argument_begin|>",
        "<|tool_call_end|>",
        "<|im_middle|>",
        # The singular section spellings some Kimi K2 builds emit (not registered tokens; vLLM
        # and SGLang accept them as section markers).
        "<|tool_call_section_begin|>",
        "<|tool_call_section_end|>",
        "[UNK]",
        "[PAD]",
        # Thinking variants.
        "<think>",
        "</think>",
        # Template-only media markers: not registered tokens, structure all the same.
        "<|media_start|>",
        "<|media_content|>",
        "<|media_pad|>",
        "<|media_end|>",
        # Kimi K3's envelope tokens (see guard/dialects/kimi_k3.py): a user who names the
        # family "kimi" is covered for either generation; the kimi_k3 dialect reads K3's
        # grammar.
        "<|open|>",
        "<|close|>",
        "<|sep|>",
        "<|end_of_msg|>",
    ),
    # tokenization_kimi.py names every unnamed id of the block <|reserved_token_ID|>.
    reserved_patterns=(r"<\|reserved_token_\d{1,6}\|>",),
    call_open=(
        "<|tool_calls_section_begin|>",
        "<|tool_call_section_begin|>",
        "<|tool_call_begin|>",
    ),
    call_close=("<|tool_call_end|>", "<|tool_calls_section_end|>", "<|tool_call_section_end|>"),
    # The native result is `<|im_system|>NAME<|im_middle|>## Return of functions.NAME:IDX`.
    result_open=("<|im_system|>",),
    thinking=(("<think>", "</think>"),),
    stop=("<|im_end|>", "[EOS]"),
    family="Moonshot Kimi K2 (<|tool_calls_section_begin|> token sections, functions.NAME:IDX ids)",
    sources=(
        "can1357/oh-my-pi docs/toolconv/kimi-k2.md",
        "moonshotai Kimi-K2 tokenization_kimi.py",
        "vllm-project/vllm vllm/tool_parsers/kimi_k2_tool_parser.py (singular section spelling)",
        "the kimi_k3 record's sources (K3's envelope tokens)",
    ),
    transcript=TurnGrammar(
        ((rf"<\|im_(?:system|user|assistant)\|>{ROLE}<\|im_middle\|>", None),),
        ends=("<|im_end|>",),
        results=(r"## Return of [^\n]*\n(?P<body>.*)",),
    ),
)
