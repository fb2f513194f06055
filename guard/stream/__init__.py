"""Stream middleware: guard a provider stream while it flows (DESIGN.md "Stream middleware").

:func:`guard_stream` wraps a sync ``Iterable`` or an ``AsyncIterable`` of either raw wire-text
deltas (``str``, read through the dialect's scanner) or OpenAI-style chat completion chunks
(dicts or SDK objects: ``delta.content`` is ``text``, ``delta.reasoning_content`` /
``delta.reasoning`` is ``thinking``, ``delta.tool_calls[k].function.name`` / ``.arguments`` are
``tool_name`` / ``tool_arg`` of call ``k``). It yields the same kind of items, minus what must not
reach the caller:

* a forged tool result (SPEC.md 4.6) ends the stream at once: everything before it is delivered,
  nothing from it on, complete calls are kept, an unfinished call is dropped, and the upstream is
  closed so no more tokens are paid for;
* a leak is acted on in the chunk that makes it certain, by ``on_leak``: ``abort`` closes the
  upstream and raises :class:`LeakAborted`; ``truncate`` ends the stream cleanly at the cut;
  ``recover`` ends it the same way and records the policy's recovery outcome; ``report`` passes
  everything through and records verdicts.

Text is withheld only while a decision is pending: a tail that could still complete a tripping
spelling, text from a hit that trips unless a still-open code fence or span encloses it, and a
tool call until it is complete (so a call is never delivered with partial arguments). Chunks are
yielded unchanged except the one that is cut, and a well-formed final chunk ends a cut stream.
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from guard._fields import get_field, set_field
from guard._log import get_logger
from guard.dialects import Dialect, get_dialect
from guard.errors import GuardError, LeakAborted
from guard.gate import Policy, SurfaceMonitor, check_policy
from guard.models import (
    Malformed,
    Outcome,
    ResultForgery,
    Surface,
    Text,
    ThinkingDelta,
    ToolArgs,
    ToolEnd,
    ToolStart,
    Verdict,
)

__all__ = [
    "ON_LEAK",
    "AsyncGuardedStream",
    "GuardError",
    "GuardedStream",
    "LeakAborted",
    "OnLeak",
    "check_on_leak",
    "guard_stream",
]

_log = get_logger("guard.stream")

OnLeak = Literal["abort", "truncate", "recover", "report"]
#: What a guarded stream may do on a leak (see the module docstring).
ON_LEAK: tuple[OnLeak, ...] = ("abort", "truncate", "recover", "report")


def check_on_leak(value: object) -> OnLeak:
    """``value`` as an ``on_leak`` mode, or ``ValueError`` naming the modes."""
    if value not in ON_LEAK:
        raise ValueError(f"on_leak must be one of {', '.join(ON_LEAK)}; got {value!r}")
    return value


# ---------------------------------------------------------------------------------------------
# chunk field access (dicts and SDK objects alike)


Key = tuple[int, str, int]  # (choice index, surface, tool call index or -1)
_DROPPED = object()  # an entry cut to nothing


def _key_name(key: Key) -> str:
    choice, surface, call = key
    name = surface if call < 0 else f"{surface}[{call}]"
    return name if choice == 0 else f"choices[{choice}].{name}"


@dataclass
class _Entry:
    """One upstream item waiting to be delivered, and what it must wait for."""

    item: Any
    marks: list[tuple[Key, int, int]] = field(default_factory=list)  # key, start, end (surface)
    calls: list[tuple[int, int]] = field(default_factory=list)  # (choice, call index)
    raw_text: str | None = None  # raw mode: the wire text of this piece
    plain: bool = False  # raw mode: the piece's raw text is its surface text


class _Engine:
    """The mode-independent core: monitors, the delivery queue, decisions."""

    def __init__(
        self,
        dialect: Dialect,
        policy: Policy,
        on_leak: OnLeak,
        recovery: Any,
        raw: bool | None,
    ) -> None:
        self.dialect = dialect
        self.policy = policy
        self.on_leak = on_leak
        self.recovery = recovery
        self.raw = raw
        self.monitors: dict[Key, SurfaceMonitor] = {}
        self.tool_names: dict[Key, str] = {}
        self.queue: list[_Entry] = []
        self.forged = False
        self.stopped = False
        self.abort: LeakAborted | None = None
        self.chars_in = 0
        self.chars_out = 0
        self.outcomes: list[Outcome] = []
        self.cut: dict[str, int] = {}
        self.closed_calls: set[tuple[int, int]] = set()
        self.open_call: dict[int, int] = {}
        self.delivered_calls: set[tuple[int, int]] = set()
        self.template: Any = None
        self.finished_choices: set[int] = set()
        self.scanner: Any = None
        self.raw_pos = 0
        self.call_index: dict[str, int] = {}
        self.tripped_key: Key | None = None
        self.dropped_calls: set[tuple[int, int]] = set()
        #: release points taken when the stream was stopped (finishing a monitor would move them)
        self.frozen: dict[Key, int] = {}

    # --- monitors ------------------------------------------------------------------------------

    def monitor(self, key: Key) -> SurfaceMonitor:
        m = self.monitors.get(key)
        if m is None:
            tool_name = self.tool_names.get((key[0], "tool_name", key[2])) if key[2] >= 0 else None
            m = SurfaceMonitor(Surface(key[1]), self.dialect, self.policy, tool_name=tool_name)
            self.monitors[key] = m
        return m

    def verdicts(self) -> list[Verdict]:
        out = []
        for key, m in self.monitors.items():
            v = m.verdict()
            out.append(v.model_copy(update={"part": _key_name(key)}))
        return out

    # --- intake ------------------------------------------------------------------------------

    def push(self, item: Any) -> list[Any]:
        if self.stopped:
            return []
        if not self.queue and type(item) is dict and self.raw is False:
            quick = self._quiet_dict_chunk(item)
            if quick is not None:
                return quick
        if self.raw is None:
            self.raw = isinstance(item, str)
        if isinstance(item, str) and self.raw:
            self._push_raw(item)
        elif not self.raw and item is not None and get_field(item, "choices") is not None:
            self._push_chunk(item)
        else:
            _log.warning(
                "guard.stream.unexpected_item", type=type(item).__name__, raw_mode=self.raw
            )
            self.queue.append(_Entry(item=item))
        return self._decide(final=False)

    def end(self) -> list[Any]:
        if self.stopped:
            return []
        if self.raw and self.scanner is not None:
            self._raw_events(self.scanner.flush())
        for key in list(self.monitors):
            self.monitors[key].finish()
        # a call still open when the stream ends (no ToolEnd, no finish_reason) is unfinished:
        # it is dropped, never delivered with partial arguments
        return self._decide(final=True)

    def _push_chunk(self, item: Any) -> None:
        if get_field(item, "choices"):
            self.template = item  # a usage chunk (no choices) cannot shape a final chunk
        entry = _Entry(item=item)
        if type(item) is dict and self._plain_dict_chunk(item, entry):
            self.queue.append(entry)
            return
        for choice in get_field(item, "choices") or ():
            index = get_field(choice, "index") or 0
            delta = get_field(choice, "delta")
            if delta is not None:
                self._feed(entry, (index, "text", -1), get_field(delta, "content"))
                reasoning = get_field(delta, "reasoning_content")
                if reasoning is None:
                    reasoning = get_field(delta, "reasoning")
                self._feed(entry, (index, "thinking", -1), reasoning)
                for position, call in enumerate(get_field(delta, "tool_calls") or ()):
                    k = get_field(call, "index")
                    k = position if k is None else int(k)
                    previous = self.open_call.get(index)
                    if previous is not None and previous != k:
                        self._close_call(index, previous)
                    self.open_call[index] = k
                    entry.calls.append((index, k))
                    function = get_field(call, "function")
                    if function is not None:
                        name = get_field(function, "name")
                        if isinstance(name, str) and name:
                            key = (index, "tool_name", k)
                            self.tool_names[key] = self.tool_names.get(key, "") + name
                        self._feed(entry, (index, "tool_name", k), name)
                        self._feed(entry, (index, "tool_arg", k), get_field(function, "arguments"))
            if get_field(choice, "finish_reason") is not None:
                open_k = self.open_call.pop(index, None)
                if open_k is not None:
                    self._close_call(index, open_k)
                self.finished_choices.add(index)
        self.queue.append(entry)

    def _quiet_dict_chunk(self, item: dict[str, Any]) -> list[Any] | None:
        """The hot path: nothing is withheld, the chunk carries only content, and after it the
        monitor still withholds nothing: deliver it as it is, with no bookkeeping."""
        choices = item.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return None
        choice = choices[0]
        if type(choice) is not dict or choice.get("finish_reason") is not None:
            return None
        delta = choice.get("delta")
        if type(delta) is not dict or len(delta) != 1:
            return None
        content = delta.get("content")
        if type(content) is not str or not content:
            return None
        key = (choice.get("index") or 0, "text", -1)
        m = self.monitors.get(key) or self.monitor(key)
        m.feed(content)
        self.template = item
        self.chars_in += len(content)
        if m.tripped is None and m.release == m.total:
            self.chars_out += len(content)
            return [item]
        entry = _Entry(item=item, marks=[(key, m.total - len(content), m.total)])
        self.queue.append(entry)
        return self._decide(final=False)

    def _plain_dict_chunk(self, item: dict[str, Any], entry: _Entry) -> bool:
        """The hot path: one choice whose delta carries only content. False: take the slow
        path (which handles every shape)."""
        choices = item["choices"]
        if type(choices) is not list or len(choices) != 1:
            return False
        choice = choices[0]
        if type(choice) is not dict or choice.get("finish_reason") is not None:
            return False
        delta = choice.get("delta")
        if type(delta) is not dict or not delta.keys() <= {"content", "role"}:
            return False
        self._feed(entry, (choice.get("index") or 0, "text", -1), delta.get("content"))
        return True

    def _close_call(self, choice: int, call: int) -> None:
        """A call is complete: its name and arguments will not grow, so their verdicts are
        final now, before any of its entries can be released."""
        self.closed_calls.add((choice, call))
        for surface in ("tool_name", "tool_arg"):
            m = self.monitors.get((choice, surface, call))
            if m is not None:
                m.finish()

    def _feed(self, entry: _Entry, key: Key, text: Any, *, count: bool = True) -> None:
        if not isinstance(text, str) or not text:
            return
        m = self.monitor(key)
        start = m.total
        m.feed(text)
        if count:
            self.chars_in += len(text)
        entry.marks.append((key, start, m.total))

    # --- raw wire text ---------------------------------------------------------------------------

    def _push_raw(self, text: str) -> None:
        self.chars_in += len(text)  # what was read, whether or not the scanner emitted it yet
        if self.scanner is None:
            from guard.scanners import scanner

            self.scanner = scanner(self.dialect)
        self._raw_events(self.scanner.feed(text))

    def _raw_events(self, events: list[Any]) -> None:
        for event in events:
            raw = event.raw
            entry = _Entry(item=None, raw_text=raw)
            if isinstance(event, Text):
                entry.plain = event.text == raw
                self._feed_raw(entry, (0, "text", -1), event.text)
            elif isinstance(event, ThinkingDelta):
                entry.plain = event.delta == raw
                self._feed_raw(entry, (0, "thinking", -1), event.delta)
            elif isinstance(event, ToolStart):
                k = self.call_index.setdefault(event.id, len(self.call_index))
                self.open_call[0] = k
                entry.calls.append((0, k))
                self.tool_names[(0, "tool_name", k)] = event.name
                self._feed_raw(entry, (0, "tool_name", k), event.name)
            elif isinstance(event, ToolArgs):
                k = self.call_index.setdefault(event.id, len(self.call_index))
                entry.calls.append((0, k))
                entry.plain = event.delta == raw
                self._feed_raw(entry, (0, "tool_arg", k), event.delta)
            elif isinstance(event, ToolEnd):
                k = self.call_index.setdefault(event.id, len(self.call_index))
                entry.calls.append((0, k))
                self._close_call(0, k)
                self.open_call.pop(0, None)
            elif isinstance(event, ResultForgery):
                self._forgery(event.offset, event.marker)
                if self.on_leak != "report":
                    return
            elif isinstance(event, Malformed) and self.open_call.get(0) is not None:
                entry.calls.append((0, self.open_call[0]))
            self.queue.append(entry)

    def _feed_raw(self, entry: _Entry, key: Key, text: str) -> None:
        self._feed(entry, key, text, count=False)  # raw mode counts wire characters

    def _forgery(self, offset: int, marker: str) -> None:
        self.forged = True
        self.cut["raw"] = offset
        _log.warning("guard.stream.forgery", offset=offset, marker_chars=len(marker))

    # --- decisions ---------------------------------------------------------------------------

    def _tripped(self) -> tuple[Key, SurfaceMonitor] | None:
        best: tuple[Key, SurfaceMonitor] | None = None
        for key, m in self.monitors.items():
            if m.tripped is not None and (best is None or key < best[0]):
                best = (key, m)
        return best

    def _decide(self, *, final: bool) -> list[Any]:
        if self.forged and self.on_leak != "report":
            # every surface ends at the forgery: what each holds back is decided by finishing
            for m in self.monitors.values():
                m.finish()
            out = self._deliver(final=True, drop_open_calls=True)
            out += self._final_chunks()
            self._stop()
            return out
        tripped = self._tripped()
        if tripped is not None and self.on_leak != "report":
            key, m = tripped
            hit = m.tripped
            assert hit is not None
            if self.tripped_key is None:
                self.tripped_key = key
                if key[2] >= 0:
                    self.dropped_calls.add((key[0], key[2]))
                forged_result = hit.code == "H" and "R" in hit.signals
                if forged_result:
                    self.forged = True
                self.cut[_key_name(key)] = m.release
                self.frozen = {k: mon.release for k, mon in self.monitors.items()}
                verdict = m.finish()  # the verdict on what arrived, the leak included
                _log.warning(
                    "guard.stream.forgery" if forged_result else "guard.stream.leak",
                    surface=key[1],
                    cut=m.release,
                    withheld=m.total - m.release,
                )
                if self.on_leak == "abort" and not forged_result:
                    withheld = self._withheld_text(key)
                    self.abort = LeakAborted(self._full_verdict(key, verdict), withheld)
                    self._stop()
                    return []
                if self.on_leak == "recover":
                    self._recover(key, verdict)
            for other in self.monitors.values():
                other.finish()
            out = self._deliver(final=True, drop_open_calls=True, cut_key=key)
            out += self._final_chunks()
            self._stop()
            return out
        out = self._deliver(final=final, drop_open_calls=final)
        if final:
            self.stopped = True
        return out

    def _full_verdict(self, key: Key, verdict: Verdict) -> Verdict:
        return verdict.model_copy(update={"part": _key_name(key)})

    def _withheld_text(self, key: Key) -> str:
        base, buf = self.monitors[key].retained
        return buf[max(0, self._release(key) - base) :]

    def _recover(self, key: Key, verdict: Verdict) -> None:
        from recovery import get_strategy

        surface = Surface(key[1])
        tool = self.tool_names.get((key[0], "tool_name", key[2])) if key[2] >= 0 else None
        strategy = self.recovery or get_strategy(self.policy.recovery_for(surface, tool))
        base, value = self.monitors[key].retained
        outcome = strategy.apply(value, _shift(verdict, -base))
        self.outcomes.append(outcome)
        _log.info("guard.stream.recovered", strategy=outcome.strategy, kind=outcome.kind)

    def _stop(self) -> None:
        self.stopped = True

    # --- delivery ------------------------------------------------------------------------------

    def _release(self, key: Key) -> int:
        frozen = self.frozen.get(key)
        return self.monitors[key].release if frozen is None else frozen

    def _ready(self, entry: _Entry) -> bool:
        if self.on_leak == "report":
            return True  # observe only: nothing is withheld
        for call in entry.calls:
            if call not in self.closed_calls:
                return False
        return all(self._release(key) >= end for key, _start, end in entry.marks)

    def _deliver(
        self, *, final: bool, drop_open_calls: bool, cut_key: Key | None = None
    ) -> list[Any]:
        out: list[Any] = []
        while self.queue:
            entry = self.queue[0]
            if not final and not self._ready(entry):
                break
            self.queue.pop(0)
            if drop_open_calls and any(c not in self.closed_calls for c in entry.calls):
                continue  # an unfinished call is never delivered
            if any(c in self.dropped_calls for c in entry.calls):
                continue  # a leaking call is dropped whole, never cut short
            piece = self._cut_entry(entry, cut_key)
            if piece is _DROPPED:
                self.queue.clear()
                break
            out.append(piece)
            if piece is not entry.item and piece is not entry.raw_text:
                self.queue.clear()  # this entry was cut: nothing after it
                break
        return out

    def _cut_entry(self, entry: _Entry, cut_key: Key | None) -> Any:
        """The entry as delivered: whole, cut at a monitor's release point, or None (dropped)."""
        limits: dict[Key, int] = {}
        if self.on_leak != "report":
            for key, start, end in entry.marks:
                release = self._release(key)
                if release < end:
                    limits[key] = max(0, release - start)
        for call in entry.calls:
            self.delivered_calls.add(call)
        if self.raw:
            raw = entry.raw_text or ""
            if not limits:
                self.chars_out += len(raw)
                return raw
            if entry.plain and len(limits) == 1:
                keep = next(iter(limits.values()))
                if keep > 0:
                    self.chars_out += keep
                    return raw[:keep]
            return _DROPPED
        if not limits:
            self.chars_out += sum(end - start for _key, start, end in entry.marks)
            return entry.item
        return self._rewrite(entry, limits)

    def _rewrite(self, entry: _Entry, limits: dict[Key, int]) -> Any:
        item = copy.deepcopy(entry.item)
        for choice in get_field(item, "choices") or ():
            index = get_field(choice, "index") or 0
            delta = get_field(choice, "delta")
            if delta is None:
                continue
            for field_name, surface in (
                ("content", "text"),
                ("reasoning_content", "thinking"),
                ("reasoning", "thinking"),
            ):
                key = (index, surface, -1)
                value = get_field(delta, field_name)
                if key in limits and isinstance(value, str):
                    set_field(delta, field_name, value[: limits[key]] or None)
            calls = get_field(delta, "tool_calls")
            if calls:
                set_field(delta, "tool_calls", None)  # a call cut short is never delivered
            set_field(choice, "finish_reason", None)
        for key, start, end in entry.marks:
            self.chars_out += min(end - start, limits.get(key, end - start))
        return item

    def _final_chunks(self) -> list[Any]:
        if self.raw or self.template is None:
            return []
        chunk = copy.deepcopy(self.template)
        choices = get_field(chunk, "choices") or []
        if not choices:
            return []
        finals = []
        seen = set()
        for choice in choices:
            index = get_field(choice, "index") or 0
            if index in seen:
                continue
            seen.add(index)
            delta = get_field(choice, "delta")
            if delta is not None:
                for name in ("content", "reasoning_content", "reasoning", "tool_calls", "role"):
                    if get_field(delta, name) is not None:
                        set_field(delta, name, None)
            complete = any(c[0] == index for c in self.delivered_calls)
            set_field(choice, "finish_reason", "tool_calls" if complete else "stop")
            finals.append(choice)
        set_field(chunk, "choices", finals)
        return [chunk]

    @property
    def chars_dropped(self) -> int:
        return max(0, self.chars_in - self.chars_out)


def _shift(verdict: Verdict, by: int) -> Verdict:
    """The verdict with every offset moved by ``by`` (for a strategy given a suffix)."""
    if not by:
        return verdict
    hits = tuple(
        h.model_copy(
            update={
                "start": max(0, h.start + by),
                "end": max(0, h.end + by),
                "support": tuple(
                    s.model_copy(update={"start": max(0, s.start + by), "end": max(0, s.end + by)})
                    for s in h.support
                ),
            }
        )
        for h in verdict.hits
    )
    cut = None if verdict.cut is None else max(0, verdict.cut + by)
    return verdict.model_copy(update={"hits": hits, "cut": cut})


# ---------------------------------------------------------------------------------------------
# drivers


class _Base:
    def __init__(self, engine: _Engine) -> None:
        self._engine = engine
        self.upstream_closed = False

    @property
    def verdicts(self) -> list[Verdict]:
        """One verdict per surface part seen (final once the stream has ended)."""
        return self._engine.verdicts()

    @property
    def forged(self) -> bool:
        return self._engine.forged

    @property
    def cut(self) -> dict[str, int]:
        """Offset of the cut per surface part (``raw`` for a forgery in raw wire text)."""
        return dict(self._engine.cut)

    @property
    def chars_dropped(self) -> int:
        """Characters received from upstream but not delivered."""
        return self._engine.chars_dropped

    @property
    def outcomes(self) -> list[Outcome]:
        """Recovery outcomes (``on_leak="recover"``)."""
        return list(self._engine.outcomes)


class GuardedStream(_Base):
    """A guarded sync stream: iterate it like the upstream."""

    def __init__(self, source: Iterable[Any], engine: _Engine) -> None:
        super().__init__(engine)
        self._source = source
        self._iterator: Iterator[Any] | None = None

    def __iter__(self) -> Iterator[Any]:
        engine = self._engine
        self._iterator = iter(self._source)
        try:
            while not engine.stopped:
                try:
                    item = next(self._iterator)
                except StopIteration:
                    yield from engine.end()
                    return
                except BaseException:
                    engine.end()
                    raise
                out = engine.push(item)
                if engine.stopped:
                    self.close()
                yield from out
                if engine.abort is not None:
                    raise engine.abort
        finally:
            # also when the consumer stops early (break, cancellation): the provider must stop
            if not self.upstream_closed:
                self.close()

    def close(self) -> None:
        """Close the upstream (so the provider stops generating)."""
        if self.upstream_closed:
            return
        self.upstream_closed = True
        for target in (self._iterator, self._source):
            closer = getattr(target, "close", None)
            if callable(closer):
                closer()

    def __enter__(self) -> GuardedStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncGuardedStream(_Base):
    """A guarded async stream: ``async for`` it like the upstream."""

    def __init__(self, source: AsyncIterable[Any], engine: _Engine) -> None:
        super().__init__(engine)
        self._source = source
        self._iterator: AsyncIterator[Any] | None = None

    async def __aiter__(self) -> AsyncIterator[Any]:
        engine = self._engine
        self._iterator = aiter(self._source)
        try:
            while not engine.stopped:
                try:
                    item = await anext(self._iterator)
                except StopAsyncIteration:
                    for out_item in engine.end():
                        yield out_item
                    return
                except BaseException:
                    engine.end()
                    raise
                out = engine.push(item)
                if engine.stopped:
                    await self.aclose()
                for out_item in out:
                    yield out_item
                if engine.abort is not None:
                    raise engine.abort
        finally:
            if not self.upstream_closed:
                await self.aclose()

    async def aclose(self) -> None:
        """Close the upstream (so the provider stops generating)."""
        if self.upstream_closed:
            return
        self.upstream_closed = True
        for target in (self._iterator, self._source):
            closer = getattr(target, "aclose", None) or getattr(target, "close", None)
            if callable(closer):
                result = closer()
                if inspect.isawaitable(result):
                    await result

    async def __aenter__(self) -> AsyncGuardedStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def guard_stream(
    source: Iterable[Any] | AsyncIterable[Any],
    *,
    dialect: str | Dialect = "harmony",
    policy: Policy | None = None,
    on_leak: OnLeak = "abort",
    recovery: Any = None,
    raw: bool | None = None,
) -> GuardedStream | AsyncGuardedStream:
    """Wrap a provider stream; see the module docstring.

    Args:
        source: a sync iterable or an async iterable of ``str`` deltas or chat completion chunks.
        dialect: the wire format (raw text is read with this dialect's scanner).
        policy: the gate's rules (default: SPEC.md 4.4).
        on_leak: ``abort``, ``truncate``, ``recover`` or ``report``.
        recovery: a strategy object for ``recover`` (default: the one the policy names).
        raw: force raw-text (True) or chunk (False) handling; default: decided by the first item.

    Returns:
        A :class:`GuardedStream` for a sync source, an :class:`AsyncGuardedStream` for an async
        one; both expose ``verdicts``, ``forged``, ``cut``, ``chars_dropped`` and
        ``upstream_closed`` during and after iteration.
    """
    engine = _Engine(
        get_dialect(dialect), check_policy(policy), check_on_leak(on_leak), recovery, raw
    )
    if hasattr(source, "__aiter__"):
        return AsyncGuardedStream(cast(AsyncIterable[Any], source), engine)
    if hasattr(source, "__iter__") and not isinstance(source, str | bytes):
        return GuardedStream(source, engine)
    raise TypeError(
        f"guard_stream() expects an iterable or async iterable, got {type(source).__name__}"
    )
