"""Guarded Messages streams: events through :class:`MessageEventBridge` and the stream
middleware (docs/streaming.md, "Provider event streams"), sync and async twins with the same
names and shapes.

Each is a drop-in for the SDK's ``Stream`` / ``AsyncStream`` of raw message events: iterate it,
use it in ``with``, ``close()`` it (which closes the HTTP response), read ``response``; so the
SDK's own ``MessageStream`` can accumulate over it.
"""

from __future__ import annotations

import inspect
import re
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

from guard.dialects import Dialect
from guard.errors import LeakAborted
from guard.gate import Policy
from guard.integrations.anthropic.protocol._bridge import MessageEventBridge
from guard.integrations.openai.protocol import (
    AbortMode,
    AsyncGuardedStreamWrapper,
    GuardedStreamBase,
    GuardedStreamWrapper,
    GuardSettings,
)
from guard.models import Verdict
from guard.stream import OnLeak

__all__ = ["AsyncGuardedMessageStream", "GuardedMessageStream", "guard_message_events"]


_CHUNK_PART = re.compile(r"(?:choices\[(\d+)\]\.)?(text|thinking|tool_name|tool_arg)(?:\[\d+\])?")
_BLOCK_SUFFIX = {"text": "", "thinking": "", "tool_name": ".name", "tool_arg": ".input"}


def block_part(name: str) -> str:
    """The middleware's part name (``choices[2].tool_arg[0]``) as the message's
    (``content[2].input``), as :func:`guard_message` names parts."""
    m = _CHUNK_PART.fullmatch(name)
    if m is None:
        return name
    return f"content[{m.group(1) or 0}]{_BLOCK_SUFFIX[m.group(2)]}"


class _MessageStreamBase(GuardedStreamBase):
    """What the sync and async streams share: the bridge, the abort mode and the events that
    end a stopped stream."""

    def __init__(self, upstream: Any, settings: GuardSettings, abort: AbortMode) -> None:
        self._bridge = MessageEventBridge()
        self._abort = abort
        #: an aborting leak ended the stream (``abort="filter"``)
        self.aborted = False
        super().__init__(upstream, settings.guard_chunks(self._chunks()))

    def _chunks(self) -> Iterable[Any] | AsyncIterable[Any]:
        raise NotImplementedError

    @property
    def verdicts(self) -> list[Verdict]:
        """One verdict per part seen, named by content block (``content[1]``,
        ``content[2].input``)."""
        return [
            v.model_copy(update={"part": block_part(v.part or "")}) for v in self._guarded.verdicts
        ]

    @property
    def cut(self) -> dict[str, int]:
        """Offset of the cut per part, named by content block."""
        return {block_part(k): v for k, v in self._guarded.cut.items()}

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
            return self._bridge.terminal(self.aborted)
        return []


class GuardedMessageStream(_MessageStreamBase, GuardedStreamWrapper):
    """A guarded sync stream of Messages events (dicts or SDK objects)."""

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


class AsyncGuardedMessageStream(_MessageStreamBase, AsyncGuardedStreamWrapper):
    """A guarded async stream of Messages events (dicts or SDK objects)."""

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


def guard_message_events(
    source: Iterable[Any] | AsyncIterable[Any],
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "truncate",
    abort: AbortMode = "raise",
    tools: Any = None,
) -> GuardedMessageStream | AsyncGuardedMessageStream:
    """Guard a stream of Anthropic Messages events (sync or async; dicts or SDK objects):
    ``text_delta`` is judged as text, ``thinking_delta`` as thinking, a ``tool_use`` block's
    name and ``input_json_delta`` as a tool call's name and arguments (delivered only once the
    block is complete). A stream guard stops ends with the open blocks stopped, a
    ``message_delta`` and ``message_stop``. ``tools``: the request's declared tools."""
    settings = GuardSettings.resolve(dialect, policy, on_leak, tools=tools)
    if hasattr(source, "__aiter__"):
        return AsyncGuardedMessageStream(cast(AsyncIterable[Any], source), settings, abort)
    return GuardedMessageStream(source, settings, abort)
