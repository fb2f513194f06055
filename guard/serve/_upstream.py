"""The provider behind ``guard serve``: one pooled HTTP client for the app's lifetime, request
forwarding, and what the proxy passes on of the provider's headers and errors."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

import anyio
import httpx
from starlette.requests import Request

from guard.serve._config import ServeConfig
from guard.serve._logging import log

__all__ = [
    "Disconnected",
    "Upstream",
    "response_headers",
    "unless_disconnected",
    "upstream_message",
]

T = TypeVar("T")

#: hop-by-hop headers (and the ones the proxy sets itself): never forwarded either way
_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)


class Disconnected(Exception):
    """The client went away before the proxy could answer."""


def response_headers(resp: httpx.Response, *, keep_encoding: bool) -> dict[str, str]:
    """The upstream response's headers to pass on (``content-encoding`` only for a body
    relayed as it came)."""
    drop = _HOP if keep_encoding else _HOP | {"content-encoding"}
    return {k: v for k, v in resp.headers.items() if k.lower() not in drop}


def upstream_message(body: bytes) -> str:
    """The ``error.message`` of an upstream error body (at most 500 characters; ``""``)."""
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return message[:500] if isinstance(message, str) else ""


async def unless_disconnected(request: Request, fn: Callable[[], Awaitable[T]]) -> T:
    """Run ``fn``; if the client disconnects first, cancel it and raise
    :class:`Disconnected`."""
    result: list[T] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            while True:
                message = await request.receive()
                if message["type"] == "http.disconnect":
                    group.cancel_scope.cancel()
                    return

        group.start_soon(watch)
        try:
            result.append(await fn())
        except Exception as exc:  # raised as itself, not wrapped in an exception group
            failed.append(exc)
        finally:
            group.cancel_scope.cancel()
    if failed:
        raise failed[0]
    if not result:
        raise Disconnected
    return result[0]


class Upstream:
    """The provider's OpenAI base URL and the HTTP client that reaches it (open while the
    app's lifespan runs). ``transport`` replaces the HTTP transport (for tests)."""

    def __init__(self, config: ServeConfig, transport: httpx.AsyncBaseTransport | None) -> None:
        self.config = config
        self.base = config.upstream.rstrip("/")
        self.transport = transport
        self.client: httpx.AsyncClient | None = None

    @asynccontextmanager
    async def open(self) -> AsyncIterator[None]:
        timeout = httpx.Timeout(
            connect=self.config.connect_timeout,
            read=self.config.read_timeout,
            write=self.config.read_timeout,
            pool=self.config.connect_timeout,
        )
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
        async with httpx.AsyncClient(
            timeout=timeout, limits=limits, transport=self.transport, trust_env=False
        ) as client:
            self.client = client
            log.info("guard.serve.start", upstream=self.base, on_leak=self.config.on_leak)
            try:
                yield
            finally:
                self.client = None

    def url(self, request: Request) -> str:
        """The upstream URL of a ``/v1/...`` request (path after ``/v1`` and query kept)."""
        path = request.url.path
        suffix = path[len("/v1") :] if path.startswith("/v1") else path
        query = request.url.query
        return self.base + suffix + (f"?{query}" if query else "")

    def build(self, request: Request, body: bytes, *, guarded: bool) -> httpx.Request:
        """The upstream request for ``request`` with ``body``; a guarded one asks for an
        uncompressed answer (guard reads it)."""
        assert self.client is not None, "the app's lifespan has not started"
        drop = _HOP | {"accept-encoding"} if guarded else _HOP
        headers = [(k, v) for k, v in request.headers.items() if k.lower() not in drop]
        return self.client.build_request(
            request.method, self.url(request), content=body or None, headers=headers
        )

    async def send(self, request: Request, upstream: httpx.Request) -> httpx.Response:
        """Send upstream (streaming); a client that disconnects meanwhile cancels it."""
        assert self.client is not None, "the app's lifespan has not started"
        client = self.client
        return await unless_disconnected(request, lambda: client.send(upstream, stream=True))
