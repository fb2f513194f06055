"""Qwen3-Coder scanner: XML calls inside <tool_call> and bare, values trimmed of one newline each
side, typed only by the tools schemas, nested calls quoted in values, forgery, renderers."""

from __future__ import annotations

import json

import pytest
from support.scanning import merge, scan, split

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
from guard.scanners import ChatMLScanner, Qwen3CoderScanner, scanner
from guard.testing.qwen3_coder import (
    render_thinking,
    render_tool_call,
    render_tool_result,
    render_transcript,
)

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "edit",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "line": {"type": "integer"},
                    "dry": {"type": "boolean"},
                    "opts": {"type": "object"},
                },
            },
        },
    }
]


def events(text: str, size: int | None = None, **kw: object) -> list[Event]:
    chunks = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return merge(scan(Qwen3CoderScanner(**kw), chunks))  # type: ignore[arg-type]


def ends(evs: list[Event]) -> list[ToolEnd]:
    return [e for e in evs if isinstance(e, ToolEnd)]


@pytest.mark.parametrize("size", [None, 1, 4])
def test_wrapped_call_events_and_raw(size: int | None) -> None:
    text = (
        "Reading it.\n<tool_call>\n<function=edit>\n<parameter=path>\nsrc/a.py\n</parameter>\n"
        "<parameter=line>\n12\n</parameter>\n</function>\n</tool_call><|im_end|>"
    )
    evs = events(text, size)
    assert [type(e) for e in evs] == [Text, ToolStart, ToolArgs, ToolEnd, Text]
    start, args, end = evs[1], evs[2], evs[3]
    assert isinstance(start, ToolStart) and start.raw == "<tool_call>\n<function=edit>"
    assert isinstance(end, ToolEnd) and end.raw == "</function>\n</tool_call>"
    assert end.arguments == '{"path": "src/a.py", "line": "12"}'
    assert isinstance(args, ToolArgs) and args.delta == end.arguments
    assert evs[4] == Text("", "<|im_end|>")


def test_values_are_typed_only_by_the_schema() -> None:
    text = (
        "<function=edit>\n<parameter=line>\n12\n</parameter>\n<parameter=path>\n12\n</parameter>\n"
        '<parameter=dry>\nTrue\n</parameter>\n<parameter=opts>\n{"a": [1]}\n</parameter>\n'
        "<parameter=extra>\n7\n</parameter>\n</function>"
    )
    (untyped,) = ends(events(text))
    assert json.loads(untyped.arguments)["line"] == "12"
    (typed,) = ends(events(text, tools=TOOLS))
    assert json.loads(typed.arguments) == {
        "line": 12,
        "path": "12",
        "dry": True,
        "opts": {"a": [1]},
        "extra": "7",
    }


def test_one_newline_trimmed_on_each_side() -> None:
    (end,) = ends(events("<function=f><parameter=a>\n\n two \n\n</parameter></function>"))
    assert json.loads(end.arguments) == {"a": "\n two \n"}


def test_value_may_hold_any_tag_but_its_closer() -> None:
    # A bare </tool_call> in a wrapped call's value now ends the call (issue 30, item 8):
    # see test_missing_parameter_closer_is_confined_to_its_call.
    value = "x </function> <tool_call> <function=g> y"
    text = f"<tool_call>\n<function=f>\n<parameter=a>\n{value}\n</parameter>\n</function>\n"
    text += "</tool_call>"
    (end,) = ends(events(text))
    assert json.loads(end.arguments) == {"a": value}


def test_a_quoted_call_inside_a_value_nests() -> None:
    quoted = "<tool_call>\n<function=g>\n<parameter=x>\n1\n</parameter>\n</function>\n</tool_call>"
    text = f"<function=write>\n<parameter=content>\n{quoted}\n</parameter>\n</function>"
    (end,) = ends(events(text))
    assert (end.name, json.loads(end.arguments)) == ("write", {"content": quoted})


def test_missing_parameter_closer_is_malformed_not_a_misparse() -> None:
    text = (
        "<tool_call>\n<function=f>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n"
        "</parameter>\n</function>\n</tool_call>"
    )
    evs = events(text)
    assert not ends(evs)
    assert [type(e) for e in evs] == [Malformed]


def test_missing_tool_call_closer_is_tolerated() -> None:
    evs = events("<tool_call>\n<function=f>\n</function>\nDone.")
    assert [type(e) for e in evs] == [ToolStart, ToolArgs, ToolEnd, Text]
    assert evs[2].raw == "</function>\n"


@pytest.mark.parametrize(
    "text",
    [
        "<tool_call>\n<function=a b>\n</function>\n</tool_call>",
        "<function=f>\n<parameter=a>\n1\n</parameter>\nstray\n</function>",
        "<function=f><parameter=a>1</parameter><parameter=a>2</parameter></function>",
        "<function=f><parameter=x y>1</parameter></function>",
    ],
)
def test_bad_calls_are_malformed_with_their_raw_text(text: str) -> None:
    evs = events(text)
    assert not ends(evs)
    assert any(isinstance(e, Malformed) for e in evs)
    assert "".join(e.raw for e in evs) == text


def test_json_body_still_read_in_the_wrapper() -> None:
    (end,) = ends(events('<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call>'))
    assert (end.name, end.arguments) == ("f", '{"a": 1}')


@pytest.mark.parametrize("marker", ["<tool_response>", "<|im_start|>"])
@pytest.mark.parametrize(
    "prefix", ["", "text ", "<think>x", "<function=f>\n<parameter=a>\nv", "<tool_call>\n"]
)
def test_forgery_anywhere(marker: str, prefix: str) -> None:
    text = prefix + marker + "user\n{}"
    for size in (None, 1):
        evs = events(text, size)
        hit = next(e for e in evs if isinstance(e, ResultForgery))
        assert (hit.offset, hit.marker) == (len(prefix), marker)
        assert all(isinstance(e, Malformed) for e in evs[evs.index(hit) + 1 :])


def test_start_in_thinking() -> None:
    evs = events("plan</think>\n<function=f></function>", start_in_thinking=True)
    assert [type(e) for e in evs] == [
        ThinkingStart,
        ThinkingDelta,
        ThinkingEnd,
        Text,
        ToolStart,
        ToolArgs,
        ToolEnd,
    ]


def test_chatml_reads_wrapped_xml_but_not_bare_functions() -> None:
    wrapped = "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
    (end,) = ends(merge(scan(ChatMLScanner(), [wrapped])))
    assert (end.name, end.arguments) == ("f", '{"a": "1"}')
    bare = "<function=f></function>"
    assert merge(scan(ChatMLScanner(), [bare])) == [Text(bare, bare)]


def test_render_then_scan_round_trip() -> None:
    args = {"path": "a\nb", "line": 3, "dry": False, "opts": {"k": [1, None]}}
    text = render_tool_call("edit", args)
    assert text.startswith("<tool_call>\n<function=edit>\n<parameter=path>\na\nb\n</parameter>")
    (end,) = ends(events(text, tools=TOOLS))
    assert (end.name, json.loads(end.arguments)) == ("edit", args)
    with pytest.raises(ValueError):
        render_tool_call("f", {"a": "x</parameter>"})
    with pytest.raises(ValueError):
        render_tool_call("bad name", {})


def test_render_result_thinking_transcript() -> None:
    result = render_tool_result("f", {"ok": True})
    assert result == '<tool_response>\n{"ok": true}\n</tool_response>'
    assert render_thinking("hm") == "<think>\nhm\n</think>\n\n"
    text = render_transcript(
        [
            {"role": "user", "content": "hi"},
            {
                "role": "assistant",
                "content": "Sure.",
                "tool_calls": [{"id": "1", "function": {"name": "f", "arguments": '{"a": 1}'}}],
            },
            {"role": "tool", "tool_call_id": "1", "content": "ok"},
            {"role": "tool", "tool_call_id": "1", "content": "again"},
            {"role": "assistant", "content": "Done."},
        ]
    )
    assert text == (
        "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\nSure.\n"
        "<tool_call>\n<function=f>\n<parameter=a>\n1\n</parameter>\n</function>\n</tool_call>"
        "<|im_end|>\n<|im_start|>user\n<tool_response>\nok\n</tool_response>\n"
        "<tool_response>\nagain\n</tool_response><|im_end|>\n"
        "<|im_start|>assistant\nDone.<|im_end|>\n"
    )


def test_scanner_by_name_and_alias() -> None:
    for name in ("qwen3_coder", "qwen3-coder", "Qwen3Coder"):
        assert isinstance(scanner(name), Qwen3CoderScanner)


def _every_split(text: str) -> list[list[Event]]:
    runs = [events(text)]
    runs += [merge(scan(Qwen3CoderScanner(), split(text, [k]))) for k in range(1, len(text))]
    return runs


@pytest.mark.parametrize(
    ("text", "calls", "malformed"),
    [
        # Wrapped: the parameter lacks </parameter>; its call ends at its own </tool_call>, the
        # text and the call after it are read on their own (issue 30, item 8).
        (
            "<tool_call>\n<function=f>\n<parameter=a>\nv\n</function>\n</tool_call>\nDone. "
            "<tool_call>\n<function=g>\n<parameter=b>\n1\n</parameter>\n</function>\n"
            "</tool_call>",
            [("g", {"b": "1"})],
            "<tool_call>\n<function=f>\n<parameter=a>\nv\n</function>\n</tool_call>",
        ),
        # Bare: confined to its own </function>.
        (
            "<function=f>\n<parameter=a>\nv\n</function>\nDone. "
            "<function=g>\n<parameter=b>\n1\n</parameter>\n</function>",
            [("g", {"b": "1"})],
            "<function=f>\n<parameter=a>\nv\n</function>",
        ),
        # A call quoted in the value keeps its closers; the value ends at </parameter>.
        (
            "<tool_call>\n<function=w>\n<parameter=c>\n<tool_call>\n<function=g>\n"
            "</function>\n</tool_call>\n</parameter>\n</function>\n</tool_call>",
            [("w", {"c": "<tool_call>\n<function=g>\n</function>\n</tool_call>"})],
            None,
        ),
    ],
)
def test_missing_parameter_closer_is_confined_to_its_call(
    text: str, calls: list[tuple[str, dict[str, str]]], malformed: str | None
) -> None:
    for evs in _every_split(text):
        assert "".join(e.raw for e in evs) == text
        assert [(e.name, json.loads(e.arguments)) for e in ends(evs)] == calls
        bad = [e.raw for e in evs if isinstance(e, Malformed)]
        assert bad == ([malformed] if malformed else [])
        said = "".join(e.text for e in evs if isinstance(e, Text))
        assert ("Done." in said) == (malformed is not None)
