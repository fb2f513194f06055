"""Guarded Responses API streams: events through :class:`ResponseEventBridge` and the stream
middleware (``docs/streaming.md``, "guard_stream"), sync and async twins with the same
names and shapes."""

from __future__ import annotations

import inspect
from collections.abc import (
    AsyncGenerator,
    AsyncIterable,
    AsyncIterator,
    Generator,
    Iterable,
    Iterator,
)
from contextlib import contextmanager
from typing import Any, cast

from guard.errors import LeakAborted
from guard.integrations._names import Rename, renamed, renamed_cut
from guard.integrations._shells import AsyncStreamShell, StreamShell
from guard.integrations.openai.protocol._bridge import ResponseEventBridge
from guard.integrations.openai.protocol._guards import ProtocolGuard, by_iteration
from guard.integrations.openai.protocol._settings import AbortMode, GuardSettings
from guard.models import Outcome, Verdict
from guard.stream import AsyncGuardedStream, Forwarded, GuardedStream

__all__ = [
    "AsyncBridgedEventStream",
    "AsyncGuardedResponseStream",
    "AsyncGuardedStreamWrapper",
    "BridgedEventStream",
    "GuardedResponseStream",
    "GuardedStreamBase",
    "GuardedStreamWrapper",
    "guard_response_events",
]


class GuardedStreamBase:
    """What every guarded stream wrapper exposes besides iteration: the findings of the
    middleware's stream it wraps, and the upstream HTTP response."""

    _guarded: GuardedStream | AsyncGuardedStream

    def __init__(self, upstream: Any, guarded: GuardedStream | AsyncGuardedStream) -> None:
        self._upstream = upstream
        self._guarded = guarded

    #: the middleware's part names as the answer's (``None``: the middleware's), and the
    #: mapping type ``cut`` is given in
    _rename: Rename | None = None
    _offsets: type[dict[str, int]] = dict

    @property
    def verdicts(self) -> list[Verdict]:
        verdicts = self._guarded.verdicts
        return verdicts if self._rename is None else renamed(verdicts, self._rename)

    @property
    def cut(self) -> dict[str, int]:
        cut = self._guarded.cut
        return cut if self._rename is None else renamed_cut(cut, self._rename, self._offsets)

    forged = Forwarded[bool]("_guarded")
    chars_dropped = Forwarded[int]("_guarded")
    upstream_closed = Forwarded[bool]("_guarded")
    outcomes = Forwarded[list[Outcome]]("_guarded")

    @property
    def response(self) -> Any:
        """The upstream HTTP response (as on the SDK's stream)."""
        return getattr(self._upstream, "response", None)


class GuardedStreamWrapper(GuardedStreamBase, StreamShell):
    """A sync guarded stream wrapper: iterate it (or call ``next``), use it in ``with``;
    ``close()`` closes the upstream (the HTTP response) and ends the stream."""

    _guarded: GuardedStream

    def __iter__(self) -> Iterator[Any]:
        """A loop over the stream owns it: leaving the loop (``break``) ends the stream."""
        yield from self._iterator

    def close(self) -> None:
        """Close the upstream (the HTTP response) and end the stream."""
        self._guarded.close()
        if isinstance(self._iterator, Generator):
            self._iterator.close()


class AsyncGuardedStreamWrapper(GuardedStreamBase, AsyncStreamShell):
    """An async guarded stream wrapper: ``async for`` it (or ``anext``), use it in
    ``async with``; ``await close()`` (or ``aclose()``) closes the upstream (the HTTP
    response) and ends the stream."""

    _guarded: AsyncGuardedStream

    async def close(self) -> None:
        """Close the upstream (the HTTP response) and end the stream."""
        await self._guarded.aclose()
        if isinstance(self._iterator, AsyncGenerator):
            await self._iterator.aclose()

    aclose = close


class _BridgedStream(GuardedStreamBase):
    """What every bridged event stream shares (Responses here, Anthropic Messages in
    :mod:`guard.integrations.anthropic.protocol`): the protocol's bridge between its events and
    the middleware's chunks, the abort mode, and the events that end a stopped stream."""

    #: the protocol's bridge (``chunk(event)``, ``event(chunk)``, ``terminal(aborted)``)
    _bridge_type: type[Any]

    def __init__(self, upstream: Any, settings: GuardSettings, abort: AbortMode) -> None:
        self._bridge = self._bridge_type()
        self._abort = abort
        #: an aborting leak ended the stream (``abort="filter"``)
        self.aborted = False
        super().__init__(upstream, settings.guard_chunks(self._chunks()))

    def _chunks(self) -> Iterable[Any] | AsyncIterable[Any]:
        raise NotImplementedError

    @contextmanager
    def _leak_filter(self) -> Iterator[None]:
        """With ``abort="filter"`` an aborting leak ends the stream quietly (``aborted``);
        with ``raise`` it propagates."""
        try:
            yield
        except LeakAborted:
            if self._abort == "raise":
                raise
            self.aborted = True

    def _ending(self) -> list[Any]:
        """The terminal events when guard stopped the stream, else none."""
        if self.aborted or self._guarded.forged or self._guarded.cut:
            return cast(list[Any], self._bridge.terminal(self.aborted))
        return []


class BridgedEventStream(_BridgedStream, GuardedStreamWrapper):
    """A guarded sync stream of a protocol's events (dicts or SDK objects); a subclass names
    the protocol's bridge (:attr:`_bridge_type`)."""

    def __init__(self, upstream: Iterable[Any], settings: GuardSettings, abort: AbortMode) -> None:
        super().__init__(upstream, settings, abort)
        self._iterator = self._run()

    def _chunks(self) -> Iterator[dict[str, Any]]:
        try:
            for event in self._upstream:
                yield self._bridge.chunk(event)
        finally:
            closer = getattr(self._upstream, "close", None)
            if callable(closer):
                closer()

    def _run(self) -> Generator[Any, None, None]:
        with self._leak_filter():
            for chunk in self._guarded:
                event = self._bridge.event(chunk)
                if event is not None:
                    yield event
        yield from self._ending()


class AsyncBridgedEventStream(_BridgedStream, AsyncGuardedStreamWrapper):
    """The async twin of :class:`BridgedEventStream`."""

    def __init__(
        self, upstream: AsyncIterable[Any], settings: GuardSettings, abort: AbortMode
    ) -> None:
        super().__init__(upstream, settings, abort)
        self._iterator = self._run()

    async def _chunks(self) -> AsyncIterator[dict[str, Any]]:
        try:
            async for event in self._upstream:
                yield self._bridge.chunk(event)
        finally:
            closer = getattr(self._upstream, "aclose", None) or getattr(
                self._upstream, "close", None
            )
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result

    async def _run(self) -> AsyncGenerator[Any, None]:
        with self._leak_filter():
            async for chunk in self._guarded:
                event = self._bridge.event(chunk)
                if event is not None:
                    yield event
        for event in self._ending():
            yield event


class _ResponseEvents:
    """The Responses protocol's streams: its bridge, and the last sequence number."""

    _bridge_type = ResponseEventBridge
    _bridge: ResponseEventBridge

    @property
    def last_sequence(self) -> int:
        """The highest ``sequence_number`` delivered so far (-1 before any)."""
        return self._bridge.sequence


class GuardedResponseStream(_ResponseEvents, BridgedEventStream):
    """A guarded sync stream of Responses API events (dicts or SDK objects)."""


class AsyncGuardedResponseStream(_ResponseEvents, AsyncBridgedEventStream):
    """A guarded async stream of Responses API events (dicts or SDK objects)."""


guard_response_events = ProtocolGuard(
    by_iteration(GuardedResponseStream, AsyncGuardedResponseStream),
    "guard_response_events",
    """Guard a stream of Responses API events (sync or async; dicts or SDK objects): output
    text and reasoning deltas are judged as in :func:`guard.guard_stream`, a function call is
    delivered only once complete, and a stream guard stops ends with the open message items
    done and ``response.completed`` (``response.incomplete`` when an aborting leak is
    filtered) listing what was delivered. ``tools``: the request's declared tools.""",
    "source",
    "Iterable[Any] | AsyncIterable[Any]",
)
