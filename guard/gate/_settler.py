"""The settler of a :class:`~guard.gate.SurfaceMonitor`: from anchors found in the window to
decided hits (docs/streaming.md, "The surface monitor").

An anchor found in a window is *early* until the text to its right that any co-signal reads has
arrived; then it is *settled* (its co-signals complete) and *pending* until its code status and
the parse boundary are final; then it is *decided* (:func:`~guard.gate.decide`) and logged. On
text and thinking without a boundary rule, pending hits whose code status is open are *parked*
and walked again only once the earliest of their ends is certain. The settler also says which
hit trips (``trip``) and how far text may be shown while hits are undecided (:meth:`bound`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import InitVar, dataclass
from itertools import chain

from guard.gate._code import CodeTracker
from guard.gate._hitlog import HitLog
from guard.gate._parked import ParkedHits
from guard.gate._plan import StreamPlan
from guard.gate._policy import SurfaceRule
from guard.gate._whole import decide
from guard.models import Hit

__all__ = ["NEVER", "Settler"]

NEVER = 1 << 62
#: how many settled hits of signals with an ending part are remembered before the ones the
#: ending pass can no longer read are let go
_ENDED_CAP = 1024

#: ``hits_in(lo, final)``: the hits of the monitor's window from ``lo`` on, with co-signals
HitsIn = Callable[[int, bool], list[Hit]]


@dataclass(eq=False, repr=False)
class Settler:
    """The decision state of one surface; see the module docstring."""

    plan: StreamPlan
    rule: SurfaceRule
    weights: dict[str, float]
    max_hits: InitVar[int]
    #: the parse boundary's co-signal, added to hits once the boundary is known
    boundary_code: str
    code: CodeTracker | None
    #: the parse boundary of the text so far (``None``: not known yet)
    boundary: Callable[[], int | None]
    #: whether a co-signal of the rule's ``unless`` comes to a hit (I: a token named in prose,
    #: decided by the words after it): ``True``, ``False``, or ``None`` while the text so far
    #: cannot tell. Such a hit is not tripped early unless the answer is ``False``, and is
    #: withheld while it is ``None``
    vetoed: Callable[[Hit], bool | None] = lambda hit: False

    def __post_init__(self, max_hits: int) -> None:
        self.injection = self.rule.mode == "injection"
        #: the text has ended: every status is final
        self.finished = False
        self.settled = 0  # anchors starting before this are final (but for code / boundary)
        self.due: int | None = None  # settle again once the stream reaches this length
        self.early: dict[int, Hit] = {}  # unsettled hits by start (partial co-signals)
        self.pending: list[Hit] = []  # settled hits awaiting code status or the boundary
        #: settled hits parked until the code status of their end is final (text and thinking:
        #: an open fence or an unpaired backtick run may hold thousands of them), with the
        #: smallest end among them, the smallest cut, and the smallest cut of those that would
        #: trip unless code encloses them; a delta walks them only once that end is certain
        #: (kept compact: :mod:`guard.gate._parked`)
        self.waiting = ParkedHits()
        self.waiting_end = NEVER
        self.waiting_from = NEVER
        self.waiting_cut = NEVER
        #: findings of an input surface (never decided: they do not trip)
        self.found: list[Hit] = []
        #: decided hits; leak mode keeps the earliest max_hits and counts the rest
        self.log = HitLog(max_hits)
        self.trip: Hit | None = None
        #: the hits of signals with an ending part (``StreamPlan.end_codes``) that window scans
        #: settled, by code and span, so the ending pass does not take one again
        self.ended: set[tuple[str, int, int]] = set()

    @property
    def idle(self) -> bool:
        """Nothing is early, pending, parked, due or tripped."""
        return (
            not self.early
            and not self.pending
            and not self.waiting
            and self.trip is None
            and self.due is None
        )

    # --- from the window to settled hits ------------------------------------------------------

    def discover(self, hits: list[Hit]) -> None:
        """Anchors that the last delta completed (``hits``, scanned with the evidence to their
        left: enough for an early decision); their full co-signals come when they settle."""
        early = self.early
        for hit in hits:
            # A hit near the scan's start may lack its channel word: that only delays it.
            if hit.start >= self.settled:
                early[hit.start] = hit
                # a spelling found inside a longer one of the same signal that has now arrived
                # whole (``|DSML|`` inside ``<|DSML|invoke>``) is no hit of its own, as in a
                # whole scan (a signal's matches do not overlap; another signal's may)
                for at in range(hit.start + 1, hit.end):
                    inner = early.get(at)
                    if inner is not None and inner.end <= hit.end and inner.code == hit.code:
                        del early[at]
        if self.early and self.due is None:
            self.due = min(self.early) + self.plan.right

    @property
    def settle_from(self) -> int:
        """Where a settling scan must start (with the left context of the next anchor)."""
        return self.settled - self.plan.left

    def settle(self, hits: list[Hit], total: int, *, final: bool) -> None:
        """Settle every anchor of ``hits`` (a scan with full context from
        :meth:`settle_from`) whose right context is complete at ``total``."""
        limit = total if final else total - self.plan.right
        early: dict[int, Hit] = {}
        ends = self.plan.end_codes
        for hit in hits:
            if hit.start < self.settled:
                continue
            if hit.start < limit:
                if ends and hit.code in ends:
                    if (hit.code, hit.start, hit.end) in self.ended:
                        continue  # a sweep took it already
                    self._ended(hit, total)
                self.pending.append(hit)
            else:
                early[hit.start] = hit
        self.early = early
        self.settled = max(self.settled, limit)
        self.due = min(early) + self.plan.right if early else None

    def _ended(self, hit: Hit, total: int) -> None:
        if len(self.ended) >= _ENDED_CAP:
            # only hits the ending pass can still read (the last ``ending_span`` characters)
            # are worth keeping
            floor = total - self.plan.ending_span
            self.ended = {key for key in self.ended if key[2] > floor}
        self.ended.add((hit.code, hit.start, hit.end))

    def swept(self, hits: list[Hit], total: int) -> None:
        """Settle the hits of a sweep (the ending parts of ``anywhere`` signals run while the
        text grows) whose co-signals have all they read and that no scan took yet."""
        limit = total - self.plan.right
        ended = self.ended
        for hit in hits:
            if hit.end > limit or (hit.code, hit.start, hit.end) in ended:
                continue  # a later sweep or the end takes it; or it is taken
            self._ended(hit, total)
            self.pending.append(hit)

    def fresh(self, hits: list[Hit]) -> list[Hit]:
        """The ending pass's ``hits`` but those window scans already settled."""
        ended = self.ended
        if not ended:
            return hits
        return [h for h in hits if (h.code, h.start, h.end) not in ended]

    def advance(self, total: int) -> None:
        """With nothing early, text older than the co-signals' right reach is settled."""
        if not self.early and total - self.plan.right > self.settled:
            self.settled = total - self.plan.right

    # --- deciding ------------------------------------------------------------------------------

    def code_known(self, hit: Hit) -> bool | None:
        """True/False when the code status of ``hit`` is final, None while it may change."""
        code = self.code
        if code is None:
            return False
        if hit.end <= code.certain_upto:
            return code.in_code(hit.start, hit.end)
        return None

    def boundary_known(self, hit: Hit) -> bool:
        """Whether the boundary co-signal is final for this hit (always, outside a surface
        whose rule requires it)."""
        if self.boundary_code not in self.rule.require or self.finished:
            return True
        return self.boundary() is not None

    def resolve(self) -> None:
        """Decide the pending hits whose code status and boundary are final."""
        if self.injection:  # input: findings, never a trip
            self.found.extend(self.pending)
            self.pending = []
            return
        code = self.code
        if code is not None and self.boundary_code not in self.rule.require:
            self._resolve_parked(code.certain_upto)
            return
        keep: list[Hit] = []
        for hit in self.pending:
            in_code = self.code_known(hit)
            if in_code is None or not self.boundary_known(hit):
                keep.append(hit)
                continue
            self._log(decide(self.with_boundary(hit), self.rule, self.weights, in_code))
        self.pending = keep

    def _log(self, decided: Hit) -> None:
        self.log.append(decided)
        if decided.trips and (self.trip is None or decided.cut < self.trip.cut):
            self.trip = decided

    def _resolve_parked(self, certain: int) -> None:
        """:meth:`resolve` where only the code status can hold a hit back (no boundary):
        hits whose end is not yet certain are parked, and the parked ones are walked again only
        once the earliest of their ends is certain. Hits are decided in the order they were
        settled, as the plain walk decides them."""
        code = self.code
        assert code is not None
        hits: Iterable[Hit]
        if self.waiting and self.waiting_end <= certain:
            # walked lazily: each parked hit is made again, decided and let go in turn
            hits = chain(self.waiting, self.pending)
            self.waiting = ParkedHits()
            self.waiting_end = self.waiting_from = self.waiting_cut = NEVER
        else:
            hits = self.pending
        self.pending = []
        rule, weights = self.rule, self.weights
        for hit in hits:
            if hit.end > certain:
                self.waiting.append(hit)
                self.waiting_end = min(self.waiting_end, hit.end)
                self.waiting_from = min(self.waiting_from, hit.cut)
                if hit.cut < self.waiting_cut and decide(hit, rule, weights, False).trips:
                    self.waiting_cut = hit.cut
                continue
            self._log(decide(hit, rule, weights, code.in_code(hit.start, hit.end)))

    def with_boundary(self, hit: Hit) -> Hit:
        """Hits found before the boundary was known lack its co-signal; add it once it is."""
        code = self.boundary_code
        if code not in self.rule.require or code in hit.signals:
            return hit
        boundary = self.boundary()
        if boundary is None or hit.start < boundary:
            return hit
        support = Hit(
            signals=(code,),
            start=hit.start,
            end=hit.end,
            evidence=hit.evidence,
            detail=f"after the arguments end at {boundary}",
        )
        return hit.replace(**{"signals": (*hit.signals, code), "support": (*hit.support, support)})

    def check_early(self) -> None:
        """Act on early hits before they settle when their trip cannot change any more."""
        if self.injection:
            return
        for hit in self.early.values():
            self._check_early(hit)

    def _check_early(self, hit: Hit) -> None:
        if self.trip is not None and self.trip.cut <= hit.cut:
            return
        if self.code_known(hit) is not False or not self.boundary_known(hit):
            return
        if self.vetoed(hit) is not False:
            return
        hit = self.with_boundary(hit)
        stable = {hit.code, *self.plan.stable}
        probe = hit.replace(**{"signals": tuple(c for c in hit.signals if c in stable)})
        if decide(probe, self.rule, self.weights, False).trips:
            self.trip = decide(hit, self.rule, self.weights, False)

    # --- what may be shown --------------------------------------------------------------------

    def keep_from(self) -> int:
        """The earliest offset the settler may still need text from."""
        keep = max(0, self.settled - self.plan.left)
        for hit in self.pending:
            keep = min(keep, hit.cut)
        return min(keep, self.waiting_from)

    def bound(self, hold: int) -> int:
        """How far text may be shown while hits are undecided (``hold``: what the hold-back
        rules allow)."""
        if self.trip is None and not self.pending and not self.waiting and not self.early:
            return hold
        bound = min(hold, self.waiting_cut)  # parked hits: their code status is open
        if self.trip is not None:
            bound = min(bound, self.trip.cut)
        for hit in self.pending:
            if self._would_trip_but_for_code(hit):
                bound = min(bound, hit.cut)
        for hit in self.early.values():
            # An anchor that may still trip once co-signals to its right arrive (B, R, S, G) is
            # withheld until it settles, so a late trip never shows text past its cut; so is a
            # hit whose veto the text so far cannot decide yet (I: the words after a token).
            if (
                hit.code in self.rule.anchors
                or self._would_trip_but_for_code(hit)
                or (
                    self.code_known(hit) is not True
                    and decide(hit, self.rule, self.weights, False).trips
                    and self.vetoed(hit) is None
                )
            ):
                bound = min(bound, hit.cut)
        return bound

    def _would_trip_but_for_code(self, hit: Hit) -> bool:
        if self.code_known(hit) is False and self.boundary_known(hit):
            return False
        rule, weights = self.rule, self.weights
        if decide(self.with_boundary(hit), rule, weights, False).trips:
            return True
        code = self.boundary_code
        return (
            code in rule.require
            and not self.boundary_known(hit)
            and decide(hit.replace(**{"signals": (*hit.signals, code)}), rule, weights, False).trips
        )
