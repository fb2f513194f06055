"""Which texts may yield a hit at all, from what the signals publish (their triggers).

A batch of texts (an audit reads millions) is searched once for every trigger of the anchor
signals of their surfaces, joined by a separator no trigger matches; only the texts a match
falls in go through the gate. The answer is a superset: a text left out cannot yield a hit,
because each anchor signal promises that every text it fires on contains one of its literals
or matches its pattern (itself or its normalised view), and each signal of the opening
promises that every text it fires on starts with a match of its ``lead``. A signal that
promises nothing (``always``) makes every text a candidate.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from functools import cache
from itertools import accumulate

from guard.models import Dialect, Signal, Surface, TextView
from signals import load_signals

__all__ = ["Prefilter", "prefilter"]

#: Separators tried in turn: the first that no trigger can match joins a batch.
_SEPARATORS = ("\n", "\x00", ":", "\x1f", " ")


class Prefilter:
    """One combined search for the triggers of the anchor signals of some surfaces, and one
    match at the start of each text for the leads of the signals that read only the opening
    of a text (``scope="opening"``)."""

    __slots__ = ("lead", "pattern", "sep")

    def __init__(
        self, pattern: re.Pattern[str], sep: str | None, lead: re.Pattern[str] | None = None
    ) -> None:
        self.pattern = pattern
        self.sep = sep
        self.lead = lead

    def _leads(self, text: str) -> bool:
        lead = self.lead
        if lead is None:
            return False
        if lead.match(text) is not None:
            return True
        return not text.isascii() and lead.match(TextView(text).norm) is not None

    def could_hit(self, text: str) -> bool:
        """False when ``text`` cannot yield a hit on these surfaces."""
        if self.pattern.search(text) is not None or self._leads(text):
            return True
        return not text.isascii() and self.pattern.search(TextView(text).norm) is not None

    def candidates(self, texts: Sequence[str]) -> list[int]:
        """Indices, in order, of the texts that may yield a hit (a superset)."""
        if self.sep is None or len(texts) == 1:
            return [i for i, t in enumerate(texts) if self.could_hit(t)]
        narrow = [i for i, t in enumerate(texts) if t.isascii()]
        found = self._search(texts, narrow, normalise=False)
        if len(narrow) < len(texts):
            # non-ASCII texts: their originals and their normalised views (lookalikes)
            wide = [i for i, t in enumerate(texts) if not t.isascii()]
            found |= self._search(texts, wide, normalise=False)
            found |= self._search(texts, wide, normalise=True)
        if self.lead is not None:
            found.update(i for i, t in enumerate(texts) if i not in found and self._leads(t))
        return sorted(found)

    def _search(self, texts: Sequence[str], where: list[int], *, normalise: bool) -> set[int]:
        if not where:
            return set()
        sep = self.sep
        assert sep is not None
        joined = sep.join(texts[i] for i in where)
        view = TextView(joined) if normalise else None
        haystack = joined if view is None else view.norm
        starts = [0, *accumulate(len(texts[i]) + len(sep) for i in where)]
        found: set[int] = set()
        pos = 0
        search = self.pattern.search
        while True:
            m = search(haystack, pos)
            if m is None:
                return found
            at = m.start() if view is None else view.to_original(m.start())
            k = bisect.bisect_right(starts, at) - 1
            found.add(where[k])
            # the rest of that text cannot add anything: go on from the next one
            nxt = starts[k + 1] if k + 1 < len(starts) else len(joined)
            pos = nxt if view is None else view.to_norm(nxt)
            if pos >= len(haystack):
                return found


def prefilter(
    dialect: Dialect, surfaces: frozenset[Surface], disabled: frozenset[str] = frozenset()
) -> Prefilter | None:
    """The prefilter for texts on ``surfaces``, or ``None`` when some anchor signal there
    promises nothing (every text must be judged)."""
    return _prefilter(dialect, surfaces, disabled, load_signals())


@cache
def _prefilter(
    dialect: Dialect,
    surfaces: frozenset[Surface],
    disabled: frozenset[str],
    every: tuple[Signal, ...],
) -> Prefilter | None:
    parts: list[str] = []
    literals: set[str] = set()
    leads: list[str] = []
    for signal in every:
        if signal.kind != "anchor" or signal.code in disabled or not surfaces & signal.surfaces:
            continue
        triggers = signal.triggers(dialect)
        if triggers.always:
            return None
        literals.update(triggers.literals)
        if triggers.pattern is not None:
            parts.append(f"(?:{triggers.pattern})")
        if triggers.scope == "opening":
            if triggers.lead is None:
                return None  # an opening signal that promises nothing: judge every text
            leads.append(f"(?:{triggers.lead})")
    ordered = sorted(literals, key=lambda s: (-len(s), s))
    pattern = re.compile("|".join([*(re.escape(lit) for lit in ordered), *parts]) or "(?!)")
    sep = next(
        (
            s
            for s in _SEPARATORS
            if pattern.search(s * 2) is None and all(s not in lit for lit in ordered)
        ),
        None,
    )
    lead = re.compile("|".join(leads)) if leads else None
    return Prefilter(pattern, sep, lead)
