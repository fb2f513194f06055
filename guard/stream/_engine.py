"""The stream engine: upstream items in, items to deliver out, with no IO.

It owns one :class:`~guard.gate.SurfaceMonitor` per surface part, a reader for the stream's kind
of item (chat completion chunks or raw wire text), the delivery queue and the decisions. Text is
withheld only while a decision is pending (docs/streaming.md, "What is withheld"): a tail that could
still complete a tripping spelling, text from a hit that trips unless a still-open code fence or
span encloses it, and a tool call until it is complete. The drivers iterate the upstream and
close it; the engine never does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from guard._log import get_logger
from guard.dialects import Dialect
from guard.errors import LeakAborted
from guard.gate import Policy, SurfaceMonitor, could_hit
from guard.models import Outcome, Signal, Surface, Verdict
from guard.stream._chunks import _TEXT, ChunkReader, quiet_choice
from guard.stream._decisions import Decisions, OnLeak, first_tripped
from guard.stream._forward import Forwarded
from guard.stream._queue import DeliveryQueue, Entry, Key, key_name
from guard.stream._raw import RAW_TEXT, RAW_THINKING, RawReader
from guard.stream._retired import RETAIN_CALLS, RetiredParts
from guard.stream._sink import Reader, Sink

__all__ = ["RETAIN_CALLS", "Engine", "Reader", "Sink"]

_log = get_logger("guard.stream")


class Engine:
    """Push upstream items, get back what may be delivered; see the module docstring.

    ``raw``: True for raw wire text, False for chunks, None to decide on the first item.
    """

    __slots__ = (
        "_born",
        "_last_key",
        "_last_monitor",
        "_seq",
        "_whole",
        "chunks",
        "decisions",
        "dialect",
        "held",
        "monitors",
        "policy",
        "queue",
        "raw",
        "reader",
        "reasoned",
        "retired",
        "scan_options",
        "signals",
        "stopped",
        "tools",
        "wire",
    )

    def __init__(
        self,
        dialect: Dialect,
        policy: Policy,
        on_leak: OnLeak,
        recovery: Any,
        raw: bool | None,
        scan_options: Mapping[str, Any] | None = None,
        tools: frozenset[str] | None = None,
        signals: tuple[Signal, ...] | None = None,
    ) -> None:
        self.dialect = dialect
        #: the signal set of every monitor (``None``: the registered set; a Detector's)
        self.signals = signals
        self.scan_options = scan_options  # the raw reader's scanner keywords
        #: the request's declared tool names (``None``: unknown), context of every monitor
        self.tools = tools
        #: choices whose reasoning part has non-blank text: their answer's context for V
        self.reasoned: set[int] = set()
        self.policy = policy
        self.monitors: dict[Key, SurfaceMonitor] = {}
        #: parts of finished calls, their monitors dropped (a bounded record)
        self.retired = RetiredParts(dialect.name, policy.max_hits)
        self._born: dict[Key, int] = {}  # order in which each live monitor was made
        #: parts of the closing call judged clean whole: (order, release, tool name), recorded
        #: when the call closes
        self._whole: dict[Key, tuple[int, int, str | None]] = {}
        self._seq = 0
        self.decisions = Decisions(on_leak, policy, recovery)
        self.queue = DeliveryQueue(withhold=self.decisions.acts)
        self.raw = raw
        self.reader: Reader | None = None
        self.chunks: ChunkReader | None = None  # the reader in chunk mode (its fast paths)
        self.wire: RawReader | None = None  # the reader in raw mode (its fast path)
        self.stopped = False
        #: chunks of one quiet surface held only because their text ends in what may still
        #: become a word spelling: (item, key, start, end); lighter than queue entries
        self.held: list[tuple[Any, Key, int, int]] = []
        #: the surface of the last quiet item and its monitor (most items go to the same one)
        self._last_key: Key | None = None
        self._last_monitor: SurfaceMonitor | None = None
        if raw is not None:
            self._start(raw)

    def _start(self, raw: bool) -> Reader:
        self.raw = raw
        if raw:
            self.reader = self.wire = RawReader(self.dialect, self.scan_options)
        else:
            self.reader = self.chunks = ChunkReader()
        return self.reader

    # --- what the drivers read -----------------------------------------------------------------

    forged = Forwarded[bool]("decisions")
    abort = Forwarded[LeakAborted | None]("decisions")
    cut = Forwarded[dict[str, int]]("decisions")
    outcomes = Forwarded[list[Outcome]]("decisions")
    chars_dropped = Forwarded[int]("queue")

    def verdicts(self) -> list[Verdict]:
        """One verdict per surface part seen, named by its part, in the order the parts came;
        of many finished calls, the latest ``RETAIN_CALLS`` and the leaking ones (see
        :attr:`verdicts_omitted`)."""
        live = [
            (self._born[key], m.verdict().model_copy(update={"part": key_name(key)}))
            for key, m in self.monitors.items()
        ]
        return [v for _seq, v in sorted([*self.retired.verdicts(), *live], key=lambda p: p[0])]

    @property
    def verdicts_omitted(self) -> int:
        """Verdicts of finished calls' parts not kept (see :mod:`guard.stream._retired`)."""
        return self.retired.omitted

    def _retire(self, key: Key) -> None:
        """Drop the finished monitor of a call's part, keeping its verdict and release point
        (a stream of many calls keeps a bounded record, not every monitor)."""
        m = self.monitors.pop(key)
        if self._last_key == key:
            self._last_key, self._last_monitor = None, None
        self.retired.add(key, self._born.pop(key), m)
        m.close()

    # --- intake ------------------------------------------------------------------------------

    def push(self, item: Any) -> list[Any]:
        """Take one upstream item; return the items that may be delivered now."""
        if self.stopped:
            return []
        if self.chunks is not None and type(item) is dict and not self.queue.entries:
            delivered = self._push_quiet_chunk(item)
            if delivered is not None:
                return delivered
        if self.wire is not None and type(item) is str:
            return self._push_raw(self.wire, item)
        if self.held:
            self._flush_held()
        reader = self.reader
        if reader is None:
            reader = self._start(isinstance(item, str))
        if reader.accepts(item):
            if self.raw:
                self.queue.chars_in += len(item)  # what was read, whether or not scanned out
            reader.read(item, self)
        else:
            _log.warning(
                "guard.stream.unexpected_item", type=type(item).__name__, raw_mode=self.raw
            )
            self.queue.entries.append(Entry(item))
        return self._decide(final=False)

    def _push_quiet_chunk(self, item: dict[str, Any]) -> list[Any] | None:
        """The chunk reader's fast path: one unfinished choice whose delta is only non-empty
        content goes the quiet way (None: the item is not one, or the quiet way is taken)."""
        choice = quiet_choice(item)
        if choice is None:
            return None
        assert self.chunks is not None
        self.chunks.template = item
        index = choice.get("index")
        quiet_key = _TEXT if not index else (index, "text", -1)
        if self.held and self.held[0][1] != quiet_key:
            return None
        return self._quiet(item, quiet_key, choice["delta"]["content"])

    def _push_raw(self, wire: RawReader, item: str) -> list[Any]:
        """The raw reader's path: the scanner takes a piece of plain body text at once (its
        fast path), else scans it into events."""
        queue = self.queue
        queue.chars_in += len(item)  # what was read, whether or not scanned out yet
        feed_body = wire.feed_body
        kind = feed_body(item) if feed_body is not None and not queue.entries else None
        key = None if kind is None else RAW_TEXT if kind == "text" else RAW_THINKING
        if key is not None:
            if not self.held or self.held[0][1] == key:
                # the raw hot path: a piece that is exactly its surface's text
                return self._quiet(item, key, item, counted=True)
            events = [wire.event(key, item)]
        else:
            events = wire.scan(item)
        if self.held:
            self._flush_held()
        wire.take(events, self)
        return self._decide(final=False)

    def _quiet(self, item: Any, key: Key, content: str, *, counted: bool = False) -> list[Any]:
        """An item that only adds ``content`` to one surface (a quiet dict chunk, a raw piece of
        body text): deliver it at once if the monitor still withholds nothing, hold it lightly
        if only a word-spelling prefix is withheld, else queue it. ``counted``: its characters
        are already in ``chars_in``. This runs once per streamed item: keep it lean."""
        queue = self.queue
        m = self._last_monitor
        if key is not self._last_key or m is None:
            m = self.monitors.get(key) or self.monitor(key)
            self._last_key, self._last_monitor = key, m
        if key[1] == "thinking" and not content.isspace():
            self.reasoned.add(key[0])
        release = m.feed_release(content)
        n = len(content)
        if not counted:
            queue.chars_in += n
        total = m.total
        if release >= 0:
            held = self.held
            if not held:
                if release == total:
                    queue.chars_out += n
                    return [item]
                if m.quiet and queue.withhold:
                    # only a tail that may become a word spelling is withheld
                    held.append((item, key, total - n, total))
                    return []
            elif m.quiet and queue.withhold:
                held.append((item, key, total - n, total))
                out = []
                while held and held[0][3] <= release:
                    done = held.pop(0)
                    queue.chars_out += done[3] - done[2]
                    out.append(done[0])
                return out
        self._flush_held()
        queue.entries.append(self._entry(item, key, total - n, total))
        return self._decide(final=False)

    def _entry(self, item: Any, key: Key, start: int, end: int) -> Entry:
        """The queue entry of an item that only added ``[start, end)`` to ``key``'s text."""
        if self.raw:
            return Entry(item, [(key, start, end)], raw=True, plain=True)
        return Entry(item, [(key, start, end)])

    def end(self) -> list[Any]:
        """The upstream ended (or failed): return what may still be delivered.

        A call still open at the end (no end event, no ``finish_reason``) is unfinished: it is
        dropped, never delivered with partial arguments."""
        if self.stopped:
            return []
        if self.reader is None:  # nothing ever came
            self.stopped = True
            return []
        if self.held:
            self._flush_held()
        self.reader.flush(self)
        for m in list(self.monitors.values()):
            m.finish()
        return self._decide(final=True)

    def _flush_held(self) -> None:
        """Held chunks join the queue (in order, before anything that came after them)."""
        entries = self.queue.entries
        for item, key, a, b in reversed(self.held):
            entries.appendleft(self._entry(item, key, a, b))
        self.held.clear()

    # --- the sink readers feed -----------------------------------------------------------------

    def monitor(self, key: Key) -> SurfaceMonitor:
        """The monitor of a surface part (made on first use)."""
        m = self.monitors.get(key)
        if m is None:
            if key[2] >= 0 and (key[0], key[2]) in self.queue.calls.closed:
                # as for a finished monitor that is still kept (SurfaceMonitor.feed)
                raise RuntimeError(f"text for {key_name(key)} after its call was closed")
            m = SurfaceMonitor(
                Surface(key[1]),
                self.dialect,
                self.policy,
                tool_name=self._tool_name(key),
                tools=self.tools,
                reasoning=self._reasoning(key),
                signals=self.signals,
            )
            self.monitors[key] = m
            self._born[key] = self._seq
            self._seq += 1
        return m

    def _reasoning(self, key: Key) -> bool | None:
        """Whether the answer's message carried a reasoning part, as ``detect_message`` says it:
        only for the visible text of a reasoning dialect, from the reasoning that arrived before
        the answer's first character (docs/streaming.md, "Context")."""
        if key[1] != "text" or not self.dialect.thinking:
            return None
        return key[0] in self.reasoned

    def feed(self, entry: Entry, key: Key, text: object, *, count: bool = True) -> None:
        if not isinstance(text, str) or not text:
            return
        m = self.monitors.get(key) or self.monitor(key)
        if key[1] == "thinking" and not text.isspace():
            self.reasoned.add(key[0])
        start = m.total
        m.feed_release(text)
        if count:
            self.queue.chars_in += len(text)
        entry.marks.append((key, start, m.total))

    def feed_batch(
        self, batch: list[tuple[Entry, Key, str]], closing: tuple[int, int] | None = None
    ) -> None:
        if not batch:
            return
        if len(batch) == 1 and closing is None:
            entry, key, text = batch[0]
            self.feed(entry, key, text, count=False)
            return
        # a part of the closing call with no monitor yet: all its text is in this batch
        whole = (
            None
            if closing is None or closing in self.queue.calls.closed
            else {
                key: self._seq
                for surface in ("tool_name", "tool_arg")
                if (key := (closing[0], surface, closing[1])) not in self.monitors
                and key not in self.retired.records
            }
        )
        # monitors are made, and reasoning noted, in the order the texts came (a text
        # monitor's context is whether reasoning arrived before it)
        pending: dict[Key, list[str]] = {}
        ends: dict[Key, int] = {}
        for entry, key, text in batch:
            if not isinstance(text, str) or not text:
                continue
            if whole and key in whole:
                if key not in pending:
                    whole[key] = self._seq  # its place in the order of parts
                    self._seq += 1
                start = ends.get(key, 0)
                ends[key] = start + len(text)
                entry.marks.append((key, start, start + len(text)))
                pending.setdefault(key, []).append(text)
                continue
            m = self.monitors.get(key) or self.monitor(key)
            if key[1] == "thinking" and not text.isspace():
                self.reasoned.add(key[0])
            start = ends.get(key, m.total)
            ends[key] = start + len(text)
            entry.marks.append((key, start, start + len(text)))
            pending.setdefault(key, []).append(text)
        for key, texts in pending.items():
            if whole and key in whole:
                self._judge_whole(key, whole[key], "".join(texts))
            else:
                self.monitors[key].feed_release("".join(texts))

    def _judge_whole(self, key: Key, order: int, text: str) -> None:
        """A finished call's part whose whole text came at once: retired clean at once when
        the surface's prefilter says no signal can fire on it (what its monitor would find);
        else judged by a monitor as any other part."""
        if self.policy.rule(Surface(key[1])).mode == "leak" and not could_hit(
            text, Surface(key[1]), self.dialect, self.policy, self.signals, self.tools
        ):
            # recorded when the call closes, with its other part, in the order a monitor's
            # part would be: the bounded record drops the oldest as they were recorded
            self._whole[key] = (order, len(text), self._tool_name(key))
            return
        m = self.monitor(key)
        self._born[key] = order  # the order the part came in, not when its monitor was made
        m.feed_release(text)

    def close_call(self, choice: int, call: int) -> None:
        """A call's verdicts are final when it closes, before any of its entries is released."""
        self.queue.calls.closed.add((choice, call))
        for surface in ("tool_name", "tool_arg"):
            key = (choice, surface, call)
            m = self.monitors.get(key)
            if m is None:
                whole = self._whole.pop(key, None)
                if whole is not None:  # judged clean whole (see _judge_whole)
                    self.retired.add_clean(key, *whole)
                continue
            m.end()
            if not m.clean:
                m.verdict()  # a finding is logged when its call closes
            # a trip still to be acted on keeps its monitor (see _decide)
            if m.tripped is None or not self.decisions.acts:
                self._retire(key)
        reader = self.reader
        if reader is not None and all(
            (choice, surface, call) not in self.monitors for surface in ("tool_name", "tool_arg")
        ):
            reader.names.pop((choice, call))  # no monitor of the call will ask for it again

    def forgery(self, offset: int, marker: str) -> bool:
        return self.decisions.forgery(offset, marker)

    def put(self, entry: Entry) -> None:
        self.queue.entries.append(entry)

    # --- decisions and delivery ----------------------------------------------------------------

    def _tool_name(self, key: Key) -> str | None:
        if key[2] < 0 or self.reader is None:
            return None
        return self.reader.names.get((key[0], key[2]))

    def _release(self, key: Key) -> int:
        point = self.decisions.frozen.get(key)
        if point is not None:
            return point
        m = self.monitors.get(key)
        if m is not None:
            return m.release
        return self.retired.release(key)

    def _decide(self, *, final: bool) -> list[Any]:
        reader = self.reader
        assert reader is not None
        decisions = self.decisions
        if decisions.acts:
            ends = decisions.forged
            if not ends:
                key = first_tripped(self.monitors)
                if key is not None:
                    if key[2] >= 0:
                        self.queue.calls.dropped.add((key[0], key[2]))
                    decisions.leak(key, self.monitors, self._tool_name(key))
                    if decisions.abort is not None:
                        self.stopped = True
                        return []
                    ends = True
            if ends:
                # every surface ends here: finishing decides what each still holds back
                for m in self.monitors.values():
                    m.finish()
                out = self.queue.take(self._release, reader.cut, final=True)
                out += reader.final_chunks(self.queue.calls.delivered)
                self.stopped = True
                return out
        elif not decisions.forged:
            decisions.observe(self.monitors, final=final)
        out = self.queue.take(self._release, reader.cut, final=final)
        if final:
            self.stopped = True
        return out
