"""A guarded Chat Completions chunk stream (:mod:`guard.wire._stream`)."""

from __future__ import annotations

from typing import Any

from guard.dialects import Dialect
from guard.gate import Policy
from guard.stream import OnLeak
from guard.wire._choices import ChoiceGuard
from guard.wire._events import UnreadableEvent
from guard.wire._shape import ChunkShape
from guard.wire._sse import SSEEvent, encode
from guard.wire._streamed import (
    _DONE,
    _MAX_SHAPES,
    StreamedAnswer,
    UpstreamFault,
    _dumps,
    _encode,
)

__all__ = ["ChatAnswer"]


class ChatAnswer(StreamedAnswer):
    """A Chat Completions chunk stream, guarded one choice at a time by a
    :class:`~guard.wire._choices.ChoiceGuard` (every string judged; a leak in one choice ends
    only that choice, with a chunk ``finish_reason: "content_filter"``); a stream guard acted on
    ends with a chunk ``"choices": []`` carrying a top-level ``"guard"`` object, then
    ``data: [DONE]``.

    A read that is one event shaped like an earlier chunk (:mod:`guard.wire._shape`) is read
    without the decoder and the JSON parser: the same item, handed to the guard all the same;
    an item the guard delivers as it came goes out as the bytes it came in."""

    kind = "chat"
    guarded: ChoiceGuard  # type: ignore[assignment]

    def _guard(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None,
    ) -> Any:
        return ChoiceGuard(dialect, policy, on_leak, tools, choices=self.choices)

    def _begin(self, dialect: str | Dialect, policy: Policy | None, on_leak: OnLeak) -> None:
        self.finish_seen = False
        self.last: dict[str, Any] | None = None
        self._shape: ChunkShape | None = None
        self._shapes = _MAX_SHAPES  # how many more shapes may be taken
        decoder = self.decoder
        self._fits = decoder.max_event_bytes + 2  # a read the decoder's fast path takes whole
        self._idle = decoder.fast_path and decoder.idle

    def _see(self, item: Any) -> None:
        if isinstance(item, dict):
            choices = item.get("choices")
            if choices:
                self.last = item
                if not self.finish_seen:
                    for choice in choices:
                        if isinstance(choice, dict) and choice.get("finish_reason"):
                            self.finish_seen = True
                            break

    def feed(self, piece: bytes | None) -> list[bytes]:
        pushed: tuple[Any, list[Any]] | None = None
        if (
            self._shape is not None
            and piece is not None
            and self._idle
            and len(piece) <= self._fits
        ):
            taken = self._shaped(piece)
            if isinstance(taken, list):
                return taken  # relayed as it came, or a fault
            pushed = taken
        if pushed is not None:
            assert piece is not None
            # the event the decoder would give (its id is not relayed)
            events = [SSEEvent(piece[6:-2].decode("utf-8"), None, None, piece)]
        else:
            try:
                events = self._events(piece)
            except Exception as exc:  # an SSE line over the limit
                self.fault = exc
                return []
            decoder = self.decoder
            self._idle = decoder.fast_path and decoder.idle
        out: list[bytes] = []
        item, fault = self._relay(events, pushed, out)
        if self._shapes and len(events) == 1 and fault is None and item is not None:
            self._learn(events[0], item, pushed is not None)
        if fault is not None:
            self.fault = fault
        elif self.guarded.stopped:
            self._stop()
        self.sent += len(out)
        return out

    def _shaped(self, piece: bytes) -> list[bytes] | tuple[Any, list[Any]] | None:
        """A read shaped like an earlier chunk, read without the decoder and the parser: the
        bytes to relay when the guard delivers the item as it came (``[]`` on a fault), the
        item and what the guard delivered otherwise, None when the read has not the shape."""
        assert self._shape is not None
        item = self._shape.read(piece)
        if item is None:
            return None
        self.chunks += 1  # parse(event), done
        try:
            delivered = self.guarded.push(item)
        except UnreadableEvent as exc:
            self.fault = UpstreamFault(str(exc))
            return []
        if len(delivered) == 1 and delivered[0] is item and not self.guarded.stopped:
            self.last = item  # see(item): it finishes no choice
            self.sent += 1
            return [piece]
        return item, delivered  # the event's bytes go out in feed

    def _relay(
        self, events: list[SSEEvent], pushed: tuple[Any, list[Any]] | None, out: list[bytes]
    ) -> tuple[Any, Exception | None]:
        """Judge and relay ``events`` into ``out``: the last item read and the fault that
        stopped the reading, if any."""
        guarded = self.guarded
        see = self._see
        raws = self.raws
        item: Any = None
        for event in events:
            if pushed is None:
                try:
                    item = self.parse(event)
                except Exception as exc:
                    return item, exc
                if item is None:
                    break  # [DONE]
                try:
                    delivered = guarded.push(item)
                except UnreadableEvent as exc:  # deny by default: never relayed unseen
                    return item, UpstreamFault(str(exc))
            else:
                item, delivered = pushed
            if len(delivered) == 1 and delivered[0] is item:
                see(item)
                raw = event.raw  # _wire(event), one call less
                out.append(encode(event.data, event.event) if raw is None else raw)
            else:
                raws[id(item)] = (item, event)
                for one in delivered:
                    see(one)
                    out.append(_encode(one, raws))
            if guarded.stopped:
                break
        return item, None

    def _learn(self, event: SSEEvent, item: Any, shaped: bool) -> None:
        """One event a read (``shaped``: read by the current shape): maybe the next ones are
        shaped like it."""
        if self.guarded.stopped or event.raw is None or (shaped and self._shape is not None):
            return
        taken = ChunkShape.of(event.raw, item)
        if taken is not None:
            self._shape = taken
            self._shapes -= 1

    def _end(self) -> list[Any]:
        items = self.guarded.end()
        for one in items:
            self._see(one)
        return items

    def _ending(self) -> list[bytes]:
        out: list[bytes] = []
        event = self.guarded.guard_event()
        if event is not None:
            out.append(encode(_dumps(event)))
        if event is not None or self.done:
            out.append(_DONE)
        return out

    def failure(self, message: str) -> bytes:
        error = {
            "message": message,
            "type": "upstream_error",
            "code": "upstream_stream_error",
            "param": None,
        }
        return encode(_dumps({"error": error}))
