"""Requests: the transport copy of Anthropic Messages parameters, escaped.

What is escaped and how is in docs/escaping.md, "Anthropic Messages"; this module only
finds the fields.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from guard._escape import escape, escape_messages, escape_tools
from guard.dialects import Dialect
from guard.integrations.openai.protocol import listed_plain as _listed

__all__ = ["escape_messages_request"]


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
