"""Guarded Messages streams: events through :class:`MessageEventBridge` and the stream
middleware (docs/streaming.md, "Provider event streams"), sync and async twins with the same
names and shapes.

Each is a drop-in for the SDK's ``Stream`` / ``AsyncStream`` of raw message events: iterate it,
use it in ``with``, ``close()`` it (which closes the HTTP response), read ``response``; so the
SDK's own ``MessageStream`` can accumulate over it.
"""

from __future__ import annotations

import re

from guard.integrations.anthropic.protocol._bridge import MessageEventBridge
from guard.integrations.openai.protocol import (
    AsyncBridgedEventStream,
    BridgedEventStream,
    GuardedStreamBase,
    ProtocolGuard,
    by_iteration,
)

__all__ = ["AsyncGuardedMessageStream", "GuardedMessageStream", "guard_message_events"]


_CHUNK_PART = re.compile(r"(?:choices\[(\d+)\]\.)?(text|thinking|tool_name|tool_arg)(?:\[\d+\])?")
_BLOCK_SUFFIX = {"text": "", "thinking": "", "tool_name": ".name", "tool_arg": ".input"}


def block_part(name: str) -> str:
    """The middleware's part name (``choices[2].tool_arg[0]``) as the message's
    (``content[2].input``), as :func:`guard_message` names parts."""
    m = _CHUNK_PART.fullmatch(name)
    if m is None:
        return name
    return f"content[{m.group(1) or 0}]{_BLOCK_SUFFIX[m.group(2)]}"


class _MessageEvents(GuardedStreamBase):
    """The Messages protocol's streams: its bridge, and parts named by content block
    (``content[1]``, ``content[2].input``) as :func:`guard_message` names them."""

    _bridge_type = MessageEventBridge
    _rename = staticmethod(block_part)


class GuardedMessageStream(_MessageEvents, BridgedEventStream):
    """A guarded sync stream of Messages events (dicts or SDK objects)."""


class AsyncGuardedMessageStream(_MessageEvents, AsyncBridgedEventStream):
    """A guarded async stream of Messages events (dicts or SDK objects)."""


guard_message_events = ProtocolGuard(
    by_iteration(GuardedMessageStream, AsyncGuardedMessageStream),
    "guard_message_events",
    """Guard a stream of Anthropic Messages events (sync or async; dicts or SDK objects):
    ``text_delta`` is judged as text, ``thinking_delta`` as thinking, a ``tool_use`` block's
    name and ``input_json_delta`` as a tool call's name and arguments (delivered only once the
    block is complete). A stream guard stops ends with the open blocks stopped, a
    ``message_delta`` and ``message_stop``. ``tools``: the request's declared tools.""",
    "source",
    "Iterable[Any] | AsyncIterable[Any]",
)
