"""The proxy's ASGI app: routes, request reading, guarded and passed-through exchanges, and
the JSON error bodies the proxy answers with itself."""

from __future__ import annotations

import fnmatch
import json
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Send

from guard.integrations.anthropic.protocol import escape_messages_request, guard_message
from guard.integrations.openai.protocol import (
    GuardResult,
    escape_chat_request,
    escape_responses_request,
    guard_chat_completion,
    guard_response,
    request_tools,
)
from guard.serve._config import ServeConfig
from guard.serve._logging import AccessRecord, log
from guard.serve._relay import ChatRelay, MessagesRelay, Relay, ResponsesRelay
from guard.serve._upstream import (
    Disconnected,
    Upstream,
    response_headers,
    unless_disconnected,
    upstream_message,
)

__all__ = ["create_app"]


@dataclass(frozen=True)
class _Endpoint:
    """How one guarded endpoint reads: its request escaper, the judge of a complete response
    and the relay of a stream."""

    escape: Callable[[Mapping[str, Any], str], dict[str, Any]]
    judge: Callable[..., tuple[Any, GuardResult]]
    relay: type[Relay]


_ENDPOINTS = {
    "chat": _Endpoint(escape_chat_request, guard_chat_completion, ChatRelay),
    "responses": _Endpoint(escape_responses_request, guard_response, ResponsesRelay),
    "messages": _Endpoint(escape_messages_request, guard_message, MessagesRelay),
}

#: ``/v1/...`` paths (after ``/v1/``, globs) that carry no model output: passed through as they
#: are. Every other unguarded path is refused unless ``allow_passthrough`` is set.
_NO_MODEL_OUTPUT = (
    "models",
    "models/*",
    "embeddings",
    "moderations",
    "messages/count_tokens",
    "tokenize",
    "detokenize",
)


def _carries_no_model_output(path: str) -> bool:
    rest = path[len("/v1/") :]
    return any(fnmatch.fnmatchcase(rest, pattern) for pattern in _NO_MODEL_OUTPUT)


def _error(status: int, message: str, kind: str, code: str, **extra: Any) -> JSONResponse:
    body = {"error": {"message": message, "type": kind, "code": code, "param": None, **extra}}
    return JSONResponse(body, status_code=status)


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


class _Proxy:
    def __init__(self, config: ServeConfig, transport: httpx.AsyncBaseTransport | None) -> None:
        self.config = config
        self.upstream = Upstream(config, transport)

    # --- helpers ------------------------------------------------------------------------------

    async def _read(self, request: Request, access: AccessRecord) -> bytes | Response:
        """The request body, or the proxy's answer when it is over the limit (413) or the
        client went away."""
        limit = self.config.max_body_bytes
        declared = request.headers.get("content-length", "")
        too_large = declared.isdigit() and int(declared) > limit
        body = bytearray()
        try:
            if not too_large:
                async for piece in request.stream():
                    body += piece
                    if len(body) > limit:
                        too_large = True
                        break
        except ClientDisconnect:
            return self._gone(access)
        if too_large:
            access.emit(413)
            return _error(
                413,
                f"request body exceeds the proxy's limit of {limit} bytes",
                "invalid_request_error",
                "request_too_large",
            )
        return bytes(body)

    async def _forward(
        self, request: Request, body: bytes, access: AccessRecord, *, guarded: bool
    ) -> httpx.Response | Response:
        """The upstream's (streaming) response, or the proxy's answer when the client went
        away or the upstream cannot be reached (502)."""
        upstream = self.upstream.build(request, body, guarded=guarded)
        try:
            resp = await self.upstream.send(request, upstream)
        except Disconnected:
            return self._gone(access)
        except httpx.HTTPError as exc:
            return self._unreachable(access, exc)
        access.fields["upstream_status"] = resp.status_code
        return resp

    def _gone(self, access: AccessRecord) -> Response:
        """The client went away: nothing to send (499, nginx's "client closed request", is
        what the access log records)."""
        access.fields["disconnected"] = True
        access.emit(499)
        return Response(status_code=499)

    def _unreachable(self, access: AccessRecord, exc: Exception) -> JSONResponse:
        kind = type(exc).__name__
        access.fields["error"] = kind
        access.emit(502)
        return _error(
            502,
            f"upstream request failed: {kind}",
            "upstream_error",
            "upstream_unreachable",
        )

    # --- endpoints ----------------------------------------------------------------------------

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def chat(self, request: Request) -> Response:
        return await self._guarded(request, "chat")

    async def responses(self, request: Request) -> Response:
        return await self._guarded(request, "responses")

    async def messages(self, request: Request) -> Response:
        return await self._guarded(request, "messages")

    async def not_found(self, request: Request) -> Response:
        access = AccessRecord(request.method, request.url.path)
        access.emit(404)
        return _error(404, f"no route for {request.url.path}", "invalid_request_error", "not_found")

    async def passthrough(self, request: Request) -> Response:
        access = AccessRecord(request.method, request.url.path)
        if not _carries_no_model_output(request.url.path):
            if not self.config.allow_passthrough:
                access.emit(403)
                return _error(
                    403,
                    f"guard serve does not guard {request.url.path}, which may carry model"
                    " output; set [serve] allow_passthrough = true in the policy file to pass"
                    " it through unguarded",
                    "invalid_request_error",
                    "unguarded_route",
                )
            access.fields["unguarded"] = True
            log.warning("guard.serve.unguarded", method=request.method, path=request.url.path)
        body = await self._read(request, access)
        if isinstance(body, Response):
            return body
        resp = await self._forward(request, body, access, guarded=False)
        if isinstance(resp, Response):
            return resp

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
            headers=response_headers(resp, keep_encoding=True),
        )

    async def _guarded(self, request: Request, kind: str) -> Response:
        endpoint = _ENDPOINTS[kind]
        access = AccessRecord(request.method, request.url.path)
        raw = await self._read(request, access)
        if isinstance(raw, Response):
            return raw
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
        try:
            escaped = endpoint.escape(body, dialect)
        except (TypeError, ValueError) as exc:
            access.emit(400)
            return _error(
                400, f"cannot read the request: {exc}", "invalid_request_error", "bad_shape"
            )
        if escaped != body:
            raw = json.dumps(escaped, ensure_ascii=False).encode("utf-8")
            access.fields["escaped"] = True
        # the tools the model is offered are the context of the response's judge
        tools = request_tools(escaped)
        resp = await self._forward(request, raw, access, guarded=True)
        if isinstance(resp, Response):
            return resp
        if resp.status_code >= 400:
            return await self._upstream_error(resp, access)
        content_type = resp.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            return _ClosingStreamingResponse(
                endpoint.relay(resp, dialect, self.config, access, tools).body(),
                status_code=resp.status_code,
                headers=response_headers(resp, keep_encoding=False),
            )
        return await self._complete(request, resp, kind, dialect, access, tools)

    async def _upstream_error(self, resp: httpx.Response, access: AccessRecord) -> Response:
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
                headers=response_headers(resp, keep_encoding=False),
            )
        access.emit(502)
        detail = upstream_message(body)
        message = f"upstream returned HTTP {resp.status_code}" + (f": {detail}" if detail else "")
        return _error(
            502, message, "upstream_error", "upstream_status", upstream_status=resp.status_code
        )

    async def _complete(
        self,
        request: Request,
        resp: httpx.Response,
        kind: str,
        dialect: str,
        access: AccessRecord,
        tools: frozenset[str] | None = None,
    ) -> Response:
        try:
            body = await unless_disconnected(request, resp.aread)
        except Disconnected:
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
        headers = response_headers(resp, keep_encoding=False)
        if not isinstance(data, dict):
            access.emit(502)
            return _error(
                502, "upstream sent a body that is not a JSON object", "upstream_error", "bad_body"
            )
        out, result = _ENDPOINTS[kind].judge(
            data,
            dialect=dialect,
            policy=self.config.policy,
            on_leak=self.config.on_leak,
            abort="filter",
            tools=tools,
        )
        access.fields.update(
            leak=result.leak, forged=result.forged, cut=result.changed, aborted=result.aborted
        )
        access.emit(resp.status_code)
        if out is data:
            return Response(body, status_code=resp.status_code, headers=headers)
        headers.pop("content-type", None)
        return JSONResponse(out, status_code=resp.status_code, headers=headers)


def create_app(
    config: ServeConfig, *, transport: httpx.AsyncBaseTransport | None = None
) -> Starlette:
    """The proxy as an ASGI app (run it with any ASGI server; :func:`guard.serve.run` uses
    uvicorn). ``transport`` replaces the upstream HTTP transport (for tests)."""
    proxy = _Proxy(config, transport)
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    routes = [
        Route("/healthz", proxy.healthz, methods=["GET", "HEAD"]),
        Route("/v1/chat/completions", proxy.chat, methods=["POST"]),
        Route("/v1/responses", proxy.responses, methods=["POST"]),
        Route("/v1/messages", proxy.messages, methods=["POST"]),
        Route("/v1/{path:path}", proxy.passthrough, methods=methods),
        Route("/{path:path}", proxy.not_found, methods=methods),
    ]

    def lifespan(app: Starlette) -> Any:
        return proxy.upstream.open()

    return Starlette(routes=routes, lifespan=lifespan)
