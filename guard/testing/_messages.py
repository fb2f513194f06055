"""Reading OpenAI chat messages for the renderers (:mod:`guard.testing`): content as text,
reasoning, tool calls, the tool a result answers, values as the templates write them, and the walk
over a conversation that every transcript renderer shares. Text is returned verbatim: escape
untrusted text first."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

__all__ = [
    "arguments_object",
    "as_text",
    "assistant_parts",
    "checked_text",
    "json_text",
    "message_calls",
    "message_thinking",
    "read_messages",
    "render_messages",
    "result_name",
]

_ROLES = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant"}


def as_text(value: Any) -> str:
    """Message content as text: a string as it is, OpenAI content parts joined, ``None`` empty,
    anything else as JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # OpenAI content parts
        return "".join(str(p.get("text", "")) if isinstance(p, Mapping) else str(p) for p in value)
    return json.dumps(value, ensure_ascii=False)


def message_thinking(msg: Mapping[str, Any]) -> str:
    """The reasoning of an assistant message (``reasoning_content``, ``reasoning`` or
    ``thinking``), or ``""``."""
    return as_text(msg.get("reasoning_content") or msg.get("reasoning") or msg.get("thinking"))


def message_calls(msg: Mapping[str, Any]) -> list[tuple[str, str, Any]]:
    """``(id, name, arguments)`` of each tool call of an assistant message; ``arguments`` as
    given (JSON text or a mapping)."""
    calls: list[tuple[str, str, Any]] = []
    for call in msg.get("tool_calls") or []:
        if not isinstance(call, Mapping):
            raise ValueError(f"a tool call must be an object, got {type(call).__name__}")
        fn = call.get("function", call)
        name = str(fn.get("name") or "")
        if not name:
            raise ValueError("a tool call without a name")
        calls.append((str(call.get("id") or ""), name, fn.get("arguments", "{}")))
    return calls


def arguments_object(arguments: Any) -> dict[str, Any]:
    """Call arguments as a dict: JSON text is decoded; it must hold an object."""
    value = json.loads(arguments) if isinstance(arguments, str) else arguments
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ValueError(f"tool call arguments must be a JSON object, got {value!r}")
    return dict(value)


def result_name(msg: Mapping[str, Any], call_names: Mapping[str, str]) -> str:
    """The tool a ``tool`` message answers: its ``name``, else the name of the call its
    ``tool_call_id`` refers to, else ``""``."""
    name = msg.get("name") or call_names.get(str(msg.get("tool_call_id", "")))
    return str(name or "")


def json_text(value: Any) -> str:
    """A string as it is, anything else as JSON (non-ASCII kept): how the templates write an
    argument value, or arguments given as a mapping."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def checked_text(value: Any, closer: str, what: str) -> str:
    """:func:`json_text` of a value written before ``closer``, which it must not hold (the
    element would end early): ``ValueError`` ``"{what} cannot contain {closer}"``."""
    text = json_text(value)
    if closer in text:
        raise ValueError(f"{what} cannot contain {closer}")
    return text


def read_messages(
    messages: Iterable[Mapping[str, Any] | str],
) -> Iterator[tuple[str, Mapping[str, Any], str]]:
    """``(role, message, tool name)`` of each item of a conversation: the role of an OpenAI chat
    message (``developer`` read as ``system``), and for a ``tool`` message the tool it answers
    (:func:`result_name`, from the calls before it); raw stored wire text comes as ``("raw",
    {"content": text}, "")``, to be kept as it is.

    Raises:
        ValueError: a role other than system, developer, user, assistant and tool.
    """
    call_names: dict[str, str] = {}
    for msg in messages:
        if isinstance(msg, str):
            yield "raw", {"content": msg}, ""
            continue
        role = str(msg.get("role", ""))
        if role == "tool":
            yield role, msg, result_name(msg, call_names)
            continue
        if role not in _ROLES:
            raise ValueError(f"unknown role {role!r}")
        if role == "assistant":
            call_names.update((cid, name) for cid, name, _ in message_calls(msg) if cid)
        yield _ROLES[role], msg, ""


def render_messages(
    messages: Iterable[Mapping[str, Any] | str],
    *,
    turn: Callable[[str, str], str],
    assistant: Callable[[Mapping[str, Any]], str],
    tool: Callable[[str, Any], str],
    system: Callable[[str, str], str] | None = None,
    head: str = "",
) -> str:
    """A conversation as wire text: ``head``, then each message of :func:`read_messages`, raw
    wire text as it is. ``turn(role, text)`` renders a user message, and a system one without
    ``system``; ``assistant(message)`` an assistant message; ``tool(name, content)`` a tool
    result, ``name`` the tool it answers."""
    parts = [head]
    for role, msg, name in read_messages(messages):
        if role == "raw":
            parts.append(msg["content"])
        elif role == "assistant":
            parts.append(assistant(msg))
        elif role == "tool":
            parts.append(tool(name, msg.get("content")))
        else:
            plain = system if system is not None and role == "system" else turn
            parts.append(plain(role, as_text(msg.get("content"))))
    return "".join(parts)


def assistant_parts(msg: Mapping[str, Any]) -> tuple[str, str, list[tuple[str, str, Any]]]:
    """An assistant message's reasoning (:func:`message_thinking`), text (``""`` for none) and
    calls (:func:`message_calls`)."""
    return message_thinking(msg), as_text(msg.get("content") or ""), message_calls(msg)
