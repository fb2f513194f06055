"""Why the upstream could not be reached, in words an operator acts on: the 502 and 504
answers of ``guard serve`` name the upstream (:func:`guard.serve._mask.url_origin`) and this
cause."""

from __future__ import annotations

import errno
import socket
import ssl

import httpx

__all__ = ["cause_of"]

_ERRNO_CAUSES = {
    errno.ECONNREFUSED: "connection refused (nothing listens on that port)",
    errno.ECONNRESET: "connection reset by the upstream",
    errno.EHOSTUNREACH: "no route to the host",
    errno.ENETUNREACH: "the network is unreachable",
    errno.ETIMEDOUT: "the connection timed out",
}


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and the exceptions it was raised from or during (at most 16; no cycles)."""
    out: list[BaseException] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen and len(out) < 16:
        seen.add(id(current))
        out.append(current)
        current = current.__cause__ or current.__context__
    return out


def cause_of(exc: BaseException) -> str:
    """A short phrase for why an upstream exchange failed (``connection refused (...)``,
    ``the host name could not be resolved (...)``, ``connecting timed out``, ...), ending with
    the exception's class name in parentheses."""
    kind = type(exc).__name__
    chain = _chain(exc)
    for link in chain:
        if isinstance(link, socket.gaierror):
            detail = link.strerror or str(link)
            return f"the host name could not be resolved: DNS lookup failed ({detail}; {kind})"
        if isinstance(link, ssl.SSLError):
            reason = getattr(link, "reason", None) or type(link).__name__
            return f"the TLS handshake failed: {reason} ({kind})"
        if isinstance(link, OSError) and link.errno in _ERRNO_CAUSES:
            return f"{_ERRNO_CAUSES[link.errno]} ({kind})"
    described = next((link for link in chain if isinstance(link, OSError) and link.strerror), None)
    if described is not None and described.strerror:
        return f"{described.strerror[:1].lower()}{described.strerror[1:]} ({kind})"
    if isinstance(exc, httpx.ConnectTimeout):
        return f"connecting timed out ({kind})"
    if isinstance(exc, httpx.ReadTimeout | httpx.WriteTimeout):
        return f"the upstream went silent ({kind})"
    if isinstance(exc, httpx.PoolTimeout):
        return f"no connection to the upstream came free in time ({kind})"
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the upstream broke the HTTP protocol or closed the connection early ({kind})"
    if isinstance(exc, httpx.ConnectError):
        return f"the connection failed ({kind})"
    if isinstance(exc, httpx.ReadError | httpx.WriteError):
        return f"the connection failed mid-exchange ({kind})"
    return kind
