"""Hits parked by the settler while their code status is open, kept compact.

After a backtick run that has found no partner, every hit of the paragraph waits (the span may
still close and make it code): leak-dense text parks one hit every few characters. A plain hit
(no co-signal, no lead, undecided) differs from the others of its spelling only by its offsets,
so it is kept as two offsets and the index of a shared prototype (about 20 bytes, where the hit
and its two offsets cost about 170), and made again, equal, when it is walked. Other hits are
kept as they are. Order is kept: the settler decides parked hits in the order they were parked.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator

from guard.models import Hit

__all__ = ["ParkedHits"]

#: distinct prototypes kept at most; past them a plain hit is kept as it is (a text whose every
#: hit has its own evidence gains nothing from sharing)
MAX_PROTOTYPES = 256


class ParkedHits:
    """Parked hits in order; see the module docstring."""

    __slots__ = ("_ends", "_kinds", "_objects", "_prototype_of", "_prototypes", "_starts")

    def __init__(self) -> None:
        self._starts = array("q")
        self._ends = array("q")
        #: per hit: the index of its prototype (>= 0), or ``-1 - i`` for ``_objects[i]``
        self._kinds = array("q")
        self._prototypes: list[Hit] = []
        self._prototype_of: dict[tuple[tuple[str, ...], str, str], int] = {}
        self._objects: list[Hit] = []

    def __len__(self) -> int:
        return len(self._kinds)

    def __bool__(self) -> bool:
        return bool(self._kinds)

    def append(self, hit: Hit) -> None:
        self._starts.append(hit.start)
        self._ends.append(hit.end)
        if (
            hit.support
            or hit.lead is not None
            or hit.anchor is not None
            or hit.in_code
            or hit.trips
            or hit.score
        ):
            self._kinds.append(-1 - len(self._objects))
            self._objects.append(hit)
            return
        key = (hit.signals, hit.evidence, hit.detail)
        k = self._prototype_of.get(key)
        if k is None:
            if len(self._prototypes) >= MAX_PROTOTYPES:
                self._kinds.append(-1 - len(self._objects))
                self._objects.append(hit)
                return
            k = self._prototype_of[key] = len(self._prototypes)
            self._prototypes.append(hit)
        self._kinds.append(k)

    def __iter__(self) -> Iterator[Hit]:
        prototypes, objects = self._prototypes, self._objects
        for start, end, kind in zip(self._starts, self._ends, self._kinds, strict=True):
            if kind < 0:
                yield objects[-1 - kind]
            else:
                p = prototypes[kind]
                yield Hit(p.signals, start, end, p.evidence, p.detail)
