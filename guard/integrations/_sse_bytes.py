"""A guarded SSE byte stream: the bytes of an OpenAI chat, OpenAI Responses or Anthropic
Messages event stream in, the guarded bytes out.

For framework hooks that are handed a provider's stream as raw bytes (LiteLLM's pass-through
routes such as ``/v1/messages``). The bytes are decoded with the wire engine's SSE decoder, each
event's JSON object is judged by the same stream guards the proxy uses (the stream middleware
for chat chunks, the Responses and Messages bridges for their events), and what they deliver
is encoded again. Deny by default: a stream whose first event has none of the three shapes, an
event that is not a JSON object, bytes that are not bytes, or an event over the decoder's limit
raise :class:`UnreadableStream`; nothing is relayed unseen.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from guard._json import loads
from guard.integrations.anthropic.protocol import guard_message_events
from guard.integrations.openai.protocol import GuardSettings, guard_response_events
from guard.stream import guard_stream
from guard.wire import SSEDecoder, SSELimitError
from guard.wire import encode as encode_sse

__all__ = ["UnreadableStream", "guard_sse_bytes", "stream_kind"]

_DONE = b"data: [DONE]\n\n"


class UnreadableStream(ValueError):
    """A byte stream guard cannot read as one of the event streams it judges."""


def stream_kind(item: Any) -> str | None:
    """``chat``, ``responses`` or ``messages`` for the first event of a stream, else None."""
    if not isinstance(item, dict):
        return None
    if "choices" in item:
        return "chat"
    kind = item.get("type")
    if isinstance(kind, str) and kind.startswith("response."):
        return "responses"
    if kind in ("message_start", "ping"):
        return "messages"
    return None


def _dumps(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


class _Events:
    """The JSON objects of an SSE byte stream, one per event; ``done`` once ``[DONE]`` came."""

    def __init__(self, source: AsyncIterator[Any]) -> None:
        self.source = source
        self.decoder = SSEDecoder()
        self.done = False

    def _item(self, data: str) -> Any:
        if data == "[DONE]":
            self.done = True
            return None
        try:
            item = loads(data)
        except (ValueError, RecursionError):
            item = None
        if not isinstance(item, dict):
            raise UnreadableStream("an event of the stream is not a JSON object")
        return item

    async def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        try:
            async for piece in self.source:
                if isinstance(piece, str):
                    piece = piece.encode("utf-8")
                if not isinstance(piece, bytes | bytearray | memoryview):
                    raise UnreadableStream(
                        f"expected the stream's bytes, got {type(piece).__name__}"
                    )
                for event in self.decoder.feed(bytes(piece)):
                    item = self._item(event.data)
                    if item is None:
                        return
                    yield item
            for event in self.decoder.flush():
                item = self._item(event.data)
                if item is None:
                    return
                yield item
        except SSELimitError as exc:
            raise UnreadableStream(str(exc)) from None


def _final_chunk(last: dict[str, Any], reason: str) -> dict[str, Any]:
    """A chat chunk that ends every choice of ``last`` with ``reason``."""
    choices = last.get("choices") or ()
    indexes = sorted({c.get("index") or 0 for c in choices if isinstance(c, dict)})
    out = {k: v for k, v in last.items() if k not in ("choices", "usage")}
    out["choices"] = [
        {"index": i, "delta": {}, "finish_reason": reason, "logprobs": None} for i in indexes or [0]
    ]
    return out


async def guard_sse_bytes(
    source: AsyncIterator[Any], settings: GuardSettings, report: dict[str, Any] | None = None
) -> AsyncIterator[bytes]:
    """The guarded bytes of the SSE stream ``source`` (pieces of any size).

    A chat stream guard stopped ends with a final chunk (``stop``) and ``data: [DONE]``; the
    Responses and Messages bridges end theirs with their own terminal events. ``report``, when
    given, is filled with ``kind``, ``leak``, ``forged``, ``cut`` and ``chars_dropped`` as the
    stream ends.

    Raises:
        UnreadableStream: the stream is not one of the three shapes (raised before any byte is
            delivered when the first event shows it), or an event cannot be read.
        LeakAborted: ``on_leak="abort"`` and the model's text leaks.
    """
    guarded = _guarded_bytes(source, settings, report)
    try:
        async for piece in guarded:
            yield piece
    finally:
        await guarded.aclose()
        closer = getattr(source, "aclose", None)
        if closer is not None:
            await closer()  # whatever ended the stream, the upstream is closed at once


async def _guarded_bytes(
    source: AsyncIterator[Any], settings: GuardSettings, report: dict[str, Any] | None
) -> AsyncGenerator[bytes, None]:
    events = _Events(source)
    items = aiter(events)
    try:
        first = await anext(items)
    except StopAsyncIteration:
        return
    kind = stream_kind(first)
    if kind is None:
        raise UnreadableStream(
            "the stream's first event is no chat chunk, Responses or Messages event"
        )

    async def chained() -> AsyncIterator[dict[str, Any]]:
        yield first
        async for item in items:
            yield item

    options: dict[str, Any] = {
        "dialect": settings.dialect,
        "policy": settings.policy,
        "on_leak": settings.on_leak,
        "tools": settings.tools,
    }
    guarded: Any
    if kind == "chat":
        guarded = guard_stream(chained(), raw=False, **options)
    elif kind == "responses":
        guarded = guard_response_events(chained(), **options)
    else:
        guarded = guard_message_events(chained(), **options)
    last: dict[str, Any] | None = None
    finished = False
    try:
        async for item in guarded:
            if kind == "chat":
                last = item
                choices = item.get("choices") or ()
                finished = finished or any(
                    isinstance(c, dict) and c.get("finish_reason") for c in choices
                )
                yield encode_sse(_dumps(item))
            else:
                name = item.get("type") if isinstance(item, dict) else None
                yield encode_sse(_dumps(item), name if isinstance(name, str) else None)
        if kind == "chat":
            stopped = bool(guarded.forged or guarded.cut)
            if stopped and not finished and last is not None:
                yield encode_sse(_dumps(_final_chunk(last, "stop")))
            if stopped or events.done:
                yield _DONE
    finally:
        await guarded.aclose()
        await items.aclose()  # type: ignore[attr-defined]
        if report is not None:
            report.update(
                kind=kind,
                leak=any(v.leak for v in guarded.verdicts),
                forged=bool(guarded.forged),
                cut=dict(guarded.cut),
                chars_dropped=guarded.chars_dropped,
            )
