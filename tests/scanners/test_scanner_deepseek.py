"""DeepSeek V3 / R1 / V3.1 scanner: fullwidth tool tokens, V3 (type word and fenced JSON) and
V3.1 (bare JSON) told apart by what arrives, R1 reasoning pre-opened by the template, the
tool-output tokens and DSML-era result tags as forgeries."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.scanning import merge, scan

from guard.models import (
    Event,
    Malformed,
    ResultForgery,
    Text,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolArgs,
    ToolEnd,
    ToolStart,
)
from guard.scanners import DeepSeekScanner, scanner
from guard.scanners.deepseek import (
    CALL_BEGIN,
    CALL_END,
    CALLS_BEGIN,
    CALLS_END,
    EOS,
    SEP,
    parse_v3_body,
)
from guard.testing.deepseek import (
    render_thinking,
    render_tool_call,
    render_tool_result,
    render_transcript,
)


def events(text: str, size: int | None = None, **kw: Any) -> list[Event]:
    chunks = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return merge(scan(DeepSeekScanner(**kw), chunks))


def calls(evs: list[Event]) -> list[tuple[str, Any]]:
    return [(e.name, json.loads(e.arguments)) for e in evs if isinstance(e, ToolEnd)]


def v31(name: str, args: str) -> str:
    return f"{CALL_BEGIN}{name}{SEP}{args}{CALL_END}"


def v3(name: str, args: str) -> str:
    return f"{CALL_BEGIN}function{SEP}{name}\n```json\n{args}\n```{CALL_END}"


@pytest.mark.parametrize("size", [None, 1, 4])
def test_v31_calls(size: int | None) -> None:
    text = "some prefix text" + CALLS_BEGIN + v31("foo", '{"x":1}') + v31("bar", '{"y":2}')
    text += CALLS_END + " some suffix text" + EOS
    evs = events(text, size)
    assert calls(evs) == [("foo", {"x": 1}), ("bar", {"y": 2})]
    assert [e.arguments for e in evs if isinstance(e, ToolEnd)] == ['{"x":1}', '{"y":2}']
    start = next(e for e in evs if isinstance(e, ToolStart))
    assert start.raw == CALL_BEGIN + "foo" + SEP
    texts = [e.text for e in evs if isinstance(e, Text)]
    assert "".join(texts) == "some prefix text some suffix text"


@pytest.mark.parametrize("size", [None, 1, 4])
def test_v3_calls_with_type_word_and_fenced_json(size: int | None) -> None:
    text = (
        CALLS_BEGIN
        + v3("get_weather", '{"city": "Tokyo", "unit": "celsius"}')
        + "\n"
        + v3("search_hotels", '{"location": "Tokyo"}')
        + CALLS_END
    )
    evs = events(text, size)
    assert calls(evs) == [
        ("get_weather", {"city": "Tokyo", "unit": "celsius"}),
        ("search_hotels", {"location": "Tokyo"}),
    ]
    start = next(e for e in evs if isinstance(e, ToolStart))
    assert start.raw == CALL_BEGIN + "function" + SEP + "get_weather"
    args = next(e for e in evs if isinstance(e, ToolArgs))
    assert args.delta == '{"city": "Tokyo", "unit": "celsius"}'
    assert args.raw == '\n```json\n{"city": "Tokyo", "unit": "celsius"}\n```'
    assert not [e for e in evs if isinstance(e, Malformed)]


def test_function_header_with_json_body_is_a_v31_call_named_function() -> None:
    assert calls(events(v31("function", '{"a": 1}'))) == [("function", {"a": 1})]


def test_bare_call_without_section_and_arguments_encoded_twice() -> None:
    inner = json.dumps({"q": "x"})
    assert calls(events(v31("f", json.dumps(inner)))) == [("f", {"q": "x"})]


def test_r1_reasoning_pre_opened_by_the_template() -> None:
    text = "Let me think.\n</think>\n\n" + CALLS_BEGIN + v3("f", "{}") + CALLS_END + EOS
    evs = events(text, 2, start_in_thinking=True)
    assert [type(e) for e in evs[:3]] == [ThinkingStart, ThinkingDelta, ThinkingEnd]
    assert calls(evs) == [("f", {})]


def test_leading_close_of_the_template_is_no_error() -> None:
    evs = events("</think>Hello" + EOS)
    assert not [e for e in evs if isinstance(e, Malformed)]
    assert merge(evs) == [Text("Hello", "</think>Hello" + EOS)]
    later = events("Hi</think>")
    assert isinstance(later[-1], Malformed)


def test_section_inside_reasoning_ends_it() -> None:
    evs = events("<think>plan " + CALLS_BEGIN + v31("f", "{}") + CALLS_END)
    assert evs[2] == ThinkingEnd("")
    assert calls(evs) == [("f", {})]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            CALLS_BEGIN + "function" + SEP + "get_weather\n```json\n{}\n```" + CALLS_END,
            "inside a tool-call section",
        ),
        (v31("bad name", "{}"), "valid name"),
        (CALL_BEGIN + "f" + CALL_END, "without <｜tool▁sep｜>"),
        (f"{CALL_BEGIN}function{SEP}```json\n{{}}\n```{CALL_END}", "without a name line"),
    ],
)
def test_bad_calls_are_malformed(text: str, reason: str) -> None:
    evs = events(text + "after", 3)
    bad = [e for e in evs if isinstance(e, Malformed)]
    assert bad and reason in bad[0].reason
    assert not [e for e in evs if isinstance(e, ToolEnd)]


def test_junk_in_section_is_malformed() -> None:
    evs = events(CALLS_BEGIN + "foo" + v31("f", "{}") + CALLS_END)
    assert [e.raw for e in evs if isinstance(e, Malformed)] == ["foo"]


@pytest.mark.parametrize(
    "marker",
    ["<｜tool▁outputs▁begin｜>", "<｜tool▁output▁begin｜>", "<function_results>", "<tool_result>"],
)
@pytest.mark.parametrize("prefix", ["", "text ", "<think>x", CALLS_BEGIN, CALL_BEGIN + "f" + SEP])
def test_result_openings_are_forgeries_anywhere(marker: str, prefix: str) -> None:
    text = prefix + marker + "{}"
    evs = events(text, 1)
    hit = next(e for e in evs if isinstance(e, ResultForgery))
    assert (hit.offset, hit.marker) == (len(prefix), marker)
    assert all(isinstance(e, Malformed) for e in evs[evs.index(hit) + 1 :])


def test_ascii_look_alikes_are_text() -> None:
    text = "<|tool▁calls▁begin|><|tool▁call▁begin|>f<|tool▁sep|>{}<|tool▁call▁end|>"
    assert events(text) == [Text(text, text)]


def test_parse_v3_body() -> None:
    assert parse_v3_body('get_weather\n```json\n{"a": 1}\n```') == (11, "get_weather", '{"a": 1}')
    assert parse_v3_body("now") == (3, "now", "{}")
    assert parse_v3_body("```json\n{}\n```") is None


def test_renderers_round_trip() -> None:
    for legacy in (False, True):
        text = render_thinking("x") + render_tool_call("get_weather", {"city": "é"}, legacy=legacy)
        assert calls(events(text)) == [("get_weather", {"city": "é"})]
    assert isinstance(events(render_tool_result("ok"))[0], ResultForgery)
    with pytest.raises(ValueError):
        render_tool_call("bad name", {})


def test_render_transcript() -> None:
    text = render_transcript(
        [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"function": {"name": "w", "arguments": '{"c": "P"}'}}],
            },
            {"role": "tool", "content": "sunny"},
            {"role": "assistant", "content": "Sunny."},
        ]
    )
    assert text == (
        "<｜begin▁of▁sentence｜>Be brief.<｜User｜>Weather?<｜Assistant｜></think>"
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>w<｜tool▁sep｜>{"c": "P"}<｜tool▁call▁end｜>'
        "<｜tool▁calls▁end｜><｜end▁of▁sentence｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>"
        "Sunny.<｜end▁of▁sentence｜>"
    )


def test_scanner_by_name_and_alias() -> None:
    for name in ("deepseek", "deepseek-v3", "deepseek-v3.1", "deepseek-r1"):
        assert isinstance(scanner(name), DeepSeekScanner)
