"""pythonic calls (Llama 4) renderers: what the chat template writes for tool calls, results,
reasoning and whole conversations, spelled with :mod:`guard.scanners.pythonic`'s markers
(docs/scanners.md, "Renderers"). For tests, benchmarks and corpora; the library itself never
renders."""

from __future__ import annotations

import json
import keyword
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.pythonic import EOT, HEADER_END, HEADER_START
from guard.testing._messages import arguments_object, as_text, message_calls, result_name


def _literal(value: Any) -> str:
    """A JSON value as a Python literal (``true`` -> ``True``, strings double-quoted)."""
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_literal(str(k))}: {_literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"cannot render {type(value).__name__} as a Python literal")


def _call(name: str, arguments: str | Mapping[str, Any]) -> str:
    if not all(part.isidentifier() for part in name.split(".")):
        raise ValueError(f"invalid tool name {name!r}")
    kwargs = arguments_object(arguments)
    for key in kwargs:
        if not key.isidentifier() or keyword.iskeyword(key):
            raise ValueError(f"invalid argument name {key!r}")
    return f"{name}(" + ", ".join(f"{k}={_literal(v)}" for k, v in kwargs.items()) + ")"


def render_tool_call(name: str, arguments: str | Mapping[str, Any]) -> str:
    """``[NAME(k=v, ...)]``."""
    return render_tool_calls([(name, arguments)])


def render_tool_calls(calls: Iterable[tuple[str, str | Mapping[str, Any]]]) -> str:
    """``[f(k=v), g(...)]``: one list for several calls."""
    rendered = [_call(name, arguments) for name, arguments in calls]
    if not rendered:
        raise ValueError("no calls to render")
    return "[" + ", ".join(rendered) + "]"


def render_tool_result(name: str, content: Any) -> str:
    """A Llama 4 ``ipython`` turn with the result as JSON text (as the Llama 4 pythonic
    template writes it)."""
    del name
    return f"{HEADER_START}ipython{HEADER_END}\n\n{json.dumps(as_text(content))}{EOT}"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Llama 4 wire text: ``<|header_start|>ROLE<|header_end|>\\n\\n...<|eot|>``
    turns, calls as one pythonic list after the message text, tool results as ``ipython``
    turns. Raw strings are kept as they are."""
    parts: list[str] = []
    call_names: dict[str, str] = {}
    for msg in messages:
        if isinstance(msg, str):
            parts.append(msg)
            continue
        role = str(msg.get("role", ""))
        if role in ("system", "developer", "user"):
            role = "system" if role == "developer" else role
            parts.append(f"{HEADER_START}{role}{HEADER_END}\n\n{as_text(msg.get('content'))}{EOT}")
        elif role == "assistant":
            calls = message_calls(msg)
            for cid, name, _ in calls:
                if cid:
                    call_names[cid] = name
            body = as_text(msg.get("content") or "")
            if calls:
                body += render_tool_calls((name, args) for _, name, args in calls)
            parts.append(f"{HEADER_START}assistant{HEADER_END}\n\n{body}{EOT}")
        elif role == "tool":
            parts.append(render_tool_result(result_name(msg, call_names), msg.get("content")))
        else:
            raise ValueError(f"unknown role {role!r}")
    return "".join(parts)
