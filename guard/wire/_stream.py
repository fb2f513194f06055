"""Streamed answers, sans-IO: the SSE bytes of a guarded route's answer go in as they are read,
the bytes the client may have come out.

:class:`StreamedAnswer` (one per answer, made by :func:`streamed_answer` for its route's kind)
holds the SSE decoder, the guard and what it learnt; it never reads or closes anything. Its
driver (the proxy's relay, the httpx transport) reads a piece of the upstream body and calls
:meth:`~StreamedAnswer.feed`, sends what it returns, and looks at three flags:

* :attr:`~StreamedAnswer.fault`: the upstream sent something that cannot be relayed (an SSE
  line over the limit, an event that is not a JSON object, one nested too deep): close the
  upstream, send what ``feed`` returned, then :meth:`~StreamedAnswer.failure`;
* :attr:`~StreamedAnswer.stopped`: guard stopped the stream (a forged tool result, a leak):
  close the upstream at once, then send :meth:`~StreamedAnswer.finish`;
* :attr:`~StreamedAnswer.ended`: the body ended or ``[DONE]`` came: read the rest for a moment
  (the connection can then be reused), close it, then send :meth:`~StreamedAnswer.finish`.

Upstream events that guard delivers unchanged go out as they came: byte for byte when the
decoder kept their bytes (whole one-line ``data:`` events), else re-encoded from their data;
changed or new ones are re-serialised. A stopped stream still ends well-formed: a chat stream
with a final chunk and ``data: [DONE]``, a Responses stream with the bridge's terminal events, an
Anthropic Messages stream with the open block stopped, ``message_delta`` and ``message_stop``.
With ``abort="raise"``, :meth:`~StreamedAnswer.finish` raises the :class:`guard.LeakAborted` of
an aborting leak instead of ending the stream so.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from guard._depth import MAX_DEPTH, check_depth
from guard._json import loads
from guard.dialects import Dialect
from guard.errors import LeakAborted, NestingError
from guard.gate import Policy
from guard.integrations.anthropic.protocol import MessageEventBridge, block_part
from guard.integrations.openai.protocol import AbortMode, ResponseEventBridge
from guard.models import Outcome, Verdict
from guard.stream import GuardedStream, OnLeak, guard_stream
from guard.wire._choices import ChoiceGuard
from guard.wire._endings import (
    fit_delta_logprobs,
    guard_object,
    messages_ending,
    responses_ending,
)
from guard.wire._events import EventJudge, UnreadableEvent
from guard.wire._shape import ChunkShape
from guard.wire._sse import SSEDecoder, SSEEvent, encode

__all__ = ["StreamedAnswer", "UpstreamFault", "streamed_answer"]

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

    def __init__(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None = None,
        abort: AbortMode = "filter",
    ) -> None:
        self.decoder = SSEDecoder()
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
        self.guarded: GuardedStream = guard_stream(
            (),
            dialect=dialect,
            policy=policy,
            on_leak=on_leak,
            raw=False,
            tools=tools,
        )  # type: ignore[assignment]  # a sync source gives the sync stream

    # --- what the guard found (final once the stream has ended) -------------------------------

    @property
    def verdicts(self) -> list[Verdict]:
        return self.guarded.verdicts

    @property
    def cut(self) -> dict[str, int]:
        return self.guarded.cut

    @property
    def forged(self) -> bool:
        return self.guarded.forged

    @property
    def chars_dropped(self) -> int:
        return self.guarded.chars_dropped

    @property
    def abort(self) -> LeakAborted | None:
        """The error of an aborting leak (None if none)."""
        return self.guarded.abort

    @property
    def upstream_closed(self) -> bool:
        """Guard stopped the stream before the upstream ended it."""
        return self.stopped

    @property
    def outcomes(self) -> list[Outcome]:
        """Recovery outcomes (``on_leak="recover"``)."""
        return self.guarded.outcomes

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


class ChatAnswer(StreamedAnswer):
    """A Chat Completions chunk stream, guarded one choice at a time by a
    :class:`~guard.wire._choices.ChoiceGuard` (every string judged; a leak in one choice ends
    only that choice, with a chunk ``finish_reason: "content_filter"``); a stream guard acted on
    ends with a chunk ``"choices": []`` carrying a top-level ``"guard"`` object, then
    ``data: [DONE]``.

    A read that is one event shaped like an earlier chunk (:mod:`guard.wire._shape`) is read
    without the decoder and the JSON parser: the same item, handed to the guard all the same;
    an item the guard delivers as it came goes out as the bytes it came in."""

    def __init__(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None = None,
        abort: AbortMode = "filter",
    ) -> None:
        super().__init__(dialect, policy, on_leak, tools, abort)
        self.guarded: ChoiceGuard = ChoiceGuard(  # type: ignore[assignment]
            dialect, policy, on_leak, tools
        )
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


class _BridgedAnswer(StreamedAnswer):
    """A provider event stream read through a bridge into the chunk shape the guard reads.

    Deny by default: each event first goes through an :class:`~guard.wire._events.EventJudge`,
    which judges every string the bridge and the guard do not read; a leak there ends the
    stream after the event (what the judge keeps of it). A stream guard stopped ends in the
    API's own terms with a top-level ``"guard"`` object (:mod:`guard.wire._endings`)."""

    bridge: ResponseEventBridge | MessageEventBridge
    kind = ""

    def __init__(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None = None,
        abort: AbortMode = "filter",
    ) -> None:
        super().__init__(dialect, policy, on_leak, tools, abort)
        self.judge = EventJudge(self.kind, dialect, policy, on_leak)
        #: the judge ended the stream (``"truncated"`` or ``"aborted"``), else None
        self.judge_stop: str | None = None

    def _push(self, item: dict[str, Any]) -> list[Any]:
        judged = self.judge.judge(item)
        if judged.stop or judged.choices:
            self.judge_stop = "aborted" if judged.aborted else "truncated"
            item = judged.item
        bridge = self.bridge
        out = self.guarded.push(bridge.chunk(item))
        return [self._rewrite(e) for e in map(bridge.event, out) if e is not None]

    def _stopping(self) -> bool:
        return self.guarded.stopped or self.judge_stop is not None

    def _stop(self) -> None:
        super()._stop()
        self.aborted = self.aborted or self.judge_stop == "aborted"

    def _end(self) -> list[Any]:
        bridge = self.bridge
        return [self._rewrite(e) for e in map(bridge.event, self.guarded.end()) if e is not None]

    def _acted(self) -> bool:
        """Whether guard stopped the stream (so far)."""
        guarded = self.guarded
        return bool(self.aborted or guarded.forged or guarded.cut or self.judge_stop)

    def _action(self) -> str:
        if self.aborted or self.guarded.abort is not None or self.judge_stop == "aborted":
            return "aborted"
        return "forged" if self.guarded.forged else "truncated"

    def _guard_object(self) -> dict[str, Any]:
        return guard_object(self._action(), self.verdicts)

    @property
    def verdicts(self) -> list[Verdict]:
        """The guard's verdicts, then the event judge's (each named by its place)."""
        return self._guard_verdicts() + self.judge.verdicts

    def _guard_verdicts(self) -> list[Verdict]:
        return self.guarded.verdicts

    @property
    def cut(self) -> dict[str, int]:
        """The parts cut: the guard's, then the event judge's places."""
        out = self._guard_cut()
        for name in self.judge.cut:
            out.setdefault(name, 0)
        return out

    def _guard_cut(self) -> dict[str, int]:
        return dict(self.guarded.cut)

    def _rewrite(self, item: Any) -> Any:
        """An item on its way out as the client gets it."""
        return item

    def _terminal(self) -> list[bytes]:
        """The bridge's terminal events when guard stopped the stream, else none."""
        if self._acted():
            return [
                _encode(self._rewrite(e), self.raws) for e in self.bridge.terminal(self.aborted)
            ]
        return []


class ResponsesAnswer(_BridgedAnswer):
    """A Responses API event stream: guard's stop ends it with the bridge's terminal events,
    the last one carrying a top-level ``"guard"`` object (an aborting leak's is
    ``response.incomplete``, reason ``content_filter``)."""

    bridge: ResponseEventBridge
    kind = "responses"

    def __init__(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None = None,
        abort: AbortMode = "filter",
    ) -> None:
        super().__init__(dialect, policy, on_leak, tools, abort)
        self.bridge: ResponseEventBridge = ResponseEventBridge()

    def _ending(self) -> list[bytes]:
        return [*self._terminal(), *([_DONE] if self.done else [])]

    def _rewrite(self, item: Any) -> Any:
        if type(item) is not dict:
            return item
        kind = item.get("type")
        if kind == "response.output_text.delta" and id(item) not in self.raws:
            return fit_delta_logprobs(item)  # a cut delta keeps only its own tokens
        if kind in ("response.completed", "response.incomplete") and self._acted():
            if self.aborted:
                return responses_ending(item, self._guard_object())
            # a cut or forged answer ends ``completed`` (SDK stream helpers, the Agents SDK's
            # run loop, raise on ``incomplete``): the "guard" object tells the client
            return {**item, "guard": self._guard_object()}
        return item

    def failure(self, message: str) -> bytes:
        error = {
            "type": "error",
            "code": "upstream_error",
            "message": message,
            "param": None,
            "sequence_number": self.bridge.sequence + 1,
        }
        return encode(_dumps(error), "error")


class MessagesAnswer(_BridgedAnswer):
    """An Anthropic Messages event stream: guard's stop ends it with the open block stopped,
    ``message_delta`` (stop reason ``refusal``) and ``message_stop`` with ``"guard"``."""

    kind = "messages"

    def __init__(
        self,
        dialect: str | Dialect,
        policy: Policy | None,
        on_leak: OnLeak,
        tools: frozenset[str] | None = None,
        abort: AbortMode = "filter",
    ) -> None:
        super().__init__(dialect, policy, on_leak, tools, abort)
        self.bridge = MessageEventBridge()

    def _guard_verdicts(self) -> list[Verdict]:
        """One verdict per part seen, named by content block (``content[1]``)."""
        return [
            v.model_copy(update={"part": block_part(v.part or "")}) for v in self.guarded.verdicts
        ]

    def _guard_cut(self) -> dict[str, int]:
        return {block_part(k): v for k, v in self.guarded.cut.items()}

    def _ending(self) -> list[bytes]:
        return self._terminal()  # a Messages stream ends with its own events

    def _rewrite(self, item: Any) -> Any:
        kind = item.get("type") if type(item) is dict else None
        if kind in ("message_delta", "message_stop") and self._acted():
            return messages_ending(item, self._guard_object())
        return item

    def failure(self, message: str) -> bytes:
        error = {"type": "error", "error": {"type": "api_error", "message": message}}
        return encode(_dumps(error), "error")


_KINDS: dict[str, type[StreamedAnswer]] = {
    "chat": ChatAnswer,
    "responses": ResponsesAnswer,
    "messages": MessagesAnswer,
}


def streamed_answer(
    kind: str,
    dialect: str | Dialect,
    policy: Policy | None,
    on_leak: OnLeak,
    tools: frozenset[str] | None = None,
    abort: AbortMode = "filter",
) -> StreamedAnswer:
    """The judge of one streamed answer of a route of ``kind`` (``chat``, ``responses``,
    ``messages``)."""
    return _KINDS[kind](dialect, policy, on_leak, tools, abort)
