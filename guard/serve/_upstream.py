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

from guard.serve import _headers
from guard.serve._config import ServeConfig
from guard.serve._logging import log
from guard.serve._paths import PathError, quote_path, under_base
from guard.serve._secrets import mask_url

__all__ = [
    "Disconnected",
    "PathError",
    "ResponseTooLarge",
    "Upstream",
    "read_capped",
    "response_headers",
    "unless_disconnected",
    "upstream_message",
]

T = TypeVar("T")


class Disconnected(Exception):
    """The client went away before the proxy could answer."""


class ResponseTooLarge(Exception):
    """A complete upstream answer longer than the proxy reads (``max_response_bytes``)."""

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"the upstream's answer is longer than the proxy reads ({limit} bytes,"
            " max_response_bytes)"
        )
        self.limit = limit


async def read_capped(resp: httpx.Response, limit: int) -> bytes:
    """The upstream answer's (decoded) body, read piece by piece; :class:`ResponseTooLarge`
    as soon as it passes ``limit`` bytes (or declares more), so a large answer costs no more
    than ``limit`` bytes of memory."""
    declared = resp.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit and "content-encoding" not in resp.headers:
        raise ResponseTooLarge(limit)
    body = bytearray()
    async for piece in resp.aiter_bytes():
        body += piece
        if len(body) > limit:
            raise ResponseTooLarge(limit)
    return bytes(body)


def response_headers(resp: httpx.Response, *, keep_encoding: bool) -> list[tuple[str, str]]:
    """The upstream response's headers to pass on (``content-encoding`` only for a body
    relayed as it came); hop-by-hop ones never."""
    return _headers.response_headers(resp.headers.multi_items(), keep_encoding=keep_encoding)


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
        # a user name and password in the URL become the client's basic auth: the URL the
        # client sends to (and httpx logs, spans and errors show) holds no secret
        url = httpx.URL(config.upstream.rstrip("/"))
        self.auth = httpx.BasicAuth(url.username, url.password) if url.userinfo else None
        self.base = str(url.copy_with(username=None, password=None)) if url.userinfo else str(url)
        self.base_path = httpx.URL(self.base).raw_path.split(b"?")[0]
        self.transport = transport
        self.client: httpx.AsyncClient | None = None

    @asynccontextmanager
    async def open(self, *, instrument: bool = False) -> AsyncIterator[None]:
        """Open the client for the app's lifetime; ``instrument``: its requests become
        OpenTelemetry spans (the ``otel`` extra)."""
        timeout = httpx.Timeout(
            connect=self.config.connect_timeout,
            read=self.config.read_timeout,
            write=self.config.read_timeout,
            pool=self.config.connect_timeout,
        )
        limits = httpx.Limits(max_connections=None, max_keepalive_connections=64)
        async with httpx.AsyncClient(
            timeout=timeout,
            limits=limits,
            transport=self.transport,
            trust_env=self.config.trust_env,
            auth=self.auth,
        ) as client:
            if instrument:
                from guard.serve._tracing import instrument_client

                instrument_client(client)
            self.client = client
            log.info(
                "guard.serve.start",
                upstream=mask_url(self.config.upstream),
                on_leak=self.config.on_leak,
            )
            try:
                yield
            finally:
                self.client = None

    def url(self, request: Request) -> str:
        """The upstream URL of a ``/v1/...`` request: the (checked, decoded) path after ``/v1``
        percent-encoded again below the base, and the query as it came."""
        path = request.url.path
        suffix = path[len("/v1") :] if path.startswith("/v1") else path
        query = request.url.query
        return self.base + quote_path(suffix) + (f"?{query}" if query else "")

    def build(
        self,
        request: Request,
        body: bytes,
        *,
        guarded: bool,
        authenticated_with: str | None = None,
    ) -> httpx.Request:
        """The upstream request for ``request`` with ``body``; a guarded one asks for an
        uncompressed answer (guard reads it). ``authenticated_with``: the header that carried
        the proxy's own client key (not forwarded). Raises :class:`PathError` if the final
        URL is not below the upstream's base path."""
        assert self.client is not None, "the app's lifespan has not started"
        headers = _headers.request_headers(
            request.headers.items(),
            guarded=guarded,
            credential=self._credential(request, authenticated_with),
            consume_credentials=authenticated_with is not None,
        )
        upstream = self.client.build_request(
            request.method, self.url(request), content=body or None, headers=headers
        )
        if not under_base(upstream.url.raw_path.split(b"?")[0], self.base_path):
            raise PathError("the request path leaves the upstream's base path")
        return upstream

    def _credential(
        self, request: Request, authenticated_with: str | None
    ) -> tuple[str, str] | None:
        """The upstream's key as a header, in the header the client used for its own."""
        key = self.config.upstream_api_key
        if key is None:
            return None
        used = authenticated_with or next(
            (h for h in _headers.CREDENTIALS if h in request.headers), "authorization"
        )
        return ("x-api-key", key) if used == "x-api-key" else ("authorization", f"Bearer {key}")

    async def send(self, request: Request, upstream: httpx.Request) -> httpx.Response:
        """Send upstream (streaming); a client that disconnects meanwhile cancels it."""
        assert self.client is not None, "the app's lifespan has not started"
        client = self.client
        return await unless_disconnected(request, lambda: client.send(upstream, stream=True))
