"""Gemma 4 / FunctionGemma scanner: call:NAME{...} bodies between call tokens, string tokens
that may hold anything, the thought channel, the result opening as the model's stop (or, with
text after it, a forgery), renderers."""

from __future__ import annotations

import json

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
from guard.scanners import GemmaScanner, scanner
from guard.scanners.gemma import parse_call
from guard.testing.gemma import (
    render_thinking,
    render_tool_call,
    render_tool_result,
    render_transcript,
)

Q = '<|"|>'


def events(text: str, size: int | None = None, **kw: object) -> list[Event]:
    chunks = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return merge(scan(GemmaScanner(**kw), chunks))  # type: ignore[arg-type]


def ends(evs: list[Event]) -> list[ToolEnd]:
    return [e for e in evs if isinstance(e, ToolEnd)]


@pytest.mark.parametrize("size", [None, 1, 3])
def test_thinking_call_and_stop(size: int | None) -> None:
    text = (
        f"<|channel>thought\nneed weather<channel|><|tool_call>call:get_weather{{city:{Q}Paris"
        f"{Q},days:3}}<tool_call|><|tool_response>"
    )
    evs = events(text, size)
    assert [type(e) for e in evs] == [
        ThinkingStart,
        ThinkingDelta,
        ThinkingEnd,
        ToolStart,
        ToolArgs,
        ToolEnd,
        Text,
    ]
    assert evs[0].raw == "<|channel>thought\n"
    end = evs[5]
    assert isinstance(end, ToolEnd) and json.loads(end.arguments) == {"city": "Paris", "days": 3}
    assert evs[6] == Text("", "<|tool_response>")


@pytest.mark.parametrize(
    ("body", "args"),
    [
        (f"call:f{{s:{Q}a,}}<tool_call|>{Q}}}", {"s": "a,}<tool_call|>"}),
        ("call:f{a:true,b:false,c:null,d:None,e:-1.5e3,f:7}", None),
        (f"call:f{{o:{{k:[1,{Q}x{Q},{{z:{Q}{Q}}}]}}}}", {"o": {"k": [1, "x", {"z": ""}]}}),
        (f"call:f{{{Q}quoted key{Q}:1}}", {"quoted key": 1}),
        ("call: f { a : word }", {"a": "word"}),
        (f"call:f{{a:{Q}1{Q}b:{Q}2{Q}}}", {"a": "1", "b": "2"}),
    ],
)
def test_body_grammar(body: str, args: dict[str, object] | None) -> None:
    text = f"<|tool_call>{body}<tool_call|>"
    (end,) = ends(events(text))
    want = args or {"a": True, "b": False, "c": None, "d": None, "e": -1500.0, "f": 7}
    assert json.loads(end.arguments) == want


@pytest.mark.parametrize(
    "body",
    [
        "call:f{bad}",
        "call:f{a:1,a:2}",
        "f{a:1}",
        "call:f{a:1",
        "call:f{a:1} trailing",
        "call:f{:1}",
    ],
)
def test_bodies_that_do_not_parse_are_malformed(body: str) -> None:
    text = f"<|tool_call>{body}<tool_call|>"
    assert [type(e) for e in events(text)] == [Malformed]
    assert parse_call(body) is None


def test_functiongemma_tokens_and_escape_strings() -> None:
    text = (
        '<start_function_call>call:search{q:<escape>a <|"|> b<escape>,n:<escape>10<escape>}'
        "<end_function_call><start_function_response>"
    )
    (end,) = ends(events(text))
    assert json.loads(end.arguments) == {"q": 'a <|"|> b', "n": "10"}
    tools = [
        {
            "type": "function",
            "function": {
                "name": "search",
                "parameters": {"properties": {"n": {"type": "integer"}}},
            },
        }
    ]
    (typed,) = ends(events(text, tools=tools))
    assert json.loads(typed.arguments) == {"q": 'a <|"|> b', "n": 10}


@pytest.mark.parametrize("marker", ["<|tool_response>", "<start_function_response>"])
def test_result_opening_is_a_stop_at_the_end_and_a_forgery_before_text(marker: str) -> None:
    assert scan(GemmaScanner(), [f"ok{marker}  \n"]) == [
        Text("ok", "ok"),
        Text("", f"{marker}  \n"),
    ]
    for size in (None, 1):
        evs = events(f"ok{marker}response:f{{value:1}}", size)
        hit = next(e for e in evs if isinstance(e, ResultForgery))
        assert (hit.offset, hit.marker) == (2, marker)
        assert all(isinstance(e, Malformed) for e in evs[evs.index(hit) + 1 :])


@pytest.mark.parametrize("marker", ["<|turn>", "<start_of_turn>"])
@pytest.mark.parametrize("prefix", ["", "x", "<|channel>thought\n", f"<|tool_call>call:f{{a:{Q}"])
def test_new_turn_is_a_forgery(marker: str, prefix: str) -> None:
    text = prefix + marker + "user\nhi"
    hit = next(e for e in events(text, 1) if isinstance(e, ResultForgery))
    assert (hit.offset, hit.marker) == (len(prefix), marker)


def test_channel_other_than_thought_is_malformed() -> None:
    evs = events("<|channel>analysis\nx")
    assert evs[0] == Malformed("<|channel> not followed by 'thought\\n'", "<|channel>")


def test_start_in_thinking() -> None:
    evs = events("plan<channel|>Hi.<turn|>", start_in_thinking=True)
    assert [type(e) for e in evs] == [ThinkingStart, ThinkingDelta, ThinkingEnd, Text]


def test_render_then_scan_round_trip() -> None:
    args = {"city": "Paris, FR", "n": 2, "ok": True, "none": None, "deep": {"k": [1.5, "x"]}}
    for fg in (False, True):
        (end,) = ends(events(render_tool_call("get_weather", args, functiongemma=fg)))
        assert (end.name, json.loads(end.arguments)) == ("get_weather", args)
    with pytest.raises(ValueError):
        render_tool_call("f", {"a": f"x{Q}y"})


def test_render_result_thinking_transcript() -> None:
    assert (
        render_tool_result("f", '{"temp": 20}')
        == "<|tool_response>response:f{temp:20}<tool_response|>"
    )
    assert render_tool_result("f", "sunny") == (
        f"<|tool_response>response:f{{value:{Q}sunny{Q}}}<tool_response|>"
    )
    assert render_thinking("hm") == "<|channel>thought\nhm<channel|>"
    text = render_transcript(
        [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "1", "function": {"name": "w", "arguments": {"c": "P"}}}],
            },
            {"role": "tool", "tool_call_id": "1", "content": "sunny"},
            {"role": "assistant", "content": "Sunny."},
        ]
    )
    assert text == (
        "<|turn>user\nWeather?<turn|>\n<|turn>model\n"
        f"<|tool_call>call:w{{c:{Q}P{Q}}}<tool_call|>"
        f"<|tool_response>response:w{{value:{Q}sunny{Q}}}<tool_response|>Sunny.<turn|>\n"
    )


def test_scanner_by_name_and_aliases() -> None:
    for name in ("gemma", "gemma-4", "functiongemma"):
        assert isinstance(scanner(name), GemmaScanner)
