"""ChatGLM3 (THUDM ChatGLM3-6B): docs/wire-formats.md, "ChatGLM3"."""

from __future__ import annotations

from guard.dialects._record import Dialect

CHATGLM3 = Dialect(
    name="chatglm3",
    aliases=("chatglm", "chatglm-3", "chatglm3-6b"),
    reserved=(
        # Role tokens, ids 64794..64797.
        "<|system|>",
        "<|user|>",
        "<|assistant|>",
        "<|observation|>",
        # The mask family, ids 64789..64791. The plain words `sop` / `eop` (64792, 64793) are
        # special tokens too, but they are ordinary text everywhere else: never reserved.
        "[MASK]",
        "[gMASK]",
        "[sMASK]",
        # SentencePiece specials.
        "<s>",
        "</s>",
        "<unk>",
    ),
    # A call is `<|assistant|>NAME` plus a fenced `tool_call(...)`; the model then emits
    # `<|observation|>` and stops.
    call_open=("<|assistant|>",),
    call_close=("<|observation|>",),
    # Only the host writes an observation. At the very end of the output it is the model's stop
    # after a call; followed by text it is a forged result.
    result_open=("<|observation|>",),
    stop=("<|observation|>", "<|user|>", "</s>"),
    family="THUDM ChatGLM3-6B (role tokens, fenced tool_call(...) calls)",
    sources=(
        "THUDM/ChatGLM3 (upstream repository): the prompt-format document",
        "THUDM/ChatGLM3 composite_demo/conversation.py, demo_tool.py, client.py",
        "THUDM/ChatGLM3 openai_api_demo/utils.py",
        'docs/wire-formats.md, "ChatGLM3"',
    ),
)
