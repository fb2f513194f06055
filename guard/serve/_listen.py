"""``guard serve``'s listening socket, bound before anything else starts, and the start-up line
that tells the user where to point their client.

Binding first means a taken port (or an address the machine does not have) is a clear
:class:`~guard.errors.ConfigError` naming ``host:port`` before the app starts, its upstream
client opens or ``guard.serve.start`` is logged; and ``--port 0`` works, the line saying the
port the system chose.
"""

from __future__ import annotations

import errno
import socket

from guard.errors import ConfigError
from guard.serve._config import ServeConfig
from guard.serve._secrets import mask_url

__all__ = ["BACKLOG", "base_url", "listen", "start_line"]

#: the listen backlog (uvicorn's default)
BACKLOG = 2048
#: addresses that mean "every interface": a client on this machine reaches them on loopback
_WILDCARDS = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


def _where(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host``:``port`` and listening (``SO_REUSEADDR`` as uvicorn sets
    it, so a port in ``TIME_WAIT`` is taken again at once). Made with the protocol named
    (``IPPROTO_TCP``): asyncio turns Nagle's algorithm off (``TCP_NODELAY``) only on sockets that
    say they are TCP, and with it on, every answer after the first on a kept-alive connection
    waited about 40 ms for the client's delayed acknowledgement.

    Raises:
        ConfigError: the address is in use, not this machine's, or not allowed; the message
            names ``host:port`` and the setting to change.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(BACKLOG)  # two binds with SO_REUSEADDR both succeed; only one listens
    except OSError as exc:
        sock.close()
        raise ConfigError(_listen_error(host, port, exc)) from None
    return sock


def _listen_error(host: str, port: int, exc: OSError) -> str:
    where = _where(host, port)
    if exc.errno == errno.EADDRINUSE:
        why = "the address is in use (another program listens there); choose another --port"
        why += " (GUARD_PORT) or stop that program"
    elif exc.errno == errno.EADDRNOTAVAIL:
        why = "this machine has no such address; choose another --host (GUARD_HOST)"
    elif exc.errno == errno.EACCES:
        why = "permission denied (ports below 1024 need privileges); choose another --port"
    elif isinstance(exc, socket.gaierror):
        why = f"the host name cannot be resolved ({exc.strerror}); choose another --host"
    else:
        why = exc.strerror or type(exc).__name__
    return f"cannot listen on {where}: {why}"


def base_url(host: str, port: int) -> str:
    """The OpenAI ``base_url`` a client on this machine uses for a proxy listening on
    ``host``:``port`` (a wildcard address read as loopback)."""
    shown = _WILDCARDS.get(host, host)
    return f"http://{_where(shown, port)}/v1"


def start_line(config: ServeConfig, host: str, port: int) -> str:
    """The one line ``guard serve`` prints when it listens: where to point the client, the
    upstream (password masked) and the dialect requests are judged for: the forced one, else
    the ``[serve.dialects]`` entry a model name matches, else ``all`` (every dialect's
    spellings at once)."""
    if config.dialect:
        dialect = config.dialect
    elif config.dialects:
        dialect = "from [serve.dialects] by model name, else all"
    else:
        dialect = "all"
    return (
        f"guard: point base_url at {base_url(host, port)}"
        f" (upstream {mask_url(config.upstream)}, dialect {dialect}, on_leak {config.on_leak})"
    )
