"""The drivers of the guarded httpx transport (:mod:`guard.transport`), sync and async twins
with the same names and shapes: the transport sends a request the guard prepared and hands the
answer to the guard; the body drives a streamed answer's :class:`guard.wire.StreamedAnswer`
piece by piece, closing the upstream as soon as the guard stopped it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

from guard.wire import StreamedAnswer

if TYPE_CHECKING:
    import httpx

    from guard.serve import ServeConfig
    from guard.transport import _Guard

__all__ = ["_AsyncBody", "_AsyncTransport", "_SyncBody", "_SyncTransport"]


def _failure(answer: StreamedAnswer, exc: Exception) -> bytes:
    return answer.failure(f"upstream stream failed: {exc}")


class _SyncTransport:
    """A guarded sync transport (an ``httpx.BaseTransport`` of its library, see
    :func:`guarded_transport`)."""

    _body: type[Any]

    def __init__(self, transport: Any, guard: _Guard) -> None:
        self.transport = transport
        self._guard = guard

    @property
    def config(self) -> ServeConfig:
        return self._guard.config

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        guard = self._guard
        kind, refused = guard.route(request)
        if refused is not None:
            return refused
        if kind is None:
            return self.transport.handle_request(request)  # type: ignore[no-any-return]
        prepared = guard.prepare(request, kind, request.read())
        if not isinstance(prepared, tuple):
            return prepared
        sent, dialect, tools, choices = prepared
        resp = self.transport.handle_request(sent)
        if resp.status_code >= 400:
            return resp  # type: ignore[no-any-return]
        if resp.headers.get("content-type", "").startswith("text/event-stream"):
            answer = guard.stream(kind, dialect, tools, choices)
            return guard.x.Response(  # type: ignore[no-any-return]
                resp.status_code,
                headers=guard.answer_headers(resp),
                stream=self._body(resp, answer),
                extensions={**resp.extensions, "guard": answer},
            )
        try:
            body = resp.read()
        finally:
            resp.close()
        return guard.complete(resp, body, kind, dialect, tools)

    def close(self) -> None:
        self.transport.close()


class _SyncBody:
    """The guarded body of a streamed answer (an ``httpx.SyncByteStream``)."""

    def __init__(self, resp: httpx.Response, answer: StreamedAnswer) -> None:
        self.resp = resp
        self.answer = answer
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        answer = self.answer
        resp = self.resp
        decoded = "content-encoding" in resp.headers or resp.is_stream_consumed
        pieces = resp.iter_bytes() if decoded else resp.iter_raw()
        try:
            while True:
                try:
                    piece = next(pieces, None)
                except Exception:
                    self.close()
                    answer.upstream_failed()
                    raise  # what the SDK would see without guard
                out = answer.feed(piece)
                if answer.fault is not None:
                    self.close()
                    answer.upstream_failed()
                    yield from out
                    yield _failure(answer, answer.fault)
                    return
                if not (answer.stopped or answer.ended):
                    yield from out
                    continue
                self.close()  # at once when guard stopped it; after the last byte else
                yield from out
                yield from answer.finish()  # LeakAborted with abort="raise"
                return
        finally:
            self.close()

    def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.resp.close()


class _AsyncTransport:
    """A guarded async transport (an ``httpx.AsyncBaseTransport`` of its library, see
    :func:`async_guarded_transport`)."""

    _body: type[Any]

    def __init__(self, transport: Any, guard: _Guard) -> None:
        self.transport = transport
        self._guard = guard

    @property
    def config(self) -> ServeConfig:
        return self._guard.config

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        guard = self._guard
        kind, refused = guard.route(request)
        if refused is not None:
            return refused
        if kind is None:
            return await self.transport.handle_async_request(request)  # type: ignore[no-any-return]
        prepared = guard.prepare(request, kind, await request.aread())
        if not isinstance(prepared, tuple):
            return prepared
        sent, dialect, tools, choices = prepared
        resp = await self.transport.handle_async_request(sent)
        if resp.status_code >= 400:
            return resp  # type: ignore[no-any-return]
        if resp.headers.get("content-type", "").startswith("text/event-stream"):
            answer = guard.stream(kind, dialect, tools, choices)
            return guard.x.Response(  # type: ignore[no-any-return]
                resp.status_code,
                headers=guard.answer_headers(resp),
                stream=self._body(resp, answer),
                extensions={**resp.extensions, "guard": answer},
            )
        try:
            body = await resp.aread()
        finally:
            await resp.aclose()
        return guard.complete(resp, body, kind, dialect, tools)

    async def aclose(self) -> None:
        await self.transport.aclose()


class _AsyncBody:
    """The guarded body of a streamed answer (an ``httpx.AsyncByteStream``)."""

    def __init__(self, resp: httpx.Response, answer: StreamedAnswer) -> None:
        self.resp = resp
        self.answer = answer
        self.closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        answer = self.answer
        resp = self.resp
        decoded = "content-encoding" in resp.headers or resp.is_stream_consumed
        pieces = resp.aiter_bytes() if decoded else resp.aiter_raw()
        try:
            while True:
                try:
                    piece = await anext(pieces, None)
                except Exception:
                    await self.aclose()
                    answer.upstream_failed()
                    raise  # what the SDK would see without guard
                out = answer.feed(piece)
                if answer.fault is not None:
                    await self.aclose()
                    answer.upstream_failed()
                    for one in out:
                        yield one
                    yield _failure(answer, answer.fault)
                    return
                if not (answer.stopped or answer.ended):
                    for one in out:
                        yield one
                    continue
                await self.aclose()  # at once when guard stopped it; after the last byte else
                for one in out:
                    yield one
                for one in answer.finish():  # LeakAborted with abort="raise"
                    yield one
                return
        finally:
            await self.aclose()

    async def aclose(self) -> None:
        if not self.closed:
            self.closed = True
            await self.resp.aclose()
