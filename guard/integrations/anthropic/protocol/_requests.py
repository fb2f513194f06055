"""Requests: the transport copy of Anthropic Messages parameters, escaped.

What is escaped and how is in docs/escaping.md, "Anthropic Messages"; this module only
finds the fields.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from guard._escape import escape, escape_messages, escape_tools
from guard.dialects import Dialect

__all__ = ["escape_messages_request"]


def _plain(value: Any) -> Any:
    """A request value as the SDK would send it (SDK models become dicts)."""
    if isinstance(value, Mapping):
        return value
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json", by_alias=True, exclude_unset=True)
    return value


def _listed(value: Any) -> list[Any] | None:
    if value is None or isinstance(value, str | bytes | Mapping) or not isinstance(value, Iterable):
        return None
    return [_plain(v) for v in value]


def escape_messages_request(
    params: Mapping[str, Any], dialect: str | Dialect = "harmony"
) -> dict[str, Any]:
    """A copy of Messages request parameters with ``system`` (a string or text blocks),
    ``messages`` (every role, every content block) and ``tools`` (names, descriptions, input
    schemas) escaped for ``dialect``. The input is never mutated."""
    out = dict(params)
    system = params.get("system")
    if isinstance(system, str):
        out["system"] = escape(system, dialect)
    else:
        blocks = _listed(system)
        if blocks is not None:
            out["system"] = escape_messages([{"role": "system", "content": blocks}], dialect)[0][
                "content"
            ]
    messages = _listed(params.get("messages"))
    if messages is not None:
        out["messages"] = escape_messages(messages, dialect)
    tools = _listed(params.get("tools"))
    if tools is not None:
        out["tools"] = escape_tools(tools, dialect)
    return out
