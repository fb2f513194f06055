"""ChatGLM3 and ShareGPT transcripts (one adapter of :mod:`guard.audit._formats`)."""

from __future__ import annotations

import json

from guard.audit._format_chat import _call_parts
from guard.audit._format_parts import (
    ShapeError,
    Sink,
    add_part,
    each_message,
    json_type,
    short,
    text_field,
)
from guard.models import Surface

# ---------------------------------------------------------------------------------------------
# ChatGLM3


def chatglm3(obj: object, sink: Sink, line: int) -> int:
    messages: object = obj
    if type(obj) is dict:
        for key in ("messages", "history", "conversations"):
            if key in obj:
                messages = obj[key]
                break
        else:
            raise ShapeError('expected a message list, or one under "messages" or "history"')
    if type(messages) is not list:
        where = "messages" if type(obj) is dict else "a transcript"
        raise ShapeError(f"{where} must be a message list, got {json_type(messages)}")
    for i, m, role in each_message(sink, messages, line):
        content = text_field(sink, m, "content", line, i)
        if role == "assistant":
            metadata = text_field(sink, m, "metadata", line, i)
            name = metadata.strip() if metadata else ""
            if name:
                # `<|assistant|>NAME` then the call (a fenced tool_call(...) or code)
                add_part(sink, Surface.TOOL_NAME, name, line, i, role, "metadata")
                if content is not None:
                    add_part(sink, Surface.TOOL_ARG, content, line, i, role, "content", name)
            elif content is not None:
                add_part(sink, Surface.TEXT, content, line, i, role, "content")
        elif role in ("system", "user"):
            if content is not None:
                add_part(sink, Surface.USER, content, line, i, role, "content")
        elif role == "observation":
            if content is not None:
                add_part(sink, Surface.TOOL_RESULT, content, line, i, role, "content")
        else:
            sink.error(line, f"message {i}: unknown role {short(role)}")
    return len(messages)


# ---------------------------------------------------------------------------------------------
# ShareGPT

#: ShareGPT's ``from`` values (LLaMA-Factory's names, and the spellings shared datasets use)
_SHAREGPT_USER = frozenset({"human", "user", "system"})
_SHAREGPT_ASSISTANT = frozenset({"gpt", "assistant", "chatgpt", "model", "bard", "bing"})
_SHAREGPT_TOOL = frozenset({"tool", "observation", "function", "function_response"})


def _sharegpt_call(sink: Sink, value: str, line: int, i: int, role: str) -> None:
    """A ``function_call`` turn: a JSON call ``{"name", "arguments"}`` (or a list of them);
    anything else is the call's text, judged as tool arguments."""
    try:
        parsed = json.loads(value)
    except (ValueError, RecursionError):
        parsed = None
    calls = parsed if type(parsed) is list else [parsed]
    if parsed is None or not all(type(c) is dict and type(c.get("name")) is str for c in calls):
        add_part(sink, Surface.TOOL_ARG, value, line, i, role, "value")
        return
    for k, call in enumerate(calls):
        name = call["name"]
        args = call.get("arguments", call.get("parameters", ""))
        text = args if type(args) is str else json.dumps(args, ensure_ascii=False)
        name_part, args_part = _call_parts(f"value.calls[{k}]")
        add_part(sink, Surface.TOOL_NAME, name, line, i, role, name_part)
        add_part(sink, Surface.TOOL_ARG, text, line, i, role, args_part, name)


def sharegpt(obj: object, sink: Sink, line: int) -> int:
    """``{"conversations": [{"from", "value"}, ...]}`` (or the bare list): ``human`` / ``user``
    and ``system`` turns and a top-level ``system`` string (message 0) ``user``; ``gpt`` /
    ``assistant`` turns ``text``; ``function_call`` turns a tool call (``{"name",
    "arguments"}``: ``tool_name`` and ``tool_arg``); ``tool`` / ``observation`` /
    ``function`` turns ``tool_result``."""
    turns: object = obj
    offset = 0
    if type(obj) is dict:
        if "conversations" not in obj:
            raise ShapeError('expected an object with "conversations" or a turn list')
        turns = obj["conversations"]
        system = obj.get("system")
        if type(system) is str and system:
            add_part(sink, Surface.USER, system, line, 0, "system", "system")
            offset = 1
    if type(turns) is not list:
        raise ShapeError(f"conversations must be a list, got {json_type(turns)}")
    for i, turn, role in each_message(sink, turns, line, "from", offset):
        value = text_field(sink, turn, "value", line, i)
        if value is None:
            continue
        if role in _SHAREGPT_ASSISTANT:
            add_part(sink, Surface.TEXT, value, line, i, role, "value")
        elif role == "function_call":
            _sharegpt_call(sink, value, line, i, role)
        elif role in _SHAREGPT_USER:
            add_part(sink, Surface.USER, value, line, i, role, "value")
        elif role in _SHAREGPT_TOOL:
            add_part(sink, Surface.TOOL_RESULT, value, line, i, role, "value")
        else:
            sink.error(line, f"message {i}: unknown ShareGPT role (from) {short(role)}")
    return len(turns) + offset


def _sharegpt_like(turns: object) -> bool:
    if type(turns) is not list:
        return False
    items = [t for t in turns[:32] if type(t) is dict]
    return bool(items) and all("from" in t and "value" in t for t in items)
