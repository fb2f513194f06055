""":func:`guard_stream` and the sync and async guarded streams it returns: they iterate the
upstream, hand each item to the engine and yield what it returns, and close the upstream when the
engine stops, when the consumer stops early and when the upstream fails (docs/streaming.md,
"Closing the upstream")."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator, Mapping
from typing import Any, cast

from guard._detect import tool_names
from guard.dialects import Dialect, get_dialect
from guard.errors import LeakAborted
from guard.gate import Detector, Policy, resolve_detector
from guard.models import Outcome, Verdict
from guard.stream._decisions import OnLeak, check_on_leak
from guard.stream._engine import Engine
from guard.stream._forward import Forwarded

__all__ = ["AsyncGuardedStream", "GuardedStream", "guard_stream"]


class _Observed:
    """What a guarded stream tells about itself, during and after iteration."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        #: True only when guard closed the upstream before it ended by itself: a decision
        #: stopped the stream, the consumer stopped early, or :meth:`close` was called. An
        #: upstream that ended (or failed) by itself leaves it False.
        self.upstream_closed = False
        #: the upstream's close was called (also after it ended by itself, to free it)
        self._released = False

    @property
    def verdicts(self) -> list[Verdict]:
        """One verdict per surface part seen (final once the stream has ended); of a stream of
        many calls, the latest calls' and every leaking one's (see :attr:`verdicts_omitted`)."""
        return self._engine.verdicts()

    verdicts_omitted = Forwarded[int](
        "_engine",
        """Verdicts of finished calls' parts not kept in :attr:`verdicts`: clean ones older
        than the latest calls, and leaking ones beyond the policy's ``max_hits``.""",
    )
    forged = Forwarded[bool]("_engine")

    @property
    def cut(self) -> dict[str, int]:
        """Offset of the cut per surface part (``raw`` for a forgery in raw wire text)."""
        return dict(self._engine.cut)

    chars_dropped = Forwarded[int](
        "_engine", "Characters received from upstream but not delivered."
    )

    @property
    def outcomes(self) -> list[Outcome]:
        """Recovery outcomes (``on_leak="recover"``)."""
        return list(self._engine.outcomes)

    # --- driving the guard by hand, instead of iterating the stream ---------------------------

    def push(self, item: Any) -> list[Any]:
        """Hand the guard the next upstream item yourself (instead of iterating the stream,
        never both); return the items that may be delivered now, in order. Once
        :attr:`stopped` is true the stream ends here: close the upstream, deliver what this
        returned, then raise :attr:`abort` if it is set."""
        return self._engine.push(item)

    def end(self) -> list[Any]:
        """Driving by hand: the upstream ended, or failed (then deliver nothing of what this
        returns); return what may still be delivered. Verdicts are final after it."""
        return self._engine.end()

    @property
    def stopped(self) -> bool:
        """Whether the stream has ended (guard stopped it, or :meth:`end` was called)."""
        return self._engine.stopped

    abort = Forwarded[LeakAborted | None](
        "_engine",
        """The error an aborting leak (``on_leak="abort"``) ends the stream with, else None.""",
    )


class GuardedStream(_Observed):
    """A guarded sync stream: iterate it like the upstream."""

    def __init__(self, source: Iterable[Any], engine: Engine) -> None:
        super().__init__(engine)
        self._source = source
        self._iterator: Iterator[Any] | None = None

    def __iter__(self) -> Iterator[Any]:
        engine = self._engine
        push = engine.push
        iterator = self._iterator = iter(self._source)
        ended = False  # the upstream ended or failed by itself
        try:
            while not engine.stopped:
                try:
                    item = next(iterator)
                except StopIteration:
                    ended = True
                    yield from engine.end()
                    return
                except BaseException:
                    ended = True
                    engine.end()
                    raise
                out = push(item)
                if engine.stopped:
                    self.close()
                    yield from out
                    if engine.abort is not None:
                        raise engine.abort
                    return
                if len(out) == 1:  # the common case, without an iterator over the list
                    yield out[0]
                elif out:
                    yield from out
        finally:
            # also when the consumer stops early (break, cancellation): the provider must stop
            if ended:
                self._release()
            elif not self.upstream_closed:
                self.close()

    def close(self) -> None:
        """Close the upstream (so the provider stops generating)."""
        if self._released:
            return
        self.upstream_closed = True
        self._release()

    def _release(self) -> None:
        """Call the upstream's ``close`` (once), whoever ended it."""
        if self._released:
            return
        self._released = True
        for target in (self._iterator, self._source):
            closer = getattr(target, "close", None)
            if callable(closer):
                closer()

    def __enter__(self) -> GuardedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncGuardedStream(_Observed):
    """A guarded async stream: ``async for`` it like the upstream."""

    def __init__(self, source: AsyncIterable[Any], engine: Engine) -> None:
        super().__init__(engine)
        self._source = source
        self._iterator: AsyncIterator[Any] | None = None

    async def __aiter__(self) -> AsyncIterator[Any]:
        engine = self._engine
        push = engine.push
        iterator = self._iterator = aiter(self._source)
        ended = False  # the upstream ended or failed by itself
        try:
            while not engine.stopped:
                try:
                    item = await anext(iterator)
                except StopAsyncIteration:
                    ended = True
                    for out_item in engine.end():
                        yield out_item
                    return
                except BaseException:
                    ended = True
                    engine.end()
                    raise
                out = push(item)
                if engine.stopped:
                    await self.aclose()
                    for out_item in out:
                        yield out_item
                    if engine.abort is not None:
                        raise engine.abort
                    return
                for out_item in out:
                    yield out_item
        finally:
            if ended:
                await self._release()
            elif not self.upstream_closed:
                await self.aclose()

    async def aclose(self) -> None:
        """Close the upstream (so the provider stops generating)."""
        if self._released:
            return
        self.upstream_closed = True
        await self._release()

    async def _release(self) -> None:
        """Call the upstream's ``aclose`` or ``close`` (once), whoever ended it."""
        if self._released:
            return
        self._released = True
        for target in (self._iterator, self._source):
            closer = getattr(target, "aclose", None) or getattr(target, "close", None)
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result

    async def __aenter__(self) -> AsyncGuardedStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def guard_stream(
    source: Iterable[Any] | AsyncIterable[Any],
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    recovery: Any = None,
    raw: bool | None = None,
    start_in_thinking: bool = False,
    tools: Any = None,
    detector: Detector | None = None,
) -> GuardedStream | AsyncGuardedStream:
    """Wrap a provider stream; see :mod:`guard.stream`.

    Args:
        source: a sync iterable or an async iterable of ``str`` deltas or chat completion chunks.
        dialect: the wire format (raw text is read with this dialect's scanner).
        policy: the gate's rules (default: docs/detection.md, "Default policy").
        on_leak: ``truncate`` (the default, as for ``guard_client`` and ``guard serve``: the
            answer ends at the cut like a normal end), ``abort`` (raise
            :class:`~guard.errors.LeakAborted`), ``recover`` or ``report``.
        recovery: a strategy object for ``recover`` (default: the one the policy names).
        raw: force raw-text (True) or chunk (False) handling; default: decided by the first item.
        start_in_thinking: raw text only: the output starts inside reasoning (the template put
            the opening think tag in the prompt), as for :func:`guard.scanners.scanner`.
        tools: the request's declared tools (names or OpenAI tool definitions), as for
            :func:`guard.detect`: a call of an undeclared tool leaks (U) and a tool call written
            as text counts when it names a declared one (J). ``None``: unknown. Whether a
            choice's answer came with reasoning is read from the stream itself. On raw text,
            tool definitions also type the parameter values of formats that send them as text
            (:func:`guard.scanners.scanner`).
        detector: the :class:`~guard.gate.Detector` that judges (its signals, and its policy
            unless ``policy`` is given), as for :func:`guard.detect`; default: the registered
            signals.

    Raises:
        ConfigError: ``start_in_thinking`` for a dialect without reasoning sections.
        UnknownNameError: scanner keywords for a dialect without a scanner.

    Returns:
        A :class:`GuardedStream` for a sync source, an :class:`AsyncGuardedStream` for an async
        one; both expose ``verdicts``, ``forged``, ``cut``, ``chars_dropped``, ``outcomes`` and
        ``upstream_closed`` during and after iteration.
    """
    record = get_dialect(dialect)
    if isinstance(tools, Iterable) and not isinstance(tools, str | bytes | Mapping):
        tools = list(tools)  # a generator is read once
    declared = tool_names(tools)
    options: dict[str, Any] = {}
    if start_in_thinking:
        options["start_in_thinking"] = True
    if tools and all(isinstance(t, Mapping) for t in tools):
        options["tools"] = tools
    if options:
        from guard.scanners import scanner

        scanner(record, **options)  # fail here (TypeError, ConfigError), not at the first chunk
    judge = resolve_detector(detector, policy)
    engine = Engine(
        record,
        judge.policy,
        check_on_leak(on_leak),
        recovery,
        raw,
        options,
        declared,
        judge.own_signals,
    )
    if hasattr(source, "__aiter__"):
        return AsyncGuardedStream(cast(AsyncIterable[Any], source), engine)
    if hasattr(source, "__iter__") and not isinstance(source, str | bytes):
        return GuardedStream(source, engine)
    raise TypeError(
        f"guard_stream() expects an iterable or async iterable, got {type(source).__name__}"
    )
