"""ChatGLM3 and ShareGPT transcripts (one adapter of :mod:`guard.audit._formats`)."""

from __future__ import annotations

import json

from guard.audit._format_chat import _call_parts
from guard.audit._format_parts import (
    TEXT,
    TOOL_ARG,
    TOOL_NAME,
    TOOL_RESULT,
    USER,
    ShapeError,
    Sink,
    json_type,
    short,
)

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
    for i, m in enumerate(messages):
        if type(m) is not dict:
            sink.error(line, f"message {i}: expected an object, got {json_type(m)}")
            continue
        role = m.get("role")
        if type(role) is not str:
            sink.error(line, f"message {i}: role must be a string, got {json_type(role)}")
            continue
        content = m.get("content")
        if type(content) is not str:
            if content is not None:
                sink.error(line, f"message {i}: content must be a string, got {json_type(content)}")
            content = None
        if role == "assistant":
            metadata = m.get("metadata")
            if metadata is not None and type(metadata) is not str:
                sink.error(
                    line, f"message {i}: metadata must be a string, got {json_type(metadata)}"
                )
                metadata = None
            name = metadata.strip() if metadata else ""
            if name:
                # `<|assistant|>NAME` then the call (a fenced tool_call(...) or code)
                sink.names.append(
                    (next(sink.seq), TOOL_NAME, name, line, i, role, "metadata", None)
                )
                if content is not None:
                    sink.out.append(
                        (next(sink.seq), TOOL_ARG, content, line, i, role, "content", name)
                    )
            elif content is not None:
                sink.out.append((next(sink.seq), TEXT, content, line, i, role, "content", None))
        elif role in ("system", "user"):
            if content is not None:
                sink.inp.append((next(sink.seq), USER, content, line, i, role, "content", None))
        elif role == "observation":
            if content is not None:
                sink.inp.append(
                    (next(sink.seq), TOOL_RESULT, content, line, i, role, "content", None)
                )
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
        sink.out.append((next(sink.seq), TOOL_ARG, value, line, i, role, "value", None))
        return
    for k, call in enumerate(calls):
        name = call["name"]
        args = call.get("arguments", call.get("parameters", ""))
        text = args if type(args) is str else json.dumps(args, ensure_ascii=False)
        name_part, args_part = _call_parts(f"value.calls[{k}]")
        sink.names.append((next(sink.seq), TOOL_NAME, name, line, i, role, name_part, None))
        sink.out.append((next(sink.seq), TOOL_ARG, text, line, i, role, args_part, name))


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
            sink.inp.append((next(sink.seq), USER, system, line, 0, "system", "system", None))
            offset = 1
    if type(turns) is not list:
        raise ShapeError(f"conversations must be a list, got {json_type(turns)}")
    for k, turn in enumerate(turns):
        i = k + offset
        if type(turn) is not dict:
            sink.error(line, f"message {i}: expected an object, got {json_type(turn)}")
            continue
        role = turn.get("from")
        if type(role) is not str:
            sink.error(line, f"message {i}: from must be a string, got {json_type(role)}")
            continue
        value = turn.get("value")
        if type(value) is not str:
            if value is not None:
                sink.error(line, f"message {i}: value must be a string, got {json_type(value)}")
            continue
        if role in _SHAREGPT_ASSISTANT:
            sink.out.append((next(sink.seq), TEXT, value, line, i, role, "value", None))
        elif role == "function_call":
            _sharegpt_call(sink, value, line, i, role)
        elif role in _SHAREGPT_USER:
            sink.inp.append((next(sink.seq), USER, value, line, i, role, "value", None))
        elif role in _SHAREGPT_TOOL:
            sink.inp.append((next(sink.seq), TOOL_RESULT, value, line, i, role, "value", None))
        else:
            sink.error(line, f"message {i}: unknown ShareGPT role (from) {short(role)}")
    return len(turns) + offset


def _sharegpt_like(turns: object) -> bool:
    if type(turns) is not list:
        return False
    items = [t for t in turns[:32] if type(t) is dict]
    return bool(items) and all("from" in t and "value" in t for t in items)
