"""The fast path for clean OpenAI chat records (guard/audit/_fast.py) never changes a report:
a chunk of generated lines (clean and dirty records, odd shapes, bad types, unknown roles,
declared tools, invalid JSON and UTF-8) gives the same result with it as without it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.audit._fast import clean_records
from guard.audit._units import Unit, _collector, run_json_lines
from guard.gate import DEFAULT_POLICY

_CLEAN = st.sampled_from(["", "plain words.", "read_file", "x" * 2100])
_TEXTS = (
    _CLEAN
    | _CLEAN
    | st.sampled_from(
        [
            "",
            "plain words.",
            "The user wants the file. We need to read it.",
            "   final answer",
            "<|start|>assistant<|channel|>final",
            "Done. to=functions.read_file",
            "x" * 2100 + '{"name": "f"}',
            '{"name": "f"}' + "x" * 2100,
            "ｔｏ＝functions.x naïve",
            "read_file",
            "get weather",
            "read_file<|channel|>commentary",
            "assistantfinal",
        ]
    )
)
_VALUES = _TEXTS | _TEXTS | st.none() | st.integers() | st.lists(_TEXTS, max_size=2)
_ROLES = st.sampled_from(
    ["assistant", "user", "system", "developer", "tool", "function", "bot", "assistant"]
)
_CALL = st.fixed_dictionaries({}, optional={"name": _VALUES, "arguments": _VALUES})
_TOOL_CALL = st.one_of(
    st.fixed_dictionaries({"function": _CALL}),
    st.fixed_dictionaries({"custom": _CALL}),
    st.integers(),
)
_KEYS = st.sampled_from(
    ["content", "refusal", "reasoning_content", "reasoning", "thinking", "name", "tool_call_id"]
)


@st.composite
def _message(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 30)) == 0:
        return draw(st.integers() | st.text(max_size=3))
    m: dict[str, Any] = {}
    keys = draw(st.lists(_KEYS, max_size=4, unique=True))
    m["role"] = draw(_ROLES | st.none())
    for key in keys:  # any order: the generic path reads an assistant's fields in key order
        m[key] = draw(_VALUES)
    if draw(st.booleans()):
        m["tool_calls"] = draw(st.lists(_TOOL_CALL, max_size=2) | st.none())
    if draw(st.integers(0, 5)) == 0:
        m["function_call"] = draw(_CALL | st.none())
    if draw(st.booleans()):
        m = dict(reversed(list(m.items())))
    return m


@st.composite
def _line(draw: st.DrawFn) -> bytes:
    kind = draw(st.integers(0, 20))
    if kind == 0:
        return draw(st.sampled_from([b"not json", b"", b"  ", b"\xff\xfe{}", b'{"x": NaN}']))
    messages = draw(st.lists(_message(), max_size=4))
    record: Any = {"messages": messages}
    if kind == 1:
        record = messages
    elif kind == 2:
        record["tools"] = draw(
            st.sampled_from([None, "bad", [{"type": "function", "function": {"name": "read"}}]])
        )
    elif kind == 3:
        record["extra"] = "\udcff"  # a lone surrogate: msgspec refuses, json.loads takes it
    raw = json.dumps(record, ensure_ascii=draw(st.booleans())).encode("utf-8", "surrogatepass")
    if kind == 4:  # invalid UTF-8 in a field the adapter does not read
        raw = raw[:-1] + b', "x": "\xc3"}' if raw.endswith(b"}") else raw
    return raw


def _unit(data: bytes, tools: frozenset[str] | None) -> Unit:
    return Unit(index=0, path="t.jsonl", format="openai", dialect="harmony", data=data, tools=tools)


@settings(max_examples=300, deadline=None)
@given(st.lists(_line(), min_size=1, max_size=8), st.sampled_from([None, frozenset({"read"})]))
def test_the_fast_path_gives_the_generic_paths_result(
    lines: list[bytes], tools: frozenset[str] | None
) -> None:
    unit = _unit(b"\n".join(lines) + b"\n", tools)
    fast = run_json_lines(unit, DEFAULT_POLICY)
    generic = run_json_lines(unit, DEFAULT_POLICY, fast=False)
    assert fast == generic


def _clean(*records: object) -> dict[int, int]:
    lines = [json.dumps(r).encode() for r in records]
    data = b"\n".join(lines)
    return clean_records(lines, 1 << 20, _collector(_unit(data, None), DEFAULT_POLICY))


def test_clean_records_are_counted_and_the_others_left_to_the_generic_path() -> None:
    clean = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant"}]}
    assert _clean(
        clean,
        {"messages": [{"role": "user", "content": "what is <|start|>?"}]},  # a candidate
        {"messages": [{"role": "bot", "content": "hi"}]},  # an unknown role: an error entry
        {"messages": [{"role": "user", "content": ["hi"]}]},  # a part list: the generic path
        {"messages": [], "tools": ["read"]},  # declared tools
        [{"role": "user", "content": "hi"}],  # a bare message list
        clean,
    ) == {1: 2, 7: 2}


def test_no_fast_path_with_declared_tools_for_the_audit() -> None:
    lines = [json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()]
    unit = _unit(lines[0], frozenset({"read"}))
    assert clean_records(lines, 1 << 20, _collector(unit, DEFAULT_POLICY)) == {}


_LEAK = "<|start|>assistant<|channel|>final"


@pytest.mark.parametrize(
    "message",
    [
        {"role": "assistant", "content": _LEAK},
        {"role": "assistant", "refusal": _LEAK},
        {"role": "assistant", "reasoning_content": _LEAK},
        {"role": "assistant", "reasoning": _LEAK},
        {"role": "assistant", "thinking": _LEAK},
        {"role": "assistant", "tool_calls": [{"function": {"name": "x<|end|>"}}]},
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": _LEAK}}]},
        {"role": "assistant", "function_call": {"name": "a b"}},
        {"role": "assistant", "function_call": {"arguments": _LEAK}},
        {"role": "tool", "content": _LEAK},
        {"role": "developer", "content": _LEAK},
    ],
)
def test_a_trigger_in_any_field_the_adapter_reads_leaves_the_record_to_the_generic_path(
    message: dict[str, Any],
) -> None:
    quiet = {"role": "user", "content": "hi"}
    assert _clean({"messages": [quiet]}, {"messages": [quiet, message]}) == {1: 1}
