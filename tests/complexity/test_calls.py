"""Issue 33, the tool-call half of the second list: costs that grew with the number of calls or
with a call's length, measured at a size and at 4x that size (see ``growth.py``).

* a one-line pythonic call list: parsed a run of calls at a time (it was one ``ast`` tree of
  ~500 bytes per character, and the whole line re-encoded per call);
* a tool name streamed in small deltas (the name was rebuilt per delta).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from growth import check_growth, costs

from benchmarks._adversarial import chunked
from guard import guard_stream
from guard.scanners import scanner
from guard.scanners.pythonic import parse_calls

pytestmark = pytest.mark.complexity

#: bytes per input character a bounded path may add at 4x the input beyond the ratio
SLACK_PER_CHAR = 20


def _check(make: Callable[[int], Callable[[], object]], size: int, what: str) -> None:
    """Bounded time and memory between ``size`` and 4x; a broken bound is measured once more
    before it fails (noise rarely breaks it twice; a superlinear path always does)."""
    small_run, large_run = make(size), make(4 * size)
    for attempt in range(2):
        small, large = costs(small_run, large_run)
        try:
            check_growth(small, large, bounded=True, slack=SLACK_PER_CHAR * size, what=what)
            return
        except AssertionError:
            if attempt:
                raise


def _call_list(size: int) -> str:
    unit = 'get_weather(city="Paris", days=2), '
    return "[" + (unit * (size // len(unit)))[:-2] + "]"


def test_a_one_line_call_list_parses_in_linear_time_and_bounded_memory() -> None:
    def make(size: int) -> Callable[[], object]:
        text = _call_list(size)
        return lambda: parse_calls(text)

    _check(make, 64_000, "parse_calls on a one-line call list")


def test_the_pythonic_scanner_reads_a_one_line_list_in_linear_time() -> None:
    def make(size: int) -> Callable[[], object]:
        pieces = chunked(_call_list(size), 4096)

        def scan() -> None:
            s = scanner("pythonic")
            for piece in pieces:
                s.feed(piece)
            s.flush()

        return scan

    small, large = costs(make(64_000), make(256_000))
    check_growth(small, large, bounded=False, slack=0, what="the pythonic scanner on a list")


def _name_deltas(size: int, step: int = 3) -> list[dict[str, Any]]:
    name = ("get_weather_" * (size // 12 + 1))[:size]
    out: list[dict[str, Any]] = []
    for i in range(0, size, step):
        call: dict[str, Any] = {"index": 0, "function": {"name": name[i : i + step]}}
        if i == 0:
            call["id"] = "c0"
        out.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    out.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return out


def _drain(items: list[Any], **options: Any) -> Callable[[], object]:
    options.setdefault("on_leak", "report")

    def run() -> None:
        for _ in guard_stream(iter(items), **options):
            pass

    return run


def test_a_tool_name_streamed_in_small_deltas_costs_linear_time() -> None:
    _check(lambda n: _drain(_name_deltas(n)), 8_000, "a tool name in 3-character deltas")
