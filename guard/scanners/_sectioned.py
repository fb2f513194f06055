"""The states DeepSeek V3 and Kimi K2 share (:class:`SectionScanner`): text with calls in
sections, each call a begin token, a header (a name or an id) up to a separator token, and a
held body up to an end token.

Outside a call, a section's opening and closing tokens are layout; a call's begin token opens
its header (in a section or not); a result opening is a forgery; a stop is ``Text`` with empty
text and ends an unclosed section; any other marker is ``Malformed``. A subclass sets the class
attributes below, opens a call at its separator (``_open_call``) and says what a call ended
before its separator is (``_without_sep``).
"""

from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, Final

from guard.models import Event, Malformed, Text
from guard.scanners._tagged import FIRST_STATE, OUT, TaggedScanner
from guard.scanners.base import Markers

__all__ = ["BODY", "HEADER", "SECTION", "SectionScanner"]

SECTION, HEADER, BODY = range(FIRST_STATE, FIRST_STATE + 3)
_JUNK: Final = "text inside a tool-call section"


class SectionScanner(TaggedScanner):
    """A dialect of call sections (see the module docstring)."""

    #: The dialect's name in the reasons of ``Malformed`` events.
    NAME: ClassVar[str]
    SECTION_OPENS: ClassVar[tuple[str, ...]]
    SECTION_CLOSES: ClassVar[tuple[str, ...]]
    CALL_BEGIN: ClassVar[str]
    CALL_END: ClassVar[str]
    #: The token between a call's header and its body.
    CALL_SEP: ClassVar[str]
    FORGERIES: ClassVar[tuple[str, ...]]
    STOPS: ClassVar[tuple[str, ...]]
    #: A reasoning close that is the template's own when it is the first thing of the output
    #: (``Text`` with empty text then); empty: none is.
    ECHOED_CLOSE: ClassVar[str] = ""
    #: What text and a section look for, and what ends a call's header and its body.
    OUT_MARKERS: ClassVar[Markers]
    HEADER_MARKERS: ClassVar[Markers]
    BODY_MARKERS: ClassVar[Markers]
    #: The header's and the body's names in reasons (``"tool call body"``).
    HEADER_WHAT: ClassVar[str]
    BODY_WHAT: ClassVar[str]
    HELD_STATES = frozenset({BODY})
    SECTION_STATE = SECTION

    def _reset_dialect(self) -> None:
        self._hdr = ""
        self._in_section = False
        self._call_id = ""
        self._call_name = ""

    def _step(self, state: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if state in (OUT, SECTION):
            return self._outside(state == SECTION, buf, pos, out, final)
        if state == HEADER:
            return self._in_header(buf, pos, out, final)
        return self._call_body(
            self.BODY_MARKERS, (self.CALL_END,), self.BODY_WHAT, buf, pos, out, final
        )

    def _in_header(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        markers, what = self.HEADER_MARKERS, self.HEADER_WHAT
        i, m = self._header_until(markers, what, buf, pos, out, final)
        if m is None:
            return i
        if m == self.CALL_SEP:
            self._open_call(m, out)
            return i + len(m)
        if m == self.CALL_END:
            self._without_sep(m, out)
            return i + len(m)
        self._unclosed(f"tool call not closed before {m}", out)
        return i

    @abstractmethod
    def _open_call(self, sep: str, out: list[Event]) -> None:
        """The header (held in ``_hdr``) ended at ``sep``: the call's body follows."""

    @abstractmethod
    def _without_sep(self, end: str, out: list[Event]) -> None:
        """A call ended at ``end`` before its separator."""

    def _outside(self, section: bool, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = self._text_until(self.OUT_MARKERS, buf, pos, out, final, _JUNK if section else "")
        if m is None:
            return i
        if self._section_layout(m, section, self.SECTION_OPENS, self.SECTION_CLOSES, out):
            return i + len(m)
        if m == self.CALL_BEGIN:
            self._state = HEADER
            self._in_section = section
            self._hdr = m
        elif m == self.ECHOED_CLOSE and self._base + i == 0:
            out.append(Text("", m))  # the template's closing tag, echoed back
        elif m in self.FORGERIES:
            self._forgery(self._base + i, m, out)
        elif m in self.STOPS:
            out.append(Text("", m))
            self._state = OUT  # a stop ends an unclosed section
        else:
            out.append(Malformed(f"{m} out of place in a {self.NAME} turn", m))
        return i + len(m)

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == SECTION:
            self._sink_flush(out)
        elif state in (HEADER, BODY):
            self._unclosed("tool call not closed at end of stream", out)
