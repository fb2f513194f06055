"""Server-sent events for ``guard serve``: an incremental decoder and the encoder.

The decoder follows the WHATWG rules that matter for OpenAI-compatible servers: events end at a
blank line, ``data:`` lines of one event are joined with newlines, one space after the colon is
dropped, comment lines (``:``) are ignored, and lines end with ``\\n``, ``\\r\\n`` or ``\\r``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SSEDecoder", "SSEEvent", "encode"]


@dataclass(frozen=True, slots=True)
class SSEEvent:
    data: str
    event: str | None = None
    id: str | None = None


class SSEDecoder:
    """Feed bytes as they arrive; get complete events back."""

    def __init__(self) -> None:
        self._buf = bytearray()
        self._data: list[str] = []
        self._event: str | None = None
        self._id: str | None = None
        self._pending_cr = False

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        if not self._buf and not self._pending_cr and b"\r" not in chunk:
            # the common case: whole \n-terminated lines (one or more events per read)
            lines = chunk.split(b"\n")
            tail = lines.pop()
            found = [e for e in map(self._line, lines) if e is not None]
            self._buf += tail
            return found
        if self._pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # the \n of a \r\n split across reads
        self._pending_cr = False
        self._buf += chunk
        events: list[SSEEvent] = []
        buf = self._buf
        start = 0
        while True:
            end = buf.find(b"\n", start)
            cr = buf.find(b"\r", start, end if end >= 0 else len(buf))
            if cr >= 0:
                end = cr
            if end < 0:
                break
            line = bytes(buf[start:end])
            if buf[end : end + 1] == b"\r":
                if end + 1 == len(buf):
                    self._pending_cr = True
                    start = end + 1
                elif buf[end + 1 : end + 2] == b"\n":
                    start = end + 2
                else:
                    start = end + 1
            else:
                start = end + 1
            event = self._line(line)
            if event is not None:
                events.append(event)
        del buf[:start]
        return events

    def flush(self) -> list[SSEEvent]:
        """What is left at the end of the body (an event without its final blank line)."""
        events: list[SSEEvent] = []
        if self._buf:
            line = bytes(self._buf)
            self._buf.clear()
            event = self._line(line)
            if event is not None:
                events.append(event)
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
            self._event = None
            return event
        if raw.startswith(b"data: "):
            self._data.append(raw[6:].decode("utf-8", errors="replace"))
            return None
        line = raw.decode("utf-8", errors="replace")
        if line.startswith(":"):
            return None
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return None


def encode(data: str, event: str | None = None) -> bytes:
    """One event on the wire (``data`` with newlines becomes several ``data:`` lines)."""
    head = f"event: {event}\n" if event else ""
    if "\n" in data:
        body = "".join(f"data: {line}\n" for line in data.split("\n"))
    else:
        body = f"data: {data}\n"
    return (head + body + "\n").encode("utf-8")
