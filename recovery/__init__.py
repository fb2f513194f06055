"""Recovery strategies, one per module, chosen per tool name by the policy.

| name | module | for |
|---|---|---|
| truncate_abort | truncate_abort | tool arguments in a format that understands ``*** Abort`` |
| strip_tail | strip_tail | visible text: keep what came before the cut |
| thinking_repair | thinking_repair | visible text carrying leaked reasoning |
| retry | retry | anything: advise the agent loop to re-sample the turn |
| text_tool_call | text_tool_call | visible text that is a tool call written as text (opt-in) |

Each strategy's ``apply(value, verdict, attempt=0)`` returns a typed outcome: ``Recovered``,
``Retry`` or ``Abort`` (see :mod:`guard.models`).
"""

from __future__ import annotations

from typing import cast

from guard.errors import PluginError
from guard.models import Recovery, Registry

from .retry import RetryAdvice
from .strip_tail import StripTail
from .text_tool_call import TextToolCall
from .thinking_repair import ThinkingRepair
from .truncate_abort import SENTINEL, TruncateAbort

__all__ = [
    "ENTRY_POINT_GROUP",
    "SENTINEL",
    "STRATEGIES",
    "RetryAdvice",
    "StripTail",
    "TextToolCall",
    "ThinkingRepair",
    "TruncateAbort",
    "get_strategy",
    "register_strategy",
]

ENTRY_POINT_GROUP = "guard.recovery"


def _strategy_class(name: str, value: object) -> type[Recovery]:
    if not isinstance(value, type) or not callable(getattr(value, "apply", None)):
        raise PluginError(
            f"recovery strategy {name!r} must be a class with an apply() method, got {value!r}"
        )
    return cast(type[Recovery], value)


#: Recovery strategies by name: built-ins, the ``guard.recovery`` entry point group (each
#: loads a class), and :func:`register_strategy`.
STRATEGIES: Registry[type[Recovery]] = Registry(
    "recovery strategy",
    ENTRY_POINT_GROUP,
    {
        TruncateAbort.name: TruncateAbort,
        StripTail.name: StripTail,
        ThinkingRepair.name: ThinkingRepair,
        RetryAdvice.name: RetryAdvice,
        TextToolCall.name: TextToolCall,
    },
    key=str,
    check=_strategy_class,
)


def register_strategy(name: str, cls: type[Recovery]) -> None:
    """Make ``get_strategy(name)`` build ``cls()`` (overrides a built-in of that name)."""
    STRATEGIES.register(name, cls)


def get_strategy(name: str) -> Recovery:
    """A fresh strategy by name; an unknown name raises ``UnknownNameError`` (a ``ValueError``)
    listing the known ones."""
    cls = STRATEGIES.get(name)
    strategy: Recovery = cls()
    return strategy
