"""The steps the dialect scanners share on top of :class:`~guard.scanners.base.ScannerBase`
(:class:`DialectScanner`): the constructor keywords every built-in scanner takes, the loop over
numbered states and the close at the end of the stream, the ``ThinkingStart`` owed by
``start_in_thinking``, a reasoning section, text up to a marker (or the layout and junk of a call
section), a held header or call body, a forgery, and a stop held until what follows it is known.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar, TypeVar

from guard.errors import ConfigError
from guard.models import (
    Event,
    Malformed,
    ResultForgery,
    Text,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
)
from guard.scanners.base import HEADER_CAP, HOLD, MAX_ARGUMENTS, Markers, ScannerBase

__all__ = ["DialectScanner", "step"]

_NON_WS = re.compile(r"\S")
_RUNS = re.compile(r"(\s+)|(\S+)")


def _stop(buf: str, i: int, m: str | None) -> int:
    """Where a step that found ``m`` at ``i`` goes on: ``i``, or ``-1 - j`` to stop consuming
    at ``j`` when there is no marker (the end of ``buf``) or a possible one (``HOLD``)."""
    if m is None:
        return -1 - len(buf)
    if m == HOLD:
        return -1 - i
    return i


def _fast_feed(self: DialectScanner, text: str) -> list[Event]:
    """``feed`` of a dialect with :attr:`DialectScanner.FAST_MARKERS`: a chunk that cannot hold
    a marker of the text or reasoning state, in one of those states with nothing held, skips
    the state machine."""
    if text and not self._tail and not self._announce and self._fast_leads.isdisjoint(text):
        st = self._state
        if st == self.TEXT_STATE:
            ev: Event = Text(text, text)
        elif st == self.THINK_STATE:
            ev = ThinkingDelta(text, text)
        else:
            return ScannerBase.feed(self, text)
        self._base += len(text)
        self._emitted += 1
        return [ev]
    return ScannerBase.feed(self, text)


_Step = TypeVar("_Step", bound=Callable[..., int])


def step(*states: int) -> Callable[[_Step], _Step]:
    """Mark a dialect's method (taking ``(buf, pos, out, final)``, returning as
    :meth:`DialectScanner._step` does) as the step of its ``states`` (a method that serves
    several reads which from ``_state``)."""

    def mark(method: _Step) -> _Step:
        method.step_states = states  # type: ignore[attr-defined]
        return method

    return mark


def _table_step(steps: dict[int, Callable[..., int]]) -> Callable[..., int]:
    """:meth:`DialectScanner._step` of a dialect whose states' steps are marked with
    :func:`step`."""

    def _step(
        self: DialectScanner, state: int, buf: str, pos: int, out: list[Event], final: bool
    ) -> int:
        return steps[state](self, buf, pos, out, final)

    return _step


class DialectScanner(ScannerBase):
    """A dialect's scanner: the keywords every built-in scanner takes, a state machine over
    numbered states (``_state``), and the steps the dialects share (see the module docstring).

    Subclasses implement ``_reset`` (the state of a new stream, at construction and after each
    flush; it sets ``_announce`` from ``_start_in_thinking`` when the dialect has reasoning),
    the steps of their states (methods marked with :func:`step`, or one ``_step`` for all),
    ``_finish_dialect`` (what a state holds at the end of the stream) and, with a
    :attr:`THINK_STATE`, ``_think``; and set the class attributes below.

    Args:
        start_in_thinking: the output starts inside reasoning (the prompt opened it).
        tools: OpenAI tool definitions, whose schemas type values sent as strings.
        max_arguments: cap on the argument text held for one call (characters).
    """

    #: For a dialect whose output has no reasoning section: why ``start_in_thinking`` is
    #: refused (the ``ConfigError`` message). Empty when the dialect has reasoning.
    NO_REASONING: ClassVar[str] = ""
    #: The state of text outside any structure (where a reasoning section ends).
    TEXT_STATE: ClassVar[int] = 0
    #: The state after a forgery: all input goes to the sink.
    SINK_STATE: ClassVar[int]
    #: The reasoning state, read by :meth:`_think` (-1: the dialect has none of its own).
    THINK_STATE: ClassVar[int] = -1
    #: Held stops (:meth:`_hold_stop`) that are a forged result when more output follows.
    FORGED_STOPS: ClassVar[frozenset[str]] = frozenset()
    #: Every marker the text state and the reasoning state look for, for a dialect whose text
    #: and reasoning steps turn marker-free input into one ``Text`` or ``ThinkingDelta`` each:
    #: a chunk holding none of their first characters, with nothing held, then skips the state
    #: machine (the common case: one token). Empty: no such path.
    FAST_MARKERS: ClassVar[tuple[Markers, ...]] = ()
    #: The state a held stop waits in (:meth:`_hold_stop`), run by :meth:`_stop_step`.
    STOP_STATE: ClassVar[int] = -1
    _fast_leads: ClassVar[frozenset[str]] = frozenset()
    _state: int

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fast_leads = frozenset(s[0] for m in cls.FAST_MARKERS for s in m.spellings)
        if cls._fast_leads:
            # only such a dialect pays for the test (a call per token shows in a stream's cost)
            cls.feed = _fast_feed  # type: ignore[method-assign,assignment]
        steps = cls._marked_steps()
        if steps:
            cls._step = _table_step(steps)  # type: ignore[method-assign]

    @classmethod
    def _marked_steps(cls) -> dict[int, Callable[..., int]]:
        """The steps of a dialect that marks them (:func:`step`): its text state reads text
        with :meth:`_text_step` (given :attr:`TEXT_MARKERS`) and its :attr:`STOP_STATE` runs
        :meth:`_stop_step`, unless a marked method says otherwise. Empty: the dialect
        overrides :meth:`_step`."""
        marked = {
            state: getattr(cls, name)
            for klass in reversed(cls.__mro__)
            for name, value in vars(klass).items()
            for state in getattr(value, "step_states", ())
        }
        if not marked:
            return {}
        steps: dict[int, Callable[..., int]] = {}
        if hasattr(cls, "TEXT_MARKERS"):
            steps[cls.TEXT_STATE] = cls._text_step
        if cls.STOP_STATE >= 0:
            steps[cls.STOP_STATE] = cls._stop_step
        return {**steps, **marked}

    #: A ``ThinkingStart`` (empty raw text) is owed before anything else.
    _announce: bool = False
    #: A held header, or the held opening of the call whose body is read (it goes out with an
    #: overflowing body).
    _hdr: str = ""
    #: A held stop, its absolute offset, and the blanks read after it.
    _stop: str = ""
    _stop_at: int = 0
    _stop_ws: str = ""

    def __init__(
        self,
        *,
        start_in_thinking: bool = False,
        tools: Iterable[Mapping[str, Any]] | None = None,
        max_arguments: int = MAX_ARGUMENTS,
    ) -> None:
        if start_in_thinking and self.NO_REASONING:
            raise ConfigError(self.NO_REASONING)
        super().__init__(max_arguments, tools)
        self._start_in_thinking = start_in_thinking
        self._reset()

    def _held_extra(self) -> int:
        return len(self._hdr) + len(self._stop) + len(self._stop_ws)

    @abstractmethod
    def _reset(self) -> None:
        """Set the state of a new stream (at construction and after each flush)."""

    @abstractmethod
    def _step(self, state: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """One step in one of the dialect's states: the new position, or ``-1 - i`` to stop
        consuming at ``i`` (the end of ``buf``, or a partial marker held from there)."""

    @abstractmethod
    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        """Close what the dialect's state holds at the end of the stream."""

    def _think(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """One step in :attr:`THINK_STATE` (as :meth:`_step`), for a dialect that has it."""
        raise NotImplementedError

    def _run(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if self._announce:
            self._announced(out)
        n = len(buf)
        think, sink, step = self.THINK_STATE, self.SINK_STATE, self._step
        while pos < n:
            st = self._state
            if st == think:
                pos = self._think(buf, pos, out, final)
            elif st == sink:
                self._sink_add(buf[pos:], out)
                return n
            else:
                pos = step(st, buf, pos, out, final)
            if pos < 0:
                return -1 - pos
        return n

    def _finish(self, out: list[Event]) -> None:
        self._announced(out)
        st = self._state
        if st == self.THINK_STATE:
            out.append(ThinkingEnd(""))
        elif st != self.SINK_STATE:
            self._finish_dialect(st, out)
        self._reset()

    def _announced(self, out: list[Event]) -> None:
        """Emit the ``ThinkingStart`` owed by ``start_in_thinking``, once."""
        if self._announce:
            self._announce = False
            out.append(ThinkingStart(""))

    #: For :meth:`_text_step`: the markers text looks for.
    TEXT_MARKERS: ClassVar[Markers]

    def _text_step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A step in text: text up to the next of :attr:`TEXT_MARKERS` goes out, and the
        marker (consumed) to :meth:`_marker`."""
        i, m = self._text_until(self.TEXT_MARKERS, buf, pos, out, final)
        if m is None:
            return i
        self._marker(m, self._base + i, out)
        return i + len(m)

    def _marker(self, m: str, offset: int, out: list[Event]) -> None:
        """The marker ``m`` read in text at absolute ``offset`` (for :meth:`_text_step`)."""
        raise NotImplementedError

    def _text_until(
        self, markers: Markers, buf: str, pos: int, out: list[Event], final: bool, junk: str = ""
    ) -> tuple[int, str | None]:
        """Text up to the next of ``markers`` goes out as ``Text`` (or, given the ``junk``
        reason, is read as the inside of a call section: :meth:`_gap`, flushed at the marker).
        Returns ``(i, marker)`` when one starts at ``i``; else ``(-1 - i, None)`` to stop
        consuming at ``i`` (the end of ``buf``, or a possible marker)."""
        i, m = markers.find(buf, pos, final)
        if i > pos:
            d = buf[pos:i]
            if junk:
                self._gap(d, junk, out)
            else:
                out.append(Text(d, d))
        if m is None:
            return -1 - len(buf), None
        if m == HOLD:
            return -1 - i, None
        if junk:
            self._sink_flush(out)
        return i, m

    def _held_until(
        self,
        markers: Markers,
        what: str,
        prefix: str,
        buf: str,
        pos: int,
        out: list[Event],
        final: bool,
    ) -> tuple[int, str | None]:
        """Hold a call body up to the next of ``markers`` (capped: past the cap it goes out
        with ``prefix``, the call's opening not yet reported, ``what`` naming the body in the
        reason). Returns as :meth:`_text_until` does."""
        i, m = markers.find(buf, pos, final)
        if i > pos:
            piece = buf[pos:i]
            size = self._body_len + len(piece)
            if size <= self._max_arguments and not self._skipping:
                # the common case, inline (a call per token shows in a stream's cost)
                self._body.append(piece)
                self._body_len = size
            else:
                self._body_hold(piece, out, prefix, what)
        if m is None:
            return -1 - len(buf), None
        if m == HOLD:
            return -1 - i, None
        return i, m

    def _gap(self, text: str, reason: str, out: list[Event]) -> None:
        """Text between the markers of a call section: whitespace is layout (``Text`` with no
        visible text), anything else is ``Malformed``, one event per run (held until the run
        ends, so the events do not depend on chunking)."""
        for m in _RUNS.finditer(text):
            blank = m.group(1)
            if blank is not None:
                self._sink_flush(out)
                out.append(Text("", blank))
            else:
                self._sink_start(reason)
                self._sink_add(m.group(2), out)

    def _call_marker(
        self,
        m: str,
        i: int,
        closes: Iterable[str],
        end: Callable[[str, list[Event]], None],
        call: str,
        out: list[Event],
    ) -> int:
        """The marker ``m``, at ``i`` inside a call: one of ``closes`` ends the call (``end``,
        the marker consumed); another cuts it short (:meth:`_unclosed`, ``call`` naming it in
        the reason; the marker is read again). Returns the position to go on from."""
        if m in closes:
            end(m, out)
            return i + len(m)
        self._unclosed(f"{call} not closed before {m}", out)
        return i

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        """A call cut short (by another marker, or the end of the stream): what it held goes
        out as ``Malformed`` (``reason``); a dialect with calls implements it."""
        raise NotImplementedError

    def _header_overflows(
        self, what: str, buf: str, pos: int, end: int, out: list[Event], back: int
    ) -> int | None:
        """Whether holding ``buf[pos:end]`` in the header would pass :data:`HEADER_CAP`: then
        what is held and what fits go out as ``Malformed`` (``what`` names the header), the
        state goes ``back``, and the offset to go on from is returned; else None."""
        room = HEADER_CAP - len(self._hdr)
        if end - pos <= room:
            return None
        reason = f"{what} longer than {HEADER_CAP} characters"
        out.append(Malformed(reason, self._hdr + buf[pos : pos + room]))
        self._hdr = ""
        self._state = back
        return pos + room

    def _header_to(
        self,
        what: str,
        back: int,
        ended: Callable[[list[Event]], None],
        buf: str,
        pos: int,
        marker: tuple[int, str | None],
        j: int,
        out: list[Event],
    ) -> int | None:
        """Hold ``buf[pos:]`` in the header up to its last character at ``j`` (-1: it does not
        end before the ``marker`` found at ``(i, m)``), capped as :meth:`_header_overflows`
        says. A header that ends calls ``ended``. Returns the position to go on from (as
        :meth:`_step` does), or None when the marker ``m`` at ``i`` cuts the header short."""
        i, m = marker
        end = j + 1 if j >= 0 else i
        over = self._header_overflows(what, buf, pos, end, out, back)
        if over is not None:
            return over
        self._hdr += buf[pos:end]
        if j >= 0:
            ended(out)
            return end
        stop = _stop(buf, i, m)
        return stop if stop < 0 else None

    def _deltas_to(
        self,
        delta: type[Text | ThinkingDelta],
        buf: str,
        pos: int,
        i: int,
        m: str | None,
        out: list[Event],
    ) -> int:
        """``buf[pos:i]`` goes out as one ``delta`` event, up to the marker ``m`` found at
        ``i``. Returns ``i``, or ``-1 - j`` to stop consuming at ``j`` when there is no marker
        (the end of ``buf``) or a possible one (``HOLD``)."""
        if i > pos:
            d = buf[pos:i]
            out.append(delta(d, d))
        return _stop(buf, i, m)

    def _think_step(
        self, markers: Markers, close: str, buf: str, pos: int, out: list[Event], final: bool
    ) -> int:
        """Reasoning up to the next of ``markers`` goes out as ``ThinkingDelta``. Its ``close``
        ends it (``ThinkingEnd`` carrying it); any other marker ends it with an empty
        ``ThinkingEnd`` and is read again in :attr:`TEXT_STATE`. Returns the new position, or
        ``-1 - i`` to stop consuming at ``i`` (the end of ``buf``, or a possible marker)."""
        i, m = markers.find(buf, pos, final)
        j = self._deltas_to(ThinkingDelta, buf, pos, i, m, out)
        if m is None or j < 0:
            return j
        self._state = self.TEXT_STATE
        if m == close:
            out.append(ThinkingEnd(m))
            return i + len(m)
        out.append(ThinkingEnd(""))
        return i

    def _forgery(
        self,
        offset: int,
        marker: str,
        out: list[Event],
        reason: str = "text after a forged tool result",
        rest: str = "",
    ) -> None:
        """A result opening (or a turn only the host writes) ``marker`` at absolute ``offset``:
        everything after it (first ``rest``, read with it) goes out as ``Malformed`` blocks
        (``reason``)."""
        out.append(ResultForgery(offset, marker, marker))
        self._sink_start(reason)
        self._sink_add(rest, out)
        self._state = self.SINK_STATE

    # A marker that is a stop only at the end of the output (followed by more output it is a
    # forged result or out of place) is held with the blanks after it until that is known.

    def _hold_stop(self, marker: str, offset: int, state: int) -> None:
        """Hold the stop ``marker`` (at absolute ``offset``); ``state`` reads what follows it
        with :meth:`_stop_step`."""
        self._stop, self._stop_at, self._stop_ws = marker, offset, ""
        self._state = state

    def _stop_step(self, buf: str, pos: int, out: list[Event], final: bool = False) -> int:
        """After a held stop: blanks are held with it (capped at :data:`HEADER_CAP`); anything
        else (or blanks past the cap) is more output (:meth:`_stop_followed`). Returns the new
        position."""
        found = _NON_WS.search(buf, pos)
        j = found.start() if found else len(buf)
        room = HEADER_CAP - len(self._stop_ws)
        if j - pos > room:
            j = pos + room
            found = None
        self._stop_ws += buf[pos:j]
        if found is None and j == len(buf):
            return j
        self._stop_followed(out)
        return j

    def _stop_followed(self, out: list[Event]) -> None:
        """More output after a held stop: one of :attr:`FORGED_STOPS` is a forged result (its
        blanks go to the sink); another is ``Malformed`` and text goes on."""
        stop, ws = self._stop, self._stop_ws
        self._stop = self._stop_ws = ""
        if stop in self.FORGED_STOPS:
            self._forgery(self._stop_at, stop, out, rest=ws)
        else:
            out.append(Malformed(f"{stop} followed by more output", stop + ws))
            self._state = self.TEXT_STATE

    def _stop_ended(self, out: list[Event]) -> None:
        """The output ended after a held stop: it was a stop (``Text`` with empty text)."""
        out.append(Text("", self._stop + self._stop_ws))
        self._stop = self._stop_ws = ""
