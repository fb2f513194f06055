"""``guard audit`` sniffs a raw transcript's dialect from the records' turn grammars: a
registered dialect with a ``transcript`` is sniffed like a built-in one, the longest matching
begin-of-text spelling wins, then a grammar's ``marks``, then the table's order."""

from __future__ import annotations

import pytest

from guard.audit._wire import sniff_dialect
from guard.dialects import Dialect, register, unregister
from guard.models import TurnGrammar


@pytest.mark.parametrize(
    ("head", "dialect"),
    [
        ("<|im_start|>user\nhi<|im_end|>", "chatml"),
        ("<|im_start|>user\nhi<|im_end|><|im_start|>assistant\n<function=f>", "qwen3_coder"),
        ("<|startoftext|><|im_start|>user\nhi", "lfm2"),
        ("<bos><start_of_turn>user\nhi", "pythonic"),
        ("<bos><start_of_turn>user\nhi<start_function_call>call:f{}", "gemma"),
        ("<bos><|turn>user\nhi", "gemma"),
        ("<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi", "llama3"),
        ("<|begin_of_text|><|header_start|>user<|header_end|>\n\nhi", "pythonic"),
        ("   \n<|im_user|>user<|im_middle|>hi", "kimi"),
    ],
)
def test_each_built_in_opening_is_sniffed(head: str, dialect: str) -> None:
    assert sniff_dialect(head.encode()) == dialect


def test_a_head_that_opens_no_turn_is_none() -> None:
    assert sniff_dialect(b"<|im_start|>") is None  # an opening without a role
    assert sniff_dialect(b"Hello <|im_start|>user\n") is None


def test_a_registered_dialect_with_a_transcript_is_sniffed() -> None:
    acme = Dialect(
        name="acme_turns",
        reserved=("<<T>>", "<<E>>", "<<BOS>>"),
        stop=("<<E>>",),
        transcript=TurnGrammar(
            ((r"<<T>>(?P<role>[a-z]+)\n", None),), ends=("<<E>>",), bos=("<<BOS>>",)
        ),
    )
    assert sniff_dialect(b"<<BOS>><<T>>user\nhi<<E>>") is None
    register(acme)
    try:
        assert sniff_dialect(b"<<BOS>><<T>>user\nhi<<E>><<T>>assistant\nyo<<E>>") == "acme_turns"
    finally:
        unregister("acme_turns")
