"""retry advice: tell the agent loop to re-sample the turn, a bounded number of times.

guard never calls a provider; the outcome carries the reason and the attempt count, and turns
into ``Abort`` once the budget is spent.
"""

from __future__ import annotations

from guard.models import Abort, Outcome, Recovered, Retry, Verdict


class RetryAdvice:
    name = "retry"

    def __init__(self, max_attempts: int = 2) -> None:
        if max_attempts < 1:
            raise ValueError(f"max_attempts must be >= 1, got {max_attempts}")
        self.max_attempts = max_attempts

    def apply(self, value: str, verdict: Verdict, *, attempt: int = 0) -> Outcome:
        if not verdict.leak:
            return Recovered(value=value, strategy=self.name, detail="nothing to retry")
        if attempt >= self.max_attempts:
            return Abort(
                reason=f"still leaking after {attempt} retries: {verdict.reason}",
                strategy=self.name,
            )
        return Retry(
            reason=verdict.reason,
            attempt=attempt + 1,
            max_attempts=self.max_attempts,
            strategy=self.name,
        )
