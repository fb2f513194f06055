"""Recovery strategies, one per module, chosen per tool name by the policy.

| name | module | for |
|---|---|---|
| truncate_abort | truncate_abort | tool arguments in a format that understands ``*** Abort`` |
| strip_tail | strip_tail | visible text: keep what came before the cut |
| thinking_repair | thinking_repair | visible text carrying leaked reasoning |
| retry | retry | anything: advise the agent loop to re-sample the turn |

Each strategy's ``apply(value, verdict, attempt=0)`` returns a typed outcome: ``Recovered``,
``Retry`` or ``Abort`` (see :mod:`guard.models`).
"""

from __future__ import annotations

from guard.models import Recovery

from .retry import RetryAdvice
from .strip_tail import StripTail
from .thinking_repair import ThinkingRepair
from .truncate_abort import SENTINEL, TruncateAbort

__all__ = [
    "SENTINEL",
    "STRATEGIES",
    "RetryAdvice",
    "StripTail",
    "ThinkingRepair",
    "TruncateAbort",
    "get_strategy",
]

STRATEGIES: dict[str, type] = {
    TruncateAbort.name: TruncateAbort,
    StripTail.name: StripTail,
    ThinkingRepair.name: ThinkingRepair,
    RetryAdvice.name: RetryAdvice,
}


def get_strategy(name: str) -> Recovery:
    """A fresh strategy by name; an unknown name raises ``ValueError`` listing the known ones."""
    try:
        cls = STRATEGIES[name]
    except KeyError:
        known = ", ".join(sorted(STRATEGIES))
        raise ValueError(f"unknown recovery strategy {name!r}; expected one of: {known}") from None
    strategy: Recovery = cls()
    return strategy
