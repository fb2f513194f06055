"""Recovery of leaks without tokens: thinking-repair moves a V verdict's reasoning voice into
thinking; text-tool-call (opt-in) turns a J verdict's call written as text into structured calls."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import detect
from guard.models import Abort, CallSplit, Recovered, RecoveredCall, Split
from guard.recovery import TextToolCall, ThinkingRepair, get_strategy
from guard.recovery.text_tool_call import parse_calls

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {}}}

# ---------------------------------------------------------------------------------------------
# thinking_repair and V


@pytest.mark.parametrize(
    ("text", "thinking", "visible"),
    [
        (
            "The user asks for the weather. We need to answer.\n\nIt is sunny in Paris.",
            "The user asks for the weather. We need to answer.",
            "It is sunny in Paris.",
        ),
        (
            "  The user asks for the weather in Paris. We need to answer concisely. So answer:"
            " sunny.\n\nSunny, 21 °C.\n\nEnjoy.",
            "The user asks for the weather in Paris. We need to answer concisely. So answer:"
            " sunny.",
            "  Sunny, 21 °C.\n\nEnjoy.",
        ),
        (
            "The user asks for the weather. We need to answer.",
            "The user asks for the weather. We need to answer.",
            "",
        ),
    ],
)
def test_thinking_repair_moves_the_reasoning_voice_to_thinking(
    text: str, thinking: str, visible: str
) -> None:
    verdict = detect(text, reasoning=False)
    assert verdict.signals == ("V",)
    outcome = ThinkingRepair().apply(text, verdict)
    assert isinstance(outcome, Recovered)
    assert outcome.value == Split(text=visible, thinking=thinking)
    assert not detect(visible, reasoning=False).leak  # the answer left is clean


def test_thinking_repair_leaves_text_alone_without_a_v_hit() -> None:
    text = "The user can configure the proxy. We need to install the package first."
    verdict = detect(text, reasoning=False)
    assert not verdict.leak
    outcome = ThinkingRepair().apply(text, verdict)
    assert isinstance(outcome, Recovered)
    assert outcome.value == Split(text=text, thinking="")


# ---------------------------------------------------------------------------------------------
# text_tool_call and J

CASES = [
    (
        'I will check.\n{"name": "get_weather", "arguments": {"city": "Paris"}}',
        "I will check.",
        [("get_weather", {"city": "Paris"})],
    ),
    (
        '[{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"},'
        ' {"type": "function", "function": {"name": "search", "parameters": {}}}]',
        "",
        [("get_weather", {"city": "Oslo"}), ("search", {})],
    ),
    (
        '<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>\n<tool_call>\n'
        "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n"
        "</parameter>\n</function>\n</tool_call>",
        "",
        [("search", {"q": "x"}), ("get_weather", {"city": "Paris", "days": 3})],
    ),
    (
        "<function=search><parameter=q>cats</parameter></function>",
        "",
        [("search", {"q": "cats"})],
    ),
    (
        'Sure: functions.get_weather:{"city": "Paris"}  \n',
        "Sure:",
        [("get_weather", {"city": "Paris"})],
    ),
]


@pytest.mark.parametrize(("text", "before", "calls"), CASES)
def test_text_tool_call_recovers_every_form(
    text: str, before: str, calls: list[tuple[str, dict[str, object]]]
) -> None:
    # declared tools: a bare JSON call is evidence only with them (or as Llama 3's own call)
    verdict = detect(text, tools=[name for name, _ in calls])
    assert "J" in verdict.signals
    outcome = TextToolCall().apply(text, verdict)
    assert isinstance(outcome, Recovered), outcome
    assert isinstance(outcome.value, CallSplit)
    assert outcome.value.text == before
    assert [(c.name, json.loads(c.arguments)) for c in outcome.value.calls] == calls


def test_text_tool_call_with_declared_tools_recovers_only_declared_ones() -> None:
    text = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
    ok = TextToolCall(tools=[WEATHER]).apply(text, detect(text, tools=[WEATHER]))
    assert isinstance(ok, Recovered) and isinstance(ok.value, CallSplit)
    assert ok.value.calls == (RecoveredCall(name="get_weather", arguments='{"city": "Paris"}'),)
    # the detector without tools flags it as Llama 3's own call; the strategy knows the request
    # declared other tools
    refused = TextToolCall(tools=["search"]).apply(text, detect(text, dialect="llama3"))
    assert isinstance(refused, Abort) and "'get_weather'" in refused.reason


def test_a_harmony_prefix_names_the_declared_tool() -> None:
    text = 'functions.get_weather:{"city": "Paris"}'
    outcome = TextToolCall(tools=["get_weather"]).apply(text, detect(text))
    assert isinstance(outcome, Recovered) and isinstance(outcome.value, CallSplit)
    assert [c.name for c in outcome.value.calls] == ["get_weather"]


def test_text_tool_call_without_a_j_hit() -> None:
    clean = "It is sunny."
    same = TextToolCall().apply(clean, detect(clean))
    assert isinstance(same, Recovered) and same.value == CallSplit(text=clean, calls=())
    other = "Done.<|call|>"
    assert isinstance(TextToolCall().apply(other, detect(other)), Abort)


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "f", "arguments": [1, 2]}',  # arguments not an object
        '{"name": "f", "arguments": "not json"}',
        "[]",
        "prose, not a call",
        '<tool_call>{"name": "f", "arguments": {}} tail</tool_call>',
    ],
)
def test_parse_calls_rejects_what_is_not_a_call(text: str) -> None:
    with pytest.raises(ValueError, match=r"."):
        parse_calls(text)


def test_unparseable_call_text_is_an_abort_never_a_guess() -> None:
    text = '{"name": "f", "arguments": {"a": 1}}'
    verdict = detect(text, tools=["f"])
    broken = text.replace("{", "[", 1)  # a verdict that does not fit the value
    outcome = TextToolCall().apply(broken, verdict)
    assert isinstance(outcome, Abort) and "not recovered" in outcome.reason


def test_text_tool_call_is_registered_but_not_a_default() -> None:
    assert isinstance(get_strategy("text_tool_call"), TextToolCall)
    from guard.gate import DEFAULT_POLICY

    assert "text_tool_call" not in {
        DEFAULT_POLICY.text_recovery,
        DEFAULT_POLICY.thinking_recovery,
        DEFAULT_POLICY.tool_recovery,
    }


def test_bad_tools_are_a_type_error() -> None:
    with pytest.raises(TypeError, match="got str"):
        TextToolCall(tools="get_weather")
    with pytest.raises(TypeError, match=r"tools\[0\]"):
        TextToolCall(tools=[42])


@settings(max_examples=200, deadline=None)
@given(
    st.text(max_size=40),
    st.from_regex(r"[a-z_]{1,12}", fullmatch=True),
    st.dictionaries(st.text(max_size=8), st.integers() | st.text(max_size=8), max_size=3),
)
def test_recovered_calls_round_trip(prefix: str, name: str, args: dict[str, object]) -> None:
    text = prefix + "\n" + json.dumps({"name": name, "arguments": args})
    verdict = detect(text)
    outcome = TextToolCall().apply(text, verdict)
    if "J" not in verdict.signals:
        return
    if isinstance(outcome, Recovered):
        assert isinstance(outcome.value, CallSplit)
        assert [(c.name, json.loads(c.arguments)) for c in outcome.value.calls][-1] == (
            name,
            args,
        )
    else:
        assert isinstance(outcome, Abort)
