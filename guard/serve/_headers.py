"""Which headers cross the proxy, both ways.

Hop-by-hop headers (RFC 9110 section 7.6.1) describe one connection and are never forwarded:
``Connection``, ``Keep-Alive``, ``Proxy-Connection``, ``TE``, ``Trailer``, ``Transfer-Encoding``,
``Upgrade`` (and the proxy credentials ``Proxy-Authenticate`` / ``Proxy-Authorization``), plus
every header the ``Connection`` header names. ``Host`` and ``Content-Length`` are the proxy's
own to set; so are a response's ``Server`` and ``Date``, which the HTTP server in front of the
app (uvicorn) writes for every answer: the upstream's are dropped, so each appears once.
Everything else passes, credentials included, unless the proxy authenticates its clients or
holds the upstream's key (see :func:`request_headers`).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["CREDENTIALS", "HOP_BY_HOP", "request_headers", "response_headers"]

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "trailers",
        "transfer-encoding",
        "upgrade",
    }
)
#: set by the proxy itself for each hop
_OWN = frozenset({"host", "content-length"})
#: response headers the proxy's own HTTP server writes on every answer
_SERVER_OWN = ("server", "date")
#: the request headers that carry an API key (OpenAI's and Anthropic's SDKs)
CREDENTIALS = ("authorization", "x-api-key")


def _named_by_connection(headers: list[tuple[str, str]]) -> set[str]:
    named: set[str] = set()
    for name, value in headers:
        if name.lower() in ("connection", "proxy-connection"):
            named.update(t.strip().lower() for t in value.split(",") if t.strip())
    return named


def _strip(headers: Iterable[tuple[str, str]], extra: Iterable[str]) -> list[tuple[str, str]]:
    pairs = list(headers)
    drop = HOP_BY_HOP | _OWN | _named_by_connection(pairs) | set(extra)
    return [(k, v) for k, v in pairs if k.lower() not in drop]


def request_headers(
    headers: Iterable[tuple[str, str]],
    *,
    guarded: bool,
    credential: tuple[str, str] | None = None,
    consume_credentials: bool = False,
) -> list[tuple[str, str]]:
    """The client's headers to send upstream. A guarded request asks for an uncompressed answer
    (guard reads it). ``consume_credentials`` drops the client's ``Authorization`` and
    ``X-Api-Key`` (they were the proxy's key); ``credential`` (name, value) is the upstream's
    key, sent in place of whatever credential the client sent."""
    extra = {"accept-encoding"} if guarded else set()
    if consume_credentials or credential is not None:
        extra.update(CREDENTIALS)
    out = _strip(headers, extra)
    if credential is not None:
        out.append(credential)
    return out


def response_headers(
    headers: Iterable[tuple[str, str]], *, keep_encoding: bool
) -> list[tuple[str, str]]:
    """The upstream's response headers to pass on (``Content-Encoding`` only for a body
    relayed as it came; ``Server`` and ``Date`` never: the proxy's server writes its own)."""
    return _strip(headers, _SERVER_OWN if keep_encoding else (*_SERVER_OWN, "content-encoding"))
