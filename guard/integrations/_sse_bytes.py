"""A guarded SSE byte stream: the bytes of an OpenAI chat, OpenAI Responses or Anthropic
Messages event stream in, the guarded bytes out.

For framework hooks that are handed a provider's stream as raw bytes (LiteLLM's pass-through
routes such as ``/v1/messages``). The first event says which of the three streams it is; from
there the bytes go to the wire engine's streamed answer of that kind
(:func:`guard.wire.streamed_answer`), the same one the proxy and the guarded httpx transport
drive: every string of every event is judged, a leaking choice or stream is cut and ended in
the protocol's own terms, and what the guard delivers goes out as the bytes it came in. Deny
by default: a stream whose first event has none of the three shapes, an event that is not a
JSON object, bytes that are not bytes, or an event over the decoder's limit raise
:class:`UnreadableStream` (after what came before the faulty event); nothing is relayed unseen.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from guard._json import loads
from guard.integrations.openai.protocol import GuardSettings
from guard.wire import SSEDecoder, SSELimitError, StreamedAnswer, streamed_answer

__all__ = ["UnreadableStream", "guard_sse_bytes", "stream_kind"]


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


def _bytes(piece: Any) -> bytes:
    if isinstance(piece, str):
        return piece.encode("utf-8")
    if not isinstance(piece, bytes | bytearray | memoryview):
        raise UnreadableStream(f"expected the stream's bytes, got {type(piece).__name__}")
    return bytes(piece)


class _Probe:
    """Reads the stream's first pieces until its first event says which stream it is."""

    def __init__(self) -> None:
        self.decoder = SSEDecoder()
        self.pieces: list[bytes] = []

    def kind(self, piece: bytes | None) -> str | None:
        """The stream's kind once its first event came (``""``: the stream is empty or its
        first event is ``[DONE]``), else None. Raises :class:`UnreadableStream`."""
        try:
            if piece is None:
                events = self.decoder.flush()
            else:
                self.pieces.append(piece)
                events = self.decoder.feed(piece)
        except SSELimitError as exc:
            raise UnreadableStream(str(exc)) from None
        if not events:
            return "" if piece is None else None
        data = events[0].data
        if data == "[DONE]":
            return ""
        try:
            item = loads(data)
        except (ValueError, RecursionError):
            item = None
        if not isinstance(item, dict):
            raise UnreadableStream("an event of the stream is not a JSON object")
        kind = stream_kind(item)
        if kind is None:
            raise UnreadableStream(
                "the stream's first event is no chat chunk, Responses or Messages event"
            )
        return kind


async def guard_sse_bytes(
    source: AsyncIterator[Any], settings: GuardSettings, report: dict[str, Any] | None = None
) -> AsyncIterator[bytes]:
    """The guarded bytes of the SSE stream ``source`` (pieces of any size).

    A stream guard stopped ends in its protocol's terms, as the proxy ends it (a chat choice
    with a final chunk and a ``"guard"`` chunk before ``data: [DONE]``; Responses and Messages
    with their own terminal events). ``report``, when
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
    probe: _Probe | None = _Probe()
    answer: StreamedAnswer | None = None
    try:
        async for raw in source:
            piece = _bytes(raw)
            if probe is not None:
                kind = probe.kind(piece)
                if kind is None:
                    continue
                if not kind:
                    return
                answer = _answer(kind, settings)
                piece, probe = b"".join(probe.pieces), None
            assert answer is not None
            out = answer.feed(piece)
            if answer.fault is None and not (answer.stopped or answer.ended):
                if out:
                    yield b"".join(out)
                continue
            async for one in _ending(answer, out):
                yield one
            return
        if probe is not None:
            kind = probe.kind(None)
            if not kind:
                return
            answer = _answer(kind, settings)
            out = answer.feed(b"".join(probe.pieces))
            if answer.fault is not None or answer.stopped or answer.ended:
                async for one in _ending(answer, out):
                    yield one
                return
        assert answer is not None
        async for one in _ending(answer, answer.feed(None)):
            yield one
    finally:
        if report is not None and answer is not None:
            report.update(
                kind=answer.kind,
                leak=any(v.leak for v in answer.verdicts),
                forged=bool(answer.forged),
                cut=dict(answer.cut),
                chars_dropped=answer.chars_dropped,
            )


def _answer(kind: str, settings: GuardSettings) -> StreamedAnswer:
    return streamed_answer(
        kind, settings.dialect, settings.policy, settings.on_leak, settings.tools, "raise"
    )


async def _ending(answer: StreamedAnswer, out: list[bytes]) -> AsyncGenerator[bytes, None]:
    """The last bytes of a stream guard stopped, the upstream ended or that failed: what came
    before, then the protocol's ending (a fault raises :class:`UnreadableStream` instead; an
    aborting leak raises :class:`guard.LeakAborted`)."""
    if answer.fault is not None:
        answer.upstream_failed()
        if out:
            yield b"".join(out)
        raise UnreadableStream(str(answer.fault))
    out += answer.finish()
    if out:
        yield b"".join(out)
