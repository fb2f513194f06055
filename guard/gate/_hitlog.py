"""The decided hits of a stream's surface, bounded like a verdict's: the earliest ``cap`` in full,
the rest as the counts and sums a verdict reports of them.

A stream of leak-dense text decides a hit every few characters; a verdict keeps only the
policy's ``max_hits`` of them (:func:`~guard.gate.make_verdict`), so keeping every one until
the end would cost memory in proportion to the stream for nothing. The log keeps at most twice
``cap`` hits, folding the latest of them into counts when it reaches that.
"""

from __future__ import annotations

from guard.models import Hit, Surface, Verdict

__all__ = ["HitLog"]


def _order(hit: Hit) -> tuple[int, int]:
    return hit.start, -hit.end


class HitLog:
    """Decided hits: ``hits`` (unsorted, the earliest ``cap`` of those folded so far and every
    later one) and, for the hits folded away, what a verdict needs of them."""

    __slots__ = ("cap", "first", "hits", "over", "over_code", "over_score", "over_trips", "signals")

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.hits: list[Hit] = []
        #: hits folded away, how many of them trip or sit in closed code, their tripping score
        self.over = 0
        self.over_trips = 0
        self.over_code = 0
        self.over_score = 0.0
        #: the signals of the folded tripping hits, in order of first appearance
        self.signals: dict[str, None] = {}
        #: the earliest folded hit that trips (by its cut)
        self.first: Hit | None = None

    def append(self, hit: Hit) -> None:
        self.hits.append(hit)
        if len(self.hits) >= 2 * self.cap:
            self._fold()

    def _fold(self) -> None:
        self.hits.sort(key=_order)
        rest = self.hits[self.cap :]
        del self.hits[self.cap :]
        for hit in rest:
            self.over += 1
            self.over_code += hit.in_code
            if hit.trips:
                self.over_trips += 1
                self.over_score += hit.score
                self.signals.update(dict.fromkeys(hit.signals))
                if self.first is None or hit.cut < self.first.cut:
                    self.first = hit

    def __len__(self) -> int:
        """How many hits were logged, folded ones included."""
        return len(self.hits) + self.over

    def complete(self, verdict: Verdict, hits: list[Hit], surface: Surface) -> Verdict:
        """``verdict`` on the kept ``hits`` (and the earliest folded tripping one), completed
        with what the log counted of the hits it folded away: as
        :func:`~guard.gate.make_verdict` would say it of every hit."""
        first = self.first
        total = len(self)
        trips = sum(h.trips for h in hits) + self.over_trips - (first is not None)
        if trips:
            head = min((h for h in hits if h.trips), key=lambda h: (h.start, -h.end))
            more = f"; {trips - 1} more tripping" if trips > 1 else ""
            reason = f"leak on {surface.value}: {head.label} at {head.start} ({head.detail}){more}"
        else:
            in_code = sum(h.in_code for h in hits) + self.over_code
            reason = f"{total} hit(s), none tripping"
            if in_code:
                reason += f"; {in_code} inside closed code"
        signals = dict.fromkeys(verdict.signals)
        signals.update(self.signals)
        return verdict.model_copy(
            update={
                "hits_dropped": total - len(verdict.hits),
                "signals": tuple(signals),
                "score": verdict.score + self.over_score - (first.score if first else 0.0),
                "reason": reason,
            }
        )
