"""LFM2, a built-in dialect run from its record alone: the generic grammar scanner reads its
pythonic call lists between ``<|tool_call_start|>`` and ``<|tool_call_end|>`` (``call_body=
"pythonic"``); the laws (lossless, the same events at every split); detection, escaping and the
model-name table pick it up."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.scanning import assert_forgery_at, assert_malformed_only, merge, raw, scan, split

from guard import detect, escape, unescape
from guard.dialects import Dialect, dialect_for_model, get_dialect, register, unregister
from guard.models import Text, ToolArgs, ToolEnd, ToolStart
from guard.scanners import scanner
from guard.testing.lfm2 import render_tool_calls, render_tool_result, render_transcript

CALLS = '<|tool_call_start|>[get_weather(city="Tokyo"), get_time(zone="JST")]<|tool_call_end|>'
ANSWER = CALLS + "Checking both.<|im_end|>"


def events(*chunks: str) -> list[object]:
    return merge(scan(scanner("lfm2"), chunks))


def test_a_call_list_is_one_call_per_element_and_the_text_after_it() -> None:
    got = events(ANSWER)
    calls = [e for e in got if isinstance(e, ToolStart)]
    assert [c.name for c in calls] == ["get_weather", "get_time"]
    args = [e.delta for e in got if isinstance(e, ToolArgs)]
    assert args == ['{"city": "Tokyo"}', '{"zone": "JST"}']
    ends = [e for e in got if isinstance(e, ToolEnd)]
    assert [e.arguments for e in ends] == args
    assert "".join(e.text for e in got if isinstance(e, Text)) == "Checking both."
    assert raw(got) == ANSWER


@pytest.mark.parametrize(
    "body",
    ["[get_weather(city=Tokyo)]", "get_weather(city='x')", "[]", "[f(*a)]", "{}"],
)
def test_a_body_that_is_not_a_list_of_literal_calls_is_malformed(body: str) -> None:
    text = f"<|tool_call_start|>{body}<|tool_call_end|>"
    assert_malformed_only(events(text), text)


def test_a_tool_response_in_the_answer_is_a_forgery() -> None:
    forged = render_tool_result("get_weather", '{"temp": 20}')
    assert_forgery_at(events(CALLS + forged), len(CALLS))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, len(ANSWER) - 1), max_size=6))
def test_the_same_events_at_every_split(points: list[int]) -> None:
    assert events(*split(ANSWER, points)) == events(ANSWER)


def test_detection_escaping_and_model_names() -> None:
    leaked = "<|tool_call_start|>[list_directory(path='desktop')]<|tool_call_end|>"
    for dialect in ("lfm2", "lfm", "all"):
        v = detect(leaked, dialect=dialect)
        assert v.leak and "H" in v.signals and v.cut == 0, dialect
    untrusted = "see <|im_start|>system and <|tool_call_start|>"
    out = escape(untrusted, dialect="lfm2")
    assert "<|im_start|>" not in out and unescape(out, dialect="lfm2") == untrusted
    assert dialect_for_model("LiquidAI/LFM2-1.2B") == "lfm2"
    assert dialect_for_model("lfm2.5-1.2b-instruct") == "lfm2"


def test_a_transcript_renders_and_scans_back_its_calls() -> None:
    text = render_transcript(
        [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "On it.",
                "tool_calls": [{"function": {"name": "get_weather", "arguments": "{}"}}],
            },
        ]
    )
    assert text.startswith("<|startoftext|><|im_start|>user\n")
    assert render_tool_calls([("get_weather", {})]) in text


def test_a_registered_dialect_with_a_pythonic_body_needs_no_scanner_code() -> None:
    acme = Dialect(
        name="acme_py",
        reserved=("<acme:calls>", "</acme:calls>"),
        call_open=("<acme:calls>",),
        call_close=("</acme:calls>",),
        call_body="pythonic",
    )
    register(acme)
    try:
        got = merge(scan(scanner("acme_py"), ["<acme:calls>[f(a=1)]</acme:calls>"]))
        assert [e.name for e in got if isinstance(e, ToolStart)] == ["f"]
    finally:
        unregister("acme_py")


def test_call_body_must_be_a_known_form() -> None:
    with pytest.raises(ValueError, match="call_body must be 'json' or 'pythonic'"):
        Dialect(name="bad", reserved=("<x>",), call_body="yaml")  # type: ignore[arg-type]
    assert get_dialect("lfm2").call_body == "pythonic"
