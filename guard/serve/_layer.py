"""The base of the proxy's own ASGI layers: each acts on HTTP requests only, and passes
lifespan (and any other) scopes to the app it wraps untouched."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HttpLayer"]


class HttpLayer:
    """An ASGI layer over ``app``; :meth:`http` handles an HTTP request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        await self.http(scope, receive, send)

    async def http(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError
