"""What of a secret may be printed: an upstream URL with its password masked, wherever the
proxy shows one (start-up log, errors, ``guard serve --check``)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["MASK", "mask_url", "url_origin"]

MASK = "**********"


def mask_url(url: str | None) -> str | None:
    """``url`` with the password of its user information replaced by :data:`MASK` (the user
    name kept); a URL without a password as it is. A URL that cannot be split (a port that is
    not a number) has all of its user information masked."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
        password = parts.password
        port = parts.port
    except ValueError:  # e.g. a port that is not a number: hide all the user information
        scheme, sep, rest = url.partition("://")
        authority, slash, path = rest.partition("/")
        if "@" not in authority:
            return url
        return f"{scheme}{sep}{MASK}@{authority.rpartition('@')[2]}{slash}{path}"
    if password is None:
        return url
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    if port is not None:
        host += f":{port}"
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:{MASK}@{host}"))


_DEFAULT_PORTS = {"http": 80, "https": 443}


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
    host = parts.hostname or ""
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    return f"{scheme}://{host}" + (f":{port}" if port is not None else "")
