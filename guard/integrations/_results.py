"""What guard found in the complete responses the client wrappers return, kept beside them.

A complete response is the SDK's own object, which has no room for guard's findings; they are
kept here by the object's identity for as long as the object lives.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # at run time only stored, never built: no import cycle with the wrappers
    from guard.integrations.openai.protocol import GuardResult

__all__ = ["guard_result", "remember_result"]

_RESULTS: dict[int, GuardResult] = {}


def remember_result(obj: Any, result: GuardResult) -> None:
    """Keep ``result`` for ``obj`` while ``obj`` lives."""
    try:
        weakref.finalize(obj, _RESULTS.pop, id(obj), None)
    except TypeError:  # not weak-referenceable (a dict): the caller has the result itself
        return
    _RESULTS[id(obj)] = result


def guard_result(response: Any) -> GuardResult | None:
    """The :class:`GuardResult` of a complete response a guarded client returned (``None`` for
    anything else). Streams carry ``verdicts``, ``forged``, ``cut`` and ``chars_dropped``
    themselves."""
    return _RESULTS.get(id(response))
