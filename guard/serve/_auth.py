"""Optional client authentication for ``guard serve``: keys of the proxy's own, separate from
the upstream's.

A client presents a key as OpenAI's SDK sends it (``Authorization: Bearer KEY``) or as
Anthropic's does (``X-Api-Key: KEY``). Every configured key is compared with
:func:`hmac.compare_digest`, all of them every time, so the answer's timing says nothing about
which key or how much of one matched.
"""

from __future__ import annotations

import hmac
import os
from collections.abc import Iterable, Mapping

__all__ = ["API_KEYS_ENV", "UPSTREAM_KEY_ENV", "ClientAuth", "keys_from_env"]

#: the environment variable holding client keys (comma separated)
API_KEYS_ENV = "GUARD_API_KEYS"
#: the environment variable holding the upstream's key (sent in place of the client's)
UPSTREAM_KEY_ENV = "GUARD_UPSTREAM_API_KEY"


def keys_from_env(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The client keys in ``GUARD_API_KEYS`` (comma separated, blanks ignored)."""
    raw = (os.environ if environ is None else environ).get(API_KEYS_ENV, "")
    return tuple(k.strip() for k in raw.split(",") if k.strip())


def _presented(headers: Mapping[str, str]) -> tuple[str, str] | None:
    """(header name, key) the client presented, if any."""
    auth = headers.get("authorization")
    if auth is not None:
        scheme, _, token = auth.strip().partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return "authorization", token.strip()
    key = headers.get("x-api-key")
    if key is not None and key.strip():
        return "x-api-key", key.strip()
    return None


class ClientAuth:
    """The proxy's client keys; with none, every client is let in."""

    def __init__(self, keys: Iterable[str]) -> None:
        self._keys = tuple(k.encode("utf-8") for k in keys if k)

    @property
    def enabled(self) -> bool:
        return bool(self._keys)

    def check(self, headers: Mapping[str, str]) -> str | None:
        """The header the client authenticated with (``authorization`` or ``x-api-key``), or
        ``None`` when it presented no valid key."""
        presented = _presented(headers)
        if presented is None:
            return None
        name, key = presented
        given = key.encode("utf-8")
        matched = False
        for known in self._keys:  # no early exit: the time does not depend on which matched
            matched |= hmac.compare_digest(known, given)
        return name if matched else None
