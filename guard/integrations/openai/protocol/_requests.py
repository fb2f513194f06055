"""Requests: the transport copy of Chat Completions and Responses parameters, escaped.

What is escaped and how is in ``docs/escaping.md``; this module only finds the fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard._escape import escape, escape_messages, escape_tools
from guard.dialects import Dialect

__all__ = ["escape_chat_request", "escape_responses_request", "listed_plain"]


def _plain(value: Any) -> Any:
    """A request value as the SDK would send it (SDK models become dicts)."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def listed_plain(value: Any) -> list[Any] | None:
    """A request's list value as the SDK would send it (each item plain), or None when the
    value is no list (absent, a string, a mapping)."""
    if value is None or isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        return None
    return [_plain(v) for v in value]


def escape_chat_request(
    params: Mapping[str, Any], dialect: str | Dialect = "harmony"
) -> dict[str, Any]:
    """A copy of Chat Completions request parameters with ``messages`` (every role, every text
    field) and ``tools`` / ``functions`` (names, descriptions, schemas) escaped for
    ``dialect``. The input is never mutated."""
    out = dict(params)
    messages = listed_plain(params.get("messages"))
    if messages is not None:
        out["messages"] = escape_messages(messages, dialect)
    for key in ("tools", "functions"):
        tools = listed_plain(params.get(key))
        if tools is not None:
            out[key] = escape_tools(tools, dialect)
    return out


def escape_responses_request(
    params: Mapping[str, Any], dialect: str | Dialect = "harmony"
) -> dict[str, Any]:
    """A copy of Responses request parameters with ``input`` (text or items),
    ``instructions`` and ``tools`` escaped for ``dialect``. The input is never mutated."""
    out = dict(params)
    for key in ("input", "instructions"):
        value = params.get(key)
        if isinstance(value, str):
            out[key] = escape(value, dialect)
        else:
            items = listed_plain(value)
            if items is not None:
                out[key] = escape_messages(items, dialect)
    tools = listed_plain(params.get("tools"))
    if tools is not None:
        out["tools"] = escape_tools(tools, dialect)
    return out
