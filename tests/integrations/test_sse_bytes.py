"""guard_sse_bytes (the LiteLLM hook's path for streams handed over as SSE bytes) drives the
wire engine's streamed answers: every string of every event judged, whatever the split of the
bytes into pieces; a stream it cannot read raises UnreadableStream, never relays unseen."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard.errors import LeakAborted
from guard.integrations._sse_bytes import UnreadableStream, guard_sse_bytes
from guard.integrations.openai.protocol import GuardSettings

LEAK = "<|start|>assistant<|channel|>analysis<|message|>secret"


def sse(items: list[Any]) -> bytes:
    out = b""
    for item in items:
        data = item if isinstance(item, str) else json.dumps(item)
        event = item.get("type") if isinstance(item, dict) and "choices" not in item else None
        out += (f"event: {event}\n" if event else "").encode() + f"data: {data}\n\n".encode()
    return out


def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {"id": "c1", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def run(
    body: bytes, cuts: list[int] | None = None, on_leak: str = "truncate"
) -> tuple[bytes, dict[str, Any]]:
    points = sorted({c % (len(body) + 1) for c in cuts or []})
    pieces = [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]

    async def source() -> AsyncIterator[bytes]:
        for piece in pieces:
            yield piece

    async def main() -> tuple[bytes, dict[str, Any]]:
        report: dict[str, Any] = {}
        out = b""
        async for piece in guard_sse_bytes(
            source(), GuardSettings.resolve(on_leak=on_leak), report
        ):
            out += piece
        return out, report

    return asyncio.run(main())


CLEAN_CHAT = [
    chunk({"content": "Hello "}),
    chunk({"content": "there."}),
    chunk({}, "stop"),
    "[DONE]",
]
LEAKY_CHAT = [
    chunk({"content": "Hello "}),
    chunk({"content": "there. " + LEAK}),
    chunk({"content": "more"}),
    chunk({}, "stop"),
    "[DONE]",
]


def test_a_clean_chat_stream_goes_out_as_it_came() -> None:
    out, report = run(sse(CLEAN_CHAT))
    assert out == sse(CLEAN_CHAT)
    assert report["kind"] == "chat" and not report["leak"]


def test_a_leaking_chat_stream_is_cut_and_ended() -> None:
    out, report = run(sse(LEAKY_CHAT))
    assert b"<|start|>" not in out and b"more" not in out
    assert out.endswith(b"data: [DONE]\n\n") and b'"guard"' in out
    assert report["leak"] and report["cut"]


@pytest.mark.parametrize(
    "delta",
    [{"refusal": LEAK}, {"function_call": {"name": "f", "arguments": LEAK}}, {"x_vendor": LEAK}],
    ids=["refusal", "legacy function_call", "unknown field"],
)
def test_every_string_of_a_chunk_is_judged(delta: dict[str, Any]) -> None:
    out, report = run(sse([chunk({"content": "Hi"}), chunk(delta), chunk({}, "stop"), "[DONE]"]))
    assert b"<|start|>" not in out and report["leak"]


def test_messages_and_responses_streams_are_judged() -> None:
    messages = [
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {
            "type": "content_block_delta",
            "index": 0,
            "delta": {"type": "text_delta", "text": "Sure. " + LEAK},
        },
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    out, report = run(sse(messages))
    assert b"<|start|>" not in out and report["kind"] == "messages" and report["leak"]
    responses = [
        {"type": "response.created", "response": {"id": "r", "output": []}},
        {
            "type": "response.output_text.delta",
            "output_index": 0,
            "content_index": 0,
            "delta": LEAK,
        },
        {"type": "response.completed", "response": {"id": "r", "output": []}},
    ]
    out, report = run(sse(responses))
    assert b"<|start|>" not in out and report["kind"] == "responses" and report["leak"]


def test_an_aborting_leak_raises() -> None:
    with pytest.raises(LeakAborted):
        run(sse(LEAKY_CHAT), on_leak="abort")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (sse([{"type": "vendor.event"}]), "first event is no chat chunk"),
        (b"data: not json\n\n", "not a JSON object"),
        (sse([chunk({"content": "Hi"})]) + b"data: [1, 2]\n\n", "not a JSON object"),
    ],
)
def test_an_unreadable_stream_raises(body: bytes, message: str) -> None:
    with pytest.raises(UnreadableStream, match=message):
        run(body)


def test_a_fault_comes_after_what_came_before_it() -> None:
    got: list[bytes] = []

    async def source() -> AsyncIterator[bytes]:
        yield sse([chunk({"content": "Hi"})])
        yield b"data: [1]\n\n"

    async def main() -> None:
        async for piece in guard_sse_bytes(source(), GuardSettings.resolve()):
            got.append(piece)

    with pytest.raises(UnreadableStream):
        asyncio.run(main())
    assert b"".join(got) == sse([chunk({"content": "Hi"})])


def test_pieces_that_are_not_bytes_raise() -> None:
    async def source() -> AsyncIterator[Any]:
        yield 42

    async def main() -> None:
        async for _ in guard_sse_bytes(source(), GuardSettings.resolve()):
            pass

    with pytest.raises(UnreadableStream, match="expected the stream's bytes, got int"):
        asyncio.run(main())


def test_an_empty_stream_gives_nothing() -> None:
    assert run(b"")[0] == b""
    assert run(b"data: [DONE]\n\n")[0] == b""


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([CLEAN_CHAT, LEAKY_CHAT]), st.lists(st.integers(0, 2000), max_size=8))
def test_any_split_of_the_bytes_gives_the_same_bytes(items: list[Any], cuts: list[int]) -> None:
    body = sse(items)
    assert run(body, cuts) == run(body)
