"""Guarded SSE relays: an upstream event stream read, guarded and written to the client.

Upstream events that guard delivers unchanged go out as they came: byte for byte when the
SSE decoder kept their bytes (whole one-line ``data:`` events), else re-encoded from their data
(the same bytes but for line ends, comments, ``id`` lines and the space after a colon); changed
or new ones are re-serialised. The chat relay runs in one loop (:meth:`ChatRelay.body`), the
others iterate their guarded streams. When guard stops a stream (a forged tool result, a leak, an
aborting leak) the upstream connection is closed at once and the client's stream still ends
well-formed: a chat stream with a final chunk and ``data: [DONE]``, a Responses stream with
the bridge's terminal events, an Anthropic Messages stream with the open block stopped,
``message_delta`` and ``message_stop`` (``docs/streaming.md``, "guard_stream"). Each
relay writes one access record.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, cast

import anyio
import httpx

from guard._depth import MAX_DEPTH, check_depth
from guard._json import loads
from guard.errors import LeakAborted, NestingError
from guard.integrations.anthropic.protocol import AsyncGuardedMessageStream, guard_message_events
from guard.integrations.openai.protocol import AsyncGuardedResponseStream, guard_response_events
from guard.serve._config import ServeConfig
from guard.serve._deadlines import Deadline, DeadlineExceeded
from guard.serve._logging import AccessRecord, log
from guard.serve._offload import INLINE_BYTES, Offload
from guard.serve._shape import ChunkShape
from guard.serve._sse import SSEDecoder, SSEEvent, SSELimitError, encode
from guard.stream import AsyncGuardedStream, guard_stream

__all__ = ["ChatRelay", "MessagesRelay", "Relay", "ResponsesRelay"]

_DONE = b"data: [DONE]\n\n"
#: id of a parsed item waiting to go out -> (the item, the SSE event it came in)
_Raws = dict[int, tuple[Any, SSEEvent]]
#: how long the rest of the body after ``[DONE]`` is read, so the connection can be reused
_DRAIN_SECONDS = 0.25
#: how many chunk shapes one chat stream may take (a stream whose chunks all differ around
#: their text takes none that fits: it stops looking)
_MAX_SHAPES = 16


@dataclass
class _UpstreamState:
    """What the proxy learnt about one upstream stream."""

    status: int | None = None
    chunks: int = 0
    done: bool = False


class UpstreamFault(Exception):
    """The upstream sent a stream the proxy cannot relay (the message says why)."""


#: upstream stream faults that end the client's stream with an error event
_STREAM_FAULTS = (httpx.HTTPError, DeadlineExceeded, SSELimitError, UpstreamFault)


@dataclass(frozen=True)
class _Opaque:
    """An SSE event whose data is not a JSON object: passed through as it is."""

    data: str
    event: str | None


def _int_or_float(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:  # past the interpreter's digit limit: kept as a float (close enough)
        return float(text)


def _lenient(data: str) -> Any:
    """An event's JSON read with no limit on the digits of an integer; None if not JSON."""
    try:
        return json.loads(data, parse_int=_int_or_float)
    except (ValueError, RecursionError):
        return None


def _dumps(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def _wire(event: SSEEvent) -> bytes:
    """An upstream event on the wire as it came (re-encoded: the same bytes but for line ends,
    comments, ``id`` lines and the space after a colon)."""
    raw = event.raw
    return encode(event.data, event.event) if raw is None else raw


def _encode(item: Any, raws: _Raws) -> bytes:
    """An item on the wire: unchanged upstream items as they came, others re-serialised."""
    if isinstance(item, _Opaque):
        return encode(item.data, item.event)
    entry = raws.pop(id(item), None)
    if entry is not None and entry[0] is item:
        return _wire(entry[1])
    event = item.get("type") if isinstance(item, dict) and "choices" not in item else None
    return encode(_dumps(item), event if isinstance(event, str) else None)


class _Upstream:
    """The upstream SSE body: read one piece at a time, each within the total deadline, and
    parsed into items; closing it closes the HTTP response. Iterating it gives the items (a
    dict item is noted in ``raws`` with its event, so it can go out as it came)."""

    def __init__(
        self, resp: httpx.Response, raws: _Raws, state: _UpstreamState, deadline: Deadline
    ) -> None:
        self.resp = resp
        self.raws = raws
        self.state = state
        self.deadline = deadline
        # without a content coding the body's bytes are the bytes read (one layer less); a
        # body already read (a test transport's) is only there as decoded bytes
        decoded = "content-encoding" in resp.headers or resp.is_stream_consumed
        self.pieces = resp.aiter_bytes() if decoded else resp.aiter_raw()
        self.decoder = SSEDecoder()
        #: the body ended or ``[DONE]`` came: :meth:`read` gives nothing more
        self.ended = False

    async def read(self) -> list[SSEEvent]:
        """The events of the next piece of the body (maybe none); at the end of the body,
        those it still held, and :attr:`ended` is true."""
        piece = await self.deadline.next(self.pieces)
        if piece is None:
            self.ended = True
            return self.decoder.flush()
        return self.decoder.feed(piece)

    def parse(self, event: SSEEvent) -> Any:
        """The item of an event: a dict, an :class:`_Opaque` for data that is not a JSON
        object, or None for ``[DONE]`` (then :attr:`ended` is true)."""
        data = event.data
        if data == "[DONE]":
            self.state.done = self.ended = True
            return None
        self.state.chunks += 1
        try:
            item = loads(data)
            # nesting is at most the number of opening brackets (and each has a closing one):
            # most events need no walk, and short ones no count
            if len(data) > 2 * MAX_DEPTH and data.count("{") + data.count("[") > MAX_DEPTH:
                check_depth(item, "an upstream event")
        except NestingError as exc:
            raise UpstreamFault(str(exc)) from None
        except RecursionError:
            raise UpstreamFault("an upstream event is nested too deep to read") from None
        except ValueError:
            item = _lenient(data)  # integers past the digit limit still read (issue 28)
        if not isinstance(item, dict):
            # deny by default: an event the judge cannot read ends the stream with an error
            raise UpstreamFault("an upstream event is not a JSON object")
        return item

    async def drain(self) -> None:
        """After ``[DONE]``: read the rest (the terminating chunk) for a moment, so the
        connection can be reused."""
        if self.state.done:
            with anyio.move_on_after(_DRAIN_SECONDS):
                while await self.deadline.next(self.pieces) is not None:
                    pass

    async def __aiter__(self) -> AsyncIterator[Any]:
        raws = self.raws
        try:
            while not self.ended:
                for event in await self.read():
                    item = self.parse(event)
                    if item is None:
                        break
                    if type(item) is dict:
                        raws[id(item)] = (item, event)
                    yield item
            await self.drain()
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        with anyio.CancelScope(shield=True):
            await self.pieces.aclose()  # type: ignore[attr-defined]
            await self.resp.aclose()


class Relay:
    """One guarded stream from upstream to client; :meth:`body` is the response body. The
    subclasses say how the stream is guarded, how it ends and how an upstream failure
    reads."""

    def __init__(
        self,
        resp: httpx.Response,
        dialect: str,
        config: ServeConfig,
        access: AccessRecord,
        deadline: Deadline,
        tools: frozenset[str] | None = None,
    ) -> None:
        self.access = access
        #: the request's declared tool names (``None``: unknown), context of the judge
        self.tools = tools
        self.raws: _Raws = {}
        self.state = _UpstreamState(status=resp.status_code)
        self.sent = 0
        self.aborted = False
        self.upstream = _Upstream(resp, self.raws, self.state, deadline)
        self.guarded = self._guard(self.upstream, dialect, config)

    def _guard(
        self, events: AsyncIterable[Any], dialect: str, config: ServeConfig
    ) -> AsyncGuardedStream | AsyncGuardedResponseStream | AsyncGuardedMessageStream:
        raise NotImplementedError

    def _see(self, item: Any) -> None:
        """Note an item on its way out."""

    def _ending(self) -> list[bytes]:
        """What ends the client's stream after the last item."""
        raise NotImplementedError

    def _failure(self, message: str) -> bytes:
        """The event that tells the client the stream failed (``message`` says why)."""
        raise NotImplementedError

    async def body(self) -> AsyncIterator[bytes]:
        guarded = self.guarded
        raws = self.raws
        outcome = "disconnected"
        try:
            try:
                async for item in guarded:
                    self._see(item)
                    yield _encode(item, raws)
                    self.sent += 1
            except LeakAborted:
                self.aborted = True
            except Exception as exc:
                outcome, failure = self._fault(exc)
                yield failure
                return
            for piece in self._ending():
                yield piece
            outcome = "complete"
        finally:
            with anyio.CancelScope(shield=True):
                await guarded.aclose()
            self._record(outcome)

    def _fault(self, exc: Exception) -> tuple[str, bytes]:
        """The outcome, and the event that ends the client's stream, of a stream that failed:
        the upstream's fault, or else the proxy's (still ended readably)."""
        self.access.fields["error"] = type(exc).__name__
        if isinstance(exc, _STREAM_FAULTS):
            return "upstream_error", self._failure(_fault_message(exc))
        log.error("guard.serve.internal_error", error=type(exc).__name__, stream=True)
        return "internal_error", self._failure(
            f"guard serve failed on this stream: {type(exc).__name__}"
        )

    def _record(self, outcome: str) -> None:
        """Write the access record; ``outcome`` is how the stream ended (``complete``,
        ``disconnected``, ``upstream_error``, ``internal_error``), from which the record's own
        ``outcome`` word follows (:mod:`guard.serve._outcome`)."""
        guarded = self.guarded
        leaks = [v for v in guarded.verdicts if v.leak]  # asked once: each ask judges again
        if outcome == "disconnected":
            self.access.fields["disconnected"] = True
        self.access.fields.update(
            upstream_chunks=self.state.chunks,
            chunks=self.sent,
            forged=guarded.forged,
            cut=bool(guarded.cut),
            aborted=self.aborted,
            leak=bool(leaks),
            chars_dropped=guarded.chars_dropped,
        )
        self.access.verdicts = leaks
        self.access.emit(self.state.status or 200)


def _fault_message(exc: Exception) -> str:
    if isinstance(exc, httpx.HTTPError):
        return f"upstream stream failed: {type(exc).__name__}"
    return f"upstream stream failed: {exc}"


def _final_chunk(last: Mapping[str, Any], reason: str) -> dict[str, Any]:
    indexes = sorted(
        {c.get("index") or 0 for c in last.get("choices") or () if isinstance(c, dict)}
    )
    out = {k: v for k, v in last.items() if k not in ("choices", "usage")}
    out["choices"] = [
        {"index": i, "delta": {}, "finish_reason": reason, "logprobs": None} for i in indexes or [0]
    ]
    return out


class ChatRelay(Relay):
    """A Chat Completions chunk stream: an aborting leak ends it with a final chunk
    ``content_filter``, a stop without the upstream's final chunk with one ``stop``."""

    guarded: AsyncGuardedStream

    def __init__(
        self,
        resp: httpx.Response,
        dialect: str,
        config: ServeConfig,
        access: AccessRecord,
        deadline: Deadline,
        tools: frozenset[str] | None = None,
        offload: Offload | None = None,
    ) -> None:
        self.finish_seen = False
        self.last: dict[str, Any] | None = None
        #: judges an event of :data:`INLINE_BYTES` or more on a worker thread
        self.offload = offload
        super().__init__(resp, dialect, config, access, deadline, tools)

    def _guard(
        self, events: AsyncIterable[Any], dialect: str, config: ServeConfig
    ) -> AsyncGuardedStream:
        stream = guard_stream(
            events,
            dialect=dialect,
            policy=config.policy,
            on_leak=config.on_leak,
            raw=False,
            tools=self.tools,
        )
        return cast(AsyncGuardedStream, stream)

    def _see(self, item: Any) -> None:
        if isinstance(item, dict):
            choices = item.get("choices")
            if choices:
                self.last = item
                if not self.finish_seen:
                    for choice in choices:
                        if isinstance(choice, dict) and choice.get("finish_reason"):
                            self.finish_seen = True
                            break

    async def body(self) -> AsyncIterator[bytes]:
        """:meth:`Relay.body` in one loop, with no generator between the upstream and the
        client: each piece read is decoded, its items handed to the guard (the stream driven
        by hand, as iterating it would) and what may go out is written as one piece. An item
        the guard delivers as it came goes out as the bytes it came in. A read that is one
        event shaped like an earlier chunk (:mod:`guard.serve._shape`) is read without the
        decoder and the JSON parser: the same item, handed to the guard all the same."""
        guarded = self.guarded
        upstream = self.upstream
        state = self.state
        read = upstream.deadline.next
        pieces = upstream.pieces
        decoder = upstream.decoder
        # a read the decoder's fast path takes whole, and small enough to judge on the loop
        fits = min(decoder.max_event_bytes + 2, INLINE_BYTES - 1)
        push = guarded.push
        parse = upstream.parse
        see = self._see
        raws = self.raws
        shape: ChunkShape | None = None
        shapes = _MAX_SHAPES  # how many more shapes may be taken
        offload = self.offload
        idle = decoder.fast_path and decoder.idle
        outcome = "disconnected"
        try:
            try:
                while True:
                    try:  # upstream.read(), one call less
                        piece = await read(pieces)
                    except BaseException:
                        await self._upstream_failed()
                        raise
                    pushed: tuple[Any, list[Any]] | None = None
                    if shape is not None and piece is not None and idle and len(piece) <= fits:
                        item = shape.read(piece)
                        if item is not None:
                            state.chunks += 1  # upstream.parse(event), done
                            delivered = push(item)
                            if len(delivered) == 1 and delivered[0] is item and not guarded.stopped:
                                self.last = item  # see(item): it finishes no choice
                                yield piece
                                self.sent += 1
                                continue
                            pushed = item, delivered  # the event's bytes go out below
                    if pushed is not None:
                        assert piece is not None
                        # the event the decoder would give (its id is not relayed)
                        events = [SSEEvent(piece[6:-2].decode("utf-8"), None, None, piece)]
                    else:
                        try:
                            if piece is None:
                                upstream.ended = True
                                events = decoder.flush()
                            else:
                                events = decoder.feed(piece)
                        except BaseException:
                            await self._upstream_failed()
                            raise
                        idle = decoder.fast_path and decoder.idle
                    out: list[bytes] = []
                    fault: Exception | None = None
                    for event in events:
                        if pushed is None:
                            try:
                                item = parse(event)
                            except Exception as exc:
                                fault = exc
                                break
                            if item is None:
                                break  # [DONE]
                            size = len(event.data)
                            if offload is None or size < INLINE_BYTES:
                                delivered = push(item)
                            else:  # a large event is judged off the event loop
                                delivered = await offload.run(size, push, item)
                        else:
                            item, delivered = pushed
                        if len(delivered) == 1 and delivered[0] is item:
                            see(item)
                            raw = event.raw  # _wire(event), one call less
                            out.append(encode(event.data, event.event) if raw is None else raw)
                        else:
                            if type(item) is dict:
                                raws[id(item)] = (item, event)
                            for one in delivered:
                                see(one)
                                out.append(_encode(one, raws))
                        if guarded.stopped:
                            break
                    if (
                        shapes
                        and len(events) == 1
                        and not guarded.stopped
                        and (shape is None or pushed is None)
                        and fault is None
                        and item is not None
                        and events[0].raw is not None
                    ):
                        # one event a read: maybe the next ones are shaped like it
                        taken = ChunkShape.of(events[0].raw, item)
                        if taken is not None:
                            shape = taken
                            shapes -= 1
                    if fault is not None:
                        # what came before the faulty event still goes out first
                        await self._upstream_failed()
                        if out:
                            yield b"".join(out)
                            self.sent += len(out)
                        raise fault
                    stopped = guarded.stopped
                    if stopped:
                        # the upstream is closed before the last items go out, as the
                        # guarded stream does; an aborting leak then ends the stream
                        with anyio.CancelScope(shield=True):
                            await guarded.aclose()
                        self.aborted = guarded.abort is not None
                    elif upstream.ended:
                        try:
                            await upstream.drain()
                        except BaseException:
                            await self._upstream_failed()
                            raise
                        with anyio.CancelScope(shield=True):
                            await guarded.aclose()
                        for one in guarded.end():
                            see(one)
                            out.append(_encode(one, raws))
                    if out:
                        yield out[0] if len(out) == 1 else b"".join(out)
                        self.sent += len(out)
                    if stopped or upstream.ended:
                        break
            except Exception as exc:
                with anyio.CancelScope(shield=True):
                    await guarded.aclose()
                outcome, failure = self._fault(exc)
                yield failure
                return
            for piece in self._ending():
                yield piece
            outcome = "complete"
        finally:
            with anyio.CancelScope(shield=True):
                await guarded.aclose()
            self._record(outcome)

    async def _upstream_failed(self) -> None:
        """The upstream failed: close it and end the guard (its verdicts final), delivering
        nothing more, as the guarded stream does."""
        with anyio.CancelScope(shield=True):
            await self.guarded.aclose()
        self.guarded.end()

    def _ending(self) -> list[bytes]:
        out: list[bytes] = []
        stopped = self.aborted or self.guarded.forged or bool(self.guarded.cut)
        if stopped and (self.aborted or not self.finish_seen) and self.last is not None:
            reason = "content_filter" if self.aborted else "stop"
            out.append(encode(_dumps(_final_chunk(self.last, reason))))
            self.sent += 1
        if stopped or self.state.done:
            out.append(_DONE)
        return out

    def _failure(self, message: str) -> bytes:
        error = {
            "message": message,
            "type": "upstream_error",
            "code": "upstream_stream_error",
            "param": None,
        }
        return encode(_dumps({"error": error}))


class ResponsesRelay(Relay):
    """A Responses API event stream: guard's stop ends it with the bridge's terminal events
    (an aborting leak with ``response.incomplete``)."""

    guarded: AsyncGuardedResponseStream

    def _guard(
        self, events: AsyncIterable[Any], dialect: str, config: ServeConfig
    ) -> AsyncGuardedResponseStream:
        stream = guard_response_events(
            events,
            dialect=dialect,
            policy=config.policy,
            on_leak=config.on_leak,
            abort="filter",
            tools=self.tools,
        )
        return cast(AsyncGuardedResponseStream, stream)

    def _ending(self) -> list[bytes]:
        return [_DONE] if self.state.done else []

    def _failure(self, message: str) -> bytes:
        error = {
            "type": "error",
            "code": "upstream_error",
            "message": message,
            "param": None,
            "sequence_number": self.guarded.last_sequence + 1,
        }
        return encode(_dumps(error), "error")

    def _record(self, outcome: str) -> None:
        self.aborted = self.guarded.aborted
        super()._record(outcome)


class MessagesRelay(Relay):
    """An Anthropic Messages event stream: guard's stop ends it with the open block stopped,
    ``message_delta`` (an aborting leak with stop reason ``refusal``) and ``message_stop``."""

    guarded: AsyncGuardedMessageStream

    def _guard(
        self, events: AsyncIterable[Any], dialect: str, config: ServeConfig
    ) -> AsyncGuardedMessageStream:
        stream = guard_message_events(
            events,
            dialect=dialect,
            policy=config.policy,
            on_leak=config.on_leak,
            abort="filter",
            tools=self.tools,
        )
        return cast(AsyncGuardedMessageStream, stream)

    def _ending(self) -> list[bytes]:
        return []  # a Messages stream ends with its own events

    def _failure(self, message: str) -> bytes:
        error = {"type": "error", "error": {"type": "api_error", "message": message}}
        return encode(_dumps(error), "error")

    def _record(self, outcome: str) -> None:
        self.aborted = self.guarded.aborted
        super()._record(outcome)
