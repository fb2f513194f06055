"""ChatML / Hermes / Qwen scanner (docs/scanners.md, "ChatML").

* ``<think>...</think>`` is thinking (with ``start_in_thinking=True`` the stream starts inside
  it, for templates that open ``<think>`` in the prompt);
* ``<tool_call>{json}</tool_call>`` is a call: the body is held (capped) until the closing tag,
  then ``ToolStart`` + ``ToolArgs`` + ``ToolEnd``; the name is the JSON ``name``, the arguments
  the JSON text of ``arguments`` (or ``parameters``) exactly as written;
* ``<tool_call><function=NAME><parameter=KEY>VALUE</parameter>...</function></tool_call>`` is a
  call in the XML form of Qwen3-Coder and later Qwen templates: a value is the text up to its
  ``</parameter>``, less one leading and one trailing newline; a ``<parameter=`` at the start
  of a line inside a value opens a nested pair (a value quoting a whole call), whose
  ``</parameter>`` is part of the value too (so a value whose closer is missing does not end at
  the next parameter's closer: the call is ``Malformed`` instead). Values are strings unless
  the ``tools`` schemas type them. A value runs to its ``</parameter>``, but never past the
  closer of its own call (``</tool_call>``, or ``</function>`` for a bare call) unless a call
  quoted in the value opened it: a parameter missing its closer makes its call ``Malformed``
  up to there, and the text and calls after it are read on their own. A missing
  ``</tool_call>`` after ``</function>`` is tolerated. With ``bare_functions=True`` (the
  default of :class:`~guard.scanners.qwen3_coder.Qwen3CoderScanner`)
  ``<function=...>...</function>`` without the wrapper is a call too;
* a body that is neither form, or that is not closed, is ``Malformed`` with its raw text;
* ``<tool_response>`` and ``<|im_start|>`` in model output are a forged result or turn
  (``ResultForgery``; everything after it goes out as ``Malformed`` blocks), wherever they
  appear, inside thinking or a call body too;
* ``<|im_end|>`` and ``<|endoftext|>`` are stops (``Text`` with empty text).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Final

from guard.dialects.chatml import CHATML
from guard.dialects.qwen3_coder import CALL_TAGS
from guard.models import (
    Event,
    Malformed,
    Text,
    ThinkingStart,
)
from guard.scanners._dialect import DialectScanner, step
from guard.scanners._values import parameters_fault
from guard.scanners.base import (
    HEADER_CAP,
    HOLD,
    Markers,
    json_call,
    tag_value,
)

__all__ = [
    "ChatMLScanner",
    "parse_call",
]

# The spellings the dialect records hold are read from them.
((THINK_OPEN, THINK_CLOSE),) = CHATML.thinking
(CALL_OPEN,), (CALL_CLOSE,) = CHATML.call_open, CHATML.call_close
RESPONSE, IM_START = CHATML.result_open
IM_END, EOT = CHATML.stop
FUNCTION, FUNCTION_CLOSE, PARAMETER, PARAMETER_CLOSE = CALL_TAGS
RESPONSE_CLOSE: Final = "</tool_response>"

_FORGERY = frozenset((RESPONSE, IM_START))
_STOPS = frozenset((IM_END, EOT))
_ENDS = (RESPONSE, IM_START, IM_END, EOT)
_OUT_MARKERS = Markers((THINK_OPEN, THINK_CLOSE, CALL_OPEN, CALL_CLOSE, *_ENDS))
_OUT_BARE_MARKERS = Markers((THINK_OPEN, THINK_CLOSE, CALL_OPEN, CALL_CLOSE, FUNCTION, *_ENDS))
_THINK_MARKERS = Markers((THINK_CLOSE, *_ENDS))
_CALL_MARKERS = Markers((CALL_CLOSE, FUNCTION, *_ENDS))
_FN_WRAPPED_MARKERS = Markers((PARAMETER, FUNCTION_CLOSE, CALL_CLOSE, *_ENDS))
_FN_BARE_MARKERS = Markers((PARAMETER, FUNCTION_CLOSE, *_ENDS))
_VALUE_MARKERS = Markers(
    (PARAMETER_CLOSE, PARAMETER, CALL_OPEN, CALL_CLOSE, FUNCTION, FUNCTION_CLOSE, *_ENDS)
)
_TAIL_MARKERS = Markers((CALL_CLOSE,))

#: Characters that end a ``<function=`` / ``<parameter=`` header: ``>`` completes it, the
#: others make it malformed. vLLM's parser rejects names with quotes, braces or whitespace too.
_HEAD_END = re.compile(r"[>\n<]")
_BAD_NAME = re.compile(r"[\s{}\"'<>]")
_NON_WS = re.compile(r"\S")

_OUT, _THINK, _CALL, _FN_HEAD, _FN_BODY, _P_HEAD, _P_VALUE, _FN_TAIL, _SINK = range(9)


def parse_call(body: str) -> tuple[str, str] | None:
    """``(name, arguments)`` of a JSON ``<tool_call>`` body, or ``None``."""
    return json_call(body)


class ChatMLScanner(DialectScanner):
    """Scanner for ChatML output with Hermes / Qwen tool tags (see the module docstring).

    Args:
        bare_functions: read ``<function=...>`` without the ``<tool_call>`` wrapper as a call
            too (default: the class's :attr:`BARE_FUNCTIONS`); the other keywords are
            :class:`~guard.scanners.base.DialectScanner`'s.
    """

    #: Whether ``<function=...>`` without the ``<tool_call>`` wrapper is a call.
    BARE_FUNCTIONS: ClassVar[bool] = False
    SINK_STATE = _SINK
    THINK_STATE = _THINK
    FAST_MARKERS = (_OUT_BARE_MARKERS, _THINK_MARKERS)

    def __init__(self, *, bare_functions: bool | None = None, **kwargs: Any) -> None:
        self._bare = self.BARE_FUNCTIONS if bare_functions is None else bare_functions
        self._out_markers = _OUT_BARE_MARKERS if self._bare else _OUT_MARKERS
        super().__init__(**kwargs)

    def _reset(self) -> None:
        self._state = _THINK if self._start_in_thinking else _OUT
        self._announce = self._start_in_thinking
        self._call_reset()

    def _call_reset(self) -> None:
        #: The call's opening raw not yet in the body (``<tool_call>``; empty for a bare call).
        self._prefix = ""
        self._wrapped = False
        #: Everything held in the JSON body so far is whitespace.
        self._blank = True
        self._fn_name = ""
        self._pairs: list[tuple[str, str]] = []
        self._key = ""
        self._value: list[str] = []
        #: The value so far is empty or ends a line; nested ``<parameter=`` tags opened at the
        #: start of a line in it and not yet closed (a value may quote a whole call).
        self._line_start = True
        self._nest = 0
        #: ``<tool_call>`` and ``<function=`` tags opened in the value and not yet closed: a
        #: value quoting a call holds their closers too. A closer of the call's own wrapper
        #: (``</tool_call>``, or ``</function>`` for a bare call) outside them ends the call.
        self._quoted: dict[str, int] = {CALL_CLOSE: 0, FUNCTION_CLOSE: 0}
        #: The header being read (``<function=NAME`` or ``<parameter=KEY``), or the blanks
        #: after ``</function>``; capped at HEADER_CAP.
        self._head = ""
        #: Non-blank text between parameters, or a bad parameter header: the call will not parse.
        self._junk = False
        #: Offsets in the body where the arguments start and end.
        self._args_start = 0
        self._args_end = -1

    # -- state machine ---------------------------------------------------------------------

    # Steps return the next position, or ``-(stop + 1)`` to end this feed at ``stop``.

    def _think(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        return self._think_step(_THINK_MARKERS, THINK_CLOSE, buf, pos, out, final)

    @step(_OUT)
    def _run_out(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = self._text_until(self._out_markers, buf, pos, out, final)
        if m is None:
            return i
        if m == THINK_OPEN:
            out.append(ThinkingStart(m))
            self._state = _THINK
        elif m == CALL_OPEN:
            self._prefix = m
            self._wrapped = True
            self._state = _CALL
        elif m == FUNCTION:
            self._open_function(m, out)
        elif m in _FORGERY:
            self._forgery(self._base + i, m, out)
        elif m in _STOPS:
            out.append(Text("", m))
        else:
            out.append(Malformed(f"{m} without its opening tag", m))
        return i + len(m)

    def _add(self, piece: str, out: list[Event]) -> None:
        self._body_hold(piece, out, self._prefix, "tool call body")

    @step(_CALL)
    def _run_json(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = _CALL_MARKERS.find(buf, pos, final)
        if i > pos:
            piece = buf[pos:i]
            self._blank = self._blank and not piece.strip()
            self._add(piece, out)
        if m is None:
            return -len(buf) - 1
        if m == HOLD:
            return -i - 1
        if m == FUNCTION:
            if self._blank and not self._skipping:
                self._open_function(m, out)
            else:
                self._blank = False
                self._add(m, out)
            return i + len(m)
        self._state = _OUT
        return self._call_marker(m, i, (CALL_CLOSE,), self._end_json, "tool call", out)

    def _open_function(self, tag: str, out: list[Event]) -> None:
        self._add(tag, out)
        self._state = _FN_HEAD
        self._head = tag

    @step(_FN_HEAD, _P_HEAD)
    def _run_head(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """A ``<function=NAME>`` or ``<parameter=KEY>`` header, up to its ``>``."""
        room = HEADER_CAP - len(self._head)
        found = _HEAD_END.search(buf, pos, min(len(buf), pos + room + 1))
        if found is None:
            if len(buf) - pos <= room:
                self._head += buf[pos:]
                self._add(buf[pos:], out)
                return -len(buf) - 1
            self._add(buf[pos : pos + room], out)
            return self._bad_head(pos + room, out)
        j = found.start()
        if buf[j] != ">":
            self._add(buf[pos:j], out)
            return self._bad_head(j, out)
        self._add(buf[pos : j + 1], out)
        head, self._head = self._head + buf[pos:j], ""
        tag = FUNCTION if self._state == _FN_HEAD else PARAMETER
        name = head[len(tag) :]
        if not name or _BAD_NAME.search(name):
            return self._bad_head(j + 1, out)
        if self._state == _FN_HEAD:
            self._fn_name = name
            self._args_start = self._body_len
            self._state = _FN_BODY
        else:
            self._key = name
            self._value = []
            self._line_start = True
            self._nest = 0
            self._quoted = {CALL_CLOSE: 0, FUNCTION_CLOSE: 0}
            self._state = _P_VALUE
        return j + 1

    def _bad_head(self, pos: int, out: list[Event]) -> int:
        """A header that is not ``<tag=NAME>``: a bad function header ends a bare call as
        ``Malformed`` (a wrapped one goes on as a body that will not parse); a bad parameter
        header makes the call malformed."""
        if self._state == _FN_HEAD and not self._wrapped:
            self._state = _OUT
            self._unclosed("malformed <function=...> header", out)
            return pos
        if self._state == _FN_HEAD:
            self._blank = False
            self._state = _CALL
            return pos
        self._junk = True
        self._state = _FN_BODY
        return pos

    @step(_FN_BODY, _P_VALUE, _FN_TAIL)
    def _run_function(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        st = self._state
        if st == _FN_TAIL:
            return self._run_tail(buf, pos, out, final)
        if st == _P_VALUE:
            markers = _VALUE_MARKERS
        else:
            markers = _FN_WRAPPED_MARKERS if self._wrapped else _FN_BARE_MARKERS
        i, m = markers.find(buf, pos, final)
        if i > pos:
            piece = buf[pos:i]
            self._add(piece, out)
            if st == _P_VALUE:
                self._line_start = piece.endswith("\n")
                if not self._skipping:
                    self._value.append(piece)
            elif piece.strip():
                self._junk = True
        if m is None:
            return -len(buf) - 1
        if m == HOLD:
            return -i - 1
        if st == _P_VALUE and m in (CALL_OPEN, CALL_CLOSE, FUNCTION, FUNCTION_CLOSE):
            return self._value_tag(m, i, out)
        if st == _P_VALUE and (m == PARAMETER or (m == PARAMETER_CLOSE and self._nest)):
            # Part of the value: a nested call quoted in it.
            if m == PARAMETER_CLOSE:
                self._nest -= 1
            elif self._line_start:
                self._nest += 1
            self._add(m, out)
            if not self._skipping:
                self._value.append(m)
            self._line_start = False
            return i + len(m)
        if m == PARAMETER_CLOSE:
            self._add(m, out)
            self._pairs.append((self._key, tag_value("".join(self._value))))
            self._value = []
            self._state = _FN_BODY
            return i + len(m)
        if m == PARAMETER:
            self._head = m
            self._add(m, out)
            self._state = _P_HEAD
            return i + len(m)
        if m == FUNCTION_CLOSE:
            self._args_end = self._body_len
            self._add(m, out)
            if self._wrapped:
                self._state = _FN_TAIL
                self._head = ""
                return i + len(m)
            self._state = _OUT
            self._end_function("", out)
            return i + len(m)
        if m == CALL_CLOSE:  # wrapped, no </function>
            self._args_end = self._body_len
            self._state = _OUT
            self._end_function(m, out)
            return i + len(m)
        self._state = _OUT
        self._unclosed(f"tool call not closed before {m}", out)
        return i

    def _value_tag(self, m: str, i: int, out: list[Event]) -> int:
        """A call tag inside a parameter value. Openers, and closers of tags opened in the
        value, are part of it (a value may quote a call); the closer of the call's own wrapper
        ends the call there as ``Malformed`` (its parameter lacks ``</parameter>``), so the
        text and calls after it are read on their own."""
        self._add(m, out)
        self._line_start = False
        if m in (CALL_OPEN, FUNCTION):
            self._quoted[CALL_CLOSE if m == CALL_OPEN else FUNCTION_CLOSE] += 1
        elif self._quoted[m]:
            self._quoted[m] -= 1
        elif m == (CALL_CLOSE if self._wrapped else FUNCTION_CLOSE):
            self._state = _OUT
            self._unclosed(f"parameter {self._key[:64]!r} not closed before {m}", out)
            return i + len(m)
        if not self._skipping:
            self._value.append(m)
        return i + len(m)

    def _run_tail(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """After ``</function>`` in a wrapped call: blanks, then ``</tool_call>``. Anything else
        (or blanks past the header cap) ends the call without it."""
        found = _NON_WS.search(buf, pos)
        j = found.start() if found else len(buf)
        room = HEADER_CAP - len(self._head)
        if j - pos > room:
            self._add(buf[pos : pos + room], out)
            self._state = _OUT
            self._end_function("", out)
            return pos + room
        if j > pos:
            self._head += buf[pos:j]
            self._add(buf[pos:j], out)
        if found is None:
            return -len(buf) - 1
        i, m = _TAIL_MARKERS.find(buf, j, final)
        if i == j and m == HOLD:
            return -j - 1
        self._state = _OUT
        if i == j and m == CALL_CLOSE:
            self._end_function(m, out)
            return j + len(m)
        self._end_function("", out)
        return j

    # -- call endings ----------------------------------------------------------------------

    def _end_json(self, close: str, out: list[Event]) -> None:
        if self._body_skip_end(close, out):
            self._call_reset()
            return
        body = self._body_take()
        parsed = parse_call(body)
        if parsed is None:
            out.append(
                Malformed(
                    'tool call body is not a JSON object with a "name"',
                    CALL_OPEN + body + close,
                )
            )
        else:
            name, args = parsed
            self._whole_call(name, args, CALL_OPEN, body, close, out)
        self._call_reset()

    def _end_function(self, close: str, out: list[Event]) -> None:
        """An XML call ended (``close`` is ``</tool_call>`` or empty)."""
        if self._body_skip_end(close, out):
            self._call_reset()
            return
        prefix = self._prefix
        body = self._body_take()
        fault = parameters_fault(self._junk, self._pairs)
        if fault:
            out.append(Malformed(f"<function=...> call with {fault}", prefix + body + close))
        else:
            name = self._fn_name
            args = self._types.arguments(name, self._pairs)
            start, end = self._args_start, self._args_end
            self._whole_call(
                name, args, prefix + body[:start], body[start:end], body[end:] + close, out
            )
        self._call_reset()

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        self._body_abandon(reason, self._prefix, out)
        self._call_reset()

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _FN_TAIL:
            self._end_function("", out)
        elif state in (_CALL, _FN_HEAD, _FN_BODY, _P_HEAD, _P_VALUE):
            self._unclosed("tool call not closed at end of stream", out)
