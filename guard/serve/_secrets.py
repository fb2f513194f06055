"""What of a secret may be printed: an upstream URL with its password masked, wherever the
proxy shows one (start-up log, errors, ``guard serve --check``)."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["MASK", "mask_url"]

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
