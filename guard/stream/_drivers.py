"""The sync and async guarded streams: they iterate the upstream, hand each item to the engine
and yield what it returns, and close the upstream when the engine stops, when the consumer stops
early and when the upstream fails (docs/streaming.md, "Closing the upstream")."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from guard.models import Outcome, Verdict
from guard.stream._engine import Engine

__all__ = ["AsyncGuardedStream", "GuardedStream"]


class _Observed:
    """What a guarded stream tells about itself, during and after iteration."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.upstream_closed = False

    @property
    def verdicts(self) -> list[Verdict]:
        """One verdict per surface part seen (final once the stream has ended)."""
        return self._engine.verdicts()

    @property
    def forged(self) -> bool:
        return self._engine.forged

    @property
    def cut(self) -> dict[str, int]:
        """Offset of the cut per surface part (``raw`` for a forgery in raw wire text)."""
        return dict(self._engine.cut)

    @property
    def chars_dropped(self) -> int:
        """Characters received from upstream but not delivered."""
        return self._engine.chars_dropped

    @property
    def outcomes(self) -> list[Outcome]:
        """Recovery outcomes (``on_leak="recover"``)."""
        return list(self._engine.outcomes)


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
        try:
            while not engine.stopped:
                try:
                    item = next(iterator)
                except StopIteration:
                    yield from engine.end()
                    return
                except BaseException:
                    engine.end()
                    raise
                out = push(item)
                if engine.stopped:
                    self.close()
                    yield from out
                    if engine.abort is not None:
                        raise engine.abort
                    return
                yield from out
        finally:
            # also when the consumer stops early (break, cancellation): the provider must stop
            if not self.upstream_closed:
                self.close()

    def close(self) -> None:
        """Close the upstream (so the provider stops generating)."""
        if self.upstream_closed:
            return
        self.upstream_closed = True
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
        try:
            while not engine.stopped:
                try:
                    item = await anext(iterator)
                except StopAsyncIteration:
                    for out_item in engine.end():
                        yield out_item
                    return
                except BaseException:
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
            if not self.upstream_closed:
                await self.aclose()

    async def aclose(self) -> None:
        """Close the upstream (so the provider stops generating)."""
        if self.upstream_closed:
            return
        self.upstream_closed = True
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
