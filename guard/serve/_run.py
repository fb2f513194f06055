"""``guard serve`` in the foreground: the socket bound first, then uvicorn; access logs as JSON
lines on stderr."""

from __future__ import annotations

from collections.abc import Callable

from guard.serve._app import create_app
from guard.serve._config import ServeConfig
from guard.serve._listen import base_url, listen, start_line
from guard.serve._logging import configure_logging, log
from guard.serve._mask import mask_url

__all__ = ["run"]

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


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
        server = uvicorn.Server(
            uvicorn.Config(
                create_app(config),
                log_level="warning",
                access_log=False,
                lifespan="on",
            )
        )
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0
