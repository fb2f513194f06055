"""Anthropic (Claude's XML tool tags) and generic XML scanner.

A call is an ``<invoke name="NAME">`` element with one ``<parameter name="KEY">VALUE</parameter>``
per argument, usually inside a ``<function_calls>`` block (``<tool_calls>`` in the generic XML
form; a bare ``<invoke>`` is taken too). Claude writes the same tags with the ``antml:``
namespace prefix; both spellings are read, and either closer ends an element::

    <function_calls>
    <invoke name="get_weather">
    <parameter name="city">Paris</parameter>
    </invoke>
    </function_calls>

* A value is the literal text up to its ``</parameter>`` (any other tag inside it is text). It
  stays a string unless the ``tools`` schemas type it (Claude writes lists and objects as JSON).
* An invoke is held (capped) until ``</invoke>``, then ``ToolStart`` (raw: the invoke tag) +
  ``ToolArgs`` (the parameters) + ``ToolEnd`` (``</invoke>``). An invoke with text between its
  parameters, a repeated parameter, or a tag header that is not ``<tag name="...">`` (a header
  ends at the first ``>``; a ``<`` or a newline in it, or more than 4096 characters, make it
  malformed) is ``Malformed``; so is one that is not closed.
* Block tags go out as ``Text`` with empty text; text inside a block stays ``Text``.
* ``<thinking>``, ``<think>`` and ``<scratchpad>`` (prefixed or not) are thinking, each closed
  by its own closer; ``start_in_thinking=True`` starts inside ``<thinking>``.
* ``<function_results>`` (prefixed or not) and ``<tool_response>`` in model output are a forged
  result (``ResultForgery``, then ``Malformed`` blocks), wherever they appear.
* The legacy ``\\n\\nHuman:`` turn prefix is not a tag: it stays text here (escaping covers it).
"""

from __future__ import annotations

import re
from typing import Final

from guard.models import (
    Event,
    Malformed,
    Text,
    ThinkingStart,
)
from guard.scanners._dialect import DialectScanner
from guard.scanners._values import parameters_fault
from guard.scanners.base import HEADER_CAP, HOLD, Markers

__all__ = [
    "AnthropicScanner",
]

NS: Final = "antml:"


def _both(tag: str) -> tuple[str, str]:
    """``tag`` and its ``antml:``-prefixed spelling."""
    prefixed = "</" + NS + tag[2:] if tag.startswith("</") else "<" + NS + tag[1:]
    return tag, prefixed


BLOCK_OPEN: Final = (*_both("<function_calls>"), "<tool_calls>")
BLOCK_CLOSE: Final = (*_both("</function_calls>"), "</tool_calls>")
INVOKE: Final = _both("<invoke")
INVOKE_CLOSE: Final = _both("</invoke>")
PARAMETER: Final = _both("<parameter")
PARAMETER_CLOSE: Final = _both("</parameter>")
FORGERY: Final = (*_both("<function_results>"), "<tool_response>")
THINKING: Final = {
    open_: close
    for pair in (
        ("<thinking>", "</thinking>"),
        ("<think>", "</think>"),
        ("<scratchpad>", "</scratchpad>"),
    )
    for open_, close in zip(_both(pair[0]), _both(pair[1]), strict=True)
}

_STRAY = (*INVOKE_CLOSE, *PARAMETER_CLOSE, *THINKING.values())
_OUT_MARKERS = Markers((*BLOCK_OPEN, *BLOCK_CLOSE, *INVOKE, *THINKING, *FORGERY, *_STRAY))
_BLOCK_MARKERS = Markers((*BLOCK_CLOSE, *INVOKE, *FORGERY))
_INVOKE_MARKERS = Markers((*PARAMETER, *INVOKE_CLOSE, *BLOCK_CLOSE, *FORGERY))
_VALUE_MARKERS = Markers((*PARAMETER_CLOSE, *FORGERY))
_THINK_MARKERS = {open_: Markers((close, *FORGERY)) for open_, close in THINKING.items()}

_HEAD_END = re.compile(r"[>\n<]")
_NAME_ATTR = re.compile(r"""\s+name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*(/?)$""")

_OUT, _BLOCK, _THINK, _HEAD, _INVOKE, _VALUE, _SINK = range(7)


class AnthropicScanner(DialectScanner):
    """Scanner for Claude-style XML tool calls (see the module docstring)."""

    SINK_STATE = _SINK
    THINK_STATE = _THINK
    FAST_MARKERS = (_OUT_MARKERS, *_THINK_MARKERS.values())

    def _reset(self) -> None:
        self._state = _THINK if self._start_in_thinking else _OUT
        self._think_open = "<thinking>"
        self._announce = self._start_in_thinking
        self._in_block = False
        self._call_reset()

    def _call_reset(self) -> None:
        #: The header being read: its tag (``<invoke`` / ``<parameter``) and text.
        self._head_tag = ""
        self._head = ""
        self._name = ""
        self._open_raw = ""
        self._pairs: list[tuple[str, str]] = []
        self._key = ""
        self._value: list[str] = []
        self._junk = False

    def _held_extra(self) -> int:
        return len(self._head) + len(self._open_raw)

    # -- state machine ---------------------------------------------------------------------

    def _step(self, state: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        if state in (_OUT, _BLOCK):
            markers = _BLOCK_MARKERS if state == _BLOCK else _OUT_MARKERS
            i, m = self._text_until(markers, buf, pos, out, final)
            if m is None:
                return i
            self._outside(m, self._base + i, out)
            return i + len(m)
        if state == _HEAD:
            return self._run_head(buf, pos, out, final)
        return self._in_invoke_body(state, buf, pos, out, final)

    def _think(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        close = THINKING[self._think_open]
        return self._think_step(_THINK_MARKERS[self._think_open], close, buf, pos, out, final)

    def _in_invoke_body(self, st: int, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Between an invoke's parameters (``_INVOKE``) or in a value (``_VALUE``)."""
        markers = _VALUE_MARKERS if st == _VALUE else _INVOKE_MARKERS
        i, m = markers.find(buf, pos, final)
        if i > pos:
            piece = buf[pos:i]
            self._add(piece, out)
            if st == _VALUE:
                if not self._skipping:
                    self._value.append(piece)
            elif piece.strip():
                self._junk = True
        if m is None:
            return -1 - len(buf)
        if m == HOLD:
            return -1 - i
        return self._in_invoke(m, i, out)

    def _outside(self, m: str, offset: int, out: list[Event]) -> None:
        """A marker found outside any invoke (in text or in a block)."""
        if m in FORGERY:
            self._forgery(offset, m, out)
        elif m in BLOCK_OPEN:
            out.append(Text("", m))
            self._in_block = True
            self._state = _BLOCK
        elif m in BLOCK_CLOSE:
            if self._state == _BLOCK:
                out.append(Text("", m))
                self._in_block = False
                self._state = _OUT
            else:
                out.append(Malformed(f"{m} without its opening tag", m))
        elif m in INVOKE:
            self._head_tag = m
            self._head = m
            self._state = _HEAD
        elif m in THINKING:
            out.append(ThinkingStart(m))
            self._think_open = m
            self._state = _THINK
        else:
            out.append(Malformed(f"{m} without its opening tag", m))

    def _add(self, piece: str, out: list[Event]) -> None:
        self._body_hold(piece, out, self._open_raw, "tool call body")

    def _run_head(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """An ``<invoke ...>`` or ``<parameter ...>`` tag, up to its ``>``. Returns where
        scanning goes on, or ``-1 - len(buf)`` when the whole buffer was taken."""
        room = HEADER_CAP - len(self._head)
        found = _HEAD_END.search(buf, pos, min(len(buf), pos + room + 1))
        if found is None:
            if len(buf) - pos <= room:
                self._head += buf[pos:]
                return -1 - len(buf)
            self._head += buf[pos : pos + room]
            return self._bad_head(pos + room, out)
        j = found.start()
        if buf[j] != ">":
            self._head += buf[pos:j]
            return self._bad_head(j, out)
        head = self._head + buf[pos : j + 1]
        self._head = ""
        attrs = _NAME_ATTR.match(head, len(self._head_tag), len(head) - 1)
        name = (attrs.group(1) if attrs.group(1) is not None else attrs.group(2)) if attrs else ""
        if not name:
            self._head = head
            return self._bad_head(j + 1, out)
        closed = bool(attrs and attrs.group(3))
        if self._head_tag in INVOKE:
            self._name = name
            self._open_raw = head
            self._state = _INVOKE
            if closed:
                self._end_invoke("", out)
        else:
            self._add(head, out)
            if closed:
                self._pairs.append((name, ""))
                self._state = _INVOKE
            else:
                self._key = name
                self._value = []
                self._state = _VALUE
        return j + 1

    def _bad_head(self, pos: int, out: list[Event]) -> int:
        """A tag that is not ``<tag name="...">``: an invoke header is ``Malformed`` and
        scanning goes back to where it was; a parameter header makes its invoke malformed."""
        head, self._head = self._head, ""
        if self._head_tag in INVOKE:
            out.append(Malformed(f"{self._head_tag} tag without a name", head))
            self._state = _BLOCK if self._in_block else _OUT
        else:
            self._add(head, out)
            self._junk = True
            self._state = _INVOKE
        return pos

    def _in_invoke(self, m: str, i: int, out: list[Event]) -> int:
        """A marker inside an invoke (between parameters or in a value)."""
        if m in PARAMETER_CLOSE:
            self._add(m, out)
            self._pairs.append((self._key, "".join(self._value)))
            self._value = []
            self._state = _INVOKE
            return i + len(m)
        if m in PARAMETER:
            self._head_tag = m
            self._head = m
            self._state = _HEAD
            return i + len(m)
        return self._call_marker(
            m, i, INVOKE_CLOSE, self._end_invoke, self._open_raw[:32] + "...", out
        )

    def _end_invoke(self, close: str, out: list[Event]) -> None:
        self._state = _BLOCK if self._in_block else _OUT
        opening = self._open_raw
        if self._body_skip_end(close, out):
            self._call_reset()
            return
        body = self._body_take()
        fault = parameters_fault(self._junk, self._pairs)
        if fault:
            out.append(Malformed(f"invoke with {fault}", opening + body + close))
        else:
            args = self._types.arguments(self._name, self._pairs)
            self._whole_call(self._name, args, opening, body, close, out)
        self._call_reset()

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        self._state = _BLOCK if self._in_block else _OUT
        self._body_abandon(reason, self._open_raw, out)
        self._call_reset()

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _HEAD:
            if self._head_tag in INVOKE:
                out.append(Malformed("tag not closed at end of stream", self._head))
            else:
                self._add(self._head, out)
                self._head = ""
                self._unclosed("invoke not closed at end of stream", out)
        elif state in (_INVOKE, _VALUE):
            self._unclosed("invoke not closed at end of stream", out)
