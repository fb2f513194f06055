"""MiniMax M3's call block: every tag prefixed by the namespace token ``]<]minimax[>[`` and
arguments written as tags named by their keys (the template's ``to_xml``)::

    ]<]minimax[>[<tool_call>
    ]<]minimax[>[<invoke name="NAME">
    ]<]minimax[>[<KEY>VALUE]<]minimax[>[</KEY>
    ]<]minimax[>[<OBJ>]<]minimax[>[<k>v]<]minimax[>[</k>]<]minimax[>[</OBJ>
    ]<]minimax[>[<LIST>]<]minimax[>[<item>1]<]minimax[>[</item>]<]minimax[>[</LIST>
    ]<]minimax[>[</invoke>
    ]<]minimax[>[</tool_call>

An element whose content starts with a namespaced tag holds children: an object, or a list
when every child is ``item``; otherwise its content is a leaf (text, one leading and one
trailing newline dropped). :func:`parse_block` reads the body between the block's tags.
"""

from __future__ import annotations

import re
from typing import Any, Final

from guard.scanners._values import tag_value

__all__ = ["BLOCK_CLOSE", "BLOCK_OPEN", "NS", "Invoke", "parse_block"]

NS: Final = "]<]minimax[>["
BLOCK_OPEN: Final = f"{NS}<tool_call>"
BLOCK_CLOSE: Final = f"{NS}</tool_call>"
INVOKE_CLOSE: Final = f"{NS}</invoke>"

_INVOKE = re.compile(re.escape(NS) + r'<invoke name="([^"<>]+)">')
_OPEN_TAG = re.compile(re.escape(NS) + r"<([A-Za-z_][\w.\-]*)>")
_BLANK = re.compile(r"\s*")

#: One call of a block: ``(start, args_start, args_end, end, name, pairs)``, offsets in the
#: block body (the invoke tag is ``[start, args_start)``, its closer ``[args_end, end)``).
Invoke = tuple[int, int, int, int, str, list[tuple[str, Any]]]


class _Bad(ValueError):
    """The block does not parse (the message says why)."""


def _skip(text: str, pos: int) -> int:
    m = _BLANK.match(text, pos)
    return m.end() if m else pos


def _element(text: str, pos: int, depth: int) -> tuple[str, Any, int]:
    """The element whose namespaced opening tag is at ``pos``: ``(key, value, end)``."""
    if depth > 32:
        raise _Bad("arguments nested deeper than 32 levels")
    m = _OPEN_TAG.match(text, pos)
    if m is None:
        raise _Bad("text where a namespaced argument tag belongs")
    key = m.group(1)
    close = f"{NS}</{key}>"
    body = m.end()
    first = _skip(text, body)
    if text.startswith(NS, first) and not text.startswith(close, first):
        children: list[tuple[str, Any]] = []
        pos = first
        while not text.startswith(close, pos):
            child, value, pos = _element(text, pos, depth + 1)
            children.append((child, value))
            pos = _skip(text, pos)
        return key, _collect(children), pos + len(close)
    end = text.find(close, body)
    if end < 0:
        raise _Bad(f"argument {key[:64]!r} not closed")
    leaf = text[body:end]
    if NS in leaf:
        raise _Bad(f"argument {key[:64]!r} holds a namespaced tag after its text")
    return key, tag_value(leaf), end + len(close)


def _collect(children: list[tuple[str, Any]]) -> Any:
    if children and all(k == "item" for k, _ in children):
        return [v for _, v in children]
    keys = [k for k, _ in children]
    if len(set(keys)) != len(keys):
        raise _Bad("a repeated argument key")
    return dict(children)


def parse_block(body: str) -> list[Invoke] | str:
    """The calls of a block body, or the reason it does not parse. Leaves at the top level stay
    text (the caller types them by the tool schemas); nested values are objects, lists and
    text."""
    calls: list[Invoke] = []
    pos = _skip(body, 0)
    try:
        while pos < len(body):
            m = _INVOKE.match(body, pos)
            if m is None:
                raise _Bad("text where a namespaced <invoke> belongs")
            args_start = m.end()
            pairs: list[tuple[str, Any]] = []
            at = _skip(body, args_start)
            while not body.startswith(INVOKE_CLOSE, at):
                key, value, at = _element(body, at, 0)
                if any(k == key for k, _ in pairs):
                    raise _Bad("a repeated argument key")
                pairs.append((key, value))
                at = _skip(body, at)
            calls.append((pos, args_start, at, at + len(INVOKE_CLOSE), m.group(1), pairs))
            pos = _skip(body, at + len(INVOKE_CLOSE))
    except _Bad as exc:
        return str(exc)
    return calls
