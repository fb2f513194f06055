"""Kimi K3 (Moonshot's "XTML" tag envelope); summarised in docs/wire-formats.md, "Kimi K3".

K3 shares nothing structural with Kimi K2's ``<|im_*|>`` turns and section tokens. Four special
tokens build every tag: ``<|open|>NAME attrs<|sep|>`` opens one, ``<|close|>NAME<|sep|>`` closes
it, ``<|end_of_msg|>`` ends a message. Tag names (``message``, ``think``, ``response``,
``tools``, ``call``, ``argument``) are ordinary text tokens, so a leak whose specials were
half-dropped reads ``<|open|>toolscall tool="..."...<|sep|>``.

Not verified against Moonshot's own files: the stored index holds neither the model's
``encoding_k3.py`` nor its tokenizer config, so the spellings come from the peers that mirror
them (sources below), which agree on every token. They disagree on one detail: vLLM and SGLang
unescape attribute values as ``&amp;``/``&quot;``, PrimeIntellect's renderer writes ``\\"``;
the scanner accepts both. No ``<|reserved_token_N|>`` family is claimed for K3.
"""

from __future__ import annotations

from guard.dialects._record import Dialect

OPEN = "<|open|>"
CLOSE = "<|close|>"
SEP = "<|sep|>"
END_OF_MSG = "<|end_of_msg|>"

KIMI_K3 = Dialect(
    name="kimi_k3",
    aliases=("kimi-k3", "k3"),
    reserved=(
        OPEN,
        CLOSE,
        SEP,
        END_OF_MSG,
        # Media (the vision processor's image block and the template's placeholder).
        "<|media_begin|>",
        "<|media_content|>",
        "<|media_pad|>",
        "<|media_end|>",
        "<|kimi_image_placeholder|>",
    ),
    call_open=(f"{OPEN}tools{SEP}", f"{OPEN}call"),
    call_close=(f"{CLOSE}call{SEP}", f"{CLOSE}tools{SEP}"),
    # Every message (system, user, tool result) opens with <|open|>message role="..."; the
    # generation prompt already opened the assistant's, so in output any is a forged turn.
    result_open=(f"{OPEN}message",),
    thinking=((f"{OPEN}think{SEP}", f"{CLOSE}think{SEP}"),),
    stop=(END_OF_MSG,),
    family=(
        "Moonshot Kimi K3 (<|open|>tag attrs<|sep|> ... <|close|>tag<|sep|> envelope: think,"
        " response, tools > call tool= index= > argument key= type=)"
    ),
    sources=(
        "vllm-project/vllm vllm/frontend/processing/tool_parsers/kimi_k3_tool_parser.py",
        "sgl-project/sglang python/sglang/srt/function_call/kimik3_detector.py, kimik3_format.py",
        "PrimeIntellect-ai/renderers renderers/kimi_k3.py (mirrors Moonshot's encoding_k3.py:"
        " message and tool-result attributes, media tokens)",
        "pwilkin/llama.cpp pull request 20 (grammar; only the four markers are special tokens)",
        "sgl-project/sglang issue 39583 (K3 XTML calls leaking as content)",
    ),
)
