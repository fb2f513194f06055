"""The wire engine: the one sans-IO reader of guarded API bodies that every transport uses
(``guard serve``'s relay and the httpx transport of :mod:`guard.transport`).

A request body goes in and the body to send comes out (or a refusal); see ``_request``. A
complete answer is judged by :func:`judge_answer`, a streamed one piece by piece by a
:class:`StreamedAnswer`; :func:`guarded_route` says which routes are guarded.
"""

from guard.wire._answer import (
    EXEMPT_KEYS,
    BadAnswer,
    JudgedAnswer,
    guard_action,
    judge_answer,
    judge_other_strings,
    loads_yielding,
)
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
    "VERBATIM_FIELDS",
    "BadAnswer",
    "JudgedAnswer",
    "RequestRefused",
    "SSEDecoder",
    "SSEEvent",
    "SSELimitError",
    "SentRequest",
    "StreamedAnswer",
    "UpstreamFault",
    "carries_no_model_output",
    "encode",
    "fold_key",
    "guard_action",
    "guarded_route",
    "judge_answer",
    "judge_other_strings",
    "loads_yielding",
    "prepare_request",
    "request_dialect",
    "streamed_answer",
]
