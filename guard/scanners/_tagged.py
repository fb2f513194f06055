"""States shared by the scanners of tag dialects (GLM, Kimi, Kimi K3, DeepSeek, MiniMax, the
generic grammar scanner): reasoning sections, a start inside reasoning, the forgery sink, a held
call body and its close, and the renderers' common checks.

A subclass sets the class attributes below and implements ``_step`` for its own states
(numbered from :data:`FIRST_STATE`); the reasoning and sink states are run here and by the loop
of :class:`~guard.scanners._dialect.DialectScanner`. A call's body is held up
to its closer (:meth:`TaggedScanner._call_body`); at the closer the dialect's
:meth:`TaggedScanner._parse_body` reads it and :meth:`TaggedScanner._close_call` reports it.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Iterable
from typing import Any, ClassVar, Final

from guard.models import (
    Event,
    Malformed,
    Text,
    ThinkingDelta,
    ThinkingStart,
    ToolArgs,
    ToolEnd,
    ToolStart,
)
from guard.scanners._dialect import DialectScanner
from guard.scanners.base import (
    HOLD,
    Markers,
    json_members,
    json_value,
)

__all__ = [
    "FIRST_STATE",
    "OUT",
    "SINK",
    "THINK",
    "TaggedScanner",
    "check_name",
    "json_arguments",
]

OUT: Final = 0
THINK: Final = 1
SINK: Final = 2
#: The first state number a subclass may use for its own states.
FIRST_STATE: Final = 3


class TaggedScanner(DialectScanner):
    """Reasoning, forgery and held-call handling for a tag dialect.

    Class attributes:
        THINKING: ``(open, close)`` reasoning tag pairs; the first pair is the one a template
            pre-fills (``start_in_thinking``).
        THINK_ENDS: spellings that end an open reasoning section without its closing tag
            (forgeries, stops, and for token dialects the call-section openers); the ``OUT``
            state then reads the spelling again.
    """

    THINKING: ClassVar[tuple[tuple[str, str], ...]] = (("<think>", "</think>"),)
    THINK_ENDS: ClassVar[tuple[str, ...]] = ()
    #: Every first character of the dialect's marker spellings: a chunk without any of them
    #: cannot hold (or start) a marker.
    LEAD_CHARS: ClassVar[str] = "<"
    #: States that hold a call body (``_body``) until its closing marker.
    HELD_STATES: ClassVar[frozenset[int]] = frozenset()
    #: The state of a call section (calls with layout between them), if the dialect has one.
    SECTION_STATE: ClassVar[int] = -1
    SINK_STATE = SINK
    THINK_STATE = THINK
    _think_markers: ClassVar[dict[str, Markers]]
    _think_opens: ClassVar[frozenset[str]]
    _leads: ClassVar[frozenset[str]] = frozenset("<")
    #: The id of the call being read when its ``ToolStart`` went out at its opening (the
    #: dialects that name a call before its body); empty when it goes out at its close.
    _call_id: str = ""
    #: The name of the call being read, once its opening named it.
    _call_name: str = ""
    #: The call being read stands in a call section (it goes back there when it ends).
    _in_section: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._think_markers = {close: Markers((close, *cls.THINK_ENDS)) for _, close in cls.THINKING}
        cls._think_opens = frozenset(open_ for open_, _ in cls.THINKING)
        cls._leads = frozenset(cls.LEAD_CHARS)

    def _reset(self) -> None:
        self._state = THINK if self._start_in_thinking else OUT
        self._think_close = self.THINKING[0][1] if self.THINKING else ""
        self._announce = self._start_in_thinking
        self._reset_dialect()

    @abstractmethod
    def _reset_dialect(self) -> None:
        """Reset the dialect's own state (called at construction and after each flush)."""

    def _back(self) -> int:
        """The state a call goes back to when it closes or is cut short: the call section it
        stands in, else text."""
        return self.SECTION_STATE if self._in_section else OUT

    def _section_layout(
        self, m: str, section: bool, opens: Iterable[str], closes: Iterable[str], out: list[Event]
    ) -> bool:
        """Whether the marker ``m``, read outside a call (in a call section when ``section``),
        is a section's opening in text or its closing in the section (layout: ``Text`` with
        empty text, entering or leaving :attr:`SECTION_STATE`), or a reasoning opening in text
        (reasoning opens); it has been handled then."""
        if section:
            if m not in closes:
                return False
            out.append(Text("", m))
            self._state = OUT
        elif m in opens:
            out.append(Text("", m))
            self._state = self.SECTION_STATE
        elif m in self._think_opens:
            self._open_thinking(m, out)
        else:
            return False
        return True

    def _closing(self, close: str, out: list[Event]) -> tuple[str, str] | None:
        """A call's closing marker ``close`` was read: the state goes back, and the held opening
        and body are returned, or None when the body overflowed (it went out already, ``close``
        after it)."""
        hdr, self._hdr = self._hdr, ""
        self._state = self._back()
        if self._body_skip_end(close, out):
            return None
        return hdr, self._body_take()

    def _call_body(
        self,
        markers: Markers,
        closes: Iterable[str],
        what: str,
        buf: str,
        pos: int,
        out: list[Event],
        final: bool,
        call: str = "tool call",
    ) -> int:
        """One step in a held call body (``what`` names it, :meth:`_body_until`) up to the next
        of ``markers``: one of ``closes`` ends the call (:meth:`_close_call`); another marker
        cuts it short (``Malformed``, ``call`` naming it in the reason; the marker is read
        again). Returns what :meth:`_step` returns."""
        i, m = self._body_until(markers, what, buf, pos, out, final)
        if m is None:
            return i
        return self._call_marker(m, i, closes, self._close_call, call, out)

    def _close_call(self, close: str, out: list[Event]) -> None:
        """A call's closing marker ``close`` was read: the call ends (:meth:`_close_held`),
        unless its body overflowed and went out already."""
        held = self._closing(close, out)
        if held is not None:
            self._close_held(*held, close, out)

    def _close_held(self, hdr: str, body: str, close: str, out: list[Event]) -> None:
        """A closed call, its held opening ``hdr`` and ``body`` read by :meth:`_parse_body`:
        ``ToolArgs`` + ``ToolEnd`` (after a ``ToolStart`` with ``hdr`` when none went out at
        the opening), or ``Malformed`` with the raw text and the parser's reason."""
        parsed = self._parse_body(body)
        if isinstance(parsed, str):
            out.append(Malformed(parsed, hdr + body + close))
            return
        name, args = parsed
        cid = self._call_id
        if not cid:
            cid = self._next_id()
            out.append(ToolStart(cid, name, hdr))
        out.append(ToolArgs(cid, args, body))
        out.append(ToolEnd(cid, name, args, close))

    def _parse_body(self, body: str) -> tuple[str, str] | str:
        """``(name, arguments JSON)`` of a closed call's body, or the reason the call is
        ``Malformed`` (a dialect that ends calls with :meth:`_close_call` implements it)."""
        raise NotImplementedError

    def _start_call(self, name: str, valid: bool, out: list[Event]) -> None:
        """A call's opening (held in ``_hdr``) named it ``name``: when the name is ``valid``,
        ``ToolStart`` goes out now with the opening; else the opening stays held and
        :meth:`_parse_body` makes the call ``Malformed`` at its close."""
        self._call_name = name
        if valid:
            self._call_id = self._next_id()
            out.append(ToolStart(self._call_id, name, self._hdr))
            self._hdr = ""
        else:
            self._call_id = ""

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        """A call cut short (by another marker, or the end of the stream): its held opening and
        body go out as one ``Malformed``."""
        hdr, self._hdr = self._hdr, ""
        self._state = self._back()
        self._body_abandon(reason, hdr, out)

    def _header_until(
        self, markers: Markers, what: str, buf: str, pos: int, out: list[Event], final: bool
    ) -> tuple[int, str | None]:
        """Hold a call's header in ``_hdr`` up to the next of ``markers``. Returns as
        :meth:`_text_until` does; a header past :data:`~guard.scanners.base.HEADER_CAP`
        (``what`` names it) goes out as ``Malformed`` and ``(where to go on, None)`` is
        returned."""
        i, m = markers.find(buf, pos, final)
        over = self._header_overflows(what, buf, pos, i, out, self._back())
        if over is not None:
            return over, None
        self._hdr += buf[pos:i]
        if m is None:
            return -1 - len(buf), None
        if m == HOLD:
            return -1 - i, None
        return i, m

    def _body_until(
        self, markers: Markers, what: str, buf: str, pos: int, out: list[Event], final: bool
    ) -> tuple[int, str | None]:
        """:meth:`_held_until` for the body of the call whose opening is held in ``_hdr``."""
        i, m = self._held_until(markers, what, self._hdr, buf, pos, out, final)
        if self._skipping:  # the held opening went out with the overflowing body
            self._hdr = ""
        return i, m

    # -- the loop ------------------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """Scan the next chunk. A chunk that cannot hold a marker, in text, reasoning or a held
        body (the common case: one token), skips the state machine."""
        if self._tail or not text or self._announce or not self._leads.isdisjoint(text):
            return super().feed(text)
        st = self._state
        if st == OUT:
            ev: Event = Text(text, text)
        elif st == THINK:
            ev = ThinkingDelta(text, text)
        elif (
            st in self.HELD_STATES
            and not self._skipping
            and self._body_len + len(text) <= self._max_arguments
        ):
            self._body.append(text)
            self._body_len += len(text)
            self._base += len(text)
            return []
        else:
            return super().feed(text)
        self._base += len(text)
        self._emitted += 1
        return [ev]

    def feed_body(self, text: str) -> str | None:
        if self._tail or not text or self._announce or not self._leads.isdisjoint(text):
            return None
        st = self._state
        if st == OUT:
            kind = "text"
        elif st == THINK:
            kind = "thinking"
        else:
            return None
        self._base += len(text)
        self._emitted += 1
        return kind

    # -- reasoning -------------------------------------------------------------------------------

    def _open_thinking(self, open_tag: str, out: list[Event]) -> None:
        out.append(ThinkingStart(open_tag))
        self._think_close = dict(self.THINKING)[open_tag]
        self._state = THINK

    def _think(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        close = self._think_close
        return self._think_step(self._think_markers[close], close, buf, pos, out, final)


def json_arguments(text: str) -> str:
    """The arguments of a call whose body is JSON (Kimi, DeepSeek), as written: surrounding
    whitespace dropped, a blank body read as ``{}``, and a JSON string that holds a JSON object
    (arguments encoded twice) decoded once. Anything else is handed on unchanged, valid JSON or
    not, as the Harmony scanner does."""
    s = text.strip()
    if not s:
        return "{}"
    if s.startswith('"'):
        inner = json_value(s)
        if isinstance(inner, str) and json_members(inner) is not None:
            return inner
    return s


# ---------------------------------------------------------------------------------------------
# A tool name's check (the grammar scanner's, and the renderers')


def check_name(name: str) -> str:
    """A tool name a tag dialect can carry: non-empty, no whitespace, no angle brackets or
    quotes."""
    if not isinstance(name, str) or not name or any(c.isspace() or c in "<>\"'" for c in name):
        raise ValueError(f"invalid tool name {name!r}")
    return name
