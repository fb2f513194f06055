"""Which fields of an answer are not judged as model text: one rule for complete answers,
streamed events and the LiteLLM hook's answers of unknown shape.

A field of :data:`EXEMPT_KEYS` (ids, enums, opaque signatures; any key case) is skipped while
its value looks like one: a string of letters, digits, spaces and ``_.:/+=@,-`` (no bracket,
angle or bar: no dialect's spelling fits in it). Any other string there is judged, and a list
or object there is walked like any other, except under :data:`OPAQUE_KEYS` (a choice's
``logprobs``: the tokens of its text, cut with the text)."""

from __future__ import annotations

import re
from typing import Any

__all__ = ["EXEMPT_KEYS", "OPAQUE_KEYS", "STREAM_EXEMPT_KEYS", "skipped"]

#: fields whose values are identifiers, enums or opaque data, not model text
EXEMPT_KEYS = frozenset(
    {
        "id",
        "object",
        "type",
        "role",
        "model",
        "status",
        "finish_reason",
        "stop_reason",
        "stop_sequence",
        "call_id",
        "tool_call_id",
        "tool_use_id",
        "item_id",
        "previous_response_id",
        "encrypted_content",
        "signature",
        "data",
        "format",
        "mime_type",
        "media_type",
        "server_label",
        "logprobs",
        "service_tier",
        "system_fingerprint",
    }
)
#: stream fields skipped besides :data:`EXEMPT_KEYS`: event counters and the random padding
#: OpenAI adds to chunks (``obfuscation``), written by the server, not the model
STREAM_EXEMPT_KEYS = EXEMPT_KEYS | {"sequence_number", "obfuscation", "event_id"}
#: exempt fields whose value is never walked, whatever its shape
OPAQUE_KEYS = frozenset({"logprobs"})

_PLAIN = re.compile(r"[\w.:/+=@, -]*", re.ASCII).fullmatch
#: exempt values already found plain (a bounded cache: nothing is added past its size)
_PLAIN_SEEN: set[str] = set()
_PLAIN_SEEN_MAX = 65_536


def skipped(key: str, value: Any, keys: frozenset[str] = EXEMPT_KEYS) -> bool:
    """Whether the field ``key`` (one of ``keys``, any case) holding ``value`` is skipped: a
    plain-looking string, or anything under :data:`OPAQUE_KEYS`."""
    folded = key if key in keys else key.casefold()
    if folded not in keys:
        return False
    if type(value) is not str:
        return folded in OPAQUE_KEYS
    if value in _PLAIN_SEEN:
        return True
    if _PLAIN(value) is None:
        return False
    if len(_PLAIN_SEEN) < _PLAIN_SEEN_MAX and len(value) <= 256:
        _PLAIN_SEEN.add(value)  # ids and enums repeat in every event
    return True
