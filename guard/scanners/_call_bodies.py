"""How the generic grammar scanner reads a call body written as JSON (``Dialect.call_body ==
"json"``): one call object ``{"name": ..., "arguments": ...}``, a JSON list of them (Mistral's
tokenizers v3 to v7, each item with an ``"id"``), or a named body ``NAME<call_args>{...}``
with an optional ``<call_id>ID`` before the arguments marker (Mistral v11 and later).

Each parser returns the reason a body does not parse instead of raising; the scanner makes it
a ``Malformed`` event with the body's raw text.
"""

from __future__ import annotations

import json
from typing import Any

from guard.scanners._tagged import check_name
from guard.scanners.base import json_value

__all__ = ["Call", "parse_json_call", "parse_json_calls", "parse_named_call"]

#: ``(name, arguments JSON, start, end)``: ``body[start:end]`` is the call's raw arguments (a
#: list item: the whole item), what its ``ToolArgs`` carries
Call = tuple[str, str, int, int]


def _call_object(value: Any, keys: frozenset[str]) -> tuple[str, str] | str:
    """``(name, arguments JSON)`` of a parsed call object whose keys are among ``keys``."""
    if not isinstance(value, dict):
        return "tool call body is not a JSON object"
    if set(value) - keys:
        return "tool call body holds keys other than " + " and ".join(sorted(keys))
    name = value.get("name")
    try:
        check_name(name)  # type: ignore[arg-type]
    except ValueError:
        return "tool call body without a valid name"
    if "id" in value and not isinstance(value["id"], str):
        return "tool call id is not a string"
    args: Any = value.get("arguments", {})
    if isinstance(args, str):
        args = json_value(args)
    if not isinstance(args, dict):
        return "tool call arguments are not a JSON object"
    return str(name), json.dumps(args, ensure_ascii=False)


_ONE = frozenset({"name", "arguments"})
_ITEM = frozenset({"name", "arguments", "id"})


def parse_json_call(body: str) -> tuple[str, str] | str:
    """``(name, arguments JSON)`` of a body holding one call object, or the reason it does not
    parse."""
    return _call_object(json_value(body.strip()), _ONE)


def _items(text: str) -> list[tuple[int, int]]:
    """The spans of the top-level items of ``text``, a valid JSON array (one pass, no
    recursion: strings and nesting are tracked with a counter)."""
    spans: list[tuple[int, int]] = []
    depth = 0
    start = -1
    in_string = escaped = False
    for i, ch in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if ch.isspace():
            continue
        if depth == 1 and start < 0 and ch not in ",]":
            start = i
        if ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
            if depth == 1 and start >= 0:
                spans.append((start, i + 1))
                start = -1
            elif depth == 0 and start >= 0:  # a scalar item ends the list
                spans.append((start, len(text[:i].rstrip())))
                start = -1
        elif ch == "," and depth == 1 and start >= 0:
            spans.append((start, len(text[:i].rstrip())))
            start = -1
    return spans


def parse_json_calls(body: str) -> list[Call] | str:
    """The calls of a body holding a non-empty JSON list of call objects (an ``"id"`` string
    each may carry), or the reason it does not parse."""
    value = json_value(body.strip())
    if not isinstance(value, list) or not value:
        return "tool call body is not a non-empty JSON list of calls"
    lead = len(body) - len(body.lstrip())
    spans = _items(body[lead:])
    if len(spans) != len(value):
        return "tool call body is not a non-empty JSON list of calls"
    calls: list[Call] = []
    for item, (start, end) in zip(value, spans, strict=True):
        parsed = _call_object(item, _ITEM)
        if isinstance(parsed, str):
            return parsed
        calls.append((*parsed, lead + start, lead + end))
    return calls


def _first(body: str, spellings: tuple[str, ...], end: int | None = None) -> tuple[int, str]:
    """The earliest of ``spellings`` in ``body[:end]``: ``(offset, spelling)``, or ``(-1, "")``."""
    found = [(i, s) for s in spellings if (i := body.find(s, 0, end)) >= 0]
    return min(found) if found else (-1, "")


def parse_named_call(body: str, call_args: tuple[str, ...], call_id: tuple[str, ...]) -> Call | str:
    """The call of a named body ``NAME[<call_id>ID]<call_args>{...}``, or the reason it does
    not parse. The name may have blanks around it; nothing but blanks may follow the
    arguments object."""
    at, marker = _first(body, call_args)
    if at < 0:
        return "tool call body without its arguments marker"
    head = body[:at]
    cut, id_marker = _first(head, call_id)
    if cut >= 0:
        call_ident = head[cut + len(id_marker) :]
        if not call_ident or any(c.isspace() for c in call_ident):
            return "tool call id is empty or holds blanks"
        head = head[:cut]
    name = head.strip()
    try:
        check_name(name)
    except ValueError:
        return "tool call body without a valid name"
    rest = body[at + len(marker) :]
    start = at + len(marker) + len(rest) - len(rest.lstrip())
    end = at + len(marker) + len(rest.rstrip())
    args = json_value(body[start:end])
    if not isinstance(args, dict):
        return "tool call arguments are not a JSON object"
    return name, json.dumps(args, ensure_ascii=False), start, end
