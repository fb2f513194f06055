"""guard around the OpenAI Python SDK: :func:`guard_client`.

``guard_client(client)`` returns a copy of an ``openai.OpenAI`` or ``openai.AsyncOpenAI`` client
whose HTTP client sends through the guarded transport (:mod:`guard.transport`, ``guard serve``'s
rules and settings), so every method is guarded: requests to the chat, Responses and Messages
routes are escaped (every string, on a transport copy), answers judged streamed or not and cut,
ended or reported by ``on_leak``, routes that may carry model output and are not guarded refused.
``chat.completions.create`` and ``responses.create`` also keep what guard found: a stream carries
``verdicts``, ``forged``, ``cut``, ``chars_dropped``, ``upstream_closed`` and ``outcomes``; a
complete response's findings are in :func:`guard_result`; ``on_leak="abort"`` raises
:class:`guard.LeakAborted`.

The request escaping and response checks work on plain JSON too: they are
:mod:`guard.integrations.openai.protocol`, which imports no SDK and which the wire engine uses.
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
