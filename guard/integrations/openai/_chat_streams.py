"""The guarded forms of the SDK's chat completion streams (``Stream`` / ``AsyncStream`` of
``ChatCompletionChunk``): the stream middleware's stream, with the SDK stream's interface."""

from __future__ import annotations

from typing import Any, cast

from guard.integrations.openai.protocol import (
    AsyncGuardedStreamWrapper,
    GuardedStreamWrapper,
    GuardSettings,
)
from guard.stream import AsyncGuardedStream, GuardedStream

__all__ = ["AsyncGuardedChatStream", "GuardedChatStream"]


class GuardedChatStream(GuardedStreamWrapper):
    """The guarded form of the SDK's ``Stream[ChatCompletionChunk]``: iterate it (or call
    ``next``), use it in ``with``; ``close()`` closes the HTTP response."""

    def __init__(self, upstream: Any, settings: GuardSettings) -> None:
        super().__init__(upstream, cast(GuardedStream, settings.guard_chunks(upstream)))
        self._iterator = iter(self._guarded)


class AsyncGuardedChatStream(AsyncGuardedStreamWrapper):
    """The guarded form of the SDK's ``AsyncStream[ChatCompletionChunk]``: ``async for`` it,
    use it in ``async with``; ``await close()`` closes the HTTP response."""

    def __init__(self, upstream: Any, settings: GuardSettings) -> None:
        super().__init__(upstream, cast(AsyncGuardedStream, settings.guard_chunks(upstream)))
        self._iterator = aiter(self._guarded)
