"""The proxy's SSE decoder: any split and line ending decodes the same, a long line costs each
byte one search (linear), and the memory it holds is bounded by its cap."""

from __future__ import annotations

import json

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.serve import ServeConfig, create_app
from guard.wire import _sse
from guard.wire._sse import SSEDecoder, SSELimitError, encode


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


class LineByLine(SSEDecoder):
    """The decoder without its fast path for reads of whole ``data:`` events."""

    fast_path = False


def decode_in_reads(decoder: SSEDecoder, reads: list[bytes]) -> list[object]:
    """Every event (data, event, id, raw) the reads give, then the flush, or the limit error
    the decoder raised, in place of what would have followed."""
    got: list[object] = []
    try:
        for read in reads:
            got += [(e.data, e.event, e.id, e.raw) for e in decoder.feed(read)]
        got += [(e.data, e.event, e.id, e.raw) for e in decoder.flush()]
    except SSELimitError as exc:
        got.append(str(exc))
    return got


DEFAULT_CAP = _sse.DEFAULT_MAX_EVENT_BYTES

#: whole events as OpenAI-compatible servers write them, and the pieces of other shapes
UNIT = st.one_of(
    st.sampled_from(
        [
            b'data: {"a": 1}\n\n',
            b"data: x\n\n",
            b"data: \n\n",
            b"data: [DONE]\n\n",
            b"data: \xc3\xa9\n\n",
            b"data: \xff\xfe\n\n",  # not UTF-8: replaced, so its bytes are not kept
            b"data: \xed\xa0\x80\n\n",  # an encoded surrogate: not UTF-8 either
            b"data: " + b"z" * 40 + b"\n\n",  # over the small cap below
            b"data:y\n\n",
            b"data: a\ndata: b\n\n",
            b"event: e\ndata: x\n\n",
            b"id: 7\n",
            b": comment\n",
            b"\n",
            b"data: x\r\n\r\n",
            b"data: x\r\r",
            b"data: x",
            b"\xef\xbb\xbfdata: bom\n\n",
        ]
    ),
    st.binary(max_size=12),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(UNIT, max_size=16),
    st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=20),
    st.sampled_from([30, DEFAULT_CAP]),
)
def test_the_fast_path_decodes_like_the_line_by_line_path(
    units: list[bytes], cuts: list[int], cap: int
) -> None:
    """Any stream, cut anywhere (at event boundaries, where the fast path applies, or inside
    lines and line ends): the same events, the same error, and kept wire bytes that are
    exactly each event's encoding."""
    wire = b"".join(units)
    # reads: whole groups of units, each group then cut once at a chosen offset
    reads: list[bytes] = []
    i = 0
    k = 0
    while i < len(units):
        size = 1 + cuts[k % len(cuts)] % 3
        group = b"".join(units[i : i + size])
        at = cuts[(k + 1) % len(cuts)]
        reads += [group[:at], group[at:]] if at and at < len(group) else [group]
        i += size
        k += 1
    fast = decode_in_reads(SSEDecoder(max_event_bytes=cap), reads)
    slow = decode_in_reads(LineByLine(max_event_bytes=cap), reads)
    assert [e[:3] if isinstance(e, tuple) else e for e in fast] == [
        e[:3] if isinstance(e, tuple) else e for e in slow
    ]
    assert all(e[3] is None for e in slow if isinstance(e, tuple))
    for event in fast:
        if isinstance(event, tuple) and event[3] is not None:
            assert event[3] == encode(event[0], event[1])
            assert event[3] in wire
    if cap == DEFAULT_CAP:  # no error: the same events as the whole stream read at once
        whole = decode_in_reads(LineByLine(), [wire])
        assert [e[:3] for e in fast] == [e[:3] for e in whole]


def test_whole_data_events_take_the_fast_path_and_keep_their_bytes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    decoder = SSEDecoder()
    monkeypatch.setattr(decoder, "_line", None)  # the line-by-line path would fail here
    one = b'data: {"choices": []}\n\n'
    (event,) = decoder.feed(one)
    assert event.data == '{"choices": []}' and event.raw is one
    events = decoder.feed(b"data: a\n\ndata: b\n\n")
    assert [(e.data, e.raw) for e in events] == [("a", b"data: a\n\n"), ("b", b"data: b\n\n")]


@pytest.mark.parametrize(
    "read",
    [
        b"data: a\ndata: b\n\n",  # two lines of one event
        b"event: e\ndata: a\n\n",
        b"data: a\r\n\r\n",
        b"data: a\n\n\n",  # a blank line too many
        b"data: a\n\n: c\n\n",
        b"data:a\n\n",  # no space after the colon
    ],
)
def test_other_shapes_are_read_line_by_line(read: bytes) -> None:
    fast = decode_in_reads(SSEDecoder(), [read])
    assert fast == decode_in_reads(LineByLine(), [read])
    assert all(e[3] is None for e in fast if isinstance(e, tuple))


def test_the_fast_path_waits_for_what_an_earlier_read_left() -> None:
    decoder = SSEDecoder()
    assert decoder.feed(b"data: a\n") == []  # an event is open
    (event,) = decoder.feed(b"data: b\n\n")
    assert event.data == "a\nb" and event.raw is None
    decoder = SSEDecoder()
    decoder.feed(b"id: 4\n")
    (event,) = decoder.feed(b"data: c\n\n")  # the last event id carries over
    assert (event.data, event.id, event.raw) == ("c", "4", b"data: c\n\n")


def test_an_event_over_the_cap_raises_on_the_fast_path_too() -> None:
    with pytest.raises(SSELimitError, match="exceeds 30 bytes"):
        SSEDecoder(max_event_bytes=30).feed(b"data: " + b"w" * 40 + b"\n\n")
