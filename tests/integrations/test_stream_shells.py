"""Leaving a loop over a guarded stream with ``break``: an SDK stream the transport guards
keeps the rest for a later loop (as the SDK's own stream does); a guarded protocol event
stream iterated in a sync loop ends with the loop."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

from guard.integrations._transported import AsyncTransportedStream, TransportedStream
from guard.integrations.openai.protocol import (
    AsyncGuardedResponseStream,
    GuardedResponseStream,
    guard_response_events,
)


class _SdkStream:
    """An SDK stream of 0..4 (its ``__iter__`` gives its iterator, as the SDKs do)."""

    def __init__(self) -> None:
        self._iterator = iter(range(5))
        self.closed = False

    def __iter__(self) -> Iterator[int]:
        return self._iterator

    def close(self) -> None:
        self.closed = True


class _AsyncSdkStream:
    def __init__(self) -> None:
        self._iterator = self._items()
        self.closed = False

    async def _items(self) -> AsyncIterator[int]:
        for i in range(5):
            yield i

    def __aiter__(self) -> AsyncIterator[int]:
        return self._iterator

    async def close(self) -> None:
        self.closed = True


def test_a_transported_stream_keeps_the_rest_after_a_break() -> None:
    stream = TransportedStream(_SdkStream())
    for item in stream:
        if item == 1:
            break
    assert list(stream) == [2, 3, 4]
    assert iter(stream) is iter(stream)


def test_an_async_transported_stream_keeps_the_rest_after_a_break() -> None:
    async def run() -> list[int]:
        stream = AsyncTransportedStream(_AsyncSdkStream())
        async for item in stream:
            if item == 1:
                break
        return [item async for item in stream]

    assert asyncio.run(run()) == [2, 3, 4]


def _events() -> Iterator[dict[str, Any]]:
    yield {"type": "response.created", "response": {"id": "r", "output": []}}
    for i in range(3):
        yield {
            "type": "response.output_text.delta",
            "item_id": "m",
            "output_index": 0,
            "content_index": 0,
            "delta": f"w{i} ",
        }


def test_a_sync_protocol_event_stream_ends_with_the_loop_left() -> None:
    stream = guard_response_events(_events())
    assert isinstance(stream, GuardedResponseStream)
    for event in stream:
        if event["type"] == "response.output_text.delta":
            break
    assert list(stream) == []


def test_an_async_protocol_event_stream_keeps_the_rest_after_a_break() -> None:
    async def source() -> AsyncIterator[dict[str, Any]]:
        for event in _events():
            yield event

    async def run() -> list[str]:
        stream = guard_response_events(source())
        assert isinstance(stream, AsyncGuardedResponseStream)
        async for event in stream:
            if event["type"] == "response.output_text.delta":
                break
        return [event["delta"] async for event in stream]

    assert asyncio.run(run()) == ["w1 ", "w2 "]
