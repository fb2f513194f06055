"""The one outcome vocabulary of ``guard serve``: the access log's ``outcome`` field and the
``outcome`` label of ``guard_serve_requests_total`` say the same word for the same request.

The words, the first that applies (what guard did to the answer before how the exchange
ended):

================ ========================================================================
``aborted``      a leak stopped the answer (``on_leak="abort"``)
``forged``       a forged tool result was found (the stream ends there unless ``report``)
``truncated``    a leak was cut out of the answer (``truncate``; ``recover`` too)
``reported``     a leak was found and let through (``report``)
``disconnected`` the client went away before the answer's end
``error``        the upstream or the proxy failed (``5xx``, or a failure after the status)
``refused``      the request was refused (``4xx``: by the proxy, or the upstream's own)
``passed``       the answer went through with nothing found
================ ========================================================================

The first four are the words of the ``x-guard-action`` header of a complete answer.
"""

from __future__ import annotations

from typing import Any

__all__ = ["OUTCOMES", "outcome_of"]

#: every word :func:`outcome_of` can say, in the order it tries them
OUTCOMES = (
    "aborted",
    "forged",
    "truncated",
    "reported",
    "disconnected",
    "error",
    "refused",
    "passed",
)

#: what guard did to the answer, by the access record's field that says so, in order: the
#: words of the ``x-guard-action`` header
_ACTIONS = (
    ("aborted", "aborted"),
    ("forged", "forged"),
    ("cut", "truncated"),
    ("leak", "reported"),
)


def outcome_of(status: int, fields: dict[str, Any]) -> str:
    """The outcome of a finished request from its status and its access record's fields
    (``aborted``, ``forged``, ``cut``, ``leak``, ``disconnected``, ``error``)."""
    for field, word in _ACTIONS:
        if fields.get(field):
            return word
    if status == 499 or fields.get("disconnected"):
        return "disconnected"
    if status >= 500 or (fields.get("error") and status < 400):
        return "error"
    if status >= 400:
        return "refused"
    return "passed"
