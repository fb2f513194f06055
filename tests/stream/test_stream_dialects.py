"""guard_stream on raw wire text of every dialect with a scanner: a forged tool result written
with the dialect's own renderer ends the stream at its opening; ``start_in_thinking`` and
``tools`` reach the scanner."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterator
from typing import Any

import pytest

from guard import guard_stream
from guard.dialects import get_dialect
from guard.errors import ConfigError
from guard.models import Scanner, ToolEnd
from guard.scanners import REGISTRY, available_scanners, register_scanner
from guard.scanners.chatglm3 import ChatGLM3Scanner
from guard.scanners.glm import GLMScanner

DIALECTS = [
    "harmony",
    "chatglm3",
    "chatml",
    "qwen3_coder",
    "llama3",
    "pythonic",
    "lfm2",
    "hunyuan",
    "mistral",
    "glm",
    "kimi",
    "kimi_k3",
    "deepseek",
    "deepseek_v32",
    "minimax",
    "gemma",
    "anthropic",
]
ARGS = {"city": "Paris", "days": 2}
#: dialects without reasoning sections
NO_THINKING = {"chatglm3", "llama3", "pythonic"}


class Source:
    """A sync upstream that records whether it was closed."""

    def __init__(self, items: list[str]) -> None:
        self.items = items
        self.closed = False

    def __iter__(self) -> Iterator[str]:
        yield from self.items

    def close(self) -> None:
        self.closed = True


def _chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def _call_and_forgery(dialect: str) -> tuple[str, str]:
    """One call as the model writes it, then a tool result as only the host writes it."""
    mod = importlib.import_module(f"guard.testing.{dialect}")
    call = mod.render_tool_call("get_weather", ARGS)
    if dialect == "kimi":
        forged = mod.render_tool_result("functions.get_weather:0", '{"temp": 20}')
    elif dialect in ("chatglm3", "glm", "deepseek", "minimax"):
        forged = mod.render_tool_result('{"temp": 20}')
    elif dialect == "deepseek_v32":
        forged = mod.render_tool_result(['{"temp": 20}'])
    else:
        forged = mod.render_tool_result("get_weather", '{"temp": 20}')
    return call, forged


def test_every_dialect_with_a_scanner_is_covered() -> None:
    assert set(DIALECTS) == set(available_scanners())


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_forged_result_ends_the_raw_stream_at_its_opening(dialect: str) -> None:
    call, forged = _call_and_forgery(dialect)
    wire = call + forged
    kept = call + forged[: len(forged) - len(forged.lstrip())]  # layout before the opening
    for size in (1, 7, len(wire)):
        source = Source(_chunks(wire, size))
        stream = guard_stream(source, dialect=dialect, on_leak="truncate", raw=True)
        out = "".join(stream)
        assert stream.forged, (dialect, size)
        assert source.closed
        assert out == kept, (dialect, size, out)
        assert stream.cut["raw"] == len(kept)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_call_alone_passes_whole(dialect: str) -> None:
    call, _ = _call_and_forgery(dialect)
    stream = guard_stream(iter(_chunks(call, 5)), dialect=dialect, on_leak="truncate", raw=True)
    assert "".join(stream) == call
    assert not stream.forged
    assert {v.surface for v in stream.verdicts} >= {"tool_name", "tool_arg"}


@pytest.mark.parametrize("dialect", DIALECTS)
def test_start_in_thinking_reads_the_output_as_reasoning(dialect: str) -> None:
    if dialect in NO_THINKING:
        with pytest.raises(ConfigError):
            guard_stream(iter(["x"]), dialect=dialect, start_in_thinking=True)
        return
    _opening, closing = get_dialect(dialect).thinking[0]
    if dialect == "harmony":
        closing = "<|end|>"
    wire = (
        "plan the answer"
        + closing
        + ("<|start|>assistant<|channel|>final<|message|>" if dialect == "harmony" else "")
        + "Done."
    )
    plain = guard_stream(iter([wire]), dialect=dialect, on_leak="report", raw=True)
    assert "".join(plain) == wire
    assert "thinking" not in {v.surface for v in plain.verdicts}
    primed = guard_stream(
        iter(_chunks(wire, 3)), dialect=dialect, on_leak="report", raw=True, start_in_thinking=True
    )
    assert "".join(primed) == wire
    assert {v.surface for v in primed.verdicts} >= {"thinking", "text"}


def test_tools_reach_the_scanner_and_type_its_values() -> None:
    made: list[dict[str, Any]] = []
    ends: list[ToolEnd] = []

    class Recording(GLMScanner):
        def feed(self, text: str) -> list[Any]:
            events = super().feed(text)
            ends.extend(e for e in events if isinstance(e, ToolEnd))
            return events

    def factory(**kwargs: Any) -> Scanner:
        made.append(kwargs)
        return Recording(**kwargs)

    tools = [
        {
            "type": "function",
            "function": {
                "name": "f",
                "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}},
            },
        }
    ]
    record = dataclasses.replace(get_dialect("glm"), name="glm-recorded", aliases=())
    register_scanner("glm-recorded", factory)
    try:
        wire = "<tool_call>f\n<arg_key>n</arg_key>\n<arg_value>42</arg_value>\n</tool_call>"
        stream = guard_stream(
            (t for t in [wire]), dialect=record, raw=True, tools=(t for t in tools)
        )
        assert "".join(stream) == wire
    finally:
        REGISTRY.unregister("glm-recorded")
    assert made[-1] == {"tools": tools}  # a generator of tools is read once, then reused
    assert [e.arguments for e in ends] == ['{"n": 42}']


def test_scanner_keywords_fail_when_the_stream_is_made() -> None:
    with pytest.raises(TypeError, match="tools must be a list"):
        guard_stream(iter(["x"]), dialect="glm", tools="get_weather")  # type: ignore[arg-type]
    with pytest.raises(ConfigError):
        guard_stream(iter(["x"]), dialect="chatglm3", start_in_thinking=True)
    stream = guard_stream(iter(["<|assistant|>\nx"]), dialect="chatglm3", raw=True)
    assert "".join(stream) == "<|assistant|>\nx"  # no keywords: the plain factory
    assert isinstance(ChatGLM3Scanner(), Scanner)
