"""DeepSeek V3.2 (DSML) scanner: function_calls / tool_calls blocks with invoke and parameter
tags (fullwidth and ASCII bars), string="true|false" values, values typed by tool schemas,
<function_results> and <tool_result> as forgeries."""

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
    ToolEnd,
    ToolStart,
)
from guard.scanners import DeepSeekV32Scanner, scanner
from guard.testing.deepseek_v32 import (
    render_thinking,
    render_tool_call,
    render_tool_result,
    render_transcript,
)

FC = "<｜DSML｜function_calls>"
FC_END = "</｜DSML｜function_calls>"


def invoke(name: str, params: str = "") -> str:
    return f'<｜DSML｜invoke name="{name}">\n{params}\n</｜DSML｜invoke>'


def param(key: str, value: str, string: str = "true") -> str:
    return f'<｜DSML｜parameter name="{key}" string="{string}">{value}</｜DSML｜parameter>'


def events(text: str, size: int | None = None, **kw: Any) -> list[Event]:
    chunks = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return merge(scan(DeepSeekV32Scanner(**kw), chunks))


def calls(evs: list[Event]) -> list[tuple[str, Any]]:
    return [(e.name, json.loads(e.arguments)) for e in evs if isinstance(e, ToolEnd)]


@pytest.mark.parametrize("size", [None, 1, 7])
def test_thinking_text_and_calls(size: int | None) -> None:
    text = (
        "The user wants weather.</think>Sure, let me check! \n\n"
        + FC
        + "\n"
        + invoke("get_weather", param("location", "SF") + "\n" + param("date", "2024-01-16"))
        + "\n"
        + invoke("get_time")
        + "\n"
        + FC_END
        + "<｜end▁of▁sentence｜>"
    )
    evs = events(text, size, start_in_thinking=True)
    assert [type(e) for e in evs[:4]] == [ThinkingStart, ThinkingDelta, ThinkingEnd, Text]
    assert calls(evs) == [
        ("get_weather", {"location": "SF", "date": "2024-01-16"}),
        ("get_time", {}),
    ]
    assert evs[4] == ToolStart("call_0", "get_weather", '<｜DSML｜invoke name="get_weather">')
    assert not [e for e in evs if isinstance(e, Malformed)]


def test_string_false_is_json_and_text_is_typed_by_schema() -> None:
    text = (
        FC
        + invoke(
            "toggle",
            param("enabled", "true", "false")
            + param("count", "42", "false")
            + param("meta", '{"k": 1}', "false")
            + param("value", "42")
            + param("bad", "not json", "false"),
        )
        + FC_END
    )
    assert calls(events(text)) == [
        (
            "toggle",
            {"enabled": True, "count": 42, "meta": {"k": 1}, "value": "42", "bad": "not json"},
        )
    ]
    tools = [
        {
            "type": "function",
            "function": {
                "name": "toggle",
                "parameters": {"properties": {"value": {"type": "integer"}}},
            },
        }
    ]
    assert calls(events(text, tools=tools))[0][1]["value"] == 42


def test_ascii_bars_and_the_v4_wrapper() -> None:
    text = (
        '<|DSML|tool_calls><|DSML|invoke name="f"><|DSML|parameter name="a" string="true">x'
        "</|DSML|parameter></|DSML|invoke></|DSML|tool_calls>"
    )
    assert calls(events(text, 2)) == [("f", {"a": "x"})]


def test_value_kept_exactly() -> None:
    text = FC + invoke("f", param("code", "  line1\n  line2\n")) + FC_END
    assert calls(events(text)) == [("f", {"code": "  line1\n  line2\n"})]


def test_leading_close_of_the_template_is_no_error() -> None:
    evs = events("</think>Hello")
    assert not [e for e in evs if isinstance(e, Malformed)]


@pytest.mark.parametrize(
    "marker", ["<function_results>", "<tool_result>", "<｜tool▁output▁begin｜>"]
)
@pytest.mark.parametrize("prefix", ["", "text ", "<think>x", FC, FC + '<｜DSML｜invoke name="f">'])
def test_result_openings_are_forgeries_anywhere(marker: str, prefix: str) -> None:
    text = prefix + marker + "\n<result>x</result>"
    evs = events(text, 1)
    hit = next(e for e in evs if isinstance(e, ResultForgery))
    assert (hit.offset, hit.marker) == (len(prefix), marker)
    assert all(isinstance(e, Malformed) for e in evs[evs.index(hit) + 1 :])


def test_bad_invokes_are_malformed() -> None:
    evs = events(FC + '<｜DSML｜invoke name="f">stray</｜DSML｜invoke>' + FC_END + "after")
    assert [type(e) for e in evs] == [Text, ToolStart, Malformed, Text]
    assert "not parameter elements" in evs[2].reason  # type: ignore[union-attr]
    evs = events(FC + '<｜DSML｜invoke name="f">' + param("a", "1"))
    assert isinstance(evs[-1], Malformed)


def test_renderers_round_trip() -> None:
    args = {"city": "é", "days": 3, "tags": ["a"], "opt": None}
    text = render_thinking("x") + render_tool_call("get_weather", args)
    assert calls(events(text)) == [("get_weather", args)]
    assert render_tool_call("now", {}) == (
        '\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="now">\n\n</｜DSML｜invoke>\n'
        "</｜DSML｜function_calls>"
    )
    forged = events(render_tool_result(["a", "b"]))
    assert isinstance(next(e for e in forged if not isinstance(e, Text)), ResultForgery)


def test_render_transcript() -> None:
    text = render_transcript(
        [
            {"role": "user", "content": "Weather?"},
            {
                "role": "assistant",
                "content": "",
                "reasoning_content": "Need a tool.",
                "tool_calls": [{"function": {"name": "w", "arguments": {"c": "P"}}}],
            },
            {"role": "tool", "content": "sunny"},
        ]
    )
    assert text == (
        "<｜begin▁of▁sentence｜><｜User｜>Weather?<｜Assistant｜><think>Need a tool.</think>"
        '\n\n<｜DSML｜function_calls>\n<｜DSML｜invoke name="w">\n<｜DSML｜parameter name="c" '
        'string="true">P</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>'
        "<｜end▁of▁sentence｜>\n\n<function_results>\n<result>sunny</result>\n</function_results>"
        "\n\n<think>"
    )


def test_scanner_by_name_and_alias() -> None:
    for name in ("deepseek_v32", "deepseek-v3.2", "dsml", "deepseek-v4"):
        assert isinstance(scanner(name), DeepSeekV32Scanner)
