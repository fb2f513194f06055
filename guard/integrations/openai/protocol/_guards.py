"""The public guards of a protocol's values (a complete response, an event stream): every one
takes the same options, resolved once (:meth:`GuardSettings.resolve`), and differs only in
what it runs on the value and what it calls the value."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, Callable
from typing import Any, Generic, TypeVar, cast

from guard.dialects import Dialect
from guard.gate import Policy
from guard.integrations.openai.protocol._settings import AbortMode, GuardSettings, check_abort
from guard.stream import OnLeak

__all__ = ["ProtocolGuard", "by_iteration"]

R = TypeVar("R")
S = TypeVar("S")
A = TypeVar("A")


class ProtocolGuard(Generic[R]):
    """A guard of one protocol's values, called like a function (``guard_response(response,
    on_leak="abort")``): ``run`` does the work on the value with the checked settings.
    ``param`` (with its ``annotation``) is what the guard calls the value, positionally or by
    keyword (``guard_response(response=...)``), as :func:`inspect.signature` shows."""

    def __init__(
        self,
        run: Callable[[Any, GuardSettings, AbortMode], R],
        name: str,
        doc: str,
        param: str,
        annotation: str = "Any",
    ) -> None:
        self._run = run
        self.__name__ = self.__qualname__ = name
        self.__module__ = run.__module__  # the protocol's module, where the guard is made
        self.__doc__ = doc
        named = inspect.Parameter(
            param, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation
        )
        #: the call's value, as the guard names it
        self._value = inspect.Signature([named])
        options = inspect.signature(ProtocolGuard.__call__).parameters.values()
        keywords = [o for o in options if o.kind is inspect.Parameter.KEYWORD_ONLY]
        returns = inspect.signature(run).return_annotation
        self.__signature__ = inspect.Signature([named, *keywords], return_annotation=returns)

    def __call__(
        self,
        *args: Any,
        dialect: str | Dialect = "harmony",
        policy: Policy | None = None,
        on_leak: OnLeak = "truncate",
        abort: AbortMode = "raise",
        tools: Any = None,
        **value: Any,
    ) -> R:
        """Guard the value (dict or SDK object; a stream sync or async; given by position or by
        its name) with ``dialect``, ``policy`` and ``on_leak``; ``abort``: what an aborting
        leak does (``raise`` :class:`guard.LeakAborted`, or ``filter``: end the value as the
        proxy does); ``tools``: the request's declared tools (``docs/detection.md``,
        "Context")."""
        (given,) = self._value.bind(*args, **value).args
        settings = GuardSettings.resolve(dialect, policy, on_leak, tools=tools)
        return self._run(given, settings, check_abort(abort))

    def __reduce__(self) -> str:
        """Pickled by name, as a function is: the guard its module holds."""
        return self.__qualname__


class by_iteration(Generic[S, A]):  # named as the function it was: a ProtocolGuard's run
    """A run that wraps an async iterable source in ``asyn`` and any other in ``sync`` (of
    their module)."""

    def __init__(
        self,
        sync: Callable[[Any, GuardSettings, AbortMode], S],
        asyn: Callable[[Any, GuardSettings, AbortMode], A],
    ) -> None:
        self.sync = sync
        self.asyn = asyn
        self.__module__ = sync.__module__
        returns = " | ".join(getattr(run, "__name__", "Any") for run in (sync, asyn))
        self.__signature__ = inspect.signature(self.__call__).replace(return_annotation=returns)

    def __call__(self, source: Any, settings: GuardSettings, abort: AbortMode) -> S | A:
        if hasattr(source, "__aiter__"):
            return self.asyn(cast(AsyncIterable[Any], source), settings, abort)
        return self.sync(source, settings, abort)
