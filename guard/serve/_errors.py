"""The proxy's one error contract: every failure it answers itself is an OpenAI-style JSON body
``{"error": {"message", "type", "code", "param"}}`` with a status that says whose fault it was.

===== ========================= ==========================================================
code  ``type``                  when
===== ========================= ==========================================================
400   ``invalid_request_error`` the client's input: a bad path, a body that is not a JSON
                                object, invalid Unicode, nesting over the limit, a shape the
                                escaper cannot read
401   ``authentication_error``  client keys are configured and none was presented
403   ``invalid_request_error`` a route that may carry model output guard does not read
404   ``invalid_request_error`` no route
405   ``invalid_request_error`` a method the route does not take
413   ``invalid_request_error`` a request body over the limit
500   ``server_error``          a fault of the proxy itself (logged as
                                ``guard.serve.internal_error``)
502   ``upstream_error``        the upstream failed: unreachable, ``5xx``, a body the proxy
                                cannot read
504   ``upstream_error``        the upstream missed a deadline (idle or total)
===== ========================= ==========================================================

An upstream ``4xx`` is the client's own error and passes through as the upstream sent it. Once
a stream has started, a failure ends it with an error event instead (the relays write it).
:class:`ErrorBoundary` keeps every exception away from the server, so the client's keep-alive
connection stays usable after any answer.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import Message, Receive, Scope, Send

from guard.serve._deadlines import DeadlineExceeded
from guard.serve._layer import HttpLayer
from guard.serve._logging import log

__all__ = ["ErrorBoundary", "error_body", "error_response", "http_exception", "send_error"]

_STATUS_TYPES = {401: "authentication_error", 500: "server_error", 502: "upstream_error"}


def error_body(message: str, kind: str, code: str, **extra: Any) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "code": code, "param": None, **extra}}


def error_response(status: int, message: str, kind: str, code: str, **extra: Any) -> JSONResponse:
    """The proxy's answer for one failure."""
    return JSONResponse(error_body(message, kind, code, **extra), status_code=status)


async def send_error(send: Send, status: int, message: str, kind: str, code: str) -> None:
    """The same answer written straight to an ASGI ``send`` (before routing)."""
    body = json.dumps(error_body(message, kind, code)).encode("utf-8")
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode("ascii")),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own refusals (405 for a method, 404) in the contract's shape."""
    status = getattr(exc, "status_code", 500)
    detail = getattr(exc, "detail", None) or "request failed"
    code = {404: "not_found", 405: "method_not_allowed"}.get(status, "http_error")
    headers = getattr(exc, "headers", None)
    response = error_response(status, str(detail), "invalid_request_error", code)
    if headers:
        response.headers.update(headers)
    return response


class ErrorBoundary(HttpLayer):
    """The outermost ASGI layer: an exception that escapes the app becomes a 500 JSON error
    (if no response has started) and never reaches the server, which would otherwise drop the
    connection."""

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        started = False

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracked)
        except Exception as exc:
            if started and isinstance(exc, httpx.HTTPError | DeadlineExceeded):
                # an upstream body cut mid-way: the access record says so, and the server cuts
                # the client's connection, the only way to tell it the body is incomplete
                return
            log.error(
                "guard.serve.internal_error",
                path=scope.get("path"),
                error=type(exc).__name__,
                response_started=started,
            )
            if not started:
                await send_error(
                    send,
                    500,
                    f"guard serve failed on this request: {type(exc).__name__}",
                    "server_error",
                    "internal_error",
                )
