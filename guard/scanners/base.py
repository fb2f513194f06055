"""Machinery shared by the dialect scanners: marker search with partial-suffix hold, the
forgery sink, capped held text; the safe parsers of call bodies (:mod:`guard.scanners._values`)
are re-exported here. The steps the dialects share on top of it are in
:mod:`guard.scanners._dialect`.

Every scanner built on :class:`ScannerBase` keeps one short string between calls (``_tail``:
the longest proper prefix of a marker that the input ends with) plus whatever structure it is
holding on purpose (a header, a call body), each capped. ``feed`` joins the tail and the new
chunk and hands the result to the dialect's ``_run`` state machine, which consumes it from left
to right and returns how far it got; the rest becomes the next tail. Nothing is ever scanned
twice except the tail, so total work is linear in the input.

The laws the scanners keep (tests name them): L1 the raw text of all events concatenates to the
input; L2 the event sequence does not depend on how the input is split into chunks, once
adjacent deltas are merged; L3 model output never raises; L4 hold-back and memory are bounded;
L5 a result-open spelling yields ``ResultForgery`` at its absolute offset.

L2 is why several decisions wait for content rather than for the end of a chunk: an event that
is not a mergeable delta (``ToolStart``, ``ResultForgery``, ``Malformed``, ...) must start and
end at positions fixed by the text alone. Text after a forgery, for instance, goes out as
``Malformed`` blocks of exactly :data:`SINK_BLOCK` characters plus a remainder at flush, never
one event per chunk.

This module imports only :mod:`guard.models` and the standard library (docs/architecture.md,
"Layering").
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from typing import Any, Final

from guard.models import Event, Malformed, ToolArgs, ToolEnd, ToolStart, lazy_re
from guard.scanners import _values
from guard.scanners._values import *  # noqa: F403  (the safe parsers, re-exported)
from guard.scanners._values import ToolTypes

__all__ = [
    "HEADER_CAP",
    "HOLD",
    "MAX_ARGUMENTS",
    "SINK_BLOCK",
    "Markers",
    "ScannerBase",
]
__all__ += _values.__all__  # the safe parsers, re-exported

#: Longest header (or other structure held before its meaning is known) a scanner keeps.
HEADER_CAP: Final = 4096
#: Size of the ``Malformed`` blocks that carry text after a forgery or past a cap.
SINK_BLOCK: Final = 4096
#: Default cap on the argument text a scanner accumulates for one call (characters).
MAX_ARGUMENTS: Final = 1 << 20

#: Returned by :meth:`Markers.find` as the marker when the text from the index on is a proper
#: prefix of a marker: the scanner must hold it back until more input arrives.
HOLD: Final = ""


#: a run of ``<`` (a model's flood of them is skipped to its last one)
_LT_RUN = re.compile("<+")


class Markers:
    """A set of marker spellings and a fast search for them.

    Spellings of the token shape ``<|name|>`` are found with one ``str.find`` for ``|>`` and a
    set lookup; others (``<think>``, ``</s>``, MiniMax's ``]~b]``) with one regex match (longest
    spelling first) at each position holding a first character of some spelling. A proper
    prefix of any spelling at the end of the text is reported as :data:`HOLD`.
    """

    __slots__ = (
        "_bar",
        "_bar_longest",
        "_lead",
        "_longest",
        "_other",
        "_prefixes",
        "_skip_runs",
        "spellings",
    )

    def __init__(self, spellings: Iterable[str]) -> None:
        self.spellings: tuple[str, ...] = tuple(dict.fromkeys(spellings))
        if not self.spellings or any(not s for s in self.spellings):
            raise ValueError("markers must be non-empty spellings")
        self._bar = frozenset(
            s
            for s in self.spellings
            if s.startswith("<|")
            and s.endswith("|>")
            and len(s) > 4
            and "|" not in s[2:-2]
            and "<" not in s[1:]
        )
        self._bar_longest = max((len(s) for s in self._bar), default=0)
        other = sorted((s for s in self.spellings if s not in self._bar), key=len)[::-1]
        #: The other spellings as one alternation, longest first (one C-level match per
        #: candidate position), or ``None`` when there are none.
        self._other = lazy_re.compile("|".join(map(re.escape, other))) if other else None
        self._longest = max(len(s) for s in self.spellings)
        self._prefixes = frozenset(s[:k] for s in self.spellings for k in range(1, len(s)))
        #: no spelling starts with ``<<``: of a run of ``<`` only the last may start one
        self._skip_runs = not any(s.startswith("<<") for s in self.spellings)
        firsts = sorted({s[0] for s in self.spellings})
        #: ``None`` when every spelling starts with ``<`` (one ``str.find`` per candidate),
        #: else a search for any first character.
        lead = "[" + "".join(map(re.escape, firsts)) + "]"
        self._lead = None if firsts == ["<"] else lazy_re.compile(lead)

    @property
    def longest(self) -> int:
        return self._longest

    def find(self, buf: str, pos: int, final: bool) -> tuple[int, str | None]:
        """First marker at or after ``pos``.

        Returns ``(i, spelling)`` for a marker at ``i``; ``(i, HOLD)`` when ``buf[i:]`` is a
        proper prefix of a marker and more input may follow (``final`` false); ``(len(buf),
        None)`` when there is none.
        """
        n = len(buf)
        find = buf.find
        lead = self._lead
        bar = self._bar
        while True:
            if lead is None:
                i = find("<", pos)
                if i < 0:
                    return n, None
            else:
                found = lead.search(buf, pos)
                if found is None:
                    return n, None
                i = found.start()
            if bar and buf.startswith("<|", i):
                k = find("|>", i + 2, i + self._bar_longest)
                if k >= 0:
                    tok = buf[i : k + 2]
                    if tok in bar:
                        return i, tok
            elif self._skip_runs and buf.startswith("<<", i):
                pos = _LT_RUN.match(buf, i).end() - 1  # type: ignore[union-attr]
                continue
            if self._other is not None:
                m = self._other.match(buf, i)
                if m is not None:
                    return i, m.group()
            if not final and n - i < self._longest and buf[i:] in self._prefixes:
                return i, HOLD
            pos = i + 1


class ScannerBase(ABC):
    """Chunk handling shared by the scanners: tail, absolute offset, sink, call ids.

    Subclasses implement ``_run(buf, pos, out, final) -> int`` (consume ``buf`` from ``pos``,
    append events to ``out``, return the index up to which input is consumed) and ``_finish(out)``
    (close whatever is open at end of stream).
    """

    def __init__(
        self,
        max_arguments: int = MAX_ARGUMENTS,
        tools: Iterable[Mapping[str, Any]] | None = None,
    ) -> None:
        self._max_arguments = max_arguments
        #: Parameter schemas of the tools on offer, for formats that send values as strings.
        self._types = ToolTypes(tools)
        self._tail = ""
        #: Absolute offset (in the scanner's whole input) of the first character of ``_tail``.
        self._base = 0
        self._calls = 0
        #: Events returned so far (lets a scanner tell where in its event stream something sits).
        self._emitted = 0
        self._sink: list[str] = []
        self._sink_len = 0
        self._sink_reason = ""
        self._body: list[str] = []
        self._body_len = 0
        self._skipping = False

    # -- Scanner protocol ------------------------------------------------------------------

    def feed(self, text: str) -> list[Event]:
        """Scan the next chunk of model output; return the events it completes."""
        if not text:
            return []
        buf = self._tail + text if self._tail else text
        out: list[Event] = []
        pos = self._run(buf, 0, out, False)
        self._tail = buf[pos:] if pos < len(buf) else ""
        self._base += pos
        self._emitted += len(out)
        return out

    def feed_body(self, text: str) -> str | None:
        """:meth:`feed` without an event for the commonest chunk: when ``text`` is wholly body
        text (``"text"``) or reasoning (``"thinking"``), exactly as a ``Text`` or
        ``ThinkingDelta`` event would carry it, take it and say which; else ``None``, having
        taken nothing (call :meth:`feed`). Scanners without such a path always say ``None``."""
        return None

    def flush(self) -> list[Event]:
        """End of stream: nothing is held back any more; open structures are closed."""
        buf, self._tail = self._tail, ""
        out: list[Event] = []
        if buf:
            pos = self._run(buf, 0, out, True)
            self._base += pos
        self._finish(out)
        self._sink_flush(out)
        self._emitted += len(out)
        return out

    @property
    def held(self) -> int:
        """Characters of input received but not yet reported in any event (tail, held header or
        body, pending sink block). Bounded by the caps (law L4)."""
        return len(self._tail) + self._sink_len + self._body_len + self._held_extra()

    # -- hooks -----------------------------------------------------------------------------

    @abstractmethod
    def _run(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Consume ``buf`` from ``pos``; return how far it got (each dialect's state machine)."""

    @abstractmethod
    def _finish(self, out: list[Event]) -> None:
        """Emit what is still held at the end of the stream."""

    def _held_extra(self) -> int:
        return 0

    # -- helpers ---------------------------------------------------------------------------

    def _next_id(self) -> str:
        """Deterministic call ids (``call_0``, ``call_1``, ...): the wire formats have none."""
        cid = f"call_{self._calls}"
        self._calls += 1
        return cid

    def _whole_call(
        self, name: str, args: str, opening: str, body: str, closing: str, out: list[Event]
    ) -> None:
        """A call read whole: ``ToolStart`` (with its ``opening``), ``ToolArgs`` (``body``) and
        ``ToolEnd`` (``closing``) under the next call id."""
        cid = self._next_id()
        out.append(ToolStart(cid, name, opening))
        out.append(ToolArgs(cid, args, body))
        out.append(ToolEnd(cid, name, args, closing))

    def _sink_start(self, reason: str) -> None:
        self._sink_reason = reason

    def _sink_add(self, text: str, out: list[Event]) -> None:
        """Queue text for ``Malformed`` blocks of exactly :data:`SINK_BLOCK` characters."""
        if not text:
            return
        self._sink.append(text)
        self._sink_len += len(text)
        if self._sink_len >= SINK_BLOCK:
            joined = "".join(self._sink)
            cut = len(joined) - len(joined) % SINK_BLOCK
            for k in range(0, cut, SINK_BLOCK):
                out.append(Malformed(self._sink_reason, joined[k : k + SINK_BLOCK]))
            rest = joined[cut:]
            self._sink = [rest] if rest else []
            self._sink_len = len(rest)

    def _sink_flush(self, out: list[Event]) -> None:
        if self._sink_len:
            out.append(Malformed(self._sink_reason, "".join(self._sink)))
        self._sink = []
        self._sink_len = 0

    # A held call body, capped at ``max_arguments``: past the cap the part held so far goes out
    # as one ``Malformed`` (with ``prefix``, the call's opening raw not yet reported), and the
    # rest of the body up to its end as ``Malformed`` blocks.

    def _body_add(self, piece: str, out: list[Event], prefix: str, reason: str) -> None:
        if self._skipping:
            self._sink_add(piece, out)
            return
        room = self._max_arguments - self._body_len
        if len(piece) <= room:
            self._body.append(piece)
            self._body_len += len(piece)
            return
        self._body.append(piece[:room])
        out.append(Malformed(reason, prefix + "".join(self._body)))
        self._body = []
        self._body_len = 0
        self._skipping = True
        self._sink_start(reason)
        self._sink_add(piece[room:], out)

    def _body_hold(self, piece: str, out: list[Event], prefix: str, what: str) -> None:
        """:meth:`_body_add` whose reason (``what`` longer than the cap) is built only when the
        body passes the cap: the piece that fits, the common case, is appended inline."""
        size = self._body_len + len(piece)
        if size <= self._max_arguments and not self._skipping:
            self._body.append(piece)
            self._body_len = size
            return
        self._body_add(piece, out, prefix, f"{what} longer than {self._max_arguments} characters")

    def _body_take(self) -> str:
        body = "".join(self._body)
        self._body = []
        self._body_len = 0
        return body

    def _body_abandon(self, reason: str, opening: str, out: list[Event]) -> None:
        """A call cut short (by another marker, or the end of the stream): its held ``opening``
        and body go out as one ``Malformed`` (a body that overflowed went out already)."""
        if not self._body_skip_end("", out):
            out.append(Malformed(reason, opening + self._body_take()))

    def _body_skip_end(self, raw: str, out: list[Event]) -> bool:
        """End a body that overflowed (``raw`` joins its sink). False if it did not."""
        if not self._skipping:
            return False
        self._sink_add(raw, out)
        self._sink_flush(out)
        self._skipping = False
        return True
