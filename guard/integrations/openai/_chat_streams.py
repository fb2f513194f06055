"""The guarded forms of the SDK's chat completion streams (``Stream`` / ``AsyncStream`` of
``ChatCompletionChunk``): the stream middleware's stream, with the SDK stream's interface."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

from guard.errors import LeakAborted
from guard.integrations._names import renamed_abort
from guard.integrations.openai.protocol import (
    AsyncGuardedStreamWrapper,
    GuardedStreamBase,
    GuardedStreamWrapper,
    GuardSettings,
)
from guard.stream import AsyncGuardedStream, GuardedStream

__all__ = ["AsyncGuardedChatStream", "GuardedChatStream", "PartOffsets", "chat_part"]

_STREAM_PART = re.compile(r"(choices\[\d+\]\.)?(text|thinking|tool_name|tool_arg)(?:\[(\d+)\])?")
_FIELD = {
    "text": "content",
    "thinking": "reasoning_content",
    "tool_name": "tool_calls[{}].function.name",
    "tool_arg": "tool_calls[{}].function.arguments",
}


def chat_part(name: str) -> str:
    """The stream middleware's part name (``text``, ``choices[2].tool_arg[0]``) as the chat
    message's field (``content``, ``choices[2].tool_calls[0].function.arguments``): the names
    :func:`guard.guard_result` gives the parts of a complete response."""
    m = _STREAM_PART.fullmatch(name)
    if m is None:
        return name
    prefix, surface, call = m.groups()
    return (prefix or "") + _FIELD[surface].format(call or 0)


class PartOffsets(dict[str, int]):
    """Offsets keyed by the chat message's field names; the stream middleware's names
    (``text``, ``tool_arg[0]``) still read (``cut["text"]``, ``cut.get("text")``)."""

    def __missing__(self, key: str) -> int:
        other = chat_part(key)
        if other != key and other in self:
            return self[other]
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default


def _chat_named(items: Iterator[Any]) -> Iterator[Any]:
    try:
        yield from items
    except LeakAborted as exc:
        raise renamed_abort(exc, chat_part) from None


async def _async_chat_named(items: AsyncIterator[Any]) -> AsyncIterator[Any]:
    try:
        async for item in items:
            yield item
    except LeakAborted as exc:
        raise renamed_abort(exc, chat_part) from None


class _ChatNames(GuardedStreamBase):
    """Chat streams name their parts as complete chat responses do (``content``, not
    ``text``): one name per part, whether the answer came streamed or whole (in ``verdicts``,
    ``cut`` and an aborting leak's ``LeakAborted.verdict``)."""

    _rename = staticmethod(chat_part)
    _offsets = PartOffsets


class GuardedChatStream(_ChatNames, GuardedStreamWrapper):
    """The guarded form of the SDK's ``Stream[ChatCompletionChunk]``: iterate it (or call
    ``next``), use it in ``with``; ``close()`` closes the HTTP response."""

    def __init__(self, upstream: Any, settings: GuardSettings) -> None:
        super().__init__(upstream, cast(GuardedStream, settings.guard_chunks(upstream)))
        self._iterator = _chat_named(iter(self._guarded))


class AsyncGuardedChatStream(_ChatNames, AsyncGuardedStreamWrapper):
    """The guarded form of the SDK's ``AsyncStream[ChatCompletionChunk]``: ``async for`` it,
    use it in ``async with``; ``await close()`` closes the HTTP response."""

    def __init__(self, upstream: Any, settings: GuardSettings) -> None:
        super().__init__(upstream, cast(AsyncGuardedStream, settings.guard_chunks(upstream)))
        self._iterator = _async_chat_named(aiter(self._guarded))
