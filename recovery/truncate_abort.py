"""truncate-and-abort: for tools whose argument format understands a sentinel (patch and edit
formats), cut at the start of the contaminated line and append ``*** Abort``.

The tool then applies what came before and stops at the sentinel, so the good part of the edit is
kept. Idempotent: the result carries no leak, and applying the strategy to it changes nothing.
Refuses (``Abort``) when the contaminated line is the first one: nothing useful would be left.
"""

from __future__ import annotations

from guard.models import Abort, Outcome, Recovered, Verdict

SENTINEL = "*** Abort"


class TruncateAbort:
    name = "truncate_abort"

    def apply(self, value: str, verdict: Verdict, *, attempt: int = 0) -> Outcome:
        if not verdict.leak or verdict.cut is None:
            return Recovered(value=value, strategy=self.name, detail="nothing to cut")
        line_start = value.rfind("\n", 0, verdict.cut) + 1
        kept = value[:line_start].rstrip("\n")
        if not kept.strip():
            return Abort(
                reason="the first line is contaminated: nothing useful is left before the cut",
                strategy=self.name,
            )
        if kept.endswith("\n" + SENTINEL) or kept == SENTINEL:
            return Recovered(value=kept + "\n", strategy=self.name, detail="already aborted")
        return Recovered(
            value=f"{kept}\n{SENTINEL}\n",
            strategy=self.name,
            detail=f"cut {len(value) - line_start} characters from line start {line_start}",
        )
