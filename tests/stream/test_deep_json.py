"""Issue 33: valid JSON arguments nested deeper than the interpreter's stack allows (``[`` x 990
then ``]`` x 990, 2 KB) are judged like any other arguments, by ``detect`` and by tool-call
streams of every dialect, raw and in chunks: no ``RecursionError``, and the verdict is the one
a decoder without a depth limit gives."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import DIALECTS, detect, guard_stream
from guard._json_walk import walk_end as _walk_end
from guard.gate._boundary import JsonEnd, json_end
from guard.models import Verdict

T = TypeVar("T")

DEEP = "[" * 990 + "]" * 990
DEEP_OBJECT = '{"a":' * 990 + "1" + "}" * 990
SCANNER_DIALECTS = [
    "harmony",
    "chatglm3",
    "chatml",
    "qwen3_coder",
    "llama3",
    "pythonic",
    "glm",
    "kimi",
    "kimi_k3",
    "deepseek",
    "deepseek_v32",
    "minimax",
    "gemma",
    "anthropic",
]


def _down(frames: int, call: Callable[[], T]) -> T:
    """``call()`` from ``frames`` frames further down the stack (as a server or framework
    calls guard): what fits under the interpreter's limit at the top may not fit there."""
    if frames == 0:
        return call()
    return _down(frames - 1, call)


def _unlimited(call: Callable[[], T]) -> T:
    """``call()`` with a stack deep enough for the standard decoder (the expected answer)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        return call()
    finally:
        sys.setrecursionlimit(limit)


def _marker(dialect: str) -> str:
    reserved = [m for m in DIALECTS[dialect].reserved if m]
    return reserved[0]


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
@pytest.mark.parametrize("value", [DEEP, DEEP_OBJECT], ids=["array", "object"])
def test_detect_judges_deep_arguments(dialect: str, value: str) -> None:
    for tail in ("", " " + _marker(dialect), _marker(dialect) + " then words"):
        text = value + tail

        def judge(text: str = text) -> Verdict:
            return detect(text, surface="tool_arg", dialect=dialect)

        expected = _unlimited(judge)
        assert _down(60, judge) == expected
        if tail:
            assert expected.leak, "a token after the arguments' end is a leak"


def _chunks(arguments: str) -> list[dict[str, Any]]:
    step = 97
    out: list[dict[str, Any]] = []
    for i in range(0, len(arguments), step):
        call: dict[str, Any] = {"index": 0, "function": {"arguments": arguments[i : i + step]}}
        if i == 0:
            call.update(id="c0", type="function")
            call["function"]["name"] = "get_weather"
        out.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    return out


def _verdicts(items: list[Any], dialect: str, raw: bool) -> list[Verdict]:
    stream = guard_stream(iter(items), dialect=dialect, on_leak="report", raw=raw)
    for _ in stream:
        pass
    return list(stream.verdicts)


@pytest.mark.parametrize("dialect", sorted(DIALECTS))
def test_chunk_streams_judge_deep_arguments(dialect: str) -> None:
    for tail in ("", " " + _marker(dialect)):
        items = _chunks(DEEP + tail)
        expected = _unlimited(lambda items=items: _verdicts(items, dialect, False))
        assert _down(60, lambda items=items: _verdicts(items, dialect, False)) == expected
        assert any(v.leak for v in expected) == bool(tail)


def _deep_calls(dialect: str) -> Iterator[str]:
    """The dialect's own call with a deep value where its arguments hold a value."""
    render = importlib.import_module(f"guard.testing.{dialect}").render_tool_call
    text: str = render("get_weather", {"city": "Paris", "days": 2})
    for old in ('"Paris"', "Paris", "2"):
        if old in text:
            yield text.replace(old, DEEP, 1)


@pytest.mark.parametrize("dialect", SCANNER_DIALECTS)
@pytest.mark.parametrize("size", [4096, 7])
def test_raw_streams_judge_deep_arguments(dialect: str, size: int) -> None:
    for text in _deep_calls(dialect):
        items = [text[i : i + size] for i in range(0, len(text), size)]
        expected = _unlimited(lambda items=items: _verdicts(items, dialect, True))
        assert _down(60, lambda items=items: _verdicts(items, dialect, True)) == expected


def test_any_depth_is_measured_in_linear_work() -> None:
    depth = 200_000
    text = "[" * depth + "]" * depth + " <|call|>"
    assert json_end(text) == 2 * depth
    assert json_end("[" * depth + "]" * (depth - 1)) == 0  # one level left open
    end = JsonEnd()
    for i in range(0, len(text), 1000):
        end.feed(text[i : i + 1000])
    assert end.finish() == 2 * depth


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)
_noise = st.text(alphabet=' \t\n[]{}",:0123456789-+.eEtrufalsnNIiy\\x', max_size=40)


@settings(max_examples=300, deadline=None)
@given(value=_values, indent=st.sampled_from([None, 0, 2]), cut=st.integers(0, 200), noise=_noise)
def test_the_iterative_walk_reads_what_the_decoder_reads(
    value: Any, indent: int | None, cut: int, noise: str
) -> None:
    """On texts the standard decoder can read without running out of stack, the walk finds
    the same end, or refuses where it refuses: whole values, cut values, values with noise."""
    whole = json.dumps(value, indent=indent)
    for text in (whole, whole[:cut], whole[:cut] + noise, noise, whole + noise):
        decoder = json.JSONDecoder(strict=False)
        try:
            expected: int | None = decoder.raw_decode(text)[1]
        except ValueError:
            expected = None
        try:
            got: int | None = _walk_end(text, 0)
        except ValueError:
            got = None
        assert got == expected, text


def test_the_walk_refuses_an_integer_the_decoder_refuses() -> None:
    digits = sys.get_int_max_str_digits()
    assert _walk_end("[" + "9" * digits + "]", 0) == digits + 2
    with pytest.raises(ValueError):
        _walk_end("[" + "9" * (digits + 1) + "]", 0)
    assert _walk_end("[" + "9" * (digits + 1) + ".5]", 0) == digits + 5


@pytest.mark.parametrize("frames", [0, 60])
def test_a_deep_kimi_k3_value_is_handed_on_as_written(frames: int) -> None:
    from guard.dialects.kimi_k3 import CLOSE, OPEN, SEP
    from guard.scanners.kimi_k3 import dump_arguments, parse_arguments

    element = f'{OPEN}argument key="xs" type="array"{SEP}{DEEP}{CLOSE}argument{SEP}'
    element += f'{OPEN}argument key="n" type="number"{SEP}2{CLOSE}argument{SEP}'
    args = _down(frames, lambda: parse_arguments(element))
    assert not isinstance(args, str), args
    assert dump_arguments(args) == '{"xs": ' + DEEP + ', "n": 2}'
    whole = f'{OPEN}json type="object"{SEP}{DEEP_OBJECT}{CLOSE}json{SEP}'
    args = _down(frames, lambda: parse_arguments(whole))
    assert not isinstance(args, str), args
    assert dump_arguments(args) == DEEP_OBJECT


@pytest.mark.parametrize("frames", [0, 60])
def test_a_typed_value_nested_deeper_than_the_cap_stays_text(frames: int) -> None:
    from guard.scanners.base import typed_value

    schema = {"type": "array"}
    assert _down(frames, lambda: typed_value(schema, DEEP)) == DEEP
    assert _down(frames, lambda: typed_value(schema, "[[1]]")) == [[1]]
