"""guard around the OpenAI Python SDK: :func:`guard_client`.

``guard_client(client)`` wraps an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client. Its
``chat.completions.create`` and ``responses.create``:

* escape the outgoing messages / input items, instructions and tool definitions (a transport
  copy: the caller's objects are never mutated);
* for ``stream=True`` return the guarded stream: the same chunk or event types, iteration,
  ``with`` blocks and ``close()`` (which reaches the HTTP response, so the provider stops);
* for a complete response check every surface (text, reasoning, tool names and arguments) and
  apply ``on_leak``: ``truncate`` cuts visible text at the cut and drops a leaking tool call,
  ``abort`` raises :class:`guard.LeakAborted`, ``recover`` acts as ``truncate`` and records the
  policy's recovery outcome, ``report`` changes nothing. A forged tool result is always cut,
  never raised. What was found is in :func:`guard_result` (streams carry it as attributes).

Everything else on the client passes through unchanged (``models.list()``, ``with_raw_response``,
the ``.stream()`` helpers, ...): only ``create`` is guarded.

The request escaping and response checks work on plain JSON too: they are
:mod:`guard.integrations.openai.protocol`, which imports no SDK and which ``guard serve`` uses.
"""

from __future__ import annotations

from guard.integrations.openai._chat_streams import AsyncGuardedChatStream, GuardedChatStream
from guard.integrations.openai._client import GuardedClient, guard_client, guard_result
from guard.integrations.openai.protocol import (
    AbortMode,
    AsyncGuardedResponseStream,
    GuardedResponseStream,
    GuardResult,
    escape_chat_request,
    escape_responses_request,
    guard_chat_completion,
    guard_response,
    guard_response_events,
)

__all__ = [
    "AbortMode",
    "AsyncGuardedChatStream",
    "AsyncGuardedResponseStream",
    "GuardResult",
    "GuardedChatStream",
    "GuardedClient",
    "GuardedResponseStream",
    "escape_chat_request",
    "escape_responses_request",
    "guard_chat_completion",
    "guard_client",
    "guard_response",
    "guard_response_events",
    "guard_result",
]
