"""guard around the Anthropic Python SDK: :func:`guard_client` (install
``inband-guard[anthropic]``).

``guard_client(client)`` returns a copy of an ``anthropic.Anthropic`` or
``anthropic.AsyncAnthropic`` client whose HTTP client sends through the guarded transport
(:mod:`guard.transport`), so ``messages``, ``beta.messages``, ``with_raw_response``,
``with_streaming_response``, ``stream()`` and ``parse()`` are all guarded; it also serves
Anthropic-compatible endpoints (GLM, Kimi, MiniMax, DeepSeek: point ``base_url`` at them).
A stream is guarded event by event (``text_delta`` as text, ``thinking_delta`` as thinking, a
``tool_use`` block's name and ``input_json_delta`` as a tool call, delivered once its block is
complete); when guard stops it, the open block is stopped and ``message_delta`` and
``message_stop`` end it, so ``get_final_message()`` is well-formed. ``messages.create`` and
``messages.parse`` keep the findings (:func:`guard_result`, attributes on a stream).

The protocol half, :mod:`guard.integrations.anthropic.protocol`, imports no SDK and is what the
wire engine uses for ``/v1/messages``.
"""

from __future__ import annotations

from guard.integrations._results import guard_result
from guard.integrations.anthropic._client import GuardedAnthropic, guard_client
from guard.integrations.anthropic.protocol import (
    AsyncGuardedMessageStream,
    GuardedMessageStream,
    escape_messages_request,
    guard_message,
    guard_message_events,
)

__all__ = [
    "AsyncGuardedMessageStream",
    "GuardedAnthropic",
    "GuardedMessageStream",
    "escape_messages_request",
    "guard_client",
    "guard_message",
    "guard_message_events",
    "guard_result",
]
