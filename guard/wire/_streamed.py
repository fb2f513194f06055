"""The base of the streamed answers (:mod:`guard.wire._stream`): the SSE decoder, the guard
and what it learnt, and the helpers the route kinds share."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from guard._depth import MAX_DEPTH, check_depth
from guard._json import loads
from guard.dialects import Dialect
from guard.errors import LeakAborted, NestingError
from guard.gate import Policy
from guard.integrations.openai.protocol import AbortMode
from guard.models import Outcome, Verdict
from guard.stream import Forwarded, GuardedStream, OnLeak, guard_stream
from guard.wire._events import UnreadableEvent
from guard.wire._sse import SSEDecoder, SSEEvent, encode

__all__ = ["StreamedAnswer", "UpstreamFault"]


_DONE = b"data: [DONE]\n\n"
#: id of a parsed item waiting to go out -> (the item, the SSE event it came in)
_Raws = dict[int, tuple[Any, SSEEvent]]
#: how many chunk shapes one chat stream may take (a stream whose chunks all differ around
#: their text takes none that fits: it stops looking)
_MAX_SHAPES = 16


class UpstreamFault(Exception):
    """The upstream sent a stream that cannot be relayed (the message says why)."""


@dataclass(frozen=True)
class _Opaque:
    """An SSE event whose data is not a JSON object: passed through as it is."""

    data: str
    event: str | None


def _int_or_float(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:  # past the interpreter's digit limit: kept as a float (close enough)
        return float(text)


def _lenient(data: str) -> Any:
    """An event's JSON read with no limit on the digits of an integer; None if not JSON."""
    try:
        return json.loads(data, parse_int=_int_or_float)
    except (ValueError, RecursionError):
        return None


def _dumps(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


def _wire(event: SSEEvent) -> bytes:
    """An upstream event on the wire as it came (re-encoded: the same bytes but for line ends,
    comments, ``id`` lines and the space after a colon)."""
    raw = event.raw
    return encode(event.data, event.event) if raw is None else raw


def _encode(item: Any, raws: _Raws) -> bytes:
    """An item on the wire: unchanged upstream items as they came, others re-serialised."""
    if isinstance(item, _Opaque):
        return encode(item.data, item.event)
    entry = raws.pop(id(item), None)
    if entry is not None and entry[0] is item:
        return _wire(entry[1])
    event = item.get("type") if isinstance(item, dict) and "choices" not in item else None
    return encode(_dumps(item), event if isinstance(event, str) else None)


class StreamedAnswer:
    """One streamed answer being judged (see the module's docstring for how to drive it)."""

    #: the route kind it judges (``chat``, ``responses``, ``messages``)
    kind = ""

    def __init__(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None = None,
        abort: AbortMode = "filter",
        *,
        choices: int = 1,
    ) -> None:
        self.decoder = SSEDecoder()
        #: how many choices the request asked for (its ``n``; only chat answers have more)
        self.choices = choices
        self.raws: _Raws = {}
        self.abort_mode = abort
        #: upstream events read (``[DONE]`` not counted)
        self.chunks = 0
        #: events given out to the client so far (``[DONE]`` not counted)
        self.sent = 0
        #: ``[DONE]`` came
        self.done = False
        #: the body ended, or ``[DONE]`` came: nothing more is read
        self.ended = False
        #: guard stopped the stream: the upstream must be closed now
        self.stopped = False
        #: an aborting leak ended the stream
        self.aborted = False
        #: what the upstream sent that cannot be relayed (the stream then fails)
        self.fault: Exception | None = None
        self.guarded: GuardedStream = self._guard(dialect, policy, on_leak, tools)
        self._begin(dialect, policy, on_leak)

    def _guard(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None,
    ) -> GuardedStream:
        """The stream guard the parsed items go to (a kind may guard them otherwise)."""
        return guard_stream(  # type: ignore[return-value]  # a sync source: the sync stream
            (), dialect=dialect, policy=policy, on_leak=on_leak, raw=False, tools=tools
        )

    def _begin(self, dialect: str | Dialect, policy: Policy | None, on_leak: OnLeak) -> None:
        """What a kind sets up beside the guard (its bridge, its event judge)."""

    # --- what the guard found (final once the stream has ended) -------------------------------

    verdicts = Forwarded[list[Verdict]]("guarded")
    cut = Forwarded[dict[str, int]]("guarded")
    forged = Forwarded[bool]("guarded")
    chars_dropped = Forwarded[int]("guarded")
    abort = Forwarded[LeakAborted | None](
        "guarded", "The error of an aborting leak (None if none)."
    )

    @property
    def upstream_closed(self) -> bool:
        """Guard stopped the stream before the upstream ended it."""
        return self.stopped

    outcomes = Forwarded[list[Outcome]]("guarded", 'Recovery outcomes (``on_leak="recover"``).')

    # --- reading ------------------------------------------------------------------------------

    def parse(self, event: SSEEvent) -> Any:
        """The item of an event: a dict, or None for ``[DONE]`` (then :attr:`ended` is
        true). Raises :class:`UpstreamFault` for an event the judge cannot read."""
        data = event.data
        if data == "[DONE]":
            self.done = self.ended = True
            return None
        self.chunks += 1
        try:
            item = loads(data)
            # nesting is at most the number of opening brackets (and each has a closing one):
            # most events need no walk, and short ones no count
            if len(data) > 2 * MAX_DEPTH and data.count("{") + data.count("[") > MAX_DEPTH:
                check_depth(item, "an upstream event")
        except NestingError as exc:
            raise UpstreamFault(str(exc)) from None
        except RecursionError:
            raise UpstreamFault("an upstream event is nested too deep to read") from None
        except ValueError:
            item = _lenient(data)  # integers past the digit limit still read (issue 28)
        if not isinstance(item, dict):
            # deny by default: an event the judge cannot read ends the stream with an error
            raise UpstreamFault("an upstream event is not a JSON object")
        return item

    def _events(self, piece: bytes | None) -> list[SSEEvent]:
        if piece is None:
            self.ended = True
            return self.decoder.flush()
        return self.decoder.feed(piece)

    def weight(self, piece: bytes) -> int:
        """How many bytes feeding ``piece`` may make the guard parse and judge: the piece, and
        the decoder's held bytes as well when the piece may end an event (holds a line end).
        A driver on an event loop runs heavy feeds elsewhere: a large event read in small
        pieces is all parsed and judged when its last piece comes."""
        size = len(piece)
        held = self.decoder.buffered
        if held and (b"\n" in piece or b"\r" in piece):
            size += held
        return size

    def feed(self, piece: bytes | None) -> list[bytes]:
        """What may go out after the next piece of the body (``None``: the body ended). Look
        at :attr:`fault`, :attr:`stopped` and :attr:`ended` after each call."""
        out: list[bytes] = []
        try:
            events = self._events(piece)
        except Exception as exc:  # an SSE line over the limit
            self.fault = exc
            return out
        raws = self.raws
        for event in events:
            try:
                item = self.parse(event)
            except Exception as exc:
                self.fault = exc  # what came before the faulty event still goes out
                break
            if item is None:
                break  # [DONE]
            raws[id(item)] = (item, event)
            try:
                delivered = self._push(item)
            except UnreadableEvent as exc:
                self.fault = UpstreamFault(str(exc))  # deny by default: never relayed unseen
                break
            for one in delivered:
                out.append(_encode(one, raws))
            if self._stopping():
                self._stop()
                break
        self.sent += len(out)
        return out

    def _push(self, item: dict[str, Any]) -> list[Any]:
        """The items to deliver once ``item`` is handed to the guard."""
        raise NotImplementedError

    def _stopping(self) -> bool:
        """Whether guard stops the stream after the item just pushed."""
        return self.guarded.stopped

    def _stop(self) -> None:
        self.stopped = True
        self.aborted = self.guarded.abort is not None
        self.guarded.close()  # the upstream is the driver's to close; this records it

    def finish(self) -> list[bytes]:
        """What ends the client's stream, once the upstream was closed: after a stop, the
        ending; after the end of the body, what the guard still held, then the ending.
        Raises the :class:`guard.LeakAborted` of an aborting leak with ``abort="raise"``."""
        out: list[bytes] = []
        if not self.stopped:
            out.extend(_encode(one, self.raws) for one in self._end())
        if self.aborted and self.abort_mode == "raise":
            self.sent += len(out)
            error = self.guarded.abort
            assert error is not None
            raise error
        out.extend(self._ending())
        self.sent += len(out) - (out[-1] is _DONE if out else 0)  # [DONE] is no event
        return out

    def _end(self) -> list[Any]:
        return self.guarded.end()

    def _ending(self) -> list[bytes]:
        raise NotImplementedError

    def upstream_failed(self) -> None:
        """The upstream failed: end the guard (its verdicts final), delivering nothing more."""
        self.guarded.close()
        self.guarded.end()

    def failure(self, message: str) -> bytes:
        """The event that tells the client the stream failed (``message`` says why)."""
        raise NotImplementedError
