"""The hold-back rules of a stream: how much of the end of what has arrived a
:class:`~guard.gate.SurfaceMonitor` must withhold because a later delta may still turn it into
a hit (docs/streaming.md, "The surface monitor").

Each rule reads the signals' stream hints, compiled in the :class:`~guard.gate.StreamPlan`, and
answers with the offset from which the text is held (``total``: nothing held):

* :func:`word_hold`: a tail that may still grow into a word spelling that trips at its own start
  (``assistantfinal``), or the text's opening that may still become an opening word;
* :func:`bracket_hold`: a tail that is a proper prefix of a bracket spelling (``<|chan``);
* :func:`lead_state`: whether the text's opening may still become an ``opening`` signal's hit;
* :func:`ending_hold`: the earliest tail that may still become an ``ending`` signal's hit;
* :func:`sighting`: whether a delta arms the scan (a trigger) or is only looked at and held.
"""

from __future__ import annotations

from collections.abc import Callable

from guard.gate._plan import StreamPlan
from guard.models import TextView

__all__ = [
    "ARM",
    "LOOK",
    "TAIL_START_SPAN",
    "bracket_hold",
    "ending_hold",
    "lead_state",
    "sighting",
    "word_hold",
]

#: the longest text a published ``tail_start`` matches (see :class:`~guard.models.StreamHints`)
TAIL_START_SPAN = 64
#: what a delta shows (:func:`sighting`): a trigger, or only where a held spelling may begin
ARM = object()
LOOK = object()


def sighting(
    plan: StreamPlan, delta: str, near: str, before: int, head: Callable[[], str]
) -> object | None:
    """What ``delta`` (with ``near``, the end of the text up to it; ``before`` characters came
    before it; ``head()`` the text's opening) shows: :data:`ARM`, a trigger in view (or a
    non-ASCII character, or an opening word) that may complete a hit, so the scan is armed for
    one anchor span; :data:`LOOK`, only where a held spelling may begin (looked at and held,
    not armed: one `?` of `? No` would keep a hundred characters off the quiet path); None."""
    if plan.always or not delta.isascii():
        return ARM
    view = near
    seen = plan.trigger.search(near)
    if seen is None and not near.isascii():
        # a literal split by an invisible character earlier in the tail
        view = TextView(near).norm
        seen = plan.trigger.search(view)
    if seen is not None:
        return ARM if plan.arm is plan.trigger or plan.arm.search(view) else LOOK
    if plan.opening and before < plan.opening_window:
        # the opening words announce hits at the start of the text only
        return ARM if plan.opens(head()) else None
    return None


def word_hold(plan: StreamPlan, tail: str, total: int) -> int:
    """Start of a tail of ``tail`` (the last characters of a text of length ``total``) that
    may still grow into a word spelling, or ``total``."""
    tail_start = total - len(tail)
    view = None if tail.isascii() else TextView(tail)
    norm = tail if view is None else view.norm
    at = plan.opening_hold(norm) if total <= plan.opening_window else None
    if at is None:
        at = plan.word_hold(norm)
    if at is None:
        return total
    return tail_start + (at if view is None else view.to_original(at))


def bracket_hold(plan: StreamPlan, tail: str, total: int) -> int:
    """Start of the earliest tail of ``tail`` that is a proper prefix of a spelling that trips
    at its own start (the signals' hold patterns), or ``total``."""
    pattern = plan.holds
    if pattern is None:
        return total
    tail_start = total - len(tail)
    view = TextView(tail)
    norm = view.norm
    starts = plan.hold_starts
    # a proper prefix of a spelling starts less than its longest length before the end
    lo = 0 if plan.hold_reach is None else max(0, len(norm) - plan.hold_reach + 1)
    # `regex` prefers a full match over an earlier partial one, so each place where a
    # spelling may begin is tried on its own, anchored there.
    positions = (m.start() for m in starts.finditer(norm, lo)) if starts else range(lo, len(norm))
    prefixes = plan.hold_prefixes
    for at in positions:
        if prefixes is not None and norm[at:] not in prefixes:
            continue  # not a proper prefix of any spelling: no partial match
        m = pattern.match(norm, at, partial=True)
        if m is not None and m.partial:
            return tail_start + view.to_original(at)
    return total


def lead_state(plan: StreamPlan, head: str) -> bool | None:
    """Whether a text opening with ``head`` (its first 64 characters) opens with the lead of an
    ``opening`` signal: ``False`` it does not, ``True`` it does (whole), ``None`` undecided (a
    partial lead that a later delta decides)."""
    norm = head if head.isascii() else TextView(head).norm
    if not plan.leads(norm):
        return False
    if plan.lead is not None and plan.lead.match(norm) is not None:
        return True  # a full lead: undecided until the opening is complete
    return None


def ending_hold(plan: StreamPlan, window: str, lo: int) -> int | None:
    """The start (absolute: ``window`` begins at ``lo``) of the earliest tail of ``window``
    that may still become an ``ending`` signal's hit, or ``None``."""
    view = None if window.isascii() else TextView(window)
    norm = window if view is None else view.norm
    at = plan.tail_hold(norm, 0)
    if at is None:
        return None
    return lo + (at if view is None else view.to_original(at))
