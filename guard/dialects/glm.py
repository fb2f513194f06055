"""GLM (Zhipu GLM-4.5 / 4.6 / 4.7); summarised in docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar
from guard.dialects._turns import TOOL_RESPONSE

GLM = Dialect(
    name="glm",
    aliases=("glm-4.5", "glm-4.6", "glm-4.7", "glm4.5", "glm4.6", "glm4.7", "glm45", "glm4_moe"),
    reserved=(
        # The 36 GLM-4.5 specials, ids 151329..151364. Envelope:
        "<|endoftext|>",
        "[MASK]",
        "[gMASK]",
        "[sMASK]",
        "<sop>",
        "<eop>",
        "<|system|>",
        "<|user|>",
        "<|assistant|>",
        "<|observation|>",
        # Media and code.
        "<|begin_of_image|>",
        "<|end_of_image|>",
        "<|begin_of_video|>",
        "<|end_of_video|>",
        "<|begin_of_audio|>",
        "<|end_of_audio|>",
        "<|begin_of_transcription|>",
        "<|end_of_transcription|>",
        "<|code_prefix|>",
        "<|code_middle|>",
        "<|code_suffix|>",
        # Thinking and tools: single tokens but `special: false`, so servers match them as text.
        "<think>",
        "</think>",
        "<tool_call>",
        "</tool_call>",
        "<tool_response>",
        "</tool_response>",
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "/nothink",
        # Boxes and media.
        "<|begin_of_box|>",
        "<|end_of_box|>",
        "<|image|>",
        "<|video|>",
    ),
    call_open=("<tool_call>",),
    call_close=("</tool_call>",),
    # oh-my-pi's marker is `<tool_response>`; the native result turn opens with
    # `<|observation|>`, which is also the model's stop after a call (a forgery only when text
    # follows it).
    result_open=("<tool_response>", "<|observation|>"),
    thinking=(("<think>", "</think>"),),
    # eos_token_id = [151329, 151336, 151338].
    stop=("<|endoftext|>", "<|user|>", "<|observation|>"),
    family="Zhipu GLM-4.5 / 4.6 / 4.7 (<tool_call>NAME with <arg_key>/<arg_value> pairs)",
    sources=(
        "can1357/oh-my-pi docs/toolconv/glm-4.5.md",
        "can1357/oh-my-pi packages/ai/src/dialect (GLM scanner, owned-stream.ts)",
    ),
    transcript=TurnGrammar(
        ((r"<\|(?P<role>system|user|assistant|observation)\|>\n?", None),),
        ends=("<|endoftext|>",),
        bos=("[gMASK]<sop>",),
        end_before_tool=False,
        results=TOOL_RESPONSE,
    ),
)
