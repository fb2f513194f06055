"""The Anthropic Messages wire protocol, guarded: request escaping and the judging of messages
and stream events, on plain JSON or SDK objects alike.

Shared by the SDK wrapper (:func:`guard.integrations.anthropic.guard_client`) and ``guard
serve`` (``/v1/messages``); it imports no SDK (SDK event types are built only for a stream
whose events are SDK objects). The judging itself is the OpenAI protocol's
(:func:`guard.integrations.openai.protocol.judge_parts`, the stream middleware), read through
Anthropic shapes.

* :func:`escape_messages_request`: the transport copy of a request with ``system``,
  ``messages`` and ``tools`` escaped (``docs/escaping.md``, "Anthropic Messages").
* :func:`guard_message`: a complete message judged block by block.
* :func:`guard_message_events`: a stream of message events through the stream middleware by
  way of :class:`MessageEventBridge`.
"""

from __future__ import annotations

from guard.integrations.anthropic.protocol._bridge import MessageEventBridge
from guard.integrations.anthropic.protocol._judge import TOOL_BLOCKS, guard_message, message_parts
from guard.integrations.anthropic.protocol._requests import escape_messages_request
from guard.integrations.anthropic.protocol._streams import (
    AsyncGuardedMessageStream,
    GuardedMessageStream,
    block_part,
    guard_message_events,
)

__all__ = [
    "TOOL_BLOCKS",
    "AsyncGuardedMessageStream",
    "GuardedMessageStream",
    "MessageEventBridge",
    "block_part",
    "escape_messages_request",
    "guard_message",
    "guard_message_events",
    "message_parts",
]
