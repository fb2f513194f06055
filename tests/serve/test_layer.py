"""HttpLayer: the proxy's own ASGI layers act on HTTP requests only."""

from __future__ import annotations

import asyncio
from typing import Any

from guard.serve._layer import HttpLayer


class _Seen(HttpLayer):
    def __init__(self, app: Any) -> None:
        super().__init__(app)
        self.http_scopes: list[str] = []

    async def http(self, scope: Any, receive: Any, send: Any) -> None:
        self.http_scopes.append(scope["type"])
        await self.app(scope, receive, send)


def test_http_goes_to_the_layer_and_other_scopes_straight_to_the_app() -> None:
    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    layer = _Seen(app)

    async def main() -> None:
        await layer({"type": "lifespan"}, None, None)
        await layer({"type": "http"}, None, None)

    asyncio.run(main())
    assert reached == ["lifespan", "http"]
    assert layer.http_scopes == ["http"]
