"""The drivers of the guarded httpx transport (:mod:`guard.transport`), sync and async twins
with the same names and shapes: the transport sends a request the guard prepared and hands the
answer to the guard; the body drives a streamed answer's :class:`guard.wire.StreamedAnswer`
piece by piece, closing the upstream as soon as the guard stopped it. What the twins decide is
shared here; each twin only does its IO."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from guard.wire import StreamedAnswer

if TYPE_CHECKING:
    import httpx

    from guard.serve import ServeConfig
    from guard.transport import _Guard

__all__ = ["_AsyncBody", "_AsyncTransport", "_SyncBody", "_SyncTransport"]


def _fed(answer: StreamedAnswer, piece: bytes | None) -> tuple[list[bytes], bool]:
    """What goes out after ``piece`` (``None``: the body ended), and whether the stream ends
    there (the upstream is then closed before it goes out, and :func:`_rest` follows it). A
    fault of the upstream ends the guard here, with the failure event last."""
    out = answer.feed(piece)
    if answer.fault is not None:
        answer.upstream_failed()
        out.append(answer.failure(f"upstream stream failed: {answer.fault}"))
        return out, True
    return out, answer.stopped or answer.ended


def _rest(answer: StreamedAnswer) -> list[bytes]:
    """What ends a stream after its last piece went out: nothing after a fault, else the
    ending (:class:`guard.LeakAborted` with ``abort="raise"``)."""
    return [] if answer.fault is not None else answer.finish()


class _Transport:
    """What both guarded transports hold: the inner transport and the guard."""

    _body: type[Any]

    def __init__(self, transport: Any, guard: _Guard) -> None:
        self.transport = transport
        self._guard = guard

    @property
    def config(self) -> ServeConfig:
        return self._guard.config


class _SyncTransport(_Transport):
    """A guarded sync transport (an ``httpx.BaseTransport`` of its library, see
    :func:`guarded_transport`)."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        guard = self._guard
        kind, refused = guard.route(request)
        if kind is None:
            return refused if refused is not None else self.transport.handle_request(request)
        prepared = guard.prepare(request, kind, request.read())
        if not isinstance(prepared, tuple):
            return prepared
        sent, dialect, tools, choices = prepared
        resp = self.transport.handle_request(sent)
        answered = guard.answered(resp, self._body, kind, dialect, tools, choices)
        if answered is not None:
            return answered
        try:
            body = resp.read()
        finally:
            resp.close()
        return guard.complete(resp, body, kind, dialect, tools)

    def close(self) -> None:
        self.transport.close()


class _Body:
    """What both guarded bodies of a streamed answer hold."""

    def __init__(self, resp: httpx.Response, answer: StreamedAnswer) -> None:
        self.resp = resp
        self.answer = answer
        self.closed = False
        #: without a content coding the body's bytes are the bytes read (one layer less); a
        #: body already read is only there as decoded bytes
        self.decoded = "content-encoding" in resp.headers or resp.is_stream_consumed


class _SyncBody(_Body):
    """The guarded body of a streamed answer (an ``httpx.SyncByteStream``)."""

    def __iter__(self) -> Iterator[bytes]:
        answer = self.answer
        pieces = self.resp.iter_bytes() if self.decoded else self.resp.iter_raw()
        try:
            while True:
                try:
                    piece = next(pieces, None)
                except Exception:
                    self.close()
                    answer.upstream_failed()
                    raise  # what the SDK would see without guard
                out, ends = _fed(answer, piece)
                if ends:
                    self.close()  # at once when guard stopped it; after the last byte else
                yield from out
                if ends:
                    yield from _rest(answer)
                    return
        finally:
            self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.resp.close()


class _AsyncTransport(_Transport):
    """A guarded async transport (an ``httpx.AsyncBaseTransport`` of its library, see
    :func:`async_guarded_transport`)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        guard = self._guard
        kind, refused = guard.route(request)
        if kind is None:
            if refused is not None:
                return refused
            return await self.transport.handle_async_request(request)  # type: ignore[no-any-return]
        prepared = guard.prepare(request, kind, await request.aread())
        if not isinstance(prepared, tuple):
            return prepared
        sent, dialect, tools, choices = prepared
        resp = await self.transport.handle_async_request(sent)
        answered = guard.answered(resp, self._body, kind, dialect, tools, choices)
        if answered is not None:
            return answered
        try:
            body = await resp.aread()
        finally:
            await resp.aclose()
        return guard.complete(resp, body, kind, dialect, tools)

    async def aclose(self) -> None:
        await self.transport.aclose()


class _AsyncBody(_Body):
    """The guarded body of a streamed answer (an ``httpx.AsyncByteStream``)."""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        answer = self.answer
        pieces = self.resp.aiter_bytes() if self.decoded else self.resp.aiter_raw()
        try:
            while True:
                try:
                    piece = await anext(pieces, None)
                except Exception:
                    await self.aclose()
                    answer.upstream_failed()
                    raise  # what the SDK would see without guard
                out, ends = _fed(answer, piece)
                if ends:
                    await self.aclose()  # at once when guard stopped it; after the last byte else
                for one in out:
                    yield one
                if ends:
                    for one in _rest(answer):
                        yield one
                    return
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            await self.resp.aclose()
