"""Complete Messages responses: every content block judged, then cut, dropped or aborted.

A ``text`` block is judged on ``text``, a ``thinking`` block on ``thinking``, a ``tool_use``
block on its name and its input (as JSON text); how each verdict is acted on is the OpenAI
protocol's (:func:`guard.integrations.openai.protocol.judge_parts`): text is cut at the cut, a
leaking ``tool_use`` block is dropped whole, a forged tool result is cut, never raised.
"""

from __future__ import annotations

import json
from typing import Any

from guard._fields import get_field, set_field
from guard.integrations.openai.protocol import (
    AbortMode,
    GuardResult,
    GuardSettings,
    Part,
    ProtocolGuard,
    judge_parts,
)
from guard.models import Surface

__all__ = ["TOOL_BLOCKS", "guard_message", "message_parts"]

#: content block types that are tool calls
TOOL_BLOCKS = ("tool_use", "server_tool_use")
_TEXT_BLOCKS = {"text": ("text", Surface.TEXT), "thinking": ("thinking", Surface.THINKING)}


def message_parts(message: Any) -> list[Part]:
    """The judged parts of a Messages response (dict or SDK object), in order:
    ``content[i]`` for text and thinking, ``content[i].name`` / ``content[i].input`` for a tool
    call."""
    parts: list[Part] = []
    for i, block in enumerate(get_field(message, "content") or ()):
        kind = get_field(block, "type")
        path = f"content[{i}]"
        if kind == "text" and isinstance(get_field(block, "text"), str):
            parts.append(Part(path, Surface.TEXT, get_field(block, "text"), block, "text"))
        elif kind == "thinking" and isinstance(get_field(block, "thinking"), str):
            parts.append(
                Part(path, Surface.THINKING, get_field(block, "thinking"), block, "thinking")
            )
        elif kind in TOOL_BLOCKS:
            name = get_field(block, "name")
            name = name if isinstance(name, str) else ""
            arguments = get_field(block, "input")
            if not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)
            for suffix, surface, text in (
                ("name", Surface.TOOL_NAME, name),
                ("input", Surface.TOOL_ARG, arguments),
            ):
                parts.append(
                    Part(
                        f"{path}.{suffix}",
                        surface,
                        text,
                        block,
                        suffix,
                        tool_name=name or None,
                        container=message,
                        list_key="content",
                        element=block,
                    )
                )
    return parts


def _finish_message(out: Any, parts: list[Part], result: GuardResult) -> None:
    """An aborted message stops with ``refusal``; one whose every tool call was dropped
    stops with ``end_turn`` instead of ``tool_use``."""
    if result.aborted:
        set_field(out, "stop_reason", "refusal")
        return
    blocks = get_field(out, "content") or ()
    if get_field(out, "stop_reason") == "tool_use" and not any(
        get_field(b, "type") in TOOL_BLOCKS for b in blocks
    ):
        set_field(out, "stop_reason", "end_turn")


def _judge_message(
    message: Any, settings: GuardSettings, abort: AbortMode
) -> tuple[Any, GuardResult]:
    return judge_parts(message, message_parts, _finish_message, settings, abort)


guard_message = ProtocolGuard(
    _judge_message,
    "guard_message",
    """Check a complete Messages response (dict or SDK ``Message``) and apply ``on_leak``;
    ``tools`` are the request's declared tools (``docs/detection.md``, "Context").

    Returns the message to deliver (the same object when nothing changes, otherwise a changed
    deep copy) and the :class:`GuardResult`. With ``abort="filter"`` an aborting leak cuts the
    message and stops it with ``refusal``.

    Raises:
        LeakAborted: ``on_leak="abort"``, ``abort="raise"`` and a part leaks.
    """,
    "message",
)
