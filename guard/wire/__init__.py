"""The wire engine: the one sans-IO reader of guarded API bodies that every transport uses
(``guard serve``'s relay and the httpx transport of :mod:`guard.transport`).

A request body goes in and the body to send comes out (or a refusal); see ``_request``. A
complete answer is judged by :func:`judge_answer`, a streamed one piece by piece by a
:class:`StreamedAnswer` (every string of every event judged: the :class:`EventJudge`; chat
one choice at a time: the :class:`ChoiceGuard`; endings in each API's terms: ``_endings``);
:func:`guarded_route` says which routes are guarded.
"""

from guard.wire._answer import (
    BadAnswer,
    JudgedAnswer,
    guard_action,
    judge_answer,
    judge_other_strings,
    loads_yielding,
)
from guard.wire._choices import ChoiceGuard
from guard.wire._endings import (
    fit_delta_logprobs,
    guard_object,
    messages_ending,
    responses_ending,
)
from guard.wire._events import EventJudge, Judged, UnreadableEvent
from guard.wire._exempt import EXEMPT_KEYS, OPAQUE_KEYS, STREAM_EXEMPT_KEYS, skipped
from guard.wire._request import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_ELEMENTS,
    VERBATIM_FIELDS,
    RequestRefused,
    SentRequest,
    fold_key,
    prepare_request,
    request_dialect,
)
from guard.wire._routes import NO_MODEL_OUTPUT, carries_no_model_output, guarded_route
from guard.wire._sse import DEFAULT_MAX_EVENT_BYTES, SSEDecoder, SSEEvent, SSELimitError, encode
from guard.wire._stream import StreamedAnswer, UpstreamFault, streamed_answer

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ELEMENTS",
    "DEFAULT_MAX_EVENT_BYTES",
    "EXEMPT_KEYS",
    "NO_MODEL_OUTPUT",
    "OPAQUE_KEYS",
    "STREAM_EXEMPT_KEYS",
    "VERBATIM_FIELDS",
    "BadAnswer",
    "ChoiceGuard",
    "EventJudge",
    "Judged",
    "JudgedAnswer",
    "RequestRefused",
    "SSEDecoder",
    "SSEEvent",
    "SSELimitError",
    "SentRequest",
    "StreamedAnswer",
    "UnreadableEvent",
    "UpstreamFault",
    "carries_no_model_output",
    "encode",
    "fit_delta_logprobs",
    "fold_key",
    "guard_action",
    "guard_object",
    "guarded_route",
    "judge_answer",
    "judge_other_strings",
    "loads_yielding",
    "messages_ending",
    "prepare_request",
    "request_dialect",
    "responses_ending",
    "skipped",
    "streamed_answer",
]
