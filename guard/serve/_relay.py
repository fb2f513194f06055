"""Guarded SSE relays: an upstream event stream read, guarded and written to the client.

The judging is the wire engine's (:class:`guard.wire.StreamedAnswer`, sans-IO, shared with the
httpx transport); a relay reads the upstream body within the exchange's deadlines, feeds it
piece by piece and writes what comes back, with no generator between the upstream and the
client. When guard stops a stream (a forged tool result, a leak, an aborting leak) the upstream
connection is closed at once and the client's stream still ends well-formed
(``docs/streaming.md``, "guard_stream"); an upstream that fails ends it with an error event.
Each relay writes one access record.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

import anyio
import httpx

from guard.serve._config import ServeConfig
from guard.serve._deadlines import Deadline, DeadlineExceeded
from guard.serve._logging import AccessRecord, log
from guard.serve._offload import INLINE_BYTES, Offload
from guard.wire import SSELimitError, StreamedAnswer, UpstreamFault, streamed_answer

__all__ = ["ChatRelay", "MessagesRelay", "Relay", "ResponsesRelay", "UpstreamFault"]

#: how long the rest of the body after ``[DONE]`` is read, so the connection can be reused
_DRAIN_SECONDS = 0.25

#: upstream stream faults that end the client's stream with an error event
_STREAM_FAULTS = (httpx.HTTPError, DeadlineExceeded, SSELimitError, UpstreamFault)


class Relay:
    """One guarded stream from upstream to client; :meth:`body` is the response body. The
    subclasses name the kind of stream."""

    kind = ""

    def __init__(
        self,
        resp: httpx.Response,
        dialect: str,
        config: ServeConfig,
        access: AccessRecord,
        deadline: Deadline,
        tools: frozenset[str] | None = None,
        offload: Offload | None = None,
        choices: int = 1,
    ) -> None:
        self.resp = resp
        #: judges a piece whose feed weighs :data:`INLINE_BYTES` or more (the piece, and the
        #: event it ends: :meth:`~guard.wire.StreamedAnswer.weight`) on a worker thread
        self.offload = offload
        self.access = access
        self.deadline = deadline
        self.status = resp.status_code
        self.answer: StreamedAnswer = streamed_answer(
            self.kind, dialect, config.policy, config.on_leak, tools, choices=choices
        )
        # without a content coding the body's bytes are the bytes read (one layer less); a
        # body already read (a test transport's) is only there as decoded bytes
        decoded = "content-encoding" in resp.headers or resp.is_stream_consumed
        self.pieces = resp.aiter_bytes() if decoded else resp.aiter_raw()
        self._closed = False

    async def _close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with anyio.CancelScope(shield=True):
            await self.pieces.aclose()  # type: ignore[attr-defined]
            await self.resp.aclose()

    async def _drain(self) -> None:
        """After ``[DONE]``: read the rest (the terminating chunk) for a moment, so the
        connection can be reused."""
        if self.answer.done:
            with anyio.move_on_after(_DRAIN_SECONDS):
                while await self.deadline.next(self.pieces) is not None:
                    pass

    async def body(self) -> AsyncIterator[bytes]:
        answer = self.answer
        feed = answer.feed
        read = self.deadline.next
        pieces = self.pieces
        offload = self.offload
        outcome = "disconnected"
        try:
            try:
                while True:
                    piece = await read(pieces)
                    if (
                        offload is not None
                        and piece is not None
                        and (weight := answer.weight(piece)) >= INLINE_BYTES
                    ):
                        out = await offload.run(weight, feed, piece)
                    else:
                        out = feed(piece)
                    if answer.fault is not None:
                        # what came before the faulty event still goes out first
                        await self._close()
                        answer.upstream_failed()
                        if out:
                            yield b"".join(out)
                        raise answer.fault
                    if answer.stopped:
                        # the upstream is closed before the last items go out
                        await self._close()
                    elif answer.ended:
                        await self._drain()
                        await self._close()
                    else:
                        if out:
                            yield out[0] if len(out) == 1 else b"".join(out)
                        continue
                    out.extend(answer.finish())
                    if out:
                        yield b"".join(out)
                    break
            except Exception as exc:
                await self._close()
                if not answer.guarded.stopped:
                    answer.upstream_failed()
                outcome, failure = self._fault(exc)
                yield failure
                return
            outcome = "complete"
        finally:
            await self._close()
            self._record(outcome)

    def _fault(self, exc: Exception) -> tuple[str, bytes]:
        """The outcome, and the event that ends the client's stream, of a stream that failed:
        the upstream's fault, or else the proxy's (still ended readably)."""
        self.access.fields["error"] = type(exc).__name__
        if isinstance(exc, _STREAM_FAULTS):
            return "upstream_error", self.answer.failure(_fault_message(exc))
        log.error("guard.serve.internal_error", error=type(exc).__name__, stream=True)
        return "internal_error", self.answer.failure(
            f"guard serve failed on this stream: {type(exc).__name__}"
        )

    def _record(self, outcome: str) -> None:
        """Write the access record; ``outcome`` is how the stream ended (``complete``,
        ``disconnected``, ``upstream_error``, ``internal_error``), from which the record's own
        ``outcome`` word follows (:mod:`guard.serve._outcome`)."""
        answer = self.answer
        leaks = [v for v in answer.verdicts if v.leak]  # asked once: each ask judges again
        if outcome == "disconnected":
            self.access.fields["disconnected"] = True
        self.access.fields.update(
            upstream_chunks=answer.chunks,
            chunks=answer.sent,
            forged=answer.forged,
            cut=bool(answer.cut),
            aborted=answer.aborted,
            leak=bool(leaks),
            chars_dropped=answer.chars_dropped,
        )
        self.access.verdicts = leaks
        self.access.emit(self.status or 200)


def _fault_message(exc: Exception) -> str:
    if isinstance(exc, httpx.HTTPError):
        return f"upstream stream failed: {type(exc).__name__}"
    return f"upstream stream failed: {exc}"


class ChatRelay(Relay):
    """A Chat Completions chunk stream (:class:`guard.wire.StreamedAnswer` for ``chat``)."""

    kind = "chat"


class ResponsesRelay(Relay):
    """A Responses API event stream."""

    kind = "responses"


class MessagesRelay(Relay):
    """An Anthropic Messages event stream."""

    kind = "messages"
