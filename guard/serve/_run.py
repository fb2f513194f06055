"""``guard serve`` in the foreground: uvicorn, access logs as JSON lines on stderr."""

from __future__ import annotations

from guard.serve._app import create_app
from guard.serve._config import ServeConfig
from guard.serve._logging import configure_logging, log

__all__ = ["run"]

_LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})


def run(config: ServeConfig, host: str = "127.0.0.1", port: int = 8787) -> int:
    """Serve until interrupted (uvicorn; access logs as JSON lines on stderr)."""
    import uvicorn

    configure_logging()
    log.info("guard.serve.listen", host=host, port=port)
    if host not in _LOOPBACK and not config.api_keys:
        # anyone who can reach this address can use the upstream (and its key, if set here)
        log.warning("guard.serve.open_bind", host=host, port=port)
    uvicorn.run(
        create_app(config),
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    return 0
