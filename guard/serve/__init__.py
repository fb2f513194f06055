"""``guard serve``: an OpenAI-compatible HTTP proxy that guards a provider.

Clients talk to the proxy as to the provider (``base_url="http://127.0.0.1:8787/v1"``); the proxy
forwards to ``--upstream`` (the provider's OpenAI base URL) and

* escapes request inputs (chat ``messages`` and ``tools``; Responses ``input``,
  ``instructions`` and ``tools``) for the dialect of the requested model;
* guards responses with the stream middleware (:func:`guard.guard_stream`): streaming SSE
  chunk by chunk, complete responses as a whole. On a forged tool result or an aborting leak it
  closes the upstream connection at once and ends the client's stream with a well-formed final
  chunk and ``data: [DONE]``;
* passes every other ``/v1/...`` path through unchanged; ``/healthz`` answers without the
  upstream.

The dialect is chosen per request from the ``model`` name by a table (:data:`DEFAULT_DIALECTS`
plus the ``[serve.dialects]`` table of the policy file; the first matching key wins, the file's
entries before the defaults), unless a dialect is forced. Upstream failures become
``502`` with a JSON error body (an upstream ``4xx`` is the client's and passes through); a body
over the size limit gets ``413``; a client that disconnects closes the upstream too. Each request
is logged once as ``guard.serve.request`` (method, path, status, duration, upstream status,
chunks, forged, ...), never with request or response bodies.

Needs the ``serve`` extra (Starlette, uvicorn, httpx).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar, cast

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Send

from guard._log import get_logger
from guard.dialects import FALLBACK_DIALECT, MODEL_DIALECTS, dialect_for_model, get_dialect
from guard.errors import PolicyError
from guard.gate import DEFAULT_POLICY, Policy
from guard.integrations.openai import (
    AsyncGuardedResponseStream,
    escape_chat_request,
    escape_responses_request,
    guard_chat_completion,
    guard_response,
    guard_response_events,
)
from guard.serve._sse import SSEDecoder, encode
from guard.stream import AsyncGuardedStream, LeakAborted, OnLeak, guard_stream

#: The model-name table (kept under its former name for callers of this module).
DEFAULT_DIALECTS = MODEL_DIALECTS

__all__ = [
    "DEFAULT_DIALECTS",
    "DEFAULT_MAX_BODY_BYTES",
    "FALLBACK_DIALECT",
    "ServeConfig",
    "create_app",
    "dialect_for_model",
    "load_policy_file",
    "run",
]

_log = get_logger("guard.serve")

DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
_ON_LEAK = ("abort", "truncate", "recover", "report")
_SERVE_KEYS = ("dialects", "on_leak", "max_body_bytes", "read_timeout")


@dataclass(frozen=True)
class ServeConfig:
    """How the proxy runs. ``dialect`` forces one dialect for every request; ``dialects`` adds
    model-name keys before :data:`DEFAULT_DIALECTS`."""

    upstream: str
    policy: Policy = DEFAULT_POLICY
    dialect: str | None = None
    dialects: Mapping[str, str] = field(default_factory=dict)
    on_leak: OnLeak = "truncate"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    connect_timeout: float = 10.0
    read_timeout: float = 600.0

    def __post_init__(self) -> None:
        if not self.upstream.startswith(("http://", "https://")):
            raise ValueError(f"upstream must be an http:// or https:// URL, got {self.upstream!r}")
        if self.on_leak not in _ON_LEAK:
            raise ValueError(f"on_leak must be one of {', '.join(_ON_LEAK)}; got {self.on_leak!r}")
        if self.max_body_bytes < 1:
            raise ValueError(f"max_body_bytes must be positive, got {self.max_body_bytes}")
        for name in (self.dialect, *self.dialects.values()):
            if name is not None:
                get_dialect(name)  # an unknown name fails here, not per request

    @classmethod
    def load(
        cls,
        upstream: str,
        *,
        policy_file: str | Path | None = None,
        dialect: str | None = None,
        on_leak: str | None = None,
        max_body_bytes: int | None = None,
    ) -> ServeConfig:
        """The configuration from a policy file's ``[serve]`` table (see
        :func:`load_policy_file`) and explicit options, which win over the file."""
        policy, serve = load_policy_file(policy_file) if policy_file else (DEFAULT_POLICY, {})
        try:
            timeout = float(serve.get("read_timeout", 600.0))
            limit = int(serve.get("max_body_bytes", DEFAULT_MAX_BODY_BYTES))
        except (TypeError, ValueError) as exc:
            raise PolicyError(f"policy {policy_file}: [serve]: {exc}") from None
        return cls(
            upstream=upstream,
            policy=policy,
            dialect=dialect,
            dialects=dict(serve.get("dialects", {})),
            on_leak=cast(OnLeak, on_leak or serve.get("on_leak", "truncate")),
            max_body_bytes=max_body_bytes if max_body_bytes is not None else limit,
            read_timeout=timeout,
        )

    def dialect_for(self, model: str | None) -> str:
        if self.dialect is not None:
            return self.dialect
        return dialect_for_model(model, self.dialects)


def load_policy_file(path: str | Path) -> tuple[Policy, dict[str, Any]]:
    """Read a policy file (``.toml`` or ``.json``): its ``serve`` table configures the proxy
    (``dialects``, ``on_leak``, ``max_body_bytes``, ``read_timeout``), the rest is the
    :class:`guard.Policy`. Returns both."""
    policy = Policy.load(path)  # the one reader of policy files; it keeps [serve] as data
    serve = dict(policy.serve)
    unknown = sorted(set(serve) - set(_SERVE_KEYS))
    if unknown:
        raise PolicyError(
            f"policy {path}: unknown [serve] keys {', '.join(unknown)};"
            f" expected {', '.join(_SERVE_KEYS)}"
        )
    dialects = serve.get("dialects", {})
    if not isinstance(dialects, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in dialects.items()
    ):
        raise PolicyError(f"policy {path}: [serve.dialects] must map model names to dialects")
    for name in dialects.values():
        try:
            get_dialect(name)
        except ValueError as exc:
            raise PolicyError(f"policy {path}: [serve.dialects]: {exc}") from None
    return policy, serve


# ---------------------------------------------------------------------------------------------
# HTTP plumbing

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
T = TypeVar("T")


class _TooLarge(Exception):
    pass


class _Disconnected(Exception):
    pass


def _error(status: int, message: str, kind: str, code: str, **extra: Any) -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "code": code, "param": None, **extra}}
    return JSONResponse(body, status_code=status)


def _upstream_message(body: bytes) -> str:
    try:
        data = json.loads(body)
    except ValueError:
        return ""
    error = data.get("error") if isinstance(data, dict) else None
    message = error.get("message") if isinstance(error, dict) else error
    return message[:500] if isinstance(message, str) else ""


def _response_headers(resp: httpx.Response, *, keep_encoding: bool) -> dict[str, str]:
    drop = _HOP if keep_encoding else _HOP | {"content-encoding"}
    return {k: v for k, v in resp.headers.items() if k.lower() not in drop}


class _ClosingStreamingResponse(StreamingResponse):
    """A streaming response that always closes its body iterator (and with it the upstream),
    also when the client went away mid-stream."""

    async def stream_response(self, send: Send) -> None:
        try:
            await super().stream_response(send)
        finally:
            closer = getattr(self.body_iterator, "aclose", None)
            if closer is not None:
                with anyio.CancelScope(shield=True):
                    await closer()


@dataclass
class _Upstream:
    """What the proxy learnt about one upstream stream."""

    status: int | None = None
    chunks: int = 0
    done: bool = False


@dataclass(frozen=True)
class _Opaque:
    """An SSE event whose data is not a JSON object: passed through as it is."""

    data: str
    event: str | None


@dataclass
class _Access:
    """The access log record of one request."""

    method: str
    path: str
    start: float = field(default_factory=time.perf_counter)
    fields: dict[str, Any] = field(default_factory=dict)

    def emit(self, status: int) -> None:
        _log.info(
            "guard.serve.request",
            method=self.method,
            path=self.path,
            status=status,
            duration_ms=round((time.perf_counter() - self.start) * 1000, 2),
            **self.fields,
        )


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


class _Proxy:
    def __init__(self, config: ServeConfig, transport: httpx.AsyncBaseTransport | None) -> None:
        self.config = config
        self.base = config.upstream.rstrip("/")
        self.transport = transport
        self.client: httpx.AsyncClient | None = None

    @asynccontextmanager
    async def lifespan(self, app: Starlette) -> AsyncIterator[None]:
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
            _log.info("guard.serve.start", upstream=self.base, on_leak=self.config.on_leak)
            try:
                yield
            finally:
                self.client = None

    # --- helpers ------------------------------------------------------------------------------

    def _url(self, request: Request) -> str:
        path = request.url.path
        suffix = path[len("/v1") :] if path.startswith("/v1") else path
        query = request.url.query
        return self.base + suffix + (f"?{query}" if query else "")

    async def _body(self, request: Request) -> bytes:
        limit = self.config.max_body_bytes
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise _TooLarge
        body = bytearray()
        try:
            async for piece in request.stream():
                body += piece
                if len(body) > limit:
                    raise _TooLarge
        except ClientDisconnect:
            raise _Disconnected from None
        return bytes(body)

    def _headers(self, request: Request, *, guarded: bool) -> list[tuple[str, str]]:
        drop = _HOP | {"accept-encoding"} if guarded else _HOP
        return [(k, v) for k, v in request.headers.items() if k.lower() not in drop]

    def _too_large(self) -> JSONResponse:
        limit = self.config.max_body_bytes
        return _error(
            413,
            f"request body exceeds the proxy's limit of {limit} bytes",
            "invalid_request_error",
            "request_too_large",
        )

    async def _send(self, request: Request, upstream: httpx.Request) -> httpx.Response:
        """Send upstream (streaming); a client that disconnects meanwhile cancels it."""
        assert self.client is not None, "the app's lifespan has not started"
        client = self.client
        return await _unless_disconnected(request, lambda: client.send(upstream, stream=True))

    # --- endpoints ----------------------------------------------------------------------------

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def chat(self, request: Request) -> Response:
        return await self._guarded(request, "chat")

    async def responses(self, request: Request) -> Response:
        return await self._guarded(request, "responses")

    async def not_found(self, request: Request) -> Response:
        access = _Access(request.method, request.url.path)
        access.emit(404)
        return _error(404, f"no route for {request.url.path}", "invalid_request_error", "not_found")

    async def passthrough(self, request: Request) -> Response:
        access = _Access(request.method, request.url.path)
        try:
            body = await self._body(request)
        except _TooLarge:
            access.emit(413)
            return self._too_large()
        except _Disconnected:
            return self._gone(access)
        upstream = self._new_request(request, body, guarded=False)
        try:
            resp = await self._send(request, upstream)
        except _Disconnected:
            return self._gone(access)
        except httpx.HTTPError as exc:
            return self._unreachable(access, exc)
        access.fields["upstream_status"] = resp.status_code

        async def body_iter() -> AsyncIterator[bytes]:
            done = False
            try:
                async for piece in resp.aiter_raw():
                    yield piece
                done = True
            finally:
                with anyio.CancelScope(shield=True):
                    await resp.aclose()
                if not done:
                    access.fields["disconnected"] = True
                access.emit(resp.status_code)

        return _ClosingStreamingResponse(
            body_iter(),
            status_code=resp.status_code,
            headers=_response_headers(resp, keep_encoding=True),
        )

    def _new_request(self, request: Request, body: bytes, *, guarded: bool) -> httpx.Request:
        assert self.client is not None, "the app's lifespan has not started"
        return self.client.build_request(
            request.method,
            self._url(request),
            content=body or None,
            headers=self._headers(request, guarded=guarded),
        )

    def _gone(self, access: _Access) -> Response:
        """The client went away: nothing to send (499, nginx's "client closed request", is
        what the access log records)."""
        access.fields["disconnected"] = True
        access.emit(499)
        return Response(status_code=499)

    def _unreachable(self, access: _Access, exc: Exception) -> JSONResponse:
        kind = type(exc).__name__
        access.fields["error"] = kind
        access.emit(502)
        return _error(
            502,
            f"upstream request failed: {kind}",
            "upstream_error",
            "upstream_unreachable",
        )

    async def _guarded(self, request: Request, kind: str) -> Response:
        access = _Access(request.method, request.url.path)
        try:
            raw = await self._body(request)
        except _TooLarge:
            access.emit(413)
            return self._too_large()
        except _Disconnected:
            return self._gone(access)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            access.emit(400)
            return _error(
                400, "request body must be a JSON object", "invalid_request_error", "invalid_json"
            )
        model = body.get("model")
        dialect = self.config.dialect_for(model if isinstance(model, str) else None)
        access.fields.update(model=model if isinstance(model, str) else None, dialect=dialect)
        escape = escape_chat_request if kind == "chat" else escape_responses_request
        try:
            escaped = escape(body, dialect)
        except (TypeError, ValueError) as exc:
            access.emit(400)
            return _error(
                400, f"cannot read the request: {exc}", "invalid_request_error", "bad_shape"
            )
        if escaped != body:
            raw = json.dumps(escaped, ensure_ascii=False).encode("utf-8")
            access.fields["escaped"] = True
        upstream = self._new_request(request, raw, guarded=True)
        try:
            resp = await self._send(request, upstream)
        except _Disconnected:
            return self._gone(access)
        except httpx.HTTPError as exc:
            return self._unreachable(access, exc)
        access.fields["upstream_status"] = resp.status_code
        if resp.status_code >= 400:
            return await self._upstream_error(resp, access)
        content_type = resp.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            if kind == "chat":
                stream = self._chat_stream(resp, dialect, access)
            else:
                stream = self._responses_stream(resp, dialect, access)
            return _ClosingStreamingResponse(
                stream,
                status_code=resp.status_code,
                headers=_response_headers(resp, keep_encoding=False),
            )
        return await self._complete(request, resp, kind, dialect, access)

    async def _upstream_error(self, resp: httpx.Response, access: _Access) -> Response:
        try:
            body = await resp.aread()
        except httpx.HTTPError as exc:
            body = b""
            access.fields["error"] = type(exc).__name__
        finally:
            await resp.aclose()
        if resp.status_code < 500:  # the client's own error: pass it through
            access.emit(resp.status_code)
            return Response(
                body,
                status_code=resp.status_code,
                headers=_response_headers(resp, keep_encoding=False),
            )
        access.emit(502)
        detail = _upstream_message(body)
        message = f"upstream returned HTTP {resp.status_code}" + (f": {detail}" if detail else "")
        return _error(
            502, message, "upstream_error", "upstream_status", upstream_status=resp.status_code
        )

    async def _complete(
        self, request: Request, resp: httpx.Response, kind: str, dialect: str, access: _Access
    ) -> Response:
        try:
            body = await _unless_disconnected(request, resp.aread)
        except _Disconnected:
            return self._gone(access)
        except httpx.HTTPError as exc:
            return self._unreachable(access, exc)
        finally:
            with anyio.CancelScope(shield=True):
                await resp.aclose()
        try:
            data = json.loads(body)
        except ValueError:
            data = None
        headers = _response_headers(resp, keep_encoding=False)
        if not isinstance(data, dict):
            access.emit(502)
            return _error(
                502, "upstream sent a body that is not a JSON object", "upstream_error", "bad_body"
            )
        judge = guard_chat_completion if kind == "chat" else guard_response
        out, result = judge(
            data,
            dialect=dialect,
            policy=self.config.policy,
            on_leak=self.config.on_leak,
            abort="filter",
        )
        access.fields.update(
            leak=result.leak, forged=result.forged, cut=result.changed, aborted=result.aborted
        )
        access.emit(resp.status_code)
        if out is data:
            return Response(body, status_code=resp.status_code, headers=headers)
        headers.pop("content-type", None)
        return JSONResponse(out, status_code=resp.status_code, headers=headers)

    # --- streams ------------------------------------------------------------------------------

    async def _events(
        self,
        resp: httpx.Response,
        raws: dict[int, tuple[Any, str, str | None]],
        state: _Upstream,
    ) -> AsyncIterator[Any]:
        """The upstream SSE body as parsed items; closing this closes the HTTP response."""
        decoder = SSEDecoder()
        pieces = resp.aiter_bytes()
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
                await resp.aclose()

    async def _chat_stream(
        self, resp: httpx.Response, dialect: str, access: _Access
    ) -> AsyncIterator[bytes]:
        raws: dict[int, tuple[Any, str, str | None]] = {}
        state = _Upstream(status=resp.status_code)
        guarded = cast(
            AsyncGuardedStream,
            guard_stream(
                self._events(resp, raws, state),
                dialect=dialect,
                policy=self.config.policy,
                on_leak=self.config.on_leak,
                raw=False,
            ),
        )
        sent = 0
        finish_seen = False
        aborted = False
        last: dict[str, Any] | None = None
        outcome = "disconnected"
        try:
            try:
                async for item in guarded:
                    if isinstance(item, dict):
                        if item.get("choices"):
                            last = item
                        finish_seen = finish_seen or _finished(item)
                    yield _encode(item, raws)
                    sent += 1
            except LeakAborted:
                aborted = True
            except httpx.HTTPError as exc:
                outcome = "upstream_error"
                access.fields["error"] = type(exc).__name__
                yield _stream_error(exc)
                return
            stopped = aborted or guarded.forged or bool(guarded.cut)
            if stopped and (aborted or not finish_seen) and last is not None:
                yield encode(_dumps(_final_chunk(last, "content_filter" if aborted else "stop")))
                sent += 1
            if stopped or state.done:
                yield b"data: [DONE]\n\n"
            outcome = "complete"
        finally:
            with anyio.CancelScope(shield=True):
                await guarded.aclose()
            access.fields.update(
                upstream_chunks=state.chunks,
                chunks=sent,
                forged=guarded.forged,
                cut=bool(guarded.cut),
                aborted=aborted,
                leak=any(v.leak for v in guarded.verdicts),
                chars_dropped=guarded.chars_dropped,
                outcome=outcome,
            )
            access.emit(state.status or 200)

    async def _responses_stream(
        self, resp: httpx.Response, dialect: str, access: _Access
    ) -> AsyncIterator[bytes]:
        raws: dict[int, tuple[Any, str, str | None]] = {}
        state = _Upstream(status=resp.status_code)
        guarded = cast(
            AsyncGuardedResponseStream,
            guard_response_events(
                self._events(resp, raws, state),
                dialect=dialect,
                policy=self.config.policy,
                on_leak=self.config.on_leak,
                abort="filter",
            ),
        )
        sent = 0
        outcome = "disconnected"
        try:
            try:
                async for item in guarded:
                    yield _encode(item, raws)
                    sent += 1
            except httpx.HTTPError as exc:
                outcome = "upstream_error"
                access.fields["error"] = type(exc).__name__
                error = {
                    "type": "error",
                    "code": "upstream_error",
                    "message": f"upstream stream failed: {type(exc).__name__}",
                    "param": None,
                    "sequence_number": guarded.last_sequence + 1,
                }
                yield encode(_dumps(error), "error")
                return
            if state.done:
                yield b"data: [DONE]\n\n"
            outcome = "complete"
        finally:
            with anyio.CancelScope(shield=True):
                await guarded.close()
            access.fields.update(
                upstream_chunks=state.chunks,
                chunks=sent,
                forged=guarded.forged,
                cut=bool(guarded.cut),
                aborted=guarded.aborted,
                leak=any(v.leak for v in guarded.verdicts),
                chars_dropped=guarded.chars_dropped,
                outcome=outcome,
            )
            access.emit(state.status or 200)


def _parse(
    data: str,
    event: str | None,
    raws: dict[int, tuple[Any, str, str | None]],
    state: _Upstream,
) -> Any:
    if data == "[DONE]":
        state.done = True
        return None
    state.chunks += 1
    try:
        item = json.loads(data)
    except ValueError:
        return _Opaque(data, event)
    if not isinstance(item, dict):
        return _Opaque(data, event)
    raws[id(item)] = (item, data, event)
    return item


def _dumps(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def _encode(item: Any, raws: dict[int, tuple[Any, str, str | None]]) -> bytes:
    """An item on the wire: unchanged upstream items as they came, others re-serialised."""
    if isinstance(item, _Opaque):
        return encode(item.data, item.event)
    entry = raws.pop(id(item), None)
    if entry is not None and entry[0] is item:
        return encode(entry[1], entry[2])
    event = item.get("type") if isinstance(item, dict) and "choices" not in item else None
    return encode(_dumps(item), event if isinstance(event, str) else None)


def _stream_error(exc: Exception) -> bytes:
    error = {
        "message": f"upstream stream failed: {type(exc).__name__}",
        "type": "upstream_error",
        "code": "upstream_stream_error",
        "param": None,
    }
    return encode(_dumps({"error": error}))


async def _unless_disconnected(request: Request, fn: Callable[[], Awaitable[T]]) -> T:
    """Run ``fn``; if the client disconnects first, cancel it and raise ``_Disconnected``."""
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
        raise _Disconnected
    return result[0]


def create_app(
    config: ServeConfig, *, transport: httpx.AsyncBaseTransport | None = None
) -> Starlette:
    """The proxy as an ASGI app (run it with any ASGI server; :func:`run` uses uvicorn).
    ``transport`` replaces the upstream HTTP transport (for tests)."""
    proxy = _Proxy(config, transport)
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    routes = [
        Route("/healthz", proxy.healthz, methods=["GET", "HEAD"]),
        Route("/v1/chat/completions", proxy.chat, methods=["POST"]),
        Route("/v1/responses", proxy.responses, methods=["POST"]),
        Route("/v1/{path:path}", proxy.passthrough, methods=methods),
        Route("/{path:path}", proxy.not_found, methods=methods),
    ]
    return Starlette(routes=routes, lifespan=proxy.lifespan)


class _JSONLines(logging.Formatter):
    """One JSON object per log record: time, level, event name and the event's fields."""

    def format(self, record: logging.LogRecord) -> str:
        event = getattr(record, "guard_event", None) or record.getMessage()
        out: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "event": event,
        }
        out.update(getattr(record, "guard_fields", {}) or {})
        return json.dumps(out, ensure_ascii=False, default=str)


def configure_logging(stream: Any = None, level: int = logging.INFO) -> None:
    """Send guard's structured events to ``stream`` (stderr) as JSON lines."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(_JSONLines())
    logger = logging.getLogger("guard")
    logger.addHandler(handler)
    logger.setLevel(level)


def run(config: ServeConfig, host: str = "127.0.0.1", port: int = 8787) -> int:
    """Serve until interrupted (uvicorn; access logs as JSON lines on stderr)."""
    import uvicorn

    configure_logging()
    _log.info("guard.serve.listen", host=host, port=port)
    uvicorn.run(
        create_app(config),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    return 0
