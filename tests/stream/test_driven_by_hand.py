"""Driving a guarded stream by hand (``push`` each upstream item, ``end`` at the end) gives what
iterating it gives: the same items, the same stop and abort, the same verdicts."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import LeakAborted, guard_stream
from guard.stream import AsyncGuardedStream, GuardedStream


def chunk(content: str, finish: str | None = None) -> dict[str, Any]:
    delta = {"content": content} if content else {}
    return {"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


PIECES = ["Sure. ", "Here it is ", "<|cha", "nnel|>analysis", " secret", "t", "a", "f", "ok "]


def iterated(items: list[Any], on_leak: str) -> tuple[list[Any], bool, Any]:
    stream = guard_stream(items, on_leak=on_leak)  # type: ignore[arg-type]
    assert isinstance(stream, GuardedStream)
    out: list[Any] = []
    aborted = False
    try:
        for item in stream:
            out.append(item)
    except LeakAborted:
        aborted = True
    return out, aborted, [(v.part, v.leak, v.cut) for v in stream.verdicts]


def by_hand(items: list[Any], on_leak: str) -> tuple[list[Any], bool, Any]:
    stream = guard_stream([], on_leak=on_leak)  # type: ignore[arg-type]
    out: list[Any] = []
    aborted = False
    for item in items:
        out += stream.push(item)
        if stream.stopped:
            aborted = stream.abort is not None
            break
    else:
        out += stream.end()
    assert stream.stopped
    return out, aborted, [(v.part, v.leak, v.cut) for v in stream.verdicts]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=12),
    st.booleans(),
    st.sampled_from(["abort", "truncate", "report"]),
)
def test_pushing_by_hand_gives_what_iterating_gives(
    pieces: list[str], finish: bool, on_leak: str
) -> None:
    items = [chunk(p) for p in pieces] + ([chunk("", "stop")] if finish else [])
    assert by_hand(items, on_leak) == iterated(items, on_leak)


def test_an_aborting_leak_stops_the_stream_with_its_error() -> None:
    stream = guard_stream([], on_leak="abort")
    assert not stream.stopped and stream.abort is None
    delivered = [stream.push(chunk(p)) for p in ["Sure. ", "<|channel|>analysis"]]
    assert delivered[0] == [chunk("Sure. ")]
    assert stream.stopped
    assert isinstance(stream.abort, LeakAborted)
    assert stream.push(chunk("more")) == []  # nothing after the stop


def test_a_clean_stream_ends_with_nothing_held() -> None:
    stream = guard_stream([], on_leak="truncate")
    assert stream.push(chunk("a plain answer")) == [chunk("a plain answer")]
    assert stream.end() == []
    assert stream.stopped and stream.abort is None
    assert not any(v.leak for v in stream.verdicts)


def test_an_async_stream_can_be_driven_by_hand_too() -> None:
    async def source() -> AsyncIterator[Any]:
        yield chunk("never read")

    async def run() -> tuple[list[Any], bool]:
        stream = guard_stream(source(), on_leak="truncate")
        assert isinstance(stream, AsyncGuardedStream)
        out = stream.push(chunk("Here <|channel|>")) + stream.end()
        await stream.aclose()
        return out, stream.upstream_closed

    out, closed = asyncio.run(run())
    assert closed
    assert [c["choices"][0]["delta"].get("content") for c in out] == ["Here ", None]


@pytest.mark.parametrize("on_leak", ["abort", "truncate"])
def test_end_after_a_stop_gives_nothing(on_leak: str) -> None:
    stream = guard_stream([], on_leak=on_leak)  # type: ignore[arg-type]
    stream.push(chunk("<|channel|>analysis"))
    assert stream.stopped
    assert stream.end() == []
