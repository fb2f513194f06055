"""Gemma 4 and FunctionGemma renderers: what the chat template writes for tool calls, results,
reasoning and whole conversations, spelled with :mod:`guard.scanners.gemma`'s markers
(docs/scanners.md, "Renderers"). For tests, benchmarks and corpora; the library itself never
renders."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from guard.scanners.gemma import (
    CALL,
    CALL_CLOSE,
    CHANNEL,
    CHANNEL_CLOSE,
    FG_CALL,
    FG_CALL_CLOSE,
    FG_QUOTE,
    FG_RESPONSE,
    FG_RESPONSE_CLOSE,
    QUOTE,
    RESPONSE,
    RESPONSE_CLOSE,
    THOUGHT,
    TURN,
    TURN_CLOSE,
)
from guard.testing._messages import (
    arguments_object,
    as_text,
    message_calls,
    message_thinking,
    result_name,
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
        (FG_CALL, FG_CALL_CLOSE, FG_QUOTE) if functiongemma else (CALL, CALL_CLOSE, QUOTE)
    )
    args = arguments_object(arguments)
    return f"{open_}call:{name}{_format(args, quote)}{close}"


def render_tool_result(name: str, content: Any, *, functiongemma: bool = False) -> str:
    """``<|tool_response>response:NAME{...}<tool_response|>``: JSON object content goes in as
    its members, anything else under ``value``."""
    open_, close, quote = (
        (FG_RESPONSE, FG_RESPONSE_CLOSE, FG_QUOTE)
        if functiongemma
        else (RESPONSE, RESPONSE_CLOSE, QUOTE)
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
    return f"{CHANNEL}{THOUGHT}{text}{CHANNEL_CLOSE}"


def render_transcript(messages: Iterable[Mapping[str, Any] | str]) -> str:
    """A conversation as Gemma 4 wire text: ``<|turn>ROLE\\n...<turn|>\\n`` turns (assistant is
    ``model``, developer is ``system``). A model turn holds thinking, calls, the results of those
    calls (``<|tool_response>...``) and the model's next steps, up to its final text, as the
    model writes them in band. Raw strings are kept as they are."""
    parts: list[str] = []
    call_names: dict[str, str] = {}
    open_model = False
    for msg in messages:
        if isinstance(msg, str):
            parts.append(msg)
            continue
        role = str(msg.get("role", ""))
        if role in ("tool", "assistant"):
            if not open_model:
                parts.append(f"{TURN}model\n")
                open_model = True
            if role == "tool":
                name = result_name(msg, call_names)
                parts.append(render_tool_result(name, msg.get("content")))
                continue
            thinking = message_thinking(msg)
            if thinking:
                parts.append(render_thinking(thinking))
            calls = message_calls(msg)
            for cid, name, arguments in calls:
                if cid:
                    call_names[cid] = name
                parts.append(render_tool_call(name, arguments))
            parts.append(as_text(msg.get("content") or ""))
            if not calls:
                parts.append(f"{TURN_CLOSE}\n")
                open_model = False
            continue
        if open_model:
            parts.append(f"{TURN_CLOSE}\n")
            open_model = False
        if role in ("system", "developer", "user"):
            role = "system" if role == "developer" else role
            parts.append(f"{TURN}{role}\n{as_text(msg.get('content')).strip()}{TURN_CLOSE}\n")
        else:
            raise ValueError(f"unknown role {role!r}")
    if open_model:
        parts.append(f"{TURN_CLOSE}\n")
    return "".join(parts)
