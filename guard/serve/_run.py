"""``guard serve`` in the foreground: uvicorn, access logs as JSON lines on stderr."""

from __future__ import annotations

from typing import Any

from guard.serve._app import create_app
from guard.serve._config import ServeConfig
from guard.serve._logging import configure_logging, log

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


def run(config: ServeConfig, host: str = "127.0.0.1", port: int = 8787) -> int:
    """Serve until interrupted (uvicorn; access logs as JSON lines on stderr)."""
    import uvicorn

    configure_logging()
    log.info("guard.serve.listen", host=host, port=port)
    if host not in _LOOPBACK and not config.api_keys:
        # anyone who can reach this address can use the upstream (and its key, if set here)
        log.warning("guard.serve.open_bind", host=host, port=port)
    uvicorn.Server(server_config(config, host, port)).run()
    return 0
