"""Request paths: decoded and checked before routing, re-encoded for the upstream.

The proxy routes on the decoded path and refuses every path that a later step could read
differently: ``.`` and ``..`` segments (plain or percent-encoded), empty segments (``//``, a
trailing ``/``), backslashes and encoded slashes (``%5c``, ``%2f``), control characters and
bytes that are not UTF-8. What is left has exactly one reading, so the route that guards
``/v1/chat/completions`` is the only way to reach the upstream's chat endpoint. The upstream URL
is built from the checked segments, each percent-encoded again (a ``%`` stays a ``%``), and
:func:`under_base` checks that the final URL is still below the upstream's base path.
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote_to_bytes

from guard.errors import InputError

__all__ = ["PathError", "normalise_path", "quote_path", "under_base"]

#: characters of a path segment the upstream URL keeps as they are (RFC 3986 ``pchar``
#: without ``%``: a literal ``%`` is sent as ``%25``)
_SAFE = "!$&'()*+,;=:@-._~"
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class PathError(InputError):
    """A request path the proxy refuses (answered with 400 ``invalid_path``)."""


def normalise_path(raw: bytes) -> str:
    """The decoded path of a request target's raw (percent-encoded) path, or
    :class:`PathError` saying what is wrong with it."""
    if b"\\" in raw:
        raise PathError("request paths must not contain a backslash")
    lowered = raw.lower()
    if b"%2f" in lowered or b"%5c" in lowered:
        raise PathError("request paths must not contain an encoded slash or backslash")
    try:
        path = unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise PathError("request paths must be UTF-8 once percent-decoded") from None
    if _CONTROL.search(path):
        raise PathError("request paths must not contain control characters")
    if not path.startswith("/"):
        raise PathError(f"request paths must start with '/', got {path[:80]!r}")
    if path == "/":
        return path
    for segment in path[1:].split("/"):
        if not segment:
            raise PathError("request paths must not contain empty segments ('//' or a final '/')")
        if segment in (".", ".."):
            raise PathError("request paths must not contain '.' or '..' segments")
    return path


def quote_path(path: str) -> str:
    """A checked path percent-encoded for the upstream URL, segment by segment."""
    return "/".join(quote(segment, safe=_SAFE) for segment in path.split("/"))


def under_base(raw_path: bytes, base_path: bytes) -> bool:
    """Whether an upstream URL's raw path (query excluded) lies strictly below ``base_path``
    with no dot segment an upstream could resolve."""
    prefix = base_path.rstrip(b"/") + b"/"
    if not raw_path.startswith(prefix):
        return False
    decoded = unquote_to_bytes(raw_path)
    return not any(s in (b".", b"..", b"") for s in decoded[len(prefix) :].split(b"/"))
