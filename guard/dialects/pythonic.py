"""Pythonic tool calls: Llama 4 and Gemma 3 write ``[f(a=1), g(b="x")]`` as the whole reply.

The call syntax is a Python list of calls with literal keyword arguments (Llama 4 chat template,
Gemma 3 function-calling guide; vLLM ``pythonic`` / ``llama4_pythonic`` and SGLang
``pythonic`` parsers). It is text to the tokenizer. The reserved spellings are the envelope
tokens of the families that use it: Llama 4 (``<|header_start|>`` turns) and Gemma 3
(``<start_of_turn>`` turns).
"""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar
from guard.dialects._turns import ROLE, TOOL_RESPONSE
from guard.dialects.lfm2 import LFM2_TOKENS

#: Llama 4 named special tokens (meta-llama/llama-models models/llama4/tokenizer.py).
LLAMA4 = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|fim_prefix|>",
    "<|fim_middle|>",
    "<|fim_suffix|>",
    "<|header_start|>",
    "<|header_end|>",
    "<|eom|>",
    "<|eot|>",
    "<|step|>",
    "<|python_start|>",
    "<|python_end|>",
    "<|finetune_right_pad|>",
    "<|image_start|>",
    "<|image_end|>",
    "<|tile_x_separator|>",
    "<|tile_y_separator|>",
    "<|image|>",
    "<|patch|>",
    "<|reasoning_thinking_start|>",
    "<|reasoning_thinking_end|>",
)

#: Gemma 3 chat-template tokens, and the `<tool_response>` wrapper that the pythonic Gemma 3
#: tool template (vLLM examples/tool_chat_template_gemma3_pythonic.jinja) puts around results.
GEMMA3 = (
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
    "<tool_response>",
    "</tool_response>",
)

PYTHONIC = Dialect(
    name="pythonic",
    aliases=("llama4", "llama-4", "gemma3", "gemma-3"),
    # and LFM2's, whose calls are pythonic lists too (its own record, `lfm2`, reads them)
    reserved=tuple(dict.fromkeys((*LLAMA4, *GEMMA3, *LFM2_TOKENS))),
    # The rest of Llama 4's 2048-token special block.
    reserved_patterns=(
        r"<\|(?:text_post_train_|vision_|reasoning_)?reserved_special_token_\d{1,4}\|>",
    ),
    # The call list itself opens with a plain `[`; Llama 4 sometimes wraps it in python tags.
    call_open=("<|python_start|>",),
    call_close=("<|python_end|>",),
    # A reply ends with its stop before any new turn, so a turn start in model output is forged:
    # the tool result is `<|header_start|>ipython<|header_end|>` (Llama 4) or a user turn
    # (`<start_of_turn>user`, Gemma 3), wrapped in `<tool_response>` by the pythonic template.
    result_open=("<|header_start|>", "<start_of_turn>", "<tool_response>"),
    stop=("<|eot|>", "<|eom|>", "<|end_of_text|>", "<end_of_turn>", "<eos>"),
    family="Pythonic call lists [f(a=1), g(b='x')] (Llama 4, Gemma 3; LFM2's tokens reserved)",
    sources=(
        "meta-llama/llama-models models/llama4/tokenizer.py",
        "meta-llama/llama-models models/llama4/prompt_format.md",
        "vllm-project/vllm examples/tool_chat_template_llama4_pythonic.jinja,"
        " tool_chat_template_gemma3_pythonic.jinja",
        "vllm-project/vllm vllm/tool_parsers/pythonic_tool_parser.py,"
        " llama4_pythonic_tool_parser.py",
        "sgl-project/sglang python/sglang/srt/function_call/pythonic_detector.py",
        "Google AI for Developers: Function calling with Gemma",
    ),
    transcript=TurnGrammar(
        (
            (rf"<\|header_start\|>{ROLE}<\|header_end\|>\n*", None),
            (rf"<start_of_turn>{ROLE}\n?", None),
        ),
        ends=("<|eot|>", "<|eom|>", "<end_of_turn>"),
        bos=("<|begin_of_text|>", "<bos>"),
        result_bodies=("<tool_response>",),
        results=TOOL_RESPONSE,
    ),
)
