"""strip-tail: for visible text, keep what came before the cut.

The cut moves back over the evidence that belongs to the tripping hit (a channel word or glitch
word glued in front of a routing marker), so ``Done.analysis to=functions.edit ...`` becomes
``Done.`` rather than ``Done.analysis``. Trailing whitespace is dropped.
"""

from __future__ import annotations

from guard.models import Abort, Outcome, Recovered, Verdict

_LEADING_SUPPORT = ("C", "G")


def keep_before(verdict: Verdict) -> int | None:
    """Where the untrusted part starts, including glued evidence in front of the first hit."""
    first = next((h for h in verdict.hits if h.trips), None)
    if first is None:
        return None
    start = first.start
    for support in first.support:
        if support.code in _LEADING_SUPPORT and support.start < start:
            start = support.start
    return start


class StripTail:
    name = "strip_tail"

    def apply(self, value: str, verdict: Verdict, *, attempt: int = 0) -> Outcome:
        cut = keep_before(verdict)
        if cut is None:
            return Recovered(value=value, strategy=self.name, detail="nothing to strip")
        kept = value[:cut].rstrip()
        if not kept:
            return Abort(reason="the text is contaminated from its start", strategy=self.name)
        return Recovered(
            value=kept, strategy=self.name, detail=f"stripped {len(value) - len(kept)} characters"
        )
