"""The chat relay's one-loop body (the guard driven by hand, no generator between upstream and
client) against the general body (the guarded stream iterated): for any stream, any guard
mode and any way the upstream's bytes are split into reads, the client gets the same bytes and
the access record says the same; and a clean or leaking stream gives the same bytes however it
is split."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.fake_upstream import (
    CHAT_CLEAN,
    CHAT_FORGED,
    CHAT_LEAKED,
    CHAT_TOOL_CALL,
    chat_sse,
    sse_data,
)

from guard.serve import ServeConfig
from guard.serve._deadlines import Deadline
from guard.serve._logging import AccessRecord
from guard.serve._relay import ChatRelay, Relay

NESTED = b"data: " + b'{"a":' * 200 + b"1" + b"}" * 200 + b"\n\n"
STREAMS = {
    "clean": b"".join(CHAT_CLEAN),
    "leaked": b"".join(CHAT_LEAKED),
    "forged": b"".join(CHAT_FORGED),
    "tool call": b"".join(CHAT_TOOL_CALL),
    # no [DONE]: the body just ends, the last event without its blank line
    "no done": b"".join(CHAT_CLEAN[:-1])[:-1],
    "leak, no done": b"".join(CHAT_LEAKED[:-2]),
    # events that are not JSON objects, an event name, comments, CRLF line ends, an id
    "odd events": b"".join(CHAT_CLEAN[:3])
    + b"data: not json\n\n: a comment\nevent: note\ndata: [1, 2]\n\n"
    + b'id: 9\r\ndata: {"x": 1}\r\n\r\n'
    + b"".join(CHAT_CLEAN[3:]),
    "after done": b"".join(CHAT_CLEAN) + sse_data({"late": True}),
    "nested too deep": b"".join(CHAT_CLEAN[:3]) + NESTED + b"".join(CHAT_CLEAN[3:]),
    "long": b"".join(chat_sse([f"w{i} " for i in range(60)])),
}


class Pieces(httpx.AsyncByteStream):
    """The body in the given pieces; ``fail_at``: raise a read error before that piece."""

    def __init__(self, pieces: list[bytes], fail_at: int | None = None) -> None:
        self.pieces = pieces
        self.fail_at = fail_at

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i, piece in enumerate(self.pieces):
            if i == self.fail_at:
                raise httpx.ReadError("upstream went away")
            yield piece


def split(wire: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(wire) + 1) for c in cuts} | {0, len(wire)})
    return [wire[a:b] for a, b in itertools.pairwise(points) if b > a]


def per_event(wire: bytes) -> list[bytes]:
    return [e + b"\n\n" for e in wire.split(b"\n\n") if e] if wire.endswith(b"\n\n") else [wire]


async def relay_body(
    pieces: list[bytes], on_leak: str, general: bool, fail_at: int | None = None
) -> tuple[bytes, dict[str, Any], bool]:
    """(the client's bytes, the access record's fields, whether the upstream was closed)."""
    responses: list[httpx.Response] = []

    def handler(request: httpx.Request) -> httpx.Response:
        headers = {"content-type": "text/event-stream"}
        return httpx.Response(200, headers=headers, stream=Pieces(pieces, fail_at))

    config = ServeConfig(upstream="http://upstream.test/v1", on_leak=on_leak)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        request = client.build_request("POST", "http://upstream.test/v1/chat/completions")
        resp = await client.send(request, stream=True)
        responses.append(resp)
        access = AccessRecord("POST", "/v1/chat/completions")
        relay = ChatRelay(resp, "harmony", config, access, Deadline(60))
        body = Relay.body(relay) if general else relay.body()
        out = b"".join([piece async for piece in body])
    return out, access.fields, resp.is_closed


def both(pieces: list[bytes], on_leak: str, fail_at: int | None = None) -> tuple[Any, Any]:
    return (
        asyncio.run(relay_body(pieces, on_leak, general=False, fail_at=fail_at)),
        asyncio.run(relay_body(pieces, on_leak, general=True, fail_at=fail_at)),
    )


MODES = ("abort", "truncate", "report", "recover")


@pytest.mark.parametrize("reads", ["one event a read", "all in one read"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(STREAMS))
def test_one_loop_relays_each_stream_as_the_general_body_does(
    name: str, mode: str, reads: str
) -> None:
    wire = STREAMS[name]
    fast, general = both(per_event(wire) if reads == "one event a read" else [wire], mode)
    assert fast == general
    assert fast[2]  # the upstream was closed


def test_the_streams_reach_every_ending() -> None:
    """The comparison above covers a clean end, an abort, a cut, a forgery and a fault."""
    outcomes = {
        (name, mode): both(per_event(STREAMS[name]), mode)[0][1]
        for name in ("clean", "leaked", "forged", "nested too deep")
        for mode in ("abort", "truncate")
    }
    assert outcomes["clean", "abort"]["outcome"] == "passed"
    assert outcomes["leaked", "abort"]["aborted"] is True
    assert outcomes["leaked", "truncate"]["cut"] is True
    assert outcomes["leaked", "truncate"]["aborted"] is False
    assert outcomes["forged", "truncate"]["forged"] is True
    assert outcomes["nested too deep", "abort"]["outcome"] == "error"


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(sorted(STREAMS)),
    st.sampled_from(MODES),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_any_split_of_the_upstream_body_relays_alike(name: str, mode: str, cuts: list[int]) -> None:
    wire = STREAMS[name]
    pieces = split(wire, cuts)
    fast, general = both(pieces, mode)
    assert fast == general
    # and the same as one event per read (the guard sees the same items however they come)
    assert fast[0] == both(per_event(wire), mode)[0][0]


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(["clean", "leaked", "long"]),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
    st.integers(min_value=0, max_value=8),
)
def test_an_upstream_that_fails_mid_stream_ends_alike(
    name: str, cuts: list[int], fail_at: int
) -> None:
    pieces = split(STREAMS[name], cuts)
    fast, general = both(pieces, "abort", fail_at=fail_at)
    assert fast == general
    assert fast[2]


@pytest.mark.parametrize(("depth", "outcome"), [(128, "passed"), (129, "error")])
def test_the_shortest_events_at_the_nesting_cap(depth: int, outcome: str) -> None:
    """``{"a":[[...]]}`` is about the shortest object of its depth (two characters a level): an
    event of 128 levels passes, one of 129 ends the stream, on both bodies. (An event that is
    not an object ends the stream at any depth since issue 28.)"""
    inner = b"[" * (depth - 1) + b"]" * (depth - 1)
    nested = b'data: {"a":' + inner + b"}\n\n"
    wire = b"".join(CHAT_CLEAN[:2]) + nested + b"".join(CHAT_CLEAN[2:])
    fast, general = both(per_event(wire), "abort")
    assert fast == general
    assert fast[1]["outcome"] == outcome
