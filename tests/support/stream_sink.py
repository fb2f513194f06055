"""A stand-in for the stream engine when testing a reader alone: it records what it is handed."""

from __future__ import annotations

from typing import Any

from guard.stream._queue import Entry, Key


class RecordingSink:
    """Records feeds, closed calls and forgeries in order, and the entries put."""

    def __init__(self, *, ends_at_forgery: bool = True) -> None:
        self.ends_at_forgery = ends_at_forgery
        self.log: list[tuple[Any, ...]] = []
        self.entries: list[Entry] = []

    def feed(self, entry: Entry, key: Key, text: object, *, count: bool = True) -> None:
        if isinstance(text, str) and text:
            self.log.append(("feed", key, text))
            entry.marks.append((key, 0, len(text)))

    def feed_batch(
        self, batch: list[tuple[Entry, Key, str]], closing: tuple[int, int] | None = None
    ) -> None:
        for entry, key, text in batch:
            self.feed(entry, key, text, count=False)

    def close_call(self, choice: int, call: int) -> None:
        self.log.append(("close", choice, call))

    def forgery(self, offset: int, marker: str) -> bool:
        self.log.append(("forgery", offset))
        return self.ends_at_forgery

    def put(self, entry: Entry) -> None:
        self.entries.append(entry)
