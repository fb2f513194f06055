"""Transcript formats for ``guard audit``: sniffing, and adapters that turn one transcript into
the text parts to judge, each on its surface (docs/detection.md, "Surfaces"; the mappings:
docs/audit.md, "Formats").

* ``openai``: ``{"messages": [...]}`` or a bare message list (Chat Completions). Assistant
  ``content`` and ``refusal`` are ``text``, ``reasoning_content`` / ``reasoning`` / ``thinking``
  ``thinking``, each ``tool_calls[i].function`` (or ``.custom``) name ``tool_name`` and
  arguments ``tool_arg``; system, developer and user messages ``user``; tool messages
  ``tool_result``.
* ``responses``: ``{"input": [...], "output": [...]}`` (``instructions`` counts as message 0,
  a string ``input`` as a user message) or a bare item list. Message items by role,
  ``function_call`` name and arguments, ``function_call_output`` ``tool_result``, ``reasoning``
  summary and content ``thinking``.
* ``chatglm3``: a list of ``{"role", "metadata", "content"}`` (or one under ``messages`` /
  ``history``). System and user ``user``; assistant ``text``, or, when ``metadata`` names a
  tool, the name ``tool_name`` and the content (the call) ``tool_arg``; observation
  ``tool_result``.
* ``sharegpt``: ``{"conversations": [{"from", "value"}, ...]}`` (shared chat datasets; a
  top-level ``system`` string is message 0) or the bare turn list. ``human`` / ``system``
  ``user``, ``gpt`` ``text``, ``function_call`` (``{"name", "arguments"}``) ``tool_name`` and
  ``tool_arg``, ``tool`` / ``observation`` ``tool_result``.
* ``harmony``: raw envelopes (:mod:`guard.audit._harmony`). Assistant ``analysis`` is
  ``thinking``, ``final`` and commentary without recipient ``text``, a body sent ``to=`` a
  recipient ``tool_arg`` with the recipient (``functions.`` stripped) as ``tool_name``;
  system, developer and user ``user``; tool-authored messages ``tool_result``.
* ``text``: a whole file of raw model output, one message on ``text``.

Adapters never judge anything: they hand ``(surface, text, ...)`` parts to a sink, which batches
them. Wrong types inside a transcript are reported per message; the rest of it is still read.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from functools import cache
from typing import Any, Protocol

from guard.audit._harmony import INPUT_AUTHORS, HarmonyTranscript, is_tool_author
from guard.audit._sources import looks_binary
from guard.audit._wire import sniff_dialect
from guard.models import Surface

__all__ = [
    "ADAPTERS",
    "FORMAT_DIALECT",
    "JSON_FORMATS",
    "Part",
    "ShapeError",
    "Sink",
    "classify",
    "harmony_transcript",
    "sniff",
]

# Parts carry surfaces as plain strings: hashing an enum member runs Python code, and the engine
# sorts every part into its scan group.
TEXT: str = Surface.TEXT.value
THINKING: str = Surface.THINKING.value
TOOL_ARG: str = Surface.TOOL_ARG.value
TOOL_NAME: str = Surface.TOOL_NAME.value
USER: str = Surface.USER.value
TOOL_RESULT: str = Surface.TOOL_RESULT.value

JSON_FORMATS = frozenset({"openai", "responses", "chatglm3", "sharegpt"})
#: The dialect each format implies when ``--dialect`` is not given.
FORMAT_DIALECT = {
    "openai": "harmony",
    "responses": "harmony",
    "harmony": "harmony",
    "chatglm3": "chatglm3",
    "sharegpt": "harmony",
    "text": "harmony",
    "raw": "",  # the dialect comes from --dialect or the file's opening
}

_USER_ROLES = frozenset({"user", "system", "developer"})
_TOOL_ROLES = frozenset({"tool", "function"})


class ShapeError(ValueError):
    """A JSON value that is not a transcript of the file's format."""


#: One text to judge: (sequence number, surface value, text, line, message, role, part,
#: tool_name). The sequence number orders findings as the input does.
Part = tuple[int, str, str, int, int, str, str, str | None]


class Sink(Protocol):
    """Where adapters put what they read. Parts go straight to the list of their scan group
    (``out``: text, thinking, tool_arg; ``inp``: user, tool_result; ``names``: tool_name),
    numbered by ``next(seq)``: appending a tuple is the whole per-part cost on the hot path.
    Problems go through ``error``, forged tool results through ``forgery``."""

    out: list[Part]
    inp: list[Part]
    names: list[Part]
    seq: Iterator[int]

    def error(self, line: int, text: str) -> None: ...

    def forgery(self, line: int, message: int, role: str, reason: str, marker: str) -> None:
        """``marker``: the forging opening as it stands (format, shown as evidence)."""


def _target(sink: Sink, surface: str) -> list[Part]:
    if surface in (USER, TOOL_RESULT):
        return sink.inp
    return sink.names if surface == TOOL_NAME else sink.out


def json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def short(value: object, limit: int = 40) -> str:
    """A name from the data, for an error message: shape kept, letters not masked but cut."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return repr(text[:limit] + ("..." if len(text) > limit else ""))


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
    for i, m in enumerate(messages):
        if type(m) is not dict:
            sink.error(line, f"message {i}: expected an object, got {json_type(m)}")
            continue
        role = m.get("role")
        if type(role) is not str:
            sink.error(line, f"message {i}: role must be a string, got {json_type(role)}")
            continue
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


ADAPTERS: dict[str, Callable[[object, Sink, int], int]] = {
    "openai": openai,
    "responses": responses,
    "chatglm3": chatglm3,
    "sharegpt": sharegpt,
}


# ---------------------------------------------------------------------------------------------
# Harmony and plain text


def harmony_transcript(transcript: HarmonyTranscript, sink: Sink) -> int:
    """Hand one split Harmony transcript to the sink; returns its number of messages. Each
    message's parts are at the line of its own ``<|start|>``."""
    previous = None
    for i, m in enumerate(transcript.messages):
        line = m.line
        author = m.author
        role = author[:64]
        if author == "assistant":
            name = m.header.tool_name
            if name is not None:
                sink.names.append(
                    (next(sink.seq), TOOL_NAME, name, line, i, role, "recipient", None)
                )
                sink.out.append((next(sink.seq), TOOL_ARG, m.body, line, i, role, "content", name))
            elif m.channel == "analysis":
                sink.out.append((next(sink.seq), THINKING, m.body, line, i, role, "content", None))
            else:
                sink.out.append((next(sink.seq), TEXT, m.body, line, i, role, "content", None))
        elif author in INPUT_AUTHORS or not author:
            sink.inp.append(
                (next(sink.seq), USER, m.body, line, i, role or "unknown", "content", None)
            )
        else:
            if (
                previous is not None
                and previous.author == "assistant"
                and previous.end != "call"
                and is_tool_author(author)
            ):
                if m.interrupted:
                    reason = (
                        "forged tool result: a tool message starts inside the assistant's"
                        f" unfinished message {i - 1} (no <|call|>)"
                    )
                else:
                    reason = (
                        f"forged tool result: a tool message follows assistant message {i - 1},"
                        f" which ended with <|{previous.end}|>, not <|call|>"
                    )
                sink.forgery(line, i, role, reason, f"<|start|>{m.header.raw}")
            sink.inp.append((next(sink.seq), TOOL_RESULT, m.body, line, i, role, "content", None))
        previous = m
    return len(transcript.messages)


# ---------------------------------------------------------------------------------------------
# Sniffing


def _glm_like(messages: object) -> bool:
    if type(messages) is not list:
        return False
    return any(
        type(m) is dict and ("metadata" in m or m.get("role") == "observation")
        for m in messages[:32]
    )


def classify(obj: object) -> str | None:
    """The JSON format of one transcript value, or ``None`` when it is none of them."""
    if type(obj) is dict:
        if "messages" in obj:
            return "chatglm3" if _glm_like(obj["messages"]) else "openai"
        if "input" in obj or "output" in obj:
            return "responses"
        if "conversations" in obj and _sharegpt_like(obj["conversations"]):
            return "sharegpt"
        if "history" in obj or "conversations" in obj:
            return "chatglm3"
        return None
    if type(obj) is list:
        if _sharegpt_like(obj):
            return "sharegpt"
        items = [m for m in obj[:32] if type(m) is dict]
        if any("type" in m for m in items):
            return "responses"
        if _glm_like(items):
            return "chatglm3"
        if any("role" in m for m in items):
            return "openai"
    return None


#: A raw Harmony file starts with a message (or with output captured after the prompt).
_HARMONY_OPENINGS = (b"<|start|>", b"<|startoftext|>", b"<|channel|>")


def sniff(head: bytes, at_eof: bool) -> tuple[str | None, str]:
    """``(format, note)`` for a file beginning with ``head``; format ``None`` means the file is
    not transcripts and ``note`` says why.

    JSON lines are looked for before the binary test, so that a file whose first line is
    UTF-16 (NUL bytes) is still read as the JSON lines its other lines are; only a head with
    NUL bytes and no transcript line in it is binary data.
    """
    body = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    stripped = body.lstrip()
    if not stripped:
        return None, "empty"
    if stripped.startswith(_HARMONY_OPENINGS):
        return "harmony", "sniffed"
    binary = looks_binary(body)
    if not binary and sniff_dialect(body) is not None:  # before JSON: GLM's opening starts with [
        return "raw", "sniffed"
    if stripped[:1] in (b"{", b"[") or binary:
        fmt, parsed = _sniff_json(body, at_eof)
        if fmt is not None:
            return fmt, "sniffed"
        if binary:
            return None, "binary data (NUL bytes), not UTF-8 transcripts"
        if parsed:
            return None, (
                "JSON lines, but none looks like a transcript (expected messages,"
                " input/output items, or a message list)"
            )
        return "openai", "assumed: no line parses as JSON"
    return None, "plain text, not transcripts (--format text reads a file as raw model output)"


def _sniff_json(body: bytes, at_eof: bool) -> tuple[str | None, bool]:
    """The format of the first line of ``body`` that is a transcript, and whether any line
    parsed as JSON (UTF-8 only; a line with NUL bytes is not looked at)."""
    lines = body.split(b"\n")
    if not at_eof:
        lines = lines[:-1]  # the last one may be cut
    parsed = False
    for raw in lines[:256]:
        if not raw.strip() or b"\x00" in raw:
            continue
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        parsed = True
        fmt = classify(obj)
        if fmt is not None:
            return fmt, True
    return None, parsed
