"""Upstream URLs as the proxy shows them: in logs, on the start-up line and in error messages a
password in the URL never appears."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["MASK", "mask_url", "url_origin"]

#: what stands in for a secret wherever the proxy shows one
MASK = "**********"

_DEFAULT_PORTS = {"http": 80, "https": 443}


def _host(hostname: str) -> str:
    """A host name as it is written in a URL (an IPv6 address in brackets)."""
    return f"[{hostname}]" if ":" in hostname else hostname


def mask_url(url: str) -> str:
    """``url`` with the password of its user information replaced by :data:`MASK`
    (``https://me:s3cret@host/v1`` -> ``https://me:**********@host/v1``); a URL without one as it
    is. A URL that cannot be split is shown as its scheme alone."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url.split(":", 1)[0] + "://(unreadable URL)"
    if parts.password is None:
        return url
    host = _host(parts.hostname or "") + (f":{port}" if port is not None else "")
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:{MASK}@{host}"))


def url_origin(url: str) -> str:
    """``scheme://host:port`` of ``url``, the port written out even when it is the scheme's
    default, with no user information, path or query (what an error message names)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return url.split(":", 1)[0] + "://(unreadable URL)"
    scheme = parts.scheme or "http"
    port = port if port is not None else _DEFAULT_PORTS.get(scheme)
    host = _host(parts.hostname or "")
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")
