"""What the stream engine and its readers say to each other: a reader hands its readings to a
:class:`Sink` (the engine); the engine drives a :class:`Reader` of one kind of upstream item
(chat completion chunks, :mod:`guard.stream._chunks`; raw wire text, :mod:`guard.stream._raw`)."""

from __future__ import annotations

from typing import Any, Protocol

from guard.stream._queue import CallSet, Entry, Key, ToolNames

__all__ = ["Reader", "Sink"]


class Sink(Protocol):
    """What a reader hands its readings to (the engine)."""

    def feed(self, entry: Entry, key: Key, text: object, *, count: bool = True) -> None:
        """Feed ``text`` (ignored unless a non-empty str) to the surface ``key``; mark ``entry``.
        ``count``: count it as received (raw mode counts wire characters instead)."""

    def feed_batch(
        self, batch: list[tuple[Entry, Key, str]], closing: tuple[int, int] | None = None
    ) -> None:
        """:meth:`feed` of each ``(entry, key, text)`` without counting, each key's texts
        joined into one delta (the marks are the same as one feed per text would make).
        ``closing``: the ``(choice, call)`` that is complete after this batch (its
        :meth:`close_call` follows); a part of it first seen in this batch is whole here."""

    def close_call(self, choice: int, call: int) -> None:
        """The call is complete: its name and arguments will not grow."""

    def forgery(self, offset: int, marker: str) -> bool:
        """A forged result at ``offset`` of the raw text; True when the stream ends there."""

    def put(self, entry: Entry) -> None:
        """Queue ``entry`` for delivery."""


class Reader(Protocol):
    """Reads one kind of upstream item (see :mod:`guard.stream._chunks` and ``_raw``)."""

    names: ToolNames  # tool name per call

    def accepts(self, item: object) -> bool: ...

    def read(self, item: Any, sink: Sink) -> None: ...

    def flush(self, sink: Sink) -> None: ...

    def cut(self, entry: Entry, limits: dict[Key, int]) -> Any: ...

    def final_chunks(self, delivered: CallSet) -> list[Any]: ...
