"""The public guards of a protocol's values (a complete response, an event stream): every one
takes the same options, resolved once (:meth:`GuardSettings.resolve`), and differs only in
what it runs on the value."""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable
from typing import Any, Generic, TypeVar, cast

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations.openai.protocol._settings import AbortMode, GuardSettings
from guard.stream import OnLeak

__all__ = ["ProtocolGuard", "by_iteration"]

R = TypeVar("R")
S = TypeVar("S")
A = TypeVar("A")


class ProtocolGuard(Generic[R]):
    """A guard of one protocol's values, called like a function (``guard_response(response,
    on_leak="abort")``): ``run`` does the work on the value with the checked settings."""

    def __init__(
        self, run: Callable[[Any, GuardSettings, AbortMode], R], name: str, doc: str
    ) -> None:
        self._run = run
        self.__name__ = self.__qualname__ = name
        self.__module__ = run.__module__  # the protocol's module, where the guard is made
        self.__doc__ = doc

    def __call__(
        self,
        value: Any,
        *,
        dialect: str | Dialect = "harmony",
        policy: Policy | None = None,
        on_leak: OnLeak = "truncate",
        abort: AbortMode = "raise",
        tools: Any = None,
    ) -> R:
        """Guard ``value`` (dict or SDK object; a stream sync or async) with ``dialect``,
        ``policy`` and ``on_leak``; ``abort``: what an aborting leak does (``raise``
        :class:`guard.LeakAborted`, or ``filter``: end the value as the proxy does);
        ``tools``: the request's declared tools (``docs/detection.md``, "Context")."""
        settings = GuardSettings.resolve(dialect, policy, on_leak, tools=tools)
        return self._run(value, settings, abort)


def by_iteration(
    sync: Callable[[Any, GuardSettings, AbortMode], S],
    asyn: Callable[[Any, GuardSettings, AbortMode], A],
) -> Callable[[Any, GuardSettings, AbortMode], S | A]:
    """A run that wraps an async iterable source in ``asyn`` and any other in ``sync`` (of
    their module)."""

    def run(source: Any, settings: GuardSettings, abort: AbortMode) -> S | A:
        if hasattr(source, "__aiter__"):
            return asyn(cast(AsyncIterable[Any], source), settings, abort)
        return sync(source, settings, abort)

    run.__module__ = sync.__module__
    return run
