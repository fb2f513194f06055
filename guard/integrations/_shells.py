"""What every guarded stream wrapper shares with the SDK's stream it stands in for: iterate it
(or ``next`` it), use it in ``with``; each wrapper says what ``close`` closes.

Iterating gives ``_iterator`` itself, as the SDK's stream does: a loop left with ``break``
leaves the rest of the stream to a later loop (a generator in between would close it)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any, Self

__all__ = ["AsyncStreamShell", "StreamShell"]


class StreamShell:
    """A sync stream over ``_iterator``."""

    _iterator: Iterator[Any]

    def __iter__(self) -> Iterator[Any]:
        return self._iterator

    def __next__(self) -> Any:
        return next(self._iterator)

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncStreamShell:
    """An async stream over ``_iterator``."""

    _iterator: AsyncIterator[Any]

    def __aiter__(self) -> AsyncIterator[Any]:
        return self._iterator

    async def __anext__(self) -> Any:
        return await anext(self._iterator)

    async def close(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
