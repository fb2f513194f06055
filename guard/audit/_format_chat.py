"""OpenAI Chat Completions transcripts (one adapter of :mod:`guard.audit._formats`)."""

from __future__ import annotations

from functools import cache
from typing import Any

from guard.audit._format_parts import (
    _TOOL_ROLES,
    _USER_ROLES,
    TEXT,
    THINKING,
    TOOL_ARG,
    TOOL_NAME,
    TOOL_RESULT,
    USER,
    ShapeError,
    Sink,
    _target,
    each_message,
    json_type,
    short,
)

# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def _parts(
    sink: Sink,
    content: object,
    surface: str,
    line: int,
    i: int,
    role: str,
) -> None:
    target = _target(sink, surface)
    if type(content) is str:
        target.append((next(sink.seq), surface, content, line, i, role, "content", None))
    elif content is None:
        return
    elif type(content) is list:
        for j, item in enumerate(content):
            if type(item) is str:
                target.append((next(sink.seq), surface, item, line, i, role, f"content[{j}]", None))
            elif type(item) is dict:
                text = item.get("text")
                if type(text) is dict:  # Assistants-style {"value": ..., "annotations": ...}
                    text = text.get("value")
                if type(text) is str:
                    target.append(
                        (next(sink.seq), surface, text, line, i, role, f"content[{j}]", None)
                    )
                elif text is not None:
                    sink.error(
                        line,
                        f"message {i}: content[{j}].text must be a string, got {json_type(text)}",
                    )
                refusal = item.get("refusal")
                if type(refusal) is str:
                    target.append(
                        (
                            next(sink.seq),
                            surface,
                            refusal,
                            line,
                            i,
                            role,
                            f"content[{j}].refusal",
                            None,
                        )
                    )
                # other part types (images, audio, files) carry no text to judge
            else:
                sink.error(
                    line,
                    f"message {i}: content[{j}] must be a string or an object,"
                    f" got {json_type(item)}",
                )
    else:
        sink.error(
            line,
            f"message {i}: content must be a string, a list of parts or null,"
            f" got {json_type(content)}",
        )


@cache
def _call_parts(where: str, args_key: str = "arguments") -> tuple[str, str]:
    return f"{where}.name", f"{where}.{args_key}"


@cache
def _call_where(k: int, kind: str) -> str:
    return f"tool_calls[{k}].{kind}"


def _call(
    sink: Sink, function: object, line: int, i: int, where: str, args_key: str = "arguments"
) -> None:
    if type(function) is not dict:
        sink.error(line, f"message {i}: {where} must be an object, got {json_type(function)}")
        return
    name_part, args_part = _call_parts(where, args_key)
    name = function.get("name")
    if type(name) is str:
        sink.names.append((next(sink.seq), TOOL_NAME, name, line, i, "assistant", name_part, None))
    elif name is not None:
        sink.error(line, f"message {i}: {name_part} must be a string, got {json_type(name)}")
        name = None
    arguments = function.get(args_key)
    if type(arguments) is str:
        sink.out.append(
            (next(sink.seq), TOOL_ARG, arguments, line, i, "assistant", args_part, name)
        )
    elif arguments is not None:
        sink.error(
            line,
            f"message {i}: {args_part} must be a string (the raw arguments),"
            f" got {json_type(arguments)}",
        )


#: Keys of an assistant message that guard reads; others (name, audio, annotations, ...) carry
#: nothing to judge.
_ASSISTANT_KEYS = frozenset(
    {
        "content",
        "refusal",
        "reasoning_content",
        "reasoning",
        "thinking",
        "tool_calls",
        "function_call",
    }
)


def _tool_call(sink: Sink, call: object, line: int, i: int, k: int) -> None:
    if type(call) is not dict:
        sink.error(line, f"message {i}: tool_calls[{k}] must be an object, got {json_type(call)}")
    elif "function" in call:
        _call(sink, call["function"], line, i, _call_where(k, "function"))
    elif "custom" in call:
        _call(sink, call["custom"], line, i, _call_where(k, "custom"), "input")


def _assistant_key(sink: Sink, key: str, value: object, line: int, i: int) -> None:
    """One field of an assistant message (``value`` is not None)."""
    if key == "content":
        if type(value) is str:
            sink.out.append((next(sink.seq), TEXT, value, line, i, "assistant", key, None))
        else:
            _parts(sink, value, TEXT, line, i, "assistant")
    elif key == "tool_calls":
        if type(value) is not list:
            sink.error(line, f"message {i}: tool_calls must be a list, got {json_type(value)}")
            return
        for k, call in enumerate(value):
            _tool_call(sink, call, line, i, k)
    elif key == "function_call":
        _call(sink, value, line, i, "function_call")
    elif type(value) is str:
        surface = TEXT if key == "refusal" else THINKING
        sink.out.append((next(sink.seq), surface, value, line, i, "assistant", key, None))
    else:
        sink.error(line, f"message {i}: {key} must be a string, got {json_type(value)}")


def _chat_messages(obj: object) -> list[Any]:
    """The message list of a chat record: ``{"messages": [...]}`` or the list itself."""
    if type(obj) is dict:
        if "messages" not in obj:
            raise ShapeError(
                'expected an object with "messages" (a list of chat messages) or a message list'
            )
        messages = obj["messages"]
        if type(messages) is not list:
            raise ShapeError(f"messages must be a list, got {json_type(messages)}")
        return messages
    if type(obj) is list:
        return obj
    raise ShapeError(f'expected an object with "messages" or a message list, got {json_type(obj)}')


def openai(obj: object, sink: Sink, line: int) -> int:
    messages = _chat_messages(obj)
    inp, seq = sink.inp, sink.seq
    for i, m, role in each_message(sink, messages, line):
        if role == "assistant":
            _chat_assistant(sink, m, line, i)
            continue
        if role in _USER_ROLES:
            surface = USER
        elif role in _TOOL_ROLES:
            surface = TOOL_RESULT
        else:
            sink.error(line, f"message {i}: unknown role {short(role)}")
            continue
        content = m.get("content")
        if type(content) is str:  # the common case, inlined
            inp.append((next(seq), surface, content, line, i, role, "content", None))
        else:
            _parts(sink, content, surface, line, i, role)
    return len(messages)


def _chat_assistant(sink: Sink, m: dict[str, Any], line: int, i: int) -> None:
    """The parts of an assistant chat message."""
    out, names, seq = sink.out, sink.names, sink.seq
    # the common shapes inlined (a function call per part costs as much as parsing it)
    for key, value in m.items():
        if key == "content" and type(value) is str:
            out.append((next(seq), TEXT, value, line, i, "assistant", "content", None))
        elif key == "reasoning_content" and type(value) is str:
            out.append((next(seq), THINKING, value, line, i, "assistant", key, None))
        elif key == "tool_calls" and type(value) is list:
            for k, call in enumerate(value):
                function = call.get("function") if type(call) is dict else None
                if type(function) is dict:
                    name = function.get("name")
                    arguments = function.get("arguments")
                    if type(name) is str and type(arguments) is str:
                        name_part, args_part = _call_parts(_call_where(k, "function"))
                        names.append(
                            (
                                next(seq),
                                TOOL_NAME,
                                name,
                                line,
                                i,
                                "assistant",
                                name_part,
                                None,
                            )
                        )
                        out.append(
                            (
                                next(seq),
                                TOOL_ARG,
                                arguments,
                                line,
                                i,
                                "assistant",
                                args_part,
                                name,
                            )
                        )
                        continue
                _tool_call(sink, call, line, i, k)
        elif value is not None and key in _ASSISTANT_KEYS:
            _assistant_key(sink, key, value, line, i)
