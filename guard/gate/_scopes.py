"""What a stream monitor does for the signals that read only the opening of a text or only its
end (``scope="opening"`` / ``"ending"``; docs/streaming.md, "The surface monitor"): hold the text
while its opening may still become such a hit and run those signals once it is complete; hold
from the earliest tail that may still become an ending hit, and run those signals at the end.
:class:`~guard.gate.SurfaceMonitor` takes these steps from :class:`ScopedSignals`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from guard.gate._holds import TAIL_START_SPAN, ending_hold, lead_state

if TYPE_CHECKING:
    from guard.gate._plan import StreamPlan
    from guard.gate._settler import Settler
    from guard.gate._window import Window
    from guard.models import Hit, Signal

__all__ = ["ScopedSignals"]

_OPENING = frozenset({"opening"})
_ENDING = frozenset({"ending"})


class ScopedSignals:
    """The opening and ending steps of a :class:`~guard.gate.SurfaceMonitor` (its state: the
    plan, the window, the settler, the flags below)."""

    total: int
    _plan: StreamPlan
    _window: Window
    _settler: Settler
    _finished: bool
    #: the opening signals have still to run / the text's opening matches a lead (None: not yet
    #: known)
    _opening: bool
    _leads: bool | None
    #: the ending signals have still to run; where to look for such a tail next
    _ending: bool
    _tail_from: int
    #: where the last sweep ran; the end of the last delta a trigger was seen in
    _swept: int
    _seen_at: int

    if TYPE_CHECKING:  # the monitor's own (declared here for the type checker only)

        @property
        def _buf(self) -> str: ...

        def _hits_in(
            self,
            lo: int,
            *,
            final: bool,
            hi: int | None = None,
            scopes: frozenset[str] = ...,
            signals: tuple[Signal, ...] | None = ...,
        ) -> list[Hit]: ...

        def _sweepers(self) -> tuple[Signal, ...]: ...

    def _opening_hold(self) -> int:
        """Hold the whole text while its opening may still become an opening signal's hit;
        run those signals once the opening is complete."""
        if self.total >= self._plan.opening_span:
            self._run_opening()
            return self.total
        if self._leads is None:
            leads = lead_state(self._plan, self._buf[:64])
            if leads is None:
                return 0  # a partial lead: decided by a later delta
            self._leads = leads
        if not self._leads:
            self._run_opening()  # it does not open with a lead: nothing more to wait for
            return self.total
        return 0

    def _run_opening(self) -> None:
        self._opening = False
        if self._leads is False:
            return  # the text does not open the way these signals need
        span = self._plan.opening_span
        final = self.total <= span and self._finished
        hits = self._hits_in(0, final=final, hi=min(span, self.total), scopes=_OPENING)
        self._settler.pending.extend(hits)

    def _ending_hold(self) -> int:
        """Start of the earliest tail that may still become an ending signal's hit."""
        lo = max(self._window.base, self._tail_from, self.total - self._plan.ending_span)
        start = ending_hold(self._plan, self._window.read(lo), lo)
        if start is None:
            # a tail start of several characters may still complete before the end
            self._tail_from = max(self._tail_from, self.total - TAIL_START_SPAN)
            return self.total
        self._tail_from = start  # an earlier place cannot become a tail again
        return start

    def _sweep_due(self) -> bool:
        """Whether the next sweep's text holds the place where a trigger was last seen (a
        text with none holds no hit)."""
        plan = self._plan
        return self._seen_at > self._swept + plan.sweep - plan.ending_span

    def _sweep(self) -> None:
        """Run the ending parts of ``anywhere`` signals (``Detection.ends``) over the end of
        the text kept so far: a hit longer than a window scan reads (Y's long call objects)
        is found while the stream goes on, not only at its end."""
        plan, total, base = self._plan, self.total, self._window.base
        # a delta longer than a step is swept at each step it passed, so no hit slips by
        points = range(self._swept + plan.sweep, total + 1, plan.sweep)
        self._swept = points[-1]
        signals = self._sweepers()
        seen = self._seen_at
        for at in points:
            if at <= base or at - plan.ending_span >= seen:
                continue  # nothing of it kept, or no trigger in it
            lo = max(base, at - plan.ending_span)
            hits = self._hits_in(lo, final=False, hi=at, scopes=_ENDING, signals=signals)
            if hits:
                self._settler.swept(hits, at)

    def _run_ending(self) -> None:
        self._ending = False
        lo = max(self._window.base, self.total - self._plan.ending_span)
        hits = self._hits_in(lo, final=True, scopes=_ENDING)
        self._settler.pending.extend(self._settler.fresh(hits))
