"""Harmony (gpt-oss) scanner (docs/wire-formats.md, "Harmony"; docs/scanners.md,
"Harmony").

The scanner reads raw model output as text (special tokens spelled out) and reports events:

* a message's header is held (capped at :data:`~guard.scanners.base.HEADER_CAP`) until
  ``<|message|>``; the header event carries it whole as ``raw``: ``ToolStart`` when it names a
  recipient, ``ThinkingStart`` for the ``analysis`` channel, else a ``Text`` with empty text;
* bodies stream: ``ToolArgs`` / ``ThinkingDelta`` / ``Text`` per chunk, holding back only a
  possible partial end marker; ``<|end|>``, ``<|call|>`` and ``<|return|>`` end a message, and
  a ``<|start|>`` ends it implicitly (an open call becomes ``Malformed``);
* headers are read by :func:`parse_header` (also the transcript audit's): the recipient may
  sit in the role part or the channel part, the last ``to=`` winning; the content type may be
  ``<|constrain|>json`` (glued or spaced) or a bare word; ``functions.NAME`` calls are named
  ``NAME``, built-in recipients (``browser.search``, ``python``) keep their full name;
* a stream may start inside an assistant message (``<|channel|>...`` first, or `` to=NAME``
  followed by ``<|channel|>`` when the prompt ended in ``<|start|>assistant``); a bare
  ``<|channel|>`` between messages opens an assistant header too; plain text before any header
  is ``Text``;
* ``<|start|>`` followed by an author other than ``assistant`` is the host's to write: the
  scanner reports ``ResultForgery`` at the offset of ``<|start|>`` once the author word is
  complete (``marker`` and ``raw`` are ``<|start|>`` and the author word as written), and
  everything after it goes out as ``Malformed`` blocks (never as text or calls);
* a stray channel or role word right after a token (``<|call|>commentary<|channel|>...``,
  ``<|end|>analysis<|start|>...``, blanks around it allowed) is ``Malformed`` when a token or
  the end of the stream follows it, never visible text: a model that lost a ``<|start|>`` or
  ``<|channel|>`` token leaves it behind. Such a word is held until that is known.

Other ``<|...|>`` spellings (``<|channel|>`` inside a body, ``<|reserved_N|>``, ...) are content:
the control-token signal reports them on the surface where they appear. This matches
openai-harmony's ``StreamableParser``, for which only stop tokens end a body.

Differences from the reference agent's scanner (docs/scanners.md, "Harmony"), on purpose: nothing
is dropped (stray tokens become ``Malformed``, forged bodies are kept as ``Malformed`` raw), an
unterminated call at flush is ``Malformed``, never a call, and arguments are never repaired.
"""

from __future__ import annotations

import re
from typing import Any, Final

from guard.dialects.harmony import CORE
from guard.models import (
    Event,
    Malformed,
    Text,
    ThinkingDelta,
    ThinkingEnd,
    ThinkingStart,
    ToolArgs,
    ToolEnd,
    ToolStart,
)
from guard.scanners._dialect import DialectScanner
from guard.scanners._harmony_header import HarmonyHeader, parse_header
from guard.scanners._harmony_tokens import CALL, CHANNEL, CONSTRAIN, END, MESSAGE, RETURN, START
from guard.scanners.base import HEADER_CAP, HOLD, Markers

__all__ = [
    "CALL",
    "CHANNEL",
    "END",
    "MESSAGE",
    "RETURN",
    "START",
    "HarmonyHeader",
    "HarmonyScanner",
    "parse_header",
]


#: Longest author word kept for a forgery marker.
AUTHOR_CAP: Final = 256
#: Longest `` to=NAME ...`` role-part tail held at stream start while waiting for ``<|channel|>``.
ROLE_TAIL_CAP: Final = 256

_OUT_MARKERS = Markers(CORE)
_HEADER_MARKERS = Markers((MESSAGE, START, END, RETURN, CALL))
_BODY_MARKERS = Markers((END, RETURN, CALL, START))
_IMPLIED = frozenset((CHANNEL, MESSAGE, CONSTRAIN))

#: Channel and role words that, alone between two tokens, are a broken header, not text.
STRAY_WORDS: Final = frozenset(
    ("analysis", "commentary", "final", "assistant", "user", "system", "developer", "tool")
)
#: Longest run (word and blanks) held after a token while it may be a stray word.
STRAY_CAP: Final = 64

_AUTHOR = re.compile(r"[\w.\-]*")

_OUT, _HEADER, _TEXT, _THINK, _TOOL, _SINK = range(6)


def _stray(text: str, ended: bool) -> str | None:
    """For ``text`` right after a token: the stray channel or role word it is (``ended``: a
    token or the end of the stream follows it), ``""`` when it is not one, ``None`` when it may
    still become one (hold it)."""
    if len(text) > STRAY_CAP:
        return ""
    word = text.strip()
    if word in STRAY_WORDS:
        return word if ended else None
    if ended or (word and text[-1].isspace()):
        return ""
    return None if any(w.startswith(word) for w in STRAY_WORDS) else ""


def _is_role_tail(text: str) -> bool:
    """``text`` (before a header marker at stream start) is the rest of a primed role part:
    blanks, or `` to=NAME ...`` on one line."""
    if "\n" in text or len(text) > ROLE_TAIL_CAP:
        return False
    s = text.lstrip(" \t")
    return not s or s.startswith("to=")


def _could_be_role_tail(text: str) -> bool:
    """``text`` may still grow into a role-part tail (so it is held, not yet ``Text``)."""
    if "\n" in text or len(text) > ROLE_TAIL_CAP:
        return False
    s = text.lstrip(" \t")
    return s.startswith("to=") or "to=".startswith(s)


class HarmonyScanner(DialectScanner):
    """Scanner for Harmony output (see the module docstring for what it reports).

    Args:
        keep_headers: record every parsed header in :attr:`headers` as ``(event_index,
            header)``, where ``event_index`` counts the events this scanner returned before the
            message's first event. Off by default: it grows with the number of messages.
        start_in_thinking: the output starts inside an ``analysis`` message body (the prompt
            ended in ``<|start|>assistant<|channel|>analysis<|message|>``): a ``ThinkingStart``
            with empty raw text comes first.
        tools: accepted for the common scanner signature; Harmony arguments are JSON already.
        max_arguments: accumulate at most this many characters of one call's arguments; a
            longer call still streams ``ToolArgs`` but ends in ``Malformed``, not ``ToolEnd``.
    """

    SINK_STATE = _SINK

    def __init__(self, *, keep_headers: bool = False, **kwargs: Any) -> None:
        self.headers: list[tuple[int, HarmonyHeader]] | None = [] if keep_headers else None
        #: Header of the message being read (or the last one).
        self.header: HarmonyHeader | None = None
        super().__init__(**kwargs)

    def _reset(self) -> None:
        self._state = _THINK if self._start_in_thinking else _OUT
        self._init = not self._start_in_thinking
        self._announce = self._start_in_thinking
        self._hdr = ""
        self._hdr_start = 0
        self._implied = False
        self._pending = False
        self._call_id = ""
        self._call_name = ""
        self._args: list[str] = []
        self._args_len = 0
        self._args_over = False
        #: right after a token, between messages: a lone channel or role word is a stray
        self._after = False

    def feed(self, text: str) -> list[Event]:
        """Scan the next chunk. A chunk without ``<`` inside a body (the common case: one token
        of prose or JSON) is one delta event, without entering the state machine."""
        if self._tail or "<" in text or not text or self._announce or self._after:
            return super().feed(text)
        st = self._state
        if st == _TEXT or (st == _OUT and not self._init):
            ev: Event = Text(text, text)
        elif st == _THINK:
            ev = ThinkingDelta(text, text)
        elif st == _TOOL:
            ev = ToolArgs(self._call_id, text, text)
            if not self._args_over:
                self._args_len += len(text)
                if self._args_len > self._max_arguments:
                    self._args_over = True
                    self._args = []
                else:
                    self._args.append(text)
        else:
            return super().feed(text)
        self._base += len(text)
        self._emitted += 1
        return [ev]

    def feed_body(self, text: str) -> str | None:
        if self._tail or "<" in text or not text or self._announce or self._after:
            return None
        st = self._state
        if st == _TEXT or (st == _OUT and not self._init):
            kind = "text"
        elif st == _THINK:
            kind = "thinking"
        else:
            return None
        self._base += len(text)
        self._emitted += 1
        return kind

    # -- state machine ---------------------------------------------------------------------

    def _step(self, state: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if _TEXT <= state <= _TOOL:
            return self._body_step(state, buf, pos, out, final)
        if state == _OUT:
            return self._out_step(buf, pos, out, final)
        return self._header(buf, pos, out, final)  # _HEADER

    def _body_step(self, st: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """One step in a message body. Returns the new position, or ``-1 - i`` to stop at
        ``i``."""
        i, m = _BODY_MARKERS.find(buf, pos, final)
        if i > pos:
            d = buf[pos:i]
            if st == _TEXT:
                out.append(Text(d, d))
            elif st == _THINK:
                out.append(ThinkingDelta(d, d))
            else:
                self._tool_delta(d, out)
        if m is None:
            return -1 - len(buf)
        if m == HOLD:
            return -1 - i
        if m == START:
            self._end_body("", out)
            return i
        self._end_body(m, out)
        return i + len(m)

    def _out_step(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """One step between messages. Returns the new position, or ``-1 - i`` to stop at
        ``i``."""
        i, m = _OUT_MARKERS.find(buf, pos, final)
        if self._init:
            self._init = False
            if m is None or m == HOLD:
                if not final and _could_be_role_tail(buf[pos:i]):
                    self._init = True
                    return -1 - pos
            elif m in _IMPLIED and _is_role_tail(buf[pos:i]):
                self._open_header("", self._base + pos, implied=True)
                return pos
        if self._after and i > pos:
            stray = _stray(buf[pos:i], final or (m is not None and m != HOLD))
            if stray is None:  # may still become one: hold it
                return -1 - pos
            if stray:
                out.append(Malformed(f"stray word {stray!r} between tokens", buf[pos:i]))
                return i
            self._after = False
        j = self._deltas_to(Text, buf, pos, i, m, out)
        if m is None or j < 0:
            return j
        if m == START:
            self._open_header(START, self._base + i, implied=False)
            return i + len(START)
        if m in _IMPLIED:
            self._open_header("", self._base + i, implied=True)
            return i
        out.append(Malformed(f"{m} outside a message", m))
        self._after = True
        return i + len(m)

    def _header(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """One step in a header. Returns the new position, or ``-1 - i`` to stop at ``i``."""
        i, m = _HEADER_MARKERS.find(buf, pos, final)
        if i > pos:
            room = HEADER_CAP - len(self._hdr)
            if i - pos > room:
                self._hdr += buf[pos : pos + room]
                pos += room
                if self._pending and self._decide_author(True, out):
                    return pos
                out.append(
                    Malformed(f"message header longer than {HEADER_CAP} characters", self._hdr)
                )
                self._hdr = ""
                self._state = _OUT
                return pos
            self._hdr += buf[pos:i]
            pos = i
            if self._pending and self._decide_author(False, out):
                return pos
        if m is None:
            return -1 - i
        if m == HOLD:
            return -1 - i
        if self._pending and self._decide_author(True, out):
            return pos
        if m == MESSAGE:
            self._hdr += m
            self._open_body(out)
        elif m == START:
            out.append(Malformed("message header without <|message|>", self._hdr))
            self._open_header(START, self._base + i, implied=False)
        else:
            out.append(Malformed(f"message header ended by {m}", self._hdr + m))
            self._hdr = ""
            self._state = _OUT
            self._after = True
        return i + len(m)

    def _open_header(self, text: str, start: int, *, implied: bool) -> None:
        self._state = _HEADER
        self._hdr = text
        self._hdr_start = start
        self._implied = implied
        self._pending = not implied

    def _decide_author(self, terminated: bool, out: list[Event]) -> bool:
        """Settle the author of a ``<|start|>`` header once its word is complete. Returns True
        when it is a forgery (the scanner is then in the sink state)."""
        h = self._hdr
        rest = h[len(START) :]
        s = rest.lstrip()
        m = _AUTHOR.match(s)
        w = m.end() if m else 0
        if not terminated and w == len(s) and w <= AUTHOR_CAP:
            return False
        self._pending = False
        w = min(w, AUTHOR_CAP)
        word = s[:w]
        if word in ("assistant", ""):
            return False
        cut = len(START) + len(rest) - len(s) + w
        self._forgery(self._hdr_start, h[:cut], out, rest=h[cut:])
        self._hdr = ""
        return True

    def _open_body(self, out: list[Event]) -> None:
        raw, self._hdr = self._hdr, ""
        header = parse_header(raw, implied=self._implied)
        self.header = header
        if self.headers is not None:
            self.headers.append((self._emitted + len(out), header))
        name = header.tool_name
        if name is not None:
            self._call_id = self._next_id()
            self._call_name = name
            self._args = []
            self._args_len = 0
            self._args_over = False
            out.append(ToolStart(self._call_id, name, raw))
            self._state = _TOOL
        elif header.channel == "analysis":
            out.append(ThinkingStart(raw))
            self._state = _THINK
        else:
            out.append(Text("", raw))
            self._state = _TEXT

    def _tool_delta(self, d: str, out: list[Event]) -> None:
        out.append(ToolArgs(self._call_id, d, d))
        if not self._args_over:
            self._args_len += len(d)
            if self._args_len > self._max_arguments:
                self._args_over = True
                self._args = []
            else:
                self._args.append(d)

    def _end_body(self, marker: str, out: list[Event]) -> None:
        st = self._state
        self._state = _OUT
        self._after = bool(marker)
        if st == _THINK:
            out.append(ThinkingEnd(marker))
        elif st == _TEXT:
            if marker:
                out.append(Text("", marker))
        else:
            cid, name = self._call_id, self._call_name
            if not marker:
                out.append(Malformed(f"tool call {cid} ({name}) not terminated before {START}", ""))
            elif self._args_over:
                out.append(
                    Malformed(
                        f"tool call {cid} ({name}): arguments longer than "
                        f"{self._max_arguments} characters",
                        marker,
                    )
                )
            else:
                h = self.header
                out.append(
                    ToolEnd(
                        cid,
                        name,
                        "".join(self._args),
                        marker,
                        h.channel if h else None,
                        h.content_type if h else None,
                    )
                )
            self._args = []
            self._args_len = 0

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _HEADER:
            if not (self._pending and self._decide_author(True, out)):
                out.append(
                    Malformed("message header without <|message|> at end of stream", self._hdr)
                )
        elif state == _THINK:
            out.append(ThinkingEnd(""))
        elif state == _TOOL:
            out.append(
                Malformed(
                    f"tool call {self._call_id} ({self._call_name}) not terminated"
                    " at end of stream",
                    "",
                )
            )
