"""guard around the Anthropic Python SDK: :func:`guard_client` (install
``inband-guard[anthropic]``).

``guard_client(client)`` wraps an ``anthropic.Anthropic`` or ``anthropic.AsyncAnthropic``
client; it also serves Anthropic-compatible endpoints (GLM, Kimi, MiniMax, DeepSeek: point
``base_url`` at them). Its ``messages.create`` (streaming or not), ``messages.stream`` and
``messages.parse``:

* escape ``system``, ``messages`` and tool definitions for the dialect of the requested
  ``model`` (or a fixed ``dialect=``), on a transport copy;
* guard a stream event by event: ``text_delta`` as text, ``thinking_delta`` as thinking, a
  ``tool_use`` block's name and ``input_json_delta`` as a tool call's name and arguments (a
  call is delivered once its block is complete). A forged tool result closes the HTTP
  response at once; when guard stops a stream it stops the open block and ends with
  ``message_delta`` and ``message_stop``, so the message the SDK accumulates
  (``get_final_message()``) is well-formed;
* judge a complete message block by block and apply ``on_leak`` (see
  :func:`guard.integrations.openai.guard_client`); what was found is in :func:`guard_result`.

Everything else passes through unchanged (``count_tokens``, ``batches``, ``beta``,
``with_raw_response``, ...). The protocol half, :mod:`guard.integrations.anthropic.protocol`,
imports no SDK and is what ``guard serve`` uses for ``/v1/messages``.
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
