"""Reversible transport-layer escaping of reserved spellings in untrusted text: the public
functions. The scheme and its compiled machinery are in ``guard._escaper``; the walk over JSON
text, chat messages and tool definitions in ``guard._escape_walk``.

Only the transport copy is escaped: the functions return new strings and deep copies and never
touch their input.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Sequence
from typing import Any

from guard._depth import check_depth, nesting_error
from guard._escape_walk import Walker, rewrite_json_strings, role_of
from guard._escaper import Escaper, escaper_for
from guard._log import get_logger
from guard.dialects import Dialect

__all__ = [
    "escape",
    "escape_json",
    "escape_messages",
    "escape_tools",
    "escaper_for",
    "unescape",
    "unescape_json",
]

_log = get_logger("guard.escape")


def _resolve(dialect: str | Dialect) -> Escaper:
    return escaper_for(dialect)


def _check_text(text: object, func: str) -> str:
    if not isinstance(text, str):
        raise TypeError(f"{func}() expects text as str, got {type(text).__name__}")
    return text


def escape(text: str, dialect: str | Dialect = "harmony") -> str:
    """Escape every reserved spelling of ``dialect`` in ``text`` (``dialect="all"``: every
    dialect's). Text with nothing to escape is returned as the same object."""
    escaper = _resolve(dialect)
    out, count = escaper.escape(_check_text(text, "escape"))
    if count:
        _log.debug("guard.escape", dialect=escaper.name, spellings=count, chars=len(text))
    return out


def unescape(text: str, dialect: str | Dialect = "harmony") -> str:
    """Undo :func:`escape`: ``unescape(escape(x, d), d) == x`` for every string ``x``."""
    escaper = _resolve(dialect)
    out, count = escaper.unescape(_check_text(text, "unescape"))
    if count:
        _log.debug("guard.unescape", dialect=escaper.name, spellings=count, chars=len(text))
    return out


# ---------------------------------------------------------------------------------------------
# JSON documents


def _parse_json(doc: str, func: str) -> None:
    try:
        json.loads(doc)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{func}() expects a valid JSON document; got invalid JSON at line {exc.lineno}"
            f" column {exc.colno} (char {exc.pos}): {exc.msg}"
        ) from None
    except RecursionError:
        raise nesting_error(f"{func}() input") from None


def escape_json(doc: str, dialect: str | Dialect = "harmony") -> str:
    """Escape the string leaves and keys of a JSON document given as text.

    The result is valid JSON whose decoded strings equal ``escape(s)`` of the originals; only the
    string tokens that needed escaping are rewritten, so the rest of the formatting is kept.

    Raises:
        ValueError: ``doc`` is not valid JSON (the message names line, column and char offset).
    """
    escaper = _resolve(dialect)
    _parse_json(_check_text(doc, "escape_json"), "escape_json")
    out, count = rewrite_json_strings(doc, escaper.escape, escaper.quick)
    if count:
        _log.debug("guard.escape_json", dialect=escaper.name, spellings=count, chars=len(doc))
    return out


def unescape_json(doc: str, dialect: str | Dialect = "harmony") -> str:
    """Undo :func:`escape_json` on the string leaves and keys of a JSON document."""
    escaper = _resolve(dialect)
    _parse_json(_check_text(doc, "unescape_json"), "unescape_json")
    out, _ = rewrite_json_strings(doc, escaper.unescape, ("\\",))
    return out


# ---------------------------------------------------------------------------------------------
# Message lists (OpenAI Chat Completions and Responses shapes)


def escape_messages(
    messages: Sequence[Any],
    dialect: str | Dialect = "harmony",
    roles: Iterable[str] | None = None,
) -> list[Any]:
    """Return a deep copy of ``messages`` with every text field escaped.

    Accepts OpenAI Chat Completions messages (string content, content-part lists, ``name``,
    ``tool_calls[].function.arguments`` through the JSON variant, ``reasoning_content``),
    Responses API input items (``message`` with ``input_text``/``output_text`` parts,
    ``function_call.arguments``, ``function_call_output.output``, ``custom_tool_call.input``,
    ``reasoning`` summaries) and Anthropic Messages content blocks (``text``, ``tool_use`` name
    and input, ``tool_result`` content, ``thinking``, text ``document`` sources), in any mix.
    By default every role is escaped, because servers reject a reserved spelling wherever it
    appears; ``roles`` limits escaping to those roles (a Responses ``function_call_output``
    counts as ``tool``, a ``function_call`` as ``assistant``). The input is never mutated.
    Shapes it does not know are copied unchanged and counted in the log event, never dropped.
    A message nested deeper than ``guard._depth.MAX_DEPTH`` levels raises
    :class:`guard.errors.NestingError` (a ``ValueError``).
    """
    if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
        raise TypeError(
            f"escape_messages() expects a list of messages, got {type(messages).__name__}"
        )
    for msg in messages:
        check_depth(msg, "escape_messages(): a message")
    escaper = _resolve(dialect)
    wanted = None if roles is None else frozenset(roles)
    walker = Walker(escaper)
    out: list[Any] = []
    for msg in messages:
        if wanted is not None and role_of(msg) not in wanted:
            out.append(copy.deepcopy(msg))
            continue
        out.append(walker.message(copy.deepcopy(msg)))
    if walker.unknown:
        _log.warning("guard.escape.unknown_shape", dialect=escaper.name, parts=walker.unknown)
    if walker.changed:
        _log.debug(
            "guard.escape_messages",
            dialect=escaper.name,
            messages=len(out),
            fields_changed=walker.changed,
        )
    return out


def escape_tools(tools: Sequence[Any], dialect: str | Dialect = "harmony") -> list[Any]:
    """Return a deep copy of tool definitions (Chat Completions or Responses shape) with every
    string in them escaped: names, descriptions and JSON-schema strings and keys. A tool
    nested deeper than ``guard._depth.MAX_DEPTH`` levels raises
    :class:`guard.errors.NestingError`."""
    if isinstance(tools, str | bytes) or not isinstance(tools, Sequence):
        raise TypeError(f"escape_tools() expects a list of tools, got {type(tools).__name__}")
    for tool in tools:
        check_depth(tool, "escape_tools(): a tool")
    escaper = _resolve(dialect)
    walker = Walker(escaper)
    out = [walker.value(copy.deepcopy(t)) for t in tools]
    if walker.changed:
        _log.debug("guard.escape_tools", dialect=escaper.name, fields_changed=walker.changed)
    return out
