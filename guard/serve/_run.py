"""``guard serve`` in the foreground: the socket bound first, then uvicorn; access logs as JSON
lines on stderr."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from guard.serve._app import create_app
from guard.serve._config import ServeConfig
from guard.serve._listen import base_url, listen, start_line
from guard.serve._logging import configure_logging, log
from guard.serve._secrets import mask_url

__all__ = ["run", "server_config"]

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def server_config(config: ServeConfig, host: str, port: int) -> Any:
    """The ``uvicorn.Config`` the proxy runs with: HTTP/1.1 by h11 with the client bounds of
    :mod:`guard.serve._connections` (header deadline, connection cap) and ``config``'s
    keep-alive timeout."""
    import uvicorn

    from guard.serve._connections import bounded_protocol, connection_cap

    cap = connection_cap(config.max_connections)
    if cap < config.max_connections:
        log.warning(
            "guard.serve.max_connections_lowered",
            max_connections=config.max_connections,
            to=cap,
            reason="open file limit",
        )
    return uvicorn.Config(
        create_app(config),
        host=host,
        port=port,
        http=bounded_protocol(cap, config.header_timeout),
        timeout_keep_alive=config.timeout_keep_alive,  # type: ignore[arg-type]
        log_level="warning",
        access_log=False,
        lifespan="on",
    )


def run(
    config: ServeConfig,
    host: str = "127.0.0.1",
    port: int = 8787,
    *,
    announce: Callable[[str], None] | None = None,
) -> int:
    """Serve until interrupted (uvicorn; access logs as JSON lines on stderr). The socket is
    bound before the app starts: a taken port raises :class:`~guard.errors.ConfigError` naming
    ``host:port`` before anything is logged. ``announce`` receives the start-up line
    (:func:`guard.serve._listen.start_line`; the command prints it on stdout), which the
    ``guard.serve.listen`` event carries as fields too."""
    import uvicorn

    sock = listen(host, port)
    try:
        port = int(sock.getsockname()[1])  # the one the system chose for port 0
        configure_logging()
        log.info(
            "guard.serve.listen",
            host=host,
            port=port,
            base_url=base_url(host, port),
            upstream=mask_url(config.upstream),
            dialect=config.dialect,
        )
        if host not in _LOOPBACK and not config.api_keys:
            # anyone who can reach this address can use the upstream (and its key, if set here)
            log.warning("guard.serve.open_bind", host=host, port=port)
        if announce is not None:
            announce(start_line(config, host, port))
        uvicorn.Server(server_config(config, host, port)).run(sockets=[sock])
    finally:
        sock.close()
    return 0
