"""OpenAI Responses transcripts (one adapter of :mod:`guard.audit._formats`)."""

from __future__ import annotations

from typing import Any

from guard.audit._format_parts import (
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
    json_type,
    short,
)

# ---------------------------------------------------------------------------------------------
# OpenAI Responses

#: Item types that carry no text guard judges (calls of built-in tools, references, approvals).
_QUIET_ITEMS = frozenset(
    {
        "web_search_call",
        "file_search_call",
        "computer_call",
        "computer_call_output",
        "image_generation_call",
        "local_shell_call",
        "local_shell_call_output",
        "mcp_list_tools",
        "mcp_approval_request",
        "mcp_approval_response",
        "item_reference",
        "compaction",
    }
)


def _text_list(
    sink: Sink, value: object, surface: str, line: int, i: int, role: str, key: str
) -> None:
    target = _target(sink, surface)
    if value is None:
        return
    if type(value) is str:
        target.append((next(sink.seq), surface, value, line, i, role, key, None))
        return
    if type(value) is not list:
        sink.error(line, f"item {i}: {key} must be a string or a list, got {json_type(value)}")
        return
    for j, part in enumerate(value):
        if type(part) is dict:
            text = part.get("text")
            if type(text) is str:
                target.append((next(sink.seq), surface, text, line, i, role, f"{key}[{j}]", None))
            elif text is not None:
                sink.error(
                    line, f"item {i}: {key}[{j}].text must be a string, got {json_type(text)}"
                )
            refusal = part.get("refusal")
            if type(refusal) is str:
                target.append(
                    (next(sink.seq), surface, refusal, line, i, role, f"{key}[{j}].refusal", None)
                )
        elif type(part) is str:
            target.append((next(sink.seq), surface, part, line, i, role, f"{key}[{j}]", None))
        else:
            sink.error(line, f"item {i}: {key}[{j}] must be an object, got {json_type(part)}")


def _str_field(
    sink: Sink,
    item: dict[str, Any],
    key: str,
    surface: str,
    line: int,
    i: int,
    role: str,
    tool_name: str | None = None,
) -> str | None:
    target = _target(sink, surface)
    value = item.get(key)
    if type(value) is str:
        target.append((next(sink.seq), surface, value, line, i, role, key, tool_name))
        return value
    if value is not None:
        sink.error(line, f"item {i}: {key} must be a string, got {json_type(value)}")
    return None


def _item(sink: Sink, item: object, line: int, i: int) -> None:
    if type(item) is not dict:
        sink.error(line, f"item {i}: expected an object, got {json_type(item)}")
        return
    kind = item.get("type")
    if kind is not None and type(kind) is not str:
        sink.error(line, f"item {i}: type must be a string, got {json_type(kind)}")
        return
    if kind == "message" or (kind is None and "role" in item):
        role = item.get("role")
        if type(role) is not str:
            sink.error(line, f"item {i}: role must be a string, got {json_type(role)}")
            return
        if role == "assistant":
            surface = TEXT
        elif role in _USER_ROLES:
            surface = USER
        else:
            sink.error(line, f"item {i}: unknown role {short(role)}")
            return
        _text_list(sink, item.get("content"), surface, line, i, role, "content")
    elif kind in ("function_call", "custom_tool_call", "mcp_call"):
        name = _str_field(sink, item, "name", TOOL_NAME, line, i, "assistant")
        key = "input" if kind == "custom_tool_call" else "arguments"
        _str_field(sink, item, key, TOOL_ARG, line, i, "assistant", name)
        if kind == "mcp_call":
            _str_field(sink, item, "output", TOOL_RESULT, line, i, "tool")
    elif kind in ("function_call_output", "custom_tool_call_output"):
        _text_list(sink, item.get("output"), TOOL_RESULT, line, i, "tool", "output")
    elif kind == "reasoning":
        _text_list(sink, item.get("summary"), THINKING, line, i, "assistant", "summary")
        _text_list(sink, item.get("content"), THINKING, line, i, "assistant", "content")
    elif kind == "code_interpreter_call":
        _str_field(sink, item, "code", TOOL_ARG, line, i, "assistant", "code_interpreter")
    elif kind not in _QUIET_ITEMS:
        sink.error(line, f"item {i}: unknown item type {short(kind)}")


def responses(obj: object, sink: Sink, line: int) -> int:
    items: list[object]
    if type(obj) is list:
        items = obj
    elif type(obj) is dict:
        if "input" not in obj and "output" not in obj:
            raise ShapeError('expected an object with "input" and/or "output" item lists')
        items = []
        instructions = obj.get("instructions")
        if type(instructions) is str:
            items.append({"type": "message", "role": "developer", "content": instructions})
        elif instructions is not None:
            raise ShapeError(f"instructions must be a string, got {json_type(instructions)}")
        for key in ("input", "output"):
            value = obj.get(key)
            if value is None:
                continue
            if type(value) is str:
                items.append({"type": "message", "role": "user", "content": value})
            elif type(value) is list:
                items.extend(value)
            else:
                raise ShapeError(
                    f"{key} must be a list of items or a string, got {json_type(value)}"
                )
    else:
        raise ShapeError(f"expected an object or a list of items, got {json_type(obj)}")
    for i, item in enumerate(items):
        _item(sink, item, line, i)
    return len(items)
