"""The fast path for clean OpenAI chat records (guard/audit/_fast.py) never changes a report:
a chunk of generated lines (clean and dirty records, odd shapes, bad types, unknown roles,
declared tools, invalid JSON and UTF-8) gives the same result with it as without it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.audit._fast import split_lines, typed_records
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
            "The user asks for the weather. We need to answer concisely.",
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


_LEAK = "<|start|>assistant<|channel|>final"


_FIELDS = st.sampled_from(
    ["content", "refusal", "reasoning_content", "reasoning", "thinking", "name", "content"]
)
_TYPED_CALL = st.lists(
    st.tuples(st.sampled_from(["name", "arguments", "id"]), _TEXTS | st.none()), max_size=3
)


def _object(pairs: list[tuple[str, str]]) -> str:
    """A JSON object written from (key, JSON value) pairs as they come: duplicate keys kept."""
    return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in pairs) + "}"


@st.composite
def _typed_message(
    draw: st.DrawFn, texts: st.SearchStrategy[str], roles: st.SearchStrategy[str]
) -> str:
    """A message of the typed shape (strings or null where the adapter reads), its fields in
    any order and sometimes twice."""
    role = draw(roles)
    pairs = [("role", json.dumps(role))]
    for key, text in draw(st.lists(st.tuples(_FIELDS, texts | st.none()), max_size=4)):
        pairs.append((key, json.dumps(text)))
    if role == "assistant" and draw(st.booleans()):
        calls = draw(st.lists(_TYPED_CALL, max_size=2))
        body = ", ".join(
            _object([("function", _object([(k, json.dumps(v)) for k, v in c]))]) for c in calls
        )
        pairs.append(("tool_calls", f"[{body}]"))
    if role == "assistant" and draw(st.integers(0, 4)) == 0:
        pairs.append(("function_call", _object([(k, json.dumps(v)) for k, v in draw(_TYPED_CALL)])))
    order = draw(st.permutations(range(len(pairs))))
    return _object([pairs[k] for k in order])


@st.composite
def _typed_line(
    draw: st.DrawFn, texts: st.SearchStrategy[str] = _TEXTS, roles: st.SearchStrategy[str] = _ROLES
) -> bytes:
    messages = draw(st.lists(_typed_message(texts, roles), max_size=5))
    record = _object([("messages", "[" + ", ".join(messages) + "]")])
    return record.encode()


def _unit(data: bytes, tools: frozenset[str] | None) -> Unit:
    return Unit(index=0, path="t.jsonl", format="openai", dialect="harmony", data=data, tools=tools)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_line() | _typed_line(), min_size=1, max_size=8),
    st.sampled_from([None, frozenset({"read"})]),
)
def test_the_fast_path_gives_the_generic_paths_result(
    lines: list[bytes], tools: frozenset[str] | None
) -> None:
    unit = _unit(b"\n".join(lines) + b"\n", tools)
    fast = run_json_lines(unit, DEFAULT_POLICY)
    generic = run_json_lines(unit, DEFAULT_POLICY, fast=False)
    assert fast == generic


#: texts that mostly yield findings, so that one message often has several
_LOUD = st.sampled_from(
    [
        "plain words.",
        _LEAK,
        "Done. to=functions.read_file",
        "read_file<|channel|>commentary",
        "The user asks for the weather. We need to answer concisely.",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_typed_line(_LOUD, st.sampled_from(["assistant"] * 4 + ["tool"])), max_size=4))
def test_typed_records_with_findings_in_several_fields_give_the_generic_paths_result(
    lines: list[bytes],
) -> None:
    unit = _unit(b"\n".join(lines), None)
    assert run_json_lines(unit, DEFAULT_POLICY) == run_json_lines(unit, DEFAULT_POLICY, fast=False)


def _taken(*records: object) -> dict[int, Any]:
    lines = [json.dumps(r).encode() for r in records]
    data = b"\n".join(lines)
    return typed_records(lines, 1 << 20, _collector(_unit(data, None), DEFAULT_POLICY))


def _handed(planned: Any) -> list[tuple[str, str, int, str]]:
    """(surface, text, message, part) of the parts a record hands the collector."""
    _messages, pieces = planned
    return [(p[1], p[2], p[3], p[5]) for p in pieces]


def test_clean_records_are_counted_and_the_others_handed_over_or_left_to_the_generic_path() -> None:
    clean = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant"}]}
    taken = _taken(
        clean,
        {"messages": [{"role": "user", "content": "what is <|start|>?"}]},  # a candidate
        {"messages": [{"role": "bot", "content": "hi"}]},  # an unknown role: an error entry
        {"messages": [{"role": "user", "content": ["hi"]}]},  # a part list: the generic path
        {"messages": [], "tools": ["read"]},  # declared tools
        [{"role": "user", "content": "hi"}],  # a bare message list
        clean,
    )
    assert set(taken) == {1, 2, 7} and taken[1] == taken[7] == 2
    assert _handed(taken[2]) == [("user", "what is <|start|>?", 0, "content")]


def test_candidates_under_two_fields_of_one_assistant_message_are_left_to_the_generic_path() -> (
    None
):
    # the generic path reads an assistant's fields in key order, which a typed record loses
    two = {"role": "assistant", "reasoning": _LEAK, "content": _LEAK}
    assert _taken({"messages": [two]}) == {}


def test_candidates_under_one_field_or_in_different_messages_are_handed_over() -> None:
    calls = [
        {"function": {"name": "read", "arguments": _LEAK}},
        {"function": {"name": "a b", "arguments": "{}"}},
    ]
    read = {"function": {"name": "read", "arguments": "{}"}}
    first = {"role": "assistant", "reasoning": _LEAK, "tool_calls": [read]}
    taken = _taken(
        {"messages": [{"role": "assistant", "tool_calls": calls, "content": "ok"}]},
        {"messages": [first, {"role": "assistant", "content": _LEAK}]},
    )
    assert _handed(taken[1]) == [
        ("tool_arg", _LEAK, 0, "tool_calls[0].function.arguments"),
        ("tool_name", "a b", 0, "tool_calls[1].function.name"),
    ]
    # a candidate answer (text) brings the record's other parts: its reasoning context
    assert _handed(taken[2]) == [
        ("tool_name", "read", 0, "tool_calls[0].function.name"),
        ("tool_arg", "{}", 0, "tool_calls[0].function.arguments"),
        ("thinking", _LEAK, 0, "reasoning"),
        ("text", _LEAK, 1, "content"),
    ]
    assert taken[2][0] == 2


def test_no_fast_path_with_declared_tools_for_the_audit() -> None:
    lines = [json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode()]
    unit = _unit(lines[0], frozenset({"read"}))
    assert typed_records(lines, 1 << 20, _collector(unit, DEFAULT_POLICY)) == {}


@pytest.mark.parametrize(
    ("message", "part"),
    [
        ({"role": "assistant", "content": _LEAK}, "content"),
        ({"role": "assistant", "refusal": _LEAK}, "refusal"),
        ({"role": "assistant", "reasoning_content": _LEAK}, "reasoning_content"),
        ({"role": "assistant", "reasoning": _LEAK}, "reasoning"),
        ({"role": "assistant", "thinking": _LEAK}, "thinking"),
        (
            {"role": "assistant", "tool_calls": [{"function": {"name": "x<|end|>"}}]},
            "tool_calls[0].function.name",
        ),
        (
            {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": _LEAK}}]},
            "tool_calls[0].function.arguments",
        ),
        ({"role": "assistant", "function_call": {"name": "a b"}}, "function_call.name"),
        ({"role": "assistant", "function_call": {"arguments": _LEAK}}, "function_call.arguments"),
        ({"role": "tool", "content": _LEAK}, "content"),
        ({"role": "developer", "content": _LEAK}, "content"),
    ],
)
def test_a_trigger_in_any_field_the_adapter_reads_is_handed_over(
    message: dict[str, Any], part: str
) -> None:
    quiet = {"role": "user", "content": "hi"}
    taken = _taken({"messages": [quiet]}, {"messages": [quiet, message]})
    assert taken[1] == 1
    handed = [(m, p) for _s, _t, m, p in _handed(taken[2])]
    # an answer (text) comes with the record's other parts, its context
    assert handed == (
        [(0, "content"), (1, part)]
        if part in ("content", "refusal") and message["role"] == "assistant"
        else [(1, part)]
    )


#: the reasoning voice: a leak in an answer without a reasoning part (an opening cue and one more)
_VOICE = "The user asks for the weather. We need to answer concisely."


@pytest.mark.parametrize(
    ("messages", "findings"),
    [
        # no reasoning part: the answer's voice is a leak
        ([{"role": "assistant", "content": _VOICE}], 1),
        # a reasoning part in the same message (no candidate itself): context, no finding
        ([{"role": "assistant", "content": _VOICE, "reasoning_content": "plain words."}], 0),
        # ... or earlier in the same assistant turn
        (
            [
                {"role": "assistant", "reasoning": "plain words.", "content": None},
                {"role": "assistant", "content": _VOICE},
            ],
            0,
        ),
        # ... but not across an input message
        (
            [
                {"role": "assistant", "reasoning": "plain words."},
                {"role": "tool", "content": "ok"},
                {"role": "assistant", "content": _VOICE},
            ],
            1,
        ),
    ],
)
def test_an_answer_handed_over_keeps_its_reasoning_context(
    messages: list[dict[str, Any]], findings: int
) -> None:
    unit = _unit(json.dumps({"messages": messages}).encode(), None)
    fast = run_json_lines(unit, DEFAULT_POLICY)
    assert fast == run_json_lines(unit, DEFAULT_POLICY, fast=False)
    assert len(fast.findings) == findings


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 40) | st.integers(500, 1500), max_size=700),
    st.booleans(),
    st.binary(max_size=3),
)
def test_split_lines_splits_as_bytes_split(sizes: list[int], last: bool, tail: bytes) -> None:
    # long lines, short ones, both, past the probe of 256 lines or not; with or without a
    # final line break
    data = b"\n".join(b"x" * n for n in sizes) + (b"\n" if last else tail)
    assert split_lines(data) == data.split(b"\n")


@pytest.mark.parametrize("lines", [0, 1, 255, 256, 257, 600])
@pytest.mark.parametrize("size", [0, 10, 600])
def test_split_lines_at_the_probes_edge(lines: int, size: int) -> None:
    for data in (b"y" * size + b"\n") * lines, (b"y" * size + b"\n") * lines + b"end":
        assert split_lines(data) == data.split(b"\n")


def test_the_answers_triggers_do_not_make_reasoning_or_arguments_candidates() -> None:
    # the reasoning voice's opening (V) is read on answers only; a call at the end (J) is read
    # on answers and reasoning, so its ending literals make that group's texts candidates
    voice = {"role": "assistant", "reasoning_content": _VOICE}
    call = '{"path": "a.py"} {"name": "read"}'
    args = {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": call}}]}
    answer = {"role": "assistant", "content": _VOICE}
    taken = _taken({"messages": [voice]}, {"messages": [args]}, {"messages": [answer]})
    assert taken[1] == 1
    assert [p[:2] for p in _handed(taken[2])] == [("tool_arg", call)]
    assert _handed(taken[3]) == [("text", _VOICE, 0, "content")]
