"""One engine, three drivers: the proxy's relay (async, ``guard serve``) and the guarded httpx
transport (sync and async) drive the same :class:`guard.wire.StreamedAnswer`, so for any
stream, guard mode and split of the upstream body into reads, the client gets the same bytes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_relay_paths import MODES, STREAMS, per_event, relay_body, split

import guard

SSE = {"content-type": "text/event-stream"}


class SyncPieces(httpx.SyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    def __iter__(self) -> Iterator[bytes]:
        yield from self.pieces


class AsyncPieces(httpx.AsyncByteStream):
    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def transported(pieces: list[bytes], on_leak: str) -> bytes:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, stream=SyncPieces(pieces))

    http = guard.http_client(transport=httpx.MockTransport(handler), on_leak=on_leak)  # type: ignore[arg-type]
    with http.stream("POST", "http://upstream.test/v1/chat/completions", json={}) as response:
        return b"".join(response.iter_raw())


def async_transported(pieces: list[bytes], on_leak: str) -> bytes:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=SSE, stream=AsyncPieces(pieces))

    async def main() -> bytes:
        http = guard.async_http_client(transport=httpx.MockTransport(handler), on_leak=on_leak)  # type: ignore[arg-type]
        url = "http://upstream.test/v1/chat/completions"
        async with http, http.stream("POST", url, json={}) as response:
            return b"".join([piece async for piece in response.aiter_raw()])

    return asyncio.run(main())


def relayed(pieces: list[bytes], on_leak: str) -> bytes:
    return asyncio.run(relay_body(pieces, on_leak, general=False))[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_the_drivers_give_the_same_bytes(name: str, mode: str) -> None:
    pieces = per_event(STREAMS[name])
    expected = relayed(pieces, mode)
    assert transported(pieces, mode) == expected
    assert async_transported(pieces, mode) == expected


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(sorted(STREAMS)),
    st.sampled_from(MODES),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=10),
)
def test_any_split_gives_the_same_bytes_on_every_driver(
    name: str, mode: str, cuts: list[int]
) -> None:
    pieces = split(STREAMS[name], cuts)
    assert transported(pieces, mode) == relayed(pieces, mode) == async_transported(pieces, mode)
