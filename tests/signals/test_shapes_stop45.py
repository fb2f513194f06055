"""Shapes added in stop 45 from heldout20's misses: the API's ``tool_calls`` field written out
as the answer names a tool that was never declared (J), with near misses and every split."""

from __future__ import annotations

import pytest
from support.splits import monitored

from guard import detect

TOOLS = ["read_file"]
UNDECLARED = '{"tool_calls":[{"name":"unknown_tool","input":{"x":1}}]}'


def test_a_tool_calls_object_naming_an_undeclared_tool_is_a_call() -> None:
    v = detect(UNDECLARED, dialect="deepseek", tools=TOOLS)
    assert v.leak and v.signals == ("J",) and v.cut == 0, v.reason
    assert "undeclared" in v.reason


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "unknown_tool", "arguments": {"x": 1}}',  # a bare call: declared names only
        '{"tool_calls": [], "note": "none"}',  # no call in it
        '{"result": {"tool_calls": [{"name": "x", "arguments": {}}]}}',  # data about calls
    ],
)
def test_tool_calls_near_misses_pass(text: str) -> None:
    assert "J" not in detect(text, dialect="deepseek", tools=TOOLS).signals


def test_without_declared_tools_only_llama3_reads_it() -> None:
    assert not detect(UNDECLARED, dialect="deepseek").leak
    assert detect(UNDECLARED, dialect="llama3").leak


def test_every_split_gives_the_whole_verdict() -> None:
    whole = detect(UNDECLARED, dialect="deepseek", tools=TOOLS)
    for cut in range(1, len(UNDECLARED)):
        verdict, _ = monitored(UNDECLARED, cut, "text", "deepseek", tools=frozenset(TOOLS))
        assert (verdict.leak, verdict.signals, verdict.cut) == (
            whole.leak,
            whole.signals,
            whole.cut,
        ), cut
