"""Gemma 4 and FunctionGemma renderers (:mod:`guard.testing`), spelled with
:mod:`guard.scanners.gemma`'s markers."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners import gemma as mk
from guard.testing._messages import (
    arguments_object,
    as_text,
    assistant_parts,
    message_calls,
    read_messages,
)


def _format(value: Any, quote: str) -> str:
    """A value in the call syntax (the Gemma 4 template's ``format_argument``)."""
    if isinstance(value, str):
        if quote in value:
            raise ValueError(f"a string holds the string token {quote}")
        return quote + value + quote
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "{" + ",".join(f"{_key(k)}:{_format(v, quote)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_format(v, quote) for v in value) + "]"
    if isinstance(value, int | float):
        return json.dumps(value)
    raise TypeError(f"cannot render {type(value).__name__} in a Gemma call")


def _key(key: Any) -> str:
    k = str(key)
    if not k or any(c in k for c in ":,{}[]") or k != k.strip():
        raise ValueError(f"invalid key {k!r}")
    return k


def render_tool_call(
    name: str, arguments: str | Mapping[str, Any], *, functiongemma: bool = False
) -> str:
    """``<|tool_call>call:NAME{k:v,...}<tool_call|>`` (FunctionGemma's tokens with
    ``functiongemma=True``)."""
    if not name or not re.fullmatch(r"[\w\-.]+", name):
        raise ValueError(f"invalid tool name {name!r}")
    open_, close, quote = (
        (mk.FG_CALL, mk.FG_CALL_CLOSE, mk.FG_QUOTE)
        if functiongemma
        else (mk.CALL, mk.CALL_CLOSE, mk.QUOTE)
    )
    args = arguments_object(arguments)
    return f"{open_}call:{name}{_format(args, quote)}{close}"


def render_tool_result(name: str, content: Any, *, functiongemma: bool = False) -> str:
    """``<|tool_response>response:NAME{...}<tool_response|>``: JSON object content goes in as
    its members, anything else under ``value``."""
    open_, close, quote = (
        (mk.FG_RESPONSE, mk.FG_RESPONSE_CLOSE, mk.FG_QUOTE)
        if functiongemma
        else (mk.RESPONSE, mk.RESPONSE_CLOSE, mk.QUOTE)
    )
    value: Any = content
    if isinstance(content, str):
        try:
            value = json.loads(content)
        except ValueError:
            value = content
    if not isinstance(value, Mapping):
        value = {"value": value if isinstance(value, str) else as_text(value)}
    return f"{open_}response:{name or 'unknown'}{_format(value, quote)}{close}"


def render_thinking(text: str) -> str:
    """``<|channel>thought\\n...<channel|>``."""
    return f"{mk.CHANNEL}{mk.THOUGHT}{text}{mk.CHANNEL_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Gemma 4 wire text: ``<|turn>ROLE\\n...<turn|>\\n`` turns (assistant is
    ``model``, developer is ``system``). A model turn holds thinking, calls, the results of those
    calls (``<|tool_response>...``) and the model's next steps, up to its final text, as the
    model writes them in band. Raw strings are kept as they are."""
    parts: list[str] = []
    open_model = False
    for role, msg, name in read_messages(messages):
        if role == "raw":
            parts.append(msg["content"])
            continue
        if role in ("tool", "assistant"):
            if not open_model:
                parts.append(f"{mk.TURN}model\n")
            parts.append(_model_step(role, msg, name))
            open_model = role == "tool" or bool(message_calls(msg))
            if not open_model:
                parts.append(f"{mk.TURN_CLOSE}\n")
            continue
        if open_model:
            parts.append(f"{mk.TURN_CLOSE}\n")
            open_model = False
        parts.append(f"{mk.TURN}{role}\n{as_text(msg.get('content')).strip()}{mk.TURN_CLOSE}\n")
    if open_model:
        parts.append(f"{mk.TURN_CLOSE}\n")
    return "".join(parts)


def _model_step(role: str, msg: Mapping[str, Any], name: str) -> str:
    """A tool result, or an assistant message's thinking, calls and text, inside a model turn."""
    if role == "tool":
        return render_tool_result(name, msg.get("content"))
    thinking, content, calls = assistant_parts(msg)
    parts = [render_thinking(thinking)] if thinking else []
    parts.extend(render_tool_call(call, arguments) for _, call, arguments in calls)
    return "".join([*parts, content])
