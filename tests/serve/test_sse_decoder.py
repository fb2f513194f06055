"""The proxy's SSE decoder: any split and line ending decodes the same, a long line costs each
byte one search (linear), and the memory it holds is bounded by its cap."""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.serve import ServeConfig, _sse, create_app
from guard.serve._sse import SSEDecoder, SSELimitError


def reference(wire: bytes) -> list[tuple[str | None, str]]:
    """A whole-body decoder written the obvious way (no incremental state)."""
    lines = wire.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    out: list[tuple[str | None, str]] = []
    data: list[str] = []
    event: str | None = None
    for raw in lines[:-1] + ([lines[-1], b""] if lines[-1] else [b""]):
        line = raw.decode("utf-8", errors="replace")
        if not line:
            if data or event is not None:
                out.append((event, "\n".join(data)))
            data, event = [], None
        elif line.startswith(":"):
            continue
        else:
            name, sep, value = line.partition(":")
            value = value[1:] if sep and value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name == "event":
                event = value
    return out


LINE = st.sampled_from(
    [
        b"data: x",
        b'data: {"a": 1}',
        b"data:y",
        b"event: e",
        b": c",
        b"",
        b"id: 3",
        b"data: \xc3\xa9",
    ]
)
END = st.sampled_from([b"\n", b"\r\n", b"\r"])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(LINE, END), max_size=20),
    st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=30),
)
def test_any_split_decodes_like_the_whole(
    pairs: list[tuple[bytes, bytes]], sizes: list[int]
) -> None:
    wire = b"".join(line + end for line, end in pairs)
    decoder = SSEDecoder()
    got = []
    i = k = 0
    while i < len(wire):
        size = sizes[k % len(sizes)]
        got += decoder.feed(wire[i : i + size])
        i += size
        k += 1
    got += decoder.flush()
    assert [(e.event, e.data) for e in got] == reference(wire)


def test_a_long_line_is_kept_in_pieces_and_joined_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting work: each read is searched on its own when it arrives, the pieces of an
    unfinished line are kept as they came (never re-concatenated per read, as the old buffer
    was) and joined once, at the line's end: linear in the line's length."""
    joined: list[int] = []
    real_join = bytes.join

    class Counting(bytes):
        def join(self, pieces):  # type: ignore[no-untyped-def,override]
            pieces = list(pieces)
            joined.append(sum(map(len, pieces)))
            return real_join(self, pieces)

    monkeypatch.setattr(_sse, "_EMPTY", Counting(b""))
    decoder = SSEDecoder(max_event_bytes=10_000_000)
    piece = b"x" * 1000
    assert decoder.feed(b"data: ") == []
    for _ in range(2000):  # a 2 MB line in 2,000 reads
        assert decoder.feed(piece) == []
    assert decoder.buffered == 2_000_006
    assert len(decoder._partial) == 2001  # pieces kept, never re-concatenated per read
    events = decoder.feed(b"\n\n")
    assert len(events) == 1 and len(events[0].data) == 2_000_000
    assert joined == [2_000_006]  # one join of the whole line, at its end


def test_the_buffer_is_bounded_by_the_cap() -> None:
    decoder = SSEDecoder(max_event_bytes=1000)
    held = []
    with pytest.raises(SSELimitError, match="1000 bytes"):
        for _ in range(10_000):  # 1 MB of one line, 100 bytes a read
            decoder.feed(b"y" * 100)
            held.append(decoder.buffered)
    assert max(held) <= 1000 and len(held) == 10
    # many data lines of one event count together
    decoder = SSEDecoder(max_event_bytes=1000)
    with pytest.raises(SSELimitError):
        for _ in range(20):
            decoder.feed(b"data: " + b"z" * 90 + b"\n")
    # a line over the cap within one read
    with pytest.raises(SSELimitError):
        SSEDecoder(max_event_bytes=1000).feed(b"data: " + b"w" * 2000 + b"\n\n")
    # at the cap, fine
    ok = SSEDecoder(max_event_bytes=1000).feed(b"data: " + b"v" * 990 + b"\n\n")
    assert len(ok[0].data) == 990


def test_an_endless_upstream_line_ends_the_client_stream_with_an_error_event() -> None:
    from support.fake_upstream import CHAT_CLEAN, serve_app

    class Endless(httpx.AsyncByteStream):
        sent = 0

        async def __aiter__(self):  # type: ignore[no-untyped-def,override]
            yield CHAT_CLEAN[0]
            yield b"data: "
            while Endless.sent < 64 * 1024 * 1024:  # far over the cap, if never stopped
                Endless.sent += 65536
                yield b"a" * 65536

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Endless())

    config = ServeConfig(upstream="http://upstream.test/v1")
    app = create_app(config, transport=httpx.MockTransport(handler))
    with serve_app(app) as url:
        body = {"model": "gpt-oss-120b", "messages": [], "stream": True}
        r = httpx.post(url + "/v1/chat/completions", json=body, timeout=30)
    events = [e for e in r.content.split(b"\n\n") if e]
    error = json.loads(events[-1][len(b"data: ") :])["error"]
    assert "exceeds" in error["message"] and error["type"] == "upstream_error"
    assert Endless.sent <= _sse.DEFAULT_MAX_EVENT_BYTES + 2 * 65536  # stopped at the cap
