"""The checked settings a guarded client, call or stream works with."""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from guard.dialects import Dialect, get_dialect
from guard.gate import Policy, check_policy
from guard.stream import AsyncGuardedStream, GuardedStream, OnLeak, check_on_leak, guard_stream

__all__ = ["AbortMode", "GuardSettings"]

AbortMode = Literal["raise", "filter"]
"""What an aborting leak does to a complete response or a Responses stream: ``raise``
:class:`guard.LeakAborted` (the client wrapper) or ``filter``: cut it and mark it
``content_filter`` (the proxy)."""


@dataclass(frozen=True)
class GuardSettings:
    """Dialect, policy and ``on_leak`` mode, checked once; ``escape_inputs`` says whether
    requests are escaped (the client wrapper's option)."""

    dialect: Dialect
    policy: Policy
    on_leak: OnLeak
    escape_inputs: bool = True

    @classmethod
    def resolve(
        cls,
        dialect: str | Dialect = "harmony",
        policy: Policy | None = None,
        on_leak: object = "truncate",
        escape_inputs: bool = True,
    ) -> GuardSettings:
        """Check the arguments (``ValueError`` for an unknown ``on_leak`` or dialect,
        ``TypeError`` for a policy that is not a :class:`guard.Policy`)."""
        mode = check_on_leak(on_leak)
        rules = check_policy(policy)
        return cls(get_dialect(dialect), rules, mode, escape_inputs)

    def guard_chunks(
        self, source: Iterable[Any] | AsyncIterable[Any]
    ) -> GuardedStream | AsyncGuardedStream:
        """:func:`guard.guard_stream` over chat-completion-shaped chunks with these settings."""
        return guard_stream(
            source, dialect=self.dialect, policy=self.policy, on_leak=self.on_leak, raw=False
        )
