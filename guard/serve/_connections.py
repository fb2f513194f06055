"""Client connection bounds of ``guard serve``'s server: a deadline for a request's headers and
a cap on open connections, as a uvicorn HTTP/1.1 protocol (h11).

* **Headers**: a client has ``header_timeout`` seconds from opening its connection, or from the
  first byte of a later request on it, until its request's headers are complete; past that it is
  answered ``408`` and closed. (uvicorn's keep-alive timeout only covers the wait between
  requests; a client trickling a header a byte at a time is never cut off by it.) The body's
  deadline is the app's (:meth:`guard.serve._app._Proxy` reads the body within
  ``body_timeout``).
* **Connections**: at most ``max_connections`` are open at once. One more is answered ``503``
  (``connection: close``) as soon as its headers are in, and meanwhile holds no more than the
  header deadline. The cap is lowered to what the process's file descriptor limit allows (each
  client connection may hold one to the upstream too).
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from guard.serve._logging import log

__all__ = ["bounded_protocol", "connection_cap"]

#: descriptors kept for the listening socket, logs, the upstream's pool and the interpreter
_RESERVED_FDS = 64


def _error_bytes(status: int, reason: str, message: str, code: str) -> bytes:
    body = json.dumps(
        {"error": {"message": message, "type": "invalid_request_error", "code": code}}
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    return head + body


def connection_cap(wanted: int) -> int:
    """``wanted``, lowered so that two descriptors per connection fit under the process's soft
    limit of open files (where the platform tells it)."""
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY or soft <= 0:
        return wanted
    return max(1, min(wanted, (soft - _RESERVED_FDS) // 2))


async def _over_capacity(scope: Any, receive: Any, send: Any) -> None:
    """The app a connection over the cap gets: 503, and the connection closed."""
    body = json.dumps(
        {
            "error": {
                "message": "guard serve has as many client connections open as it allows"
                " (max_connections); try again shortly",
                "type": "server_error",
                "code": "too_many_connections",
            }
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
                (b"retry-after", b"1"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def bounded_protocol(max_connections: int, header_timeout: float) -> type[H11Protocol]:
    """A uvicorn h11 protocol class with the header deadline and the connection cap."""

    class BoundedH11Protocol(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > max_connections:
                self.app = _over_capacity
                log.warning(
                    "guard.serve.too_many_connections",
                    open=len(self.connections),
                    max_connections=max_connections,
                )
            self._arm()

        def _arm(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(header_timeout, self._headers_late)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_late(self) -> None:
            self._header_timer = None
            if self.transport.is_closing():
                return
            log.warning("guard.serve.client_timeout", phase="headers", seconds=header_timeout)
            self.transport.write(
                _error_bytes(
                    408,
                    "Request Timeout",
                    f"the request's headers did not arrive within {header_timeout:g} s",
                    "request_timeout",
                )
            )
            self.transport.close()

        def data_received(self, data: bytes) -> None:
            waiting = self.conn.their_state is h11.IDLE
            if waiting:
                self._arm()  # the first byte of a request starts its header deadline
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the request's headers are in

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def on_response_complete(self) -> None:
            # the connection now waits for its next request: uvicorn's keep-alive timeout
            # bounds that wait, and the next request's first byte starts its header deadline
            self._disarm()
            super().on_response_complete()

    return BoundedH11Protocol
