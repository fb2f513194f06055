"""The proxy's ASGI app: routes, request reading, guarded and passed-through exchanges. The
failures it answers itself follow :mod:`guard.serve._errors`'s contract."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from guard._depth import MAX_DEPTH
from guard.dialects import Dialect
from guard.integrations.openai.protocol import request_tools
from guard.serve._auth import ClientAuth
from guard.serve._causes import cause_of
from guard.serve._config import ServeConfig
from guard.serve._deadlines import Deadline, DeadlineExceeded
from guard.serve._errors import ErrorBoundary, error_response, http_exception
from guard.serve._front import AUTHENTICATED_WITH, Front
from guard.serve._logging import AccessRecord, log
from guard.serve._metrics import Metrics, Observe
from guard.serve._models import UnknownModels
from guard.serve._offload import Offload
from guard.serve._relay import ChatRelay, MessagesRelay, Relay, ResponsesRelay
from guard.serve._responses import ClosingStreamingResponse, anthropic_shaped, with_headers
from guard.serve._secrets import url_origin
from guard.serve._upstream import (
    Disconnected,
    PathError,
    ResponseTooLarge,
    Upstream,
    read_capped,
    response_headers,
    unless_disconnected,
    upstream_message,
)
from guard.wire import (
    NO_MODEL_OUTPUT,
    BadAnswer,
    RequestRefused,
    carries_no_model_output,
    judge_answer,
    prepare_request,
    request_dialect,
)

__all__ = ["create_app"]


#: the relay of each guarded route's streams (its request and complete answers are read by
#: :mod:`guard.wire`)
_RELAYS: dict[str, type[Relay]] = {
    "chat": ChatRelay,
    "responses": ResponsesRelay,
    "messages": MessagesRelay,
}


def _carries_no_model_output(path: str) -> bool:
    """``/v1/...`` paths that carry no model output (:data:`guard.wire.NO_MODEL_OUTPUT`) are
    passed through as they are; every other unguarded path is refused unless
    ``allow_passthrough`` is set."""
    return carries_no_model_output(path[len("/v1/") :])


#: the routes ``guard serve --help`` and the docs describe (kept beside the routes they name)
GUARDED_ROUTES = ("/v1/chat/completions", "/v1/responses", "/v1/messages")
PASSED_THROUGH = tuple(f"/v1/{p}" for p in NO_MODEL_OUTPUT)


_error = error_response


class _Proxy:
    def __init__(self, config: ServeConfig, transport: httpx.AsyncBaseTransport | None) -> None:
        self.config = config
        self.upstream = Upstream(config, transport)
        self.unknown_models = UnknownModels(config.dialects)
        #: worker threads for large requests, answers and events
        self.offload = Offload(config.judge_threads)

    # --- helpers ------------------------------------------------------------------------------

    async def _read(self, request: Request, access: AccessRecord) -> bytes | Response:
        """The request body, or the proxy's answer when it is over the limit (413), does not
        arrive within ``body_timeout`` (408, the connection closed) or the client went
        away."""
        limit = self.config.max_body_bytes
        declared = request.headers.get("content-length", "")
        too_large = declared.isdigit() and int(declared) > limit
        body = bytearray()
        seconds = self.config.body_timeout
        try:
            with anyio.move_on_after(seconds) as late:
                if not too_large:
                    async for piece in request.stream():
                        body += piece
                        if len(body) > limit:
                            too_large = True
                            break
        except ClientDisconnect:
            return self._gone(access)
        if late.cancelled_caught:
            access.fields["error"] = "request_timeout"
            access.emit(408)
            late_error = _error(
                408,
                f"the request body did not arrive within {seconds:g} s",
                "invalid_request_error",
                "request_timeout",
            )
            late_error.headers["connection"] = "close"  # the rest of the body is never read
            return late_error
        if too_large:
            access.emit(413)
            return _error(
                413,
                f"request body exceeds the proxy's limit of {limit} bytes",
                "invalid_request_error",
                "request_too_large",
            )
        return bytes(body)

    def _spellings(self, model: str | None) -> Dialect:
        chosen = request_dialect(model, self.config.dialect, self.config.dialects)
        if self.config.dialect is None:  # a forced dialect claims every name
            self.unknown_models.note(model, chosen.name)
        return chosen

    async def _forward(
        self,
        request: Request,
        body: bytes,
        access: AccessRecord,
        deadline: Deadline,
        *,
        guarded: bool,
    ) -> httpx.Response | Response:
        """The upstream's (streaming) response, or the proxy's answer when the client went
        away (499), the path leaves the upstream's base (400), the upstream cannot be
        reached (502) or misses a deadline (504)."""
        try:
            upstream = self.upstream.build(
                request,
                body,
                guarded=guarded,
                authenticated_with=request.scope.get(AUTHENTICATED_WITH),
            )
        except PathError as exc:
            access.emit(400)
            return _error(400, str(exc), "invalid_request_error", "invalid_path")
        try:
            resp = await deadline.run(lambda: self.upstream.send(request, upstream))
        except Disconnected:
            return self._gone(access)
        except (httpx.HTTPError, DeadlineExceeded) as exc:
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
        """502 for an upstream that failed, 504 for one that missed a deadline; the message
        names the upstream (``scheme://host:port``, never its password) and the cause."""
        kind = type(exc).__name__
        access.fields["error"] = kind
        upstream = url_origin(self.config.upstream)
        if isinstance(exc, DeadlineExceeded):
            access.emit(504)
            return _error(504, f"upstream {upstream}: {exc}", "upstream_error", "upstream_deadline")
        if isinstance(exc, httpx.TimeoutException):
            access.emit(504)
            message = (
                f"upstream {upstream} sent nothing for {self.config.read_timeout:g} s ({kind})"
                if isinstance(exc, httpx.ReadTimeout | httpx.WriteTimeout)
                else f"upstream {upstream} did not answer in time: {cause_of(exc)}"
            )
            return _error(504, message, "upstream_error", "upstream_timeout")
        access.emit(502)
        failed = "could not be reached" if isinstance(exc, httpx.ConnectError) else "failed"
        return _error(
            502,
            f"upstream {upstream} {failed}: {cause_of(exc)}",
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
        deadline = Deadline(self.config.total_timeout)
        resp = await self._forward(request, body, access, deadline, guarded=False)
        if isinstance(resp, Response):
            return resp

        async def body_iter() -> AsyncIterator[bytes]:
            done = False
            pieces = resp.aiter_raw()
            try:
                while (piece := await deadline.next(pieces)) is not None:
                    yield piece
                done = True
            except (httpx.HTTPError, DeadlineExceeded) as exc:
                # the status line is out: a cut connection is the only way to say the body
                # is incomplete
                access.fields["error"] = type(exc).__name__
                raise
            finally:
                with anyio.CancelScope(shield=True):
                    await resp.aclose()
                if not done and "error" not in access.fields:
                    access.fields["disconnected"] = True
                access.emit(resp.status_code)

        return with_headers(
            ClosingStreamingResponse(body_iter(), status_code=resp.status_code),
            response_headers(resp, keep_encoding=True),
        )

    async def _guarded(self, request: Request, kind: str) -> Response:
        response = await self._guarded_route(request, kind)
        if kind == "messages":
            return anthropic_shaped(response)
        return response

    async def _guarded_route(self, request: Request, kind: str) -> Response:
        access = AccessRecord(request.method, request.url.path)
        raw = await self._read(request, access)
        if isinstance(raw, Response):
            return raw
        try:
            # a large body is escaped on a worker thread, with the tools it offers read there
            sent, tools = await self.offload.run(len(raw), self._prepare, raw)
        except RequestRefused as exc:
            access.fields["error"] = exc.code
            access.emit(400)
            return _error(400, str(exc), "invalid_request_error", exc.code)
        escaped = sent.body
        model = escaped.get("model")
        dialect = sent.answer_dialect
        access.fields.update(model=model if isinstance(model, str) else None, dialect=dialect)
        if sent.escaped:
            access.fields["escaped"] = True
        raw = sent.raw
        deadline = Deadline(self.config.total_timeout)
        resp = await self._forward(request, raw, access, deadline, guarded=True)
        if isinstance(resp, Response):
            return resp
        if resp.status_code >= 400:
            return await self._upstream_error(resp, access, deadline)
        content_type = resp.headers.get("content-type", "")
        if content_type.startswith("text/event-stream"):
            return with_headers(
                ClosingStreamingResponse(
                    _RELAYS[kind](
                        resp,
                        dialect,
                        self.config,
                        access,
                        deadline,
                        tools,
                        self.offload,
                        sent.choices,
                    ).body(),
                    status_code=resp.status_code,
                ),
                response_headers(resp, keep_encoding=False),
            )
        return await self._complete(request, resp, kind, dialect, access, deadline, tools)

    def _prepare(self, raw: bytes) -> tuple[Any, frozenset[str] | None]:
        """The request to send, and the tools it offers the model (the context of the
        answer's judge)."""
        sent = prepare_request(raw, self._spellings, max_depth=MAX_DEPTH)
        return sent, request_tools(sent.body)

    async def _upstream_error(
        self, resp: httpx.Response, access: AccessRecord, deadline: Deadline
    ) -> Response:
        try:
            body = await deadline.run(lambda: read_capped(resp, self.config.max_response_bytes))
        except (httpx.HTTPError, DeadlineExceeded, ResponseTooLarge) as exc:
            body = b""
            access.fields["error"] = type(exc).__name__
            if resp.status_code < 500:  # never relayed cut short
                access.emit(502)
                return _error(
                    502,
                    f"upstream returned HTTP {resp.status_code} and its body could not be read"
                    f" whole: {exc if isinstance(exc, ResponseTooLarge) else type(exc).__name__}",
                    "upstream_error",
                    "upstream_status",
                    upstream_status=resp.status_code,
                )
        finally:
            with anyio.CancelScope(shield=True):
                await resp.aclose()
        if resp.status_code < 500:  # the client's own error: pass it through
            access.emit(resp.status_code)
            return with_headers(
                Response(body, status_code=resp.status_code),
                response_headers(resp, keep_encoding=False),
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
        deadline: Deadline,
        tools: frozenset[str] | None = None,
    ) -> Response:
        limit = self.config.max_response_bytes
        try:
            body = await deadline.run(
                lambda: unless_disconnected(request, lambda: read_capped(resp, limit))
            )
        except Disconnected:
            return self._gone(access)
        except ResponseTooLarge as exc:
            access.fields["error"] = "response_too_large"
            access.emit(502)
            return _error(502, str(exc), "upstream_error", "response_too_large")
        except (httpx.HTTPError, DeadlineExceeded) as exc:
            return self._unreachable(access, exc)
        finally:
            with anyio.CancelScope(shield=True):
                await resp.aclose()
        # a large answer is judged on a worker thread
        judged = await self.offload.run(len(body), self._judge, body, kind, dialect, access, tools)
        if isinstance(judged, Response):
            access.emit(judged.status_code)
            return judged
        out, data, action = judged
        headers = response_headers(resp, keep_encoding=False)
        if action is not None:
            headers = [*headers, ("x-guard-action", action)]
        access.emit(resp.status_code)
        if out is data:
            return with_headers(Response(body, status_code=resp.status_code), headers)
        # a large changed answer is serialised on a worker thread too
        rendered = await self.offload.run(len(body), JSONResponse, out, resp.status_code)
        return with_headers(rendered, headers)

    def _judge(
        self,
        body: bytes,
        kind: str,
        dialect: str,
        access: AccessRecord,
        tools: frozenset[str] | None = None,
    ) -> tuple[Any, dict[str, Any], str | None] | Response:
        """(the guarded body, the parsed one, its ``x-guard-action``), or 502 for a body the
        proxy cannot read (:class:`guard.wire.BadAnswer`: deny by default, never relayed
        unjudged). Runs on a worker thread for a large body: it notes the access fields, the
        caller emits the record."""
        config = self.config
        try:
            judged = judge_answer(body, kind, dialect, config.policy, config.on_leak, tools)
        except BadAnswer as exc:
            access.fields["error"] = exc.cause
            if exc.cause == "unreadable_shape":
                log.warning("guard.serve.unreadable_answer", kind=kind, error=str(exc))
            return _error(502, f"upstream sent {exc}", "upstream_error", "bad_body")
        result, extra = judged.result, judged.extra
        access.fields.update(
            leak=judged.leak,
            forged=result.forged,
            cut=result.changed or bool(extra.cut),
            aborted=result.aborted,
            chars_dropped=result.chars_dropped,
        )
        access.verdicts = judged.verdicts
        return judged.out, judged.data, judged.action


def create_app(
    config: ServeConfig, *, transport: httpx.AsyncBaseTransport | None = None
) -> ASGIApp:
    """The proxy as an ASGI app (run it with any ASGI server; :func:`guard.serve.run` uses
    uvicorn). ``transport`` replaces the upstream HTTP transport (for tests). Paths are checked
    and client keys verified before routing; every failure the proxy answers is a JSON error
    (:mod:`guard.serve._errors`). With ``config.metrics``, Prometheus metrics are served at
    ``/metrics`` (:mod:`guard.serve._metrics`); with ``config.otel``, requests and upstream
    calls become OpenTelemetry spans (:mod:`guard.serve._tracing`)."""
    proxy = _Proxy(config, transport)
    metrics = Metrics() if config.metrics else None
    methods = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]
    routes = [
        Route("/healthz", proxy.healthz, methods=["GET", "HEAD"]),
        *([Route("/metrics", _metrics_endpoint(metrics), methods=["GET"])] if metrics else []),
        Route("/v1/chat/completions", proxy.chat, methods=["POST"]),
        Route("/v1/responses", proxy.responses, methods=["POST"]),
        Route("/v1/messages", proxy.messages, methods=["POST"]),
        Route("/v1/{path:path}", proxy.passthrough, methods=methods),
        Route("/{path:path}", proxy.not_found, methods=methods),
    ]

    def lifespan(app: Starlette) -> Any:
        return proxy.upstream.open(instrument=config.otel)

    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: http_exception, Exception: _internal_error},
    )
    observed: ASGIApp = Observe(Front(app, ClientAuth(config.api_keys)), metrics, spans=config.otel)
    if config.otel:
        from guard.serve._tracing import traced

        observed = traced(observed)
    return ErrorBoundary(observed)


def _metrics_endpoint(metrics: Metrics) -> Any:
    async def endpoint(request: Request) -> Response:
        body, content_type = metrics.exposition()
        return Response(body, media_type=content_type)

    return endpoint


async def _internal_error(request: Request, exc: Exception) -> Response:
    return _error(
        500,
        f"guard serve failed on this request: {type(exc).__name__}",
        "server_error",
        "internal_error",
    )
