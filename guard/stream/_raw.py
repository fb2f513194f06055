"""Raw wire text: read through the dialect's scanner into surface deltas.

Each scanner event becomes one entry whose item is the event's wire text; the text, thinking and
tool call events feed their surfaces (all on choice 0), and so does what the scanner could not
parse (``Malformed``): its wire text is judged as text, or as the open call's arguments. A
result forgery ends the reading at once unless the stream only reports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from guard.models import (
    Malformed,
    ResultForgery,
    Text,
    ThinkingDelta,
    ToolArgs,
    ToolEnd,
    ToolStart,
)
from guard.stream._queue import DROPPED, CallSet, Entry, Key, ToolNames

if TYPE_CHECKING:
    from guard.dialects import Dialect
    from guard.models import Event, Scanner
    from guard.stream._sink import Sink

__all__ = ["RawReader", "cut_piece"]

RAW_TEXT: Key = (0, "text", -1)
RAW_THINKING: Key = (0, "thinking", -1)


class RawReader:
    """Reads raw wire text for the engine; owns the scanner and the call numbering."""

    __slots__ = ("call_index", "dialect", "feed_body", "names", "open_call", "options", "scanner")

    def __init__(self, dialect: Dialect, options: Mapping[str, Any] | None = None) -> None:
        self.dialect = dialect
        #: keywords for :func:`guard.scanners.scanner` (``start_in_thinking``, ``tools``)
        self.options = dict(options or {})
        self.scanner: Scanner | None = None  # made on the first text
        self.feed_body: Callable[[str], str | None] | None = None
        self.call_index: dict[str, int] = {}  # scanner call id -> call index
        self.open_call: int | None = None
        self.names = ToolNames()

    @staticmethod
    def accepts(item: object) -> bool:
        return isinstance(item, str)

    def read(self, text: str, sink: Sink) -> None:
        self.take(self.scan(text), sink)

    def scan(self, text: str) -> list[Event]:
        """The scanner's events for ``text`` (to :meth:`take`, or for the engine's hot path)."""
        if self.scanner is None:
            from guard.scanners import scanner

            self.scanner = scanner(self.dialect, **self.options)
            #: the scanner's ``feed_body``, looked up once: the engine's hot path calls it for a
            #: piece that may be plain body text (no event is made when it is)
            self.feed_body = getattr(self.scanner, "feed_body", None)
        return self.scanner.feed(text)

    def take(self, events: list[Event], sink: Sink) -> None:
        """Feed ``events`` to the sink (the engine)."""
        self._events(events, sink)

    @staticmethod
    def event(key: Key, text: str) -> Event:
        """The event ``feed_body`` did not make, when the engine needs it after all."""
        return Text(text, text) if key is RAW_TEXT else ThinkingDelta(text, text)

    def flush(self, sink: Sink) -> None:
        """The end of the stream: what the scanner still holds."""
        if self.scanner is not None:
            self._events(self.scanner.flush(), sink)

    def _call(self, call_id: str) -> int:
        return self.call_index.setdefault(call_id, len(self.call_index))

    def _events(self, events: list[Event], sink: Sink) -> None:
        # The surface text of one scan is fed to each monitor at once (sink.feed_batch): a
        # scan of many small events (text between malformed tokens) costs one look at its
        # text, not one per event. A call's end and a forgery see everything before them fed.
        batch: list[tuple[Entry, Key, str]] = []
        for event in events:
            raw = event.raw
            entry = Entry(raw, raw=True)
            if isinstance(event, Text):
                entry.plain = event.text == raw
                batch.append((entry, RAW_TEXT, event.text))
            elif isinstance(event, ThinkingDelta):
                entry.plain = event.delta == raw
                batch.append((entry, RAW_THINKING, event.delta))
            elif isinstance(event, ToolStart):
                k = self._call(event.id)
                self.open_call = k
                entry.calls.append((0, k))
                self.names[(0, k)] = event.name
                batch.append((entry, (0, "tool_name", k), event.name))
            elif isinstance(event, ToolArgs):
                k = self._call(event.id)
                entry.calls.append((0, k))
                entry.plain = event.delta == raw
                batch.append((entry, (0, "tool_arg", k), event.delta))
            elif isinstance(event, ToolEnd):
                k = self._call(event.id)
                entry.calls.append((0, k))
                sink.feed_batch(batch, closing=(0, k))
                batch = []
                sink.close_call(0, k)
                self.open_call = None
            elif isinstance(event, ResultForgery):
                sink.feed_batch(batch)
                batch = []
                if sink.forgery(event.offset, event.marker):
                    return  # the stream ends before the forgery
            elif isinstance(event, Malformed) and raw:
                # unparsed wire text reaches the reader as it is: judged like the text around
                # it (a stray token, an unclosed call, a forged body), or, inside an open
                # call, like that call's arguments
                if self.open_call is not None:
                    entry.calls.append((0, self.open_call))
                    batch.append((entry, (0, "tool_arg", self.open_call), raw))
                else:
                    batch.append((entry, RAW_TEXT, raw))
            sink.put(entry)
        sink.feed_batch(batch)

    @staticmethod
    def cut(entry: Entry, limits: dict[Key, int]) -> Any:
        return cut_piece(entry, limits)

    @staticmethod
    def final_chunks(delivered: CallSet) -> list[Any]:
        return []  # raw text has no closing item


def cut_piece(entry: Entry, limits: dict[Key, int]) -> Any:
    """A piece of wire text cut to its limit, or ``DROPPED``: only a piece that is exactly its
    surface text (no tokens or envelope in it) can be cut by slicing."""
    if entry.plain and len(limits) == 1:
        keep = next(iter(limits.values()))
        if keep > 0:
            return entry.item[:keep]
    return DROPPED
