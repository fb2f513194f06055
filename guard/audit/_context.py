"""Context for judging an audited transcript, as :func:`guard.detect_message` has it for one
message: the tools the request declared (signals U and J) and whether an assistant answer
carried a reasoning part (signal V).

* Declared tools: a record's own ``tools`` (OpenAI chat ``{"type": "function", "function":
  {"name": ...}}`` definitions, Responses-style ``{"name": ...}``, or plain names) or, for a
  record without one, the audit's ``tools=`` (``--tools``). Built-in tools without a name
  (``{"type": "web_search"}``) are not function tools and are left out.
* Reasoning: for the JSON formats that carry reasoning (``openai``, ``responses``), an
  assistant ``text`` part carried one when a non-blank ``thinking`` part comes from the same
  message (``reasoning_content``, ``reasoning``, ``thinking``) or from earlier in the same
  assistant turn (a Responses ``reasoning`` item before the message), with no input part (user,
  system, tool result) between them. Other formats give no reasoning context (unknown).
"""

from __future__ import annotations

import json
import os
from collections.abc import Container, Iterable
from typing import Any

from guard._detect import tool_names
from guard.errors import GuardError
from guard.models import Surface

__all__ = [
    "REASONING_FORMATS",
    "ToolsOptionError",
    "declared_tools",
    "load_tools_option",
    "reasoned_messages",
    "record_tools",
]

#: Formats whose records say whether an answer carried a reasoning part.
REASONING_FORMATS = frozenset({"openai", "responses"})

_THINKING = Surface.THINKING.value
_TEXT = Surface.TEXT.value
_INPUTS = frozenset({Surface.USER.value, Surface.TOOL_RESULT.value})


class ToolsOptionError(GuardError, ValueError):
    """A ``--tools`` value that is neither tool names nor a readable JSON file of tools."""


def declared_tools(tools: Any) -> frozenset[str]:
    """The names of ``tools`` (a list of names or definitions); nameless built-in tools are
    left out. Raises ``TypeError`` naming the first entry that is neither."""
    if isinstance(tools, str | bytes) or not isinstance(tools, Iterable):
        raise TypeError(
            f"tools must be a list of tool names or tool definitions, got {type(tools).__name__}"
        )
    kept: list[Any] = []
    for i, tool in enumerate(tools):
        if isinstance(tool, dict) and "name" not in tool and "function" not in tool:
            kind = tool.get("type")
            if isinstance(kind, str) and kind not in ("function", "custom"):
                continue  # a built-in tool (web_search, code_interpreter, ...)
            raise TypeError(
                f"tools[{i}]: expected a tool name or a definition with function.name or name,"
                " got an object without either"
            )
        kept.append(tool)
    names = tool_names(kept)
    assert names is not None
    return names


def record_tools(record: object) -> tuple[bool, frozenset[str] | None, str | None]:
    """``(has tools, names, error)`` for one transcript record: whether it declares ``tools``
    at all, their names, or what is wrong with them."""
    if type(record) is not dict or record.get("tools") is None:
        return False, None, None
    if type(record["tools"]) is not list:
        kind = type(record["tools"]).__name__
        return True, None, f"tools must be a list, got {kind}; judged without declared tools"
    try:
        return True, declared_tools(record["tools"]), None
    except TypeError as exc:
        return True, None, f"tools: {exc}; judged without declared tools"


def reasoned_messages(
    out: list[Any], inp: list[Any], lines: Container[int] | None = None
) -> set[tuple[int, int]]:
    """``(line, message)`` of the messages that carried a reasoning part, or follow one in the
    same assistant turn (see the module docstring), from the parts collected; only those of
    records at ``lines`` when given (the others are not looked at)."""
    thinking: dict[int, list[int]] = {}
    for p in out:
        if p[1] == _THINKING and (lines is None or p[3] in lines) and p[2].strip():
            thinking.setdefault(p[3], []).append(p[4])
    if not thinking:
        return set()
    inputs: dict[int, list[int]] = {}
    for p in inp:
        if p[3] in thinking and p[1] in _INPUTS:
            inputs.setdefault(p[3], []).append(p[4])
    reasoned: set[tuple[int, int]] = set()
    for p in out:
        line, message = p[3], p[4]
        if p[1] != _TEXT or line not in thinking:
            continue
        for j in thinking[line]:
            if j == message or (
                j < message and not any(j < k < message for k in inputs.get(line, ()))
            ):
                reasoned.add((line, message))
                break
    return reasoned


def load_tools_option(value: str) -> frozenset[str]:
    """The tools a ``--tools`` value names: a JSON file (a list of OpenAI tool definitions or
    names, or an object with such a list under ``tools``) when ``value`` is a path to a file,
    else comma-separated tool names."""
    if value.endswith(".json") and not os.path.isfile(value):
        raise ToolsOptionError(
            f"--tools: expected a JSON file of tool definitions, no file {value!r}"
        )
    if os.path.isfile(value):
        try:
            with open(value, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raise ToolsOptionError(
                f"--tools: expected a JSON file of tool definitions, could not read it: {exc}"
            ) from None
        if isinstance(data, dict) and "tools" in data:
            data = data["tools"]
        if not isinstance(data, list):
            raise ToolsOptionError(
                "--tools: expected a JSON list of tool definitions (or an object with"
                f" 'tools'), got a JSON {type(data).__name__}"
            )
        try:
            return declared_tools(data)
        except TypeError as exc:
            raise ToolsOptionError(f"--tools: {exc}") from None
    names = [n.strip() for n in value.split(",")]
    if not all(names):
        raise ToolsOptionError(
            f"--tools: expected comma-separated tool names or a JSON file, got {value!r}"
        )
    return frozenset(names)
