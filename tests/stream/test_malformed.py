"""Issue 33: in raw streams, what a scanner cannot parse (``Malformed``) reaches the reader as
it was written, so it is judged like the text around it: a leak inside it is cut in truncate
mode and reported in report mode, for every scanner that makes ``Malformed`` events, however
the stream is split. Inside an open call it is judged as that call's arguments."""

from __future__ import annotations

from typing import Any

import pytest

from guard import guard_stream
from guard.models import Malformed, Verdict
from guard.scanners import scanner

#: per dialect: text around a stray token the scanner leaves Malformed (the token is the leak)
STRAY = {
    "harmony": "<|return|>",
    "chatglm3": "<|assistant|>",
    "chatml": "</tool_call>",
    "qwen3_coder": "</tool_call>",
    "llama3": "<|end_header_id|>",
    "pythonic": "<|header_end|>",
    "glm": "<|system|>",
    "kimi": "<|im_user|>",
    "kimi_k3": "<|sep|>",
    "deepseek": "<｜User｜>",
    "deepseek_v32": "<｜User｜>",
    "minimax": "]!p~[",
    "gemma": "<channel|>",
    "anthropic": "</function_calls>",
}
BEFORE = "The answer is ready. "
AFTER = " and more words follow here."


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _run(dialect: str, items: list[str], on_leak: Any) -> tuple[str, list[Verdict]]:
    stream = guard_stream(iter(items), dialect=dialect, raw=True, on_leak=on_leak)
    out = "".join(stream)
    return out, list(stream.verdicts)


@pytest.mark.parametrize("dialect", sorted(STRAY))
def test_the_scanner_leaves_the_stray_token_malformed(dialect: str) -> None:
    s = scanner(dialect)
    events = s.feed(BEFORE + STRAY[dialect] + AFTER) + s.flush()
    assert any(isinstance(e, Malformed) and STRAY[dialect] in e.raw for e in events), events


@pytest.mark.parametrize("size", [4096, 5, 1])
@pytest.mark.parametrize("dialect", sorted(STRAY))
def test_a_leak_in_malformed_text_is_judged(dialect: str, size: int) -> None:
    stray = STRAY[dialect]
    text = BEFORE + stray + AFTER
    out, verdicts = _run(dialect, _pieces(text, size), "truncate")
    assert stray not in out, "a token in unparsed text reaches the reader"
    assert out == BEFORE[: len(out)]  # cut at the malformed text, nothing after it
    assert any(v.leak and v.part == "text" for v in verdicts), verdicts
    out, verdicts = _run(dialect, _pieces(text, size), "report")
    assert out == text  # report mode relays everything ...
    [leak] = [v for v in verdicts if v.leak]  # ... and says what leaked
    assert leak.part == "text" and "H" in leak.signals


@pytest.mark.parametrize(
    ("dialect", "part"),
    # MiniMax opens a call at its invoke tag; Anthropic's invoke opens a call only once it
    # closes well-formed, so a malformed one is text
    [("minimax", "tool_arg[0]"), ("anthropic", "text")],
)
def test_malformed_call_bodies_are_judged(dialect: str, part: str) -> None:
    opening = {
        "minimax": '<minimax:tool_call>\n<invoke name="get_weather">',
        "anthropic": '<function_calls>\n<invoke name="get_weather">',
    }[dialect]
    text = f"{opening}not a parameter {STRAY['glm']} at all</invoke>"
    s = scanner(dialect)
    events = s.feed(text) + s.flush()
    assert any(isinstance(e, Malformed) and STRAY["glm"] in e.raw for e in events), events
    for size in (4096, 3):
        out, verdicts = _run(dialect, _pieces(text, size), "report")
        assert out == text
        assert [v.part for v in verdicts if v.leak] == [part]
        out, _ = _run(dialect, _pieces(text, size), "truncate")
        assert STRAY["glm"] not in out
