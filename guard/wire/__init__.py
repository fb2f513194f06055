"""The wire engine: the one sans-IO reader of guarded API bodies that every transport uses.

A request body goes in and the body to send comes out (or a refusal); see ``_request``.
"""

from guard.wire._answer import EXEMPT_KEYS, guard_action, judge_other_strings
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

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "DEFAULT_MAX_ELEMENTS",
    "EXEMPT_KEYS",
    "VERBATIM_FIELDS",
    "RequestRefused",
    "SentRequest",
    "fold_key",
    "guard_action",
    "judge_other_strings",
    "prepare_request",
    "request_dialect",
]
