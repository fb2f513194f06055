"""pythonic calls (Llama 4) renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.pythonic`'s markers."""

from __future__ import annotations

import json
import keyword
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.pythonic import EOT, HEADER_END, HEADER_START
from guard.testing._messages import arguments_object, as_text, message_calls, render_messages


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
    return render_messages(messages, turn=_turn, assistant=_assistant, tool=render_tool_result)


def _turn(role: str, text: str) -> str:
    return f"{HEADER_START}{role}{HEADER_END}\n\n{text}{EOT}"


def _assistant(msg: Mapping[str, Any]) -> str:
    calls = message_calls(msg)
    body = as_text(msg.get("content") or "")
    if calls:
        body += render_tool_calls((name, args) for _, name, args in calls)
    return _turn("assistant", body)
