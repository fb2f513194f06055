"""The OpenAI wire protocol, guarded: request escaping and the judging of chat completions,
Responses API responses, chunks and events, on plain JSON or SDK objects alike.

Shared by the SDK wrapper (:func:`guard.integrations.openai.guard_client`) and ``guard serve``;
it imports no SDK (SDK event types are built only for a stream whose events are SDK objects).

* :func:`escape_chat_request`, :func:`escape_responses_request`: the transport copy of a
  request with every model-visible input escaped (``docs/escaping.md``).
* :func:`guard_chat_completion`, :func:`guard_response`: a complete response judged part by
  part and cut, dropped or aborted by ``on_leak``; :class:`GuardResult` says what happened.
* :func:`guard_response_events`: a Responses API event stream through the stream middleware
  (``docs/streaming.md``, "guard_stream") by way of :class:`ResponseEventBridge`. Chat
  completion chunk streams go to :func:`guard.guard_stream` directly.
"""

from __future__ import annotations

from guard.integrations.openai.protocol._bridge import ResponseEventBridge
from guard.integrations.openai.protocol._guards import ProtocolGuard, by_iteration
from guard.integrations.openai.protocol._judge import (
    GuardResult,
    guard_chat_completion,
    guard_response,
    judge_parts,
)
from guard.integrations.openai.protocol._parts import (
    Part,
    call_parts,
    chat_parts,
    response_parts,
)
from guard.integrations.openai.protocol._requests import (
    escape_chat_request,
    escape_responses_request,
    listed_plain,
)
from guard.integrations.openai.protocol._settings import (
    AbortMode,
    GuardSettings,
    declared_tools,
    request_tools,
)
from guard.integrations.openai.protocol._streams import (
    AsyncBridgedEventStream,
    AsyncGuardedResponseStream,
    AsyncGuardedStreamWrapper,
    BridgedEventStream,
    GuardedResponseStream,
    GuardedStreamBase,
    GuardedStreamWrapper,
    guard_response_events,
)

__all__ = [
    "AbortMode",
    "AsyncBridgedEventStream",
    "AsyncGuardedResponseStream",
    "AsyncGuardedStreamWrapper",
    "BridgedEventStream",
    "GuardResult",
    "GuardSettings",
    "GuardedResponseStream",
    "GuardedStreamBase",
    "GuardedStreamWrapper",
    "Part",
    "ProtocolGuard",
    "ResponseEventBridge",
    "by_iteration",
    "call_parts",
    "chat_parts",
    "declared_tools",
    "escape_chat_request",
    "escape_responses_request",
    "guard_chat_completion",
    "guard_response",
    "guard_response_events",
    "judge_parts",
    "listed_plain",
    "request_tools",
    "response_parts",
]
