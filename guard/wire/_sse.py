"""Server-sent events of guarded streams (``guard serve`` and the transport): an incremental
decoder and the encoder.

The decoder follows the WHATWG rules that matter for OpenAI-compatible servers: events end at a
blank line, ``data:`` lines of one event are joined with newlines, one space after the colon is
dropped, comment lines (``:``) are ignored, and lines end with ``\\n``, ``\\r\\n`` or ``\\r``.

A read that holds only whole events of one ``data: `` line each, with nothing left over from
earlier reads (what OpenAI-compatible servers send), takes a fast path that gives the same
events as the line-by-line one and keeps each event's wire bytes, so an event passed on
unchanged needs no encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["DEFAULT_MAX_EVENT_BYTES", "SSEDecoder", "SSEEvent", "SSELimitError", "encode"]

#: the longest line, and the most ``data`` of one event, the decoder holds (8 MiB)
DEFAULT_MAX_EVENT_BYTES = 8 * 1024 * 1024
_EMPTY = b""  # joins the pieces of a line (its one copy)


class SSELimitError(ValueError):
    """A line or an event over the decoder's limit: the stream cannot be relayed."""


@dataclass(slots=True)  # not frozen: a frozen dataclass is made three times slower
class SSEEvent:
    data: str
    event: str | None = None
    id: str | None = None
    #: the event's bytes on the wire when they are exactly ``encode(data, event)`` (else None)
    raw: bytes | None = field(default=None, compare=False, repr=False)


class SSEDecoder:
    """Feed bytes as they arrive; get complete events back.

    Linear time and bounded memory: each byte is searched once, when it arrives (the pieces of
    an unfinished line are kept as they came and joined once, at the line's end), and a line or
    an event's data over ``max_event_bytes`` raises :class:`SSELimitError` instead of growing
    without bound."""

    #: reads of whole one-line ``data:`` events skip the line-by-line path (the same events)
    fast_path = True

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        self.max_event_bytes = max_event_bytes
        self._partial: list[bytes] = []  # pieces of the unfinished line
        self._partial_len = 0
        self._data: list[str] = []
        self._data_len = 0
        self._event: str | None = None
        self._id: str | None = None
        self._pending_cr = False

    @property
    def buffered(self) -> int:
        """Bytes held for the unfinished line and event."""
        return self._partial_len + self._data_len

    @property
    def idle(self) -> bool:
        """Whether it holds nothing from earlier reads (no line, data, event name or ``\\r``)."""
        return not (self._partial or self._data or self._event is not None or self._pending_cr)

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if self._pending_cr:
            self._pending_cr = False
            if chunk.startswith(b"\n"):
                chunk = chunk[1:]  # the \n of a \r\n split across reads
        if (
            self.fast_path
            and chunk.endswith(b"\n\n")
            and chunk.startswith(b"data: ")
            and not self._partial
            and not self._data
            and self._event is None
            and b"\r" not in chunk
        ):
            if chunk.count(b"\n") == 2 and len(chunk) - 2 <= self.max_event_bytes:
                # one event (the usual read), without the call
                try:
                    return [SSEEvent(chunk[6:-2].decode("utf-8"), None, self._id, chunk)]
                except UnicodeDecodeError:
                    pass  # _whole keeps the replaced text and no wire bytes
            whole = self._whole(chunk)
            if whole is not None:
                return whole
        events: list[SSEEvent] = []
        if b"\r" not in chunk:
            # the common case: \n-terminated lines (one or more events per read)
            lines = chunk.split(b"\n")
            tail = lines.pop()
            if lines:
                self._complete(lines, events)
            self._hold(tail)
            return events
        n = len(chunk)
        start = 0
        nl = chunk.find(b"\n")
        cr = chunk.find(b"\r")
        while start < n:
            # the next \n and \r at or after start (each found once: searches resume)
            if 0 <= nl < start:
                nl = chunk.find(b"\n", start)
            if 0 <= cr < start:
                cr = chunk.find(b"\r", start)
            end = min(nl, cr) if nl >= 0 and cr >= 0 else max(nl, cr)
            if end < 0:
                self._hold(chunk[start:])
                break
            self._complete([chunk[start:end]], events)
            if end == cr:
                if end + 1 == n:
                    self._pending_cr = True
                    start = n
                elif end == nl - 1:
                    start = end + 2
                else:
                    start = end + 1
            else:
                start = end + 1
        return events

    def _whole(self, chunk: bytes) -> list[SSEEvent] | None:
        """The events of ``chunk`` when it is whole events of one ``data: `` line each (and the
        decoder holds nothing), else None (nothing was taken: decode it line by line)."""
        lines = chunk.count(b"\n")
        if lines == 2:
            parts = [chunk[:-2]]
        else:
            parts = chunk[:-2].split(b"\n\n")
            if lines != 2 * len(parts):
                return None  # a line of its own inside an event, or a blank line too many
            for part in parts:
                if not part.startswith(b"data: "):
                    return None
        limit = self.max_event_bytes
        events: list[SSEEvent] = []
        for line in parts:
            if len(line) > limit:
                return None  # the line-by-line path raises
            try:
                data = line[6:].decode("utf-8")
            except UnicodeDecodeError:  # re-encoding would not give these bytes back
                events.append(SSEEvent(line[6:].decode("utf-8", errors="replace"), None, self._id))
                continue
            raw = chunk if lines == 2 else line + b"\n\n"
            events.append(SSEEvent(data, None, self._id, raw))
        return events

    def _hold(self, piece: bytes) -> None:
        """Keep ``piece`` as the start of an unfinished line."""
        if piece:
            self._partial.append(piece)
            self._partial_len += len(piece)
            self._check()

    def _check(self) -> None:
        if self.buffered > self.max_event_bytes:
            raise SSELimitError(f"an SSE line or event exceeds {self.max_event_bytes} bytes")

    def _complete(self, lines: list[bytes], events: list[SSEEvent]) -> None:
        """Finish the given lines (the first one joined to the unfinished piece)."""
        if self._partial:
            self._partial.append(lines[0])
            lines[0] = _EMPTY.join(self._partial)
            self._partial = []
            self._partial_len = 0
        for line in lines:
            if len(line) > self.max_event_bytes:
                raise SSELimitError(f"an SSE line exceeds {self.max_event_bytes} bytes")
            event = self._line(line)
            if event is not None:
                events.append(event)

    def flush(self) -> list[SSEEvent]:
        """What is left at the end of the body (an event without its final blank line)."""
        events: list[SSEEvent] = []
        if self._partial:
            self._complete([b""], events)
        event = self._line(b"")
        if event is not None:
            events.append(event)
        return events

    def _line(self, raw: bytes) -> SSEEvent | None:
        if not raw:
            if not self._data and self._event is None:
                return None
            event = SSEEvent("\n".join(self._data), self._event, self._id)
            self._data = []
            self._data_len = 0
            self._event = None
            return event
        if raw.startswith(b"data: "):
            self._add_data(raw[6:].decode("utf-8", errors="replace"))
            return None
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._add_data(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return None

    def _add_data(self, value: str) -> None:
        self._data.append(value)
        self._data_len += len(value) + 1
        self._check()


def encode(data: str, event: str | None = None) -> bytes:
    """One event on the wire (``data`` with newlines becomes several ``data:`` lines)."""
    head = f"event: {event}\n" if event else ""
    if "\n" in data:
        body = "".join(f"data: {line}\n" for line in data.split("\n"))
    else:
        body = f"data: {data}\n"
    return (head + body + "\n").encode("utf-8")
