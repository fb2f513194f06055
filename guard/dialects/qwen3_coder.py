"""Qwen3-Coder: ChatML with XML-style tool calls inside ``<tool_call>``.

The model writes ``<tool_call>\\n<function=NAME>\\n<parameter=KEY>\\nVALUE\\n</parameter>\\n
</function>\\n</tool_call>`` (Qwen3-Coder chat template; vLLM and SGLang ``qwen3_coder`` parsers),
sometimes without the ``<tool_call>`` wrapper. The envelope and its special tokens are Qwen's
ChatML (:mod:`guard.dialects.chatml`); the ``<function=`` / ``<parameter=`` tags are plain text
to the tokenizer, so they are reserved as text.
"""

from __future__ import annotations

from guard.dialects._record import Dialect
from guard.dialects._turns import chatml_transcript
from guard.dialects.chatml import CHATML

#: The XML call tags. ``<function=`` and ``<parameter=`` are open-ended: a name and ``>`` follow.
CALL_TAGS = ("<function=", "</function>", "<parameter=", "</parameter>")
#: ByteDance Seed-OSS writes the same call body in its own envelope
#: (``<seed:tool_call><function=NAME>...</seed:tool_call>``, ``<seed:think>`` reasoning,
#: ``<seed:bos>ROLE`` turns): its spellings are reserved here too (llama.cpp and vLLM
#: ``seed_oss`` parsers; Seed-OSS-36B chat template)
SEED_OSS = (
    "<seed:bos>",
    "<seed:eos>",
    "<seed:pad>",
    "<seed:think>",
    "</seed:think>",
    "<seed:cot_budget_reflect>",
    "</seed:cot_budget_reflect>",
    "<seed:tool_call>",
    "</seed:tool_call>",
)

QWEN3_CODER = Dialect(
    name="qwen3_coder",
    aliases=("qwen3-coder", "qwen3coder", "qwen3_xml"),
    reserved=(*CHATML.reserved, *CALL_TAGS, *SEED_OSS),
    call_open=("<tool_call>", "<function="),
    call_close=("</tool_call>", "</function>"),
    # As for ChatML: the result goes in a user turn (`<|im_start|>user\n<tool_response>`), and any
    # new turn in assistant output is forged.
    result_open=CHATML.result_open,
    thinking=CHATML.thinking,
    stop=CHATML.stop,
    family="Qwen3-Coder (ChatML with <tool_call><function=NAME><parameter=KEY> calls; Seed-OSS's"
    " tokens reserved)",
    sources=(
        "Qwen3-Coder chat template (vllm-project/vllm"
        " examples/tool_chat_template_qwen3coder.jinja)",
        "vllm-project/vllm vllm/tool_parsers/qwen3coder_tool_parser.py",
        "sgl-project/sglang python/sglang/srt/function_call/qwen3_coder_detector.py",
        "ggml-org/llama.cpp common/chat-parsers (seed_oss); vllm-project/vllm seed_oss parsers",
    ),
    # its calls' XML body tells its transcripts from ChatML's
    transcript=chatml_transcript(marks=("<function=",)),
)
