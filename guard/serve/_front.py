"""What every request passes before routing: its path decoded and checked
(:mod:`guard.serve._paths`), then the client's key when the proxy has keys of its own
(:mod:`guard.serve._auth`). Refusals are answered here in the error contract's shape and
logged like any request."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from guard.serve._auth import ClientAuth
from guard.serve._errors import send_error
from guard.serve._layer import HttpLayer
from guard.serve._logging import AccessRecord
from guard.serve._paths import PathError, normalise_path, quote_path

__all__ = ["AUTHENTICATED_WITH", "Front"]

#: the scope key holding the header the client's key came in (``None``: no client keys)
AUTHENTICATED_WITH = "guard.authenticated_with"
#: answered without a key (a load balancer's health check and a metrics scraper hold none)
_OPEN_PATHS = frozenset({"/healthz", "/metrics"})


class Front(HttpLayer):
    def __init__(self, app: ASGIApp, auth: ClientAuth) -> None:
        super().__init__(app)
        self.auth = auth

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") or scope["path"].encode("utf-8")
        method = scope.get("method", "")
        try:
            path = normalise_path(raw.split(b"?", 1)[0])
        except PathError as exc:
            access = AccessRecord(method, scope["path"][:200])
            access.fields["error"] = "invalid_path"
            access.emit(400)
            await send_error(send, 400, str(exc), "invalid_request_error", "invalid_path")
            return
        scope = {**scope, "path": path, "raw_path": quote_path(path).encode("ascii")}
        if self.auth.enabled and path not in _OPEN_PATHS:
            headers = {
                k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]
            }
            used = self.auth.check(headers)
            if used is None:
                access = AccessRecord(method, path)
                access.fields["error"] = "unauthenticated"
                access.emit(401)
                await send_error(
                    send,
                    401,
                    "guard serve needs one of its client keys (Authorization: Bearer KEY or"
                    " X-Api-Key: KEY)",
                    "authentication_error",
                    "invalid_api_key",
                )
                return
            scope[AUTHENTICATED_WITH] = used
        await self.app(scope, receive, send)
