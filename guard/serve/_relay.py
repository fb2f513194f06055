"""Guarded SSE relays: an upstream event stream read, guarded and written to the client.

Upstream events that guard delivers unchanged go out byte for byte as they came; changed or
new ones are re-serialised. When guard stops a stream (a forged tool result, a leak, an
aborting leak) the upstream connection is closed at once and the client's stream still ends
well-formed: a chat stream with a final chunk and ``data: [DONE]``, a Responses stream with
the bridge's terminal events, an Anthropic Messages stream with the open block stopped,
``message_delta`` and ``message_stop`` (``docs/streaming.md``, "guard_stream"). Each
relay writes one access record.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
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
from guard.serve._sse import SSEDecoder, SSELimitError, encode
from guard.stream import AsyncGuardedStream, guard_stream

__all__ = ["ChatRelay", "MessagesRelay", "Relay", "ResponsesRelay"]

_DONE = b"data: [DONE]\n\n"
#: id of a parsed item -> (the item, its data as it came, its SSE event name)
_Raws = dict[int, tuple[Any, str, str | None]]


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


def _parse(data: str, event: str | None, raws: _Raws, state: _UpstreamState) -> Any:
    if data == "[DONE]":
        state.done = True
        return None
    state.chunks += 1
    try:
        item = loads(data)
        # nesting is at most the number of opening brackets: most events need no walk
        if data.count("{") + data.count("[") > MAX_DEPTH:
            check_depth(item, "an upstream event")
    except NestingError as exc:
        raise UpstreamFault(str(exc)) from None
    except RecursionError:
        raise UpstreamFault("an upstream event is nested too deep to read") from None
    except ValueError:
        return _Opaque(data, event)
    if not isinstance(item, dict):
        return _Opaque(data, event)
    raws[id(item)] = (item, data, event)
    return item


def _dumps(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def _encode(item: Any, raws: _Raws) -> bytes:
    """An item on the wire: unchanged upstream items as they came, others re-serialised."""
    if isinstance(item, _Opaque):
        return encode(item.data, item.event)
    entry = raws.pop(id(item), None)
    if entry is not None and entry[0] is item:
        return encode(entry[1], entry[2])
    event = item.get("type") if isinstance(item, dict) and "choices" not in item else None
    return encode(_dumps(item), event if isinstance(event, str) else None)


async def _events(
    resp: httpx.Response, raws: _Raws, state: _UpstreamState, deadline: Deadline
) -> AsyncIterator[Any]:
    """The upstream SSE body as parsed items, each read within the total deadline; closing
    this closes the HTTP response."""
    decoder = SSEDecoder()
    pieces = deadline.each(resp.aiter_bytes())
    try:
        async for piece in pieces:
            for event in decoder.feed(piece):
                item = _parse(event.data, event.event, raws, state)
                if state.done:
                    break
                if item is not None:
                    yield item
            if state.done:
                break
        else:
            for event in decoder.flush():
                item = _parse(event.data, event.event, raws, state)
                if item is not None and not state.done:
                    yield item
        if state.done:
            # read the rest (the terminating chunk) so the connection can be reused
            with anyio.move_on_after(0.25):
                async for _ in pieces:
                    pass
    finally:
        with anyio.CancelScope(shield=True):
            await pieces.aclose()
            await resp.aclose()


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
        events = _events(resp, self.raws, self.state, deadline)
        self.guarded = self._guard(events, dialect, config)

    def _guard(
        self, events: AsyncIterator[Any], dialect: str, config: ServeConfig
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
            except _STREAM_FAULTS as exc:
                outcome = "upstream_error"
                self.access.fields["error"] = type(exc).__name__
                yield self._failure(_fault_message(exc))
                return
            except Exception as exc:  # a fault of the proxy: still end the stream readably
                outcome = "internal_error"
                self.access.fields["error"] = type(exc).__name__
                log.error("guard.serve.internal_error", error=type(exc).__name__, stream=True)
                yield self._failure(f"guard serve failed on this stream: {type(exc).__name__}")
                return
            for piece in self._ending():
                yield piece
            outcome = "complete"
        finally:
            with anyio.CancelScope(shield=True):
                await guarded.aclose()
            self._record(outcome)

    def _record(self, outcome: str) -> None:
        guarded = self.guarded
        self.access.fields.update(
            upstream_chunks=self.state.chunks,
            chunks=self.sent,
            forged=guarded.forged,
            cut=bool(guarded.cut),
            aborted=self.aborted,
            leak=any(v.leak for v in guarded.verdicts),
            chars_dropped=guarded.chars_dropped,
            outcome=outcome,
        )
        self.access.verdicts = [v for v in guarded.verdicts if v.leak]
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


def _finished(item: Any) -> bool:
    choices = item.get("choices") if isinstance(item, dict) else None
    return any(isinstance(c, dict) and c.get("finish_reason") for c in choices or ())


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
    ) -> None:
        self.finish_seen = False
        self.last: dict[str, Any] | None = None
        super().__init__(resp, dialect, config, access, deadline, tools)

    def _guard(
        self, events: AsyncIterator[Any], dialect: str, config: ServeConfig
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
            if item.get("choices"):
                self.last = item
            self.finish_seen = self.finish_seen or _finished(item)

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
        self, events: AsyncIterator[Any], dialect: str, config: ServeConfig
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
        self, events: AsyncIterator[Any], dialect: str, config: ServeConfig
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
