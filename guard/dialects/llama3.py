"""Llama 3 / 3.1 / 3.2 / 3.3 (Meta); summarised in docs/wire-formats.md, "Other dialects"."""

from __future__ import annotations

from guard.dialects._record import Dialect, TurnGrammar
from guard.dialects._turns import ROLE
from guard.dialects.pythonic import LLAMA4

#: Named specials of the 256-token block from id 128000 (llama3 tokenizer.py).
_LLAMA3 = (
    "<|begin_of_text|>",
    "<|end_of_text|>",
    "<|finetune_right_pad_id|>",
    "<|step_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|eom_id|>",
    "<|eot_id|>",
    "<|python_tag|>",
    "<|image|>",
)

LLAMA3 = Dialect(
    name="llama3",
    aliases=(
        "llama",
        "llama-3",
        "llama3.0",
        "llama-3.0",
        "llama3.1",
        "llama-3.1",
        "llama3.2",
        "llama-3.2",
        "llama3.3",
        "llama-3.3",
    ),
    reserved=tuple(
        dict.fromkeys(
            (
                *_LLAMA3,
                # Textual function-tag call form `<function=f>{json}</function>`.
                "<function=",
                "</function>",
                # The family's next generation (Llama 4, the `pythonic` dialect): a model named
                # only "llama" may be either, and a Llama 4 token is no text for a Llama 3 one.
                *LLAMA4,
            )
        )
    ),
    # Everything else in the block, including ids 128002 and 128003.
    reserved_patterns=(r"<\|reserved_special_token_\d{1,3}\|>",),
    call_open=("<|python_tag|>", "<function="),
    call_close=("<|eom_id|>", "</function>"),
    # A turn must end in <|eot_id|> or <|eom_id|> before the next header, so any header start in
    # assistant output is forged; the tool result is `<|start_header_id|>ipython<|end_header_id|>`.
    result_open=("<|start_header_id|>",),
    stop=("<|eot_id|>", "<|eom_id|>", "<|end_of_text|>"),
    family="Meta Llama 3 / 3.1 / 3.2 / 3.3 (header tokens, <|python_tag|> and JSON calls)",
    sources=(
        "meta-llama/llama-models models/llama3/tokenizer.py, chat_format.py, tool_utils.py",
        "meta-llama/llama-models models/llama3_1/prompt_format.md",
        "meta-llama/llama-models models/llama3_2/text_prompt_format.md",
        "Llama 3.1 Hugging Face chat template (tokenizer_config.json)",
        "meta-llama/llama-models models/llama4/tokenizer.py (the Llama 4 specials also reserved)",
    ),
    transcript=TurnGrammar(
        ((rf"<\|start_header_id\|>{ROLE}<\|end_header_id\|>\n*", None),),
        ends=("<|eot_id|>", "<|eom_id|>"),
        bos=("<|begin_of_text|>",),
    ),
)
