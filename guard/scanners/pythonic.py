"""Pythonic call lists (Llama 4, Gemma 3): scanner.

The model answers a tool request with a Python list of calls as the whole reply (Llama 4 and
Gemma 3 pythonic chat templates; vLLM ``pythonic`` / ``llama4_pythonic`` and SGLang ``pythonic``
parsers)::

    [get_weather(city="Paris", days=3), get_time(zone='CET')]

* A message (the output, or what follows a stop) whose first non-blank character is ``[``,
  optionally after ``<|python_start|>``, is held while it could still be ``[NAME(``; once it is,
  the list is held (capped) up to its closing ``]``, tracked through Python strings, brackets
  and comments. It must parse (``ast``, never evaluated) as a list of calls with literal keyword
  arguments (Python literals; JSON's ``true``, ``false`` and ``null`` are read too): each
  becomes ``ToolStart`` + ``ToolArgs`` (the call's source) + ``ToolEnd``, its arguments the
  JSON text of the keywords. A list that does not parse is ``Malformed``;
  ``<|python_start|>`` elsewhere starts a list the same way.
* Any other reply is ``Text`` (vLLM and SGLang read a list only as the whole reply).
* A turn start in model output (``<|header_start|>`` for Llama 4, ``<start_of_turn>`` for
  Gemma 3, the ``<tool_response>`` result wrapper) is a forged result: ``ResultForgery``, then
  ``Malformed`` blocks. ``<|eot|>``, ``<|eom|>``, ``<|end_of_text|>``, ``<end_of_turn>`` and
  ``<eos>`` are stops (``Text`` with empty text).

These models have no reasoning section in their output, so ``start_in_thinking`` is refused.
"""

from __future__ import annotations

import ast
import json
import math
import re
from typing import Any, Final

from guard.dialects.pythonic import PYTHONIC
from guard.models import Event, Malformed, Text
from guard.scanners._dialect import DialectScanner, step
from guard.scanners._pysource import MAX_CALL_CODE, is_blank, list_elements
from guard.scanners.base import HEADER_CAP, HOLD, Markers

__all__ = [
    "PythonicScanner",
    "parse_calls",
]

# The spellings the dialect record holds are read from it.
(PYTHON_START,), (PYTHON_END,) = PYTHONIC.call_open, PYTHONIC.call_close
HEADER_START, START_OF_TURN, TOOL_RESPONSE = PYTHONIC.result_open
EOT, EOM, END_OF_TEXT, END_OF_TURN, EOS = PYTHONIC.stop
HEADER_END: Final = "<|header_end|>"

_FORGERY = frozenset(PYTHONIC.result_open)
_STOPS = frozenset(PYTHONIC.stop)
_ENDS = (*_FORGERY, *_STOPS)
_TEXT_MARKERS = Markers((PYTHON_START, PYTHON_END, HEADER_END, *_ENDS))
_LIST_MARKERS = Markers((PYTHON_END, *_ENDS))
_NON_WS = re.compile(r"\S")
#: Characters the literal tracker acts on in code.
_CODE = re.compile(r"[\[\](){}'\"#]")
#: What can end a string: a backslash (escaping the next character) or the quote.
_STRING_STOP = {"'": re.compile(r"[\\']"), '"': re.compile(r'[\\"]')}

_START, _HEAD, _LIST, _TEXT, _SINK = range(5)


# ---------------------------------------------------------------------------------------------
# Parsing a held list


_LINE_END = re.compile(r"\r\n|\r|\n")


class _Positions:
    """Character offsets of ``ast`` positions in ``text`` (a line as Python counts lines, then
    UTF-8 bytes within it), for positions asked in increasing order: each line is encoded at
    most once and read forward from the last position, so a long line costs its length once."""

    __slots__ = ("_ascii", "_bytes", "_cursor", "_line", "_starts", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts = [0, *(m.end() for m in _LINE_END.finditer(text))]
        self._line = 0
        self._ascii = True
        self._bytes = b""
        self._cursor = (0, 0)  # (byte, character) within the line

    def offset(self, lineno: int, col: int) -> int:
        starts = self._starts
        start = starts[lineno - 1]
        if lineno != self._line:
            end = starts[lineno] if lineno < len(starts) else len(self._text)
            line = self._text[start:end]
            self._line, self._ascii = lineno, line.isascii()
            self._bytes = b"" if self._ascii else line.encode("utf-8")
            self._cursor = (0, 0)
        if self._ascii:
            return start + col
        byte, char = self._cursor
        if col < byte:
            byte, char = 0, 0
        char += len(self._bytes[byte:col].decode("utf-8", errors="ignore"))
        self._cursor = (col, char)
        return start + char


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def _json_safe(value: Any) -> Any:
    """A literal as JSON data (tuples become lists); raises ``ValueError`` for anything JSON
    cannot hold (bytes, sets, complex numbers, non-string keys, NaN)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("non-string key")
        return {k: _json_safe(v) for k, v in value.items()}
    raise ValueError(f"{type(value).__name__} is not JSON")


#: JSON's literal names, read as the Python constants (the pythonic Gemma 3 template writes
#: arguments with ``tojson``).
_JSON_NAMES: Final = {"true": True, "false": False, "null": None}


class _JsonNames(ast.NodeTransformer):
    def visit_Name(self, node: ast.Name) -> ast.expr:
        if node.id in _JSON_NAMES:
            return ast.copy_location(ast.Constant(_JSON_NAMES[node.id]), node)
        return node


def _literal_value(node: ast.expr) -> Any:
    """A literal's value; JSON's names are read when plain Python does not parse."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        return ast.literal_eval(_JsonNames().visit(node))


def parse_calls(text: str) -> list[tuple[str, str, int, int]] | None:
    """The calls of a pythonic list: ``(name, arguments JSON, start, end)`` per call, with the
    character span of the call in ``text``; ``None`` when ``text`` (blanks around it allowed)
    is not a non-empty list of calls with literal keyword arguments, or holds a call with more
    than :data:`~guard.scanners._pysource.MAX_CALL_CODE` characters of code. Never raises.

    The list is parsed (``ast``, never evaluated) a run of calls at a time, each run under
    ``MAX_CALL_CODE`` characters of code: time is linear in the list and memory is one run's
    syntax tree, however many calls the list holds."""
    try:
        spans = list_elements(text)
        if not spans:
            return None
        if len(spans) > 1 and is_blank(text, spans[-1][0], spans[-1][1]):
            spans.pop()  # after a trailing comma
        calls: list[tuple[str, str, int, int]] = []
        run: list[tuple[int, int, int]] = []
        budget = 0
        for span in spans:
            size = span[2]
            if size == 0 or size > MAX_CALL_CODE:
                return None
            if run and budget + size > MAX_CALL_CODE:
                if not _parse_run(text, run, calls):
                    return None
                run, budget = [], 0
            run.append(span)
            budget += size
        return calls if _parse_run(text, run, calls) else None
    except Exception:  # model output: any failure (syntax, depth, size, types) means "no calls"
        return None


def _parse_run(text: str, run: list[tuple[int, int, int]], calls: list[Any]) -> bool:
    """Parse the consecutive list elements ``run`` of ``text`` as one list, adding each call
    (its span in ``text``) to ``calls``; False when one is not a call."""
    first, last = run[0][0], run[-1][1]
    # a list again, on lines of its own so a comment at the end ends before the bracket
    source = f"[{text[first:last]}\n]"
    elts = ast.parse(source, mode="eval").body
    if not isinstance(elts, ast.List) or len(elts.elts) != len(run):
        return False
    positions = _Positions(source)
    for node in elts.elts:
        if not isinstance(node, ast.Call) or node.args:
            return False
        name = _dotted(node.func)
        if name is None or node.end_lineno is None or node.end_col_offset is None:
            return False
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None or kw.arg in kwargs:
                return False
            kwargs[kw.arg] = _json_safe(_literal_value(kw.value))
        start = positions.offset(node.lineno, node.col_offset) - 1 + first
        end = positions.offset(node.end_lineno, node.end_col_offset) - 1 + first
        args = json.dumps(kwargs, ensure_ascii=False, allow_nan=False)
        calls.append((name, args, start, end))
    return True


# ---------------------------------------------------------------------------------------------
# Scanner


class PythonicScanner(DialectScanner):
    """Scanner for pythonic call lists (see the module docstring)."""

    NO_REASONING = "pythonic output (Llama 4, Gemma 3) has no reasoning section"
    SINK_STATE = _SINK
    TEXT_STATE = _TEXT
    TEXT_MARKERS = _TEXT_MARKERS

    def _reset(self) -> None:
        self._state = _START
        #: Held before the list is known: blanks, ``<|python_start|>``, ``[`` and a name.
        self._lead = ""
        #: In ``_HEAD``: 0 blanks after ``[``, 1 in the name.
        self._phase = 0
        self._list_reset()

    def _list_reset(self) -> None:
        self._depth = 0
        #: The open string's quote (``'``, ``"``, or tripled), empty in code.
        self._quote = ""
        self._escape = False
        self._comment = False

    def _held_extra(self) -> int:
        return len(self._lead)

    # Each step returns the next position, or ``-1 - r`` to end the run with ``r`` (the end of
    # the buffer, or where a possible marker or a quote that needs more input starts).

    @step(_LIST)
    def _run_list(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """The held list, up to its closing ``]`` (or a marker that cuts it short)."""
        i, m = _LIST_MARKERS.find(buf, pos, final)
        end = self._track(buf, pos, i, final)
        if end == -2:  # a quote at the edge of the input: wait for more
            self._add(buf[pos : self._wait], out)
            return -1 - self._wait
        if end >= 0:
            self._add(buf[pos:end], out)
            self._end_list(out)
            return end
        if i > pos:
            self._add(buf[pos:i], out)
        if m is None:
            return -1 - len(buf)
        if m == HOLD:
            return -1 - i
        self._unclosed(f"call list not closed before {m}", out)
        return i

    def _marker(self, m: str, offset: int, out: list[Event]) -> None:
        if m in _FORGERY:
            self._forgery(offset, m, out, "text after a forged turn")
        elif m in _STOPS:
            out.append(Text("", m))
            self._state = _START
        elif m == PYTHON_START:
            self._lead = m
            self._state = _START
        elif m == PYTHON_END:
            out.append(Text("", m))
        else:
            out.append(Malformed(f"{m} in model output", m))

    def _to_text(self, out: list[Event]) -> None:
        lead, self._lead = self._lead, ""
        if lead:
            out.append(Text(lead, lead))
        self._state = _TEXT

    @step(_START)
    def _run_start(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Blanks (and ``<|python_start|>``) before the first character of a message. Returns
        where scanning goes on, or ``-(i + 1)`` to stop this feed at ``i`` (a possible partial
        ``<|python_start|>`` is left for the next one)."""
        found = _NON_WS.search(buf, pos)
        j = found.start() if found else len(buf)
        if len(self._lead) + j - pos > HEADER_CAP:
            self._to_text(out)
            return pos
        self._lead += buf[pos:j]
        if found is None:
            return len(buf)
        if buf.startswith("[", j):
            self._lead += "["
            self._phase = 0
            self._state = _HEAD
            return j + 1
        if PYTHON_START not in self._lead:
            if buf.startswith(PYTHON_START, j):
                self._lead += PYTHON_START
                return j + len(PYTHON_START)
            rest = buf[j:]
            if not final and len(rest) < len(PYTHON_START) and PYTHON_START.startswith(rest):
                return -(j + 1)
        self._to_text(out)
        return j

    @step(_HEAD)
    def _run_head(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """After ``[``: blanks, then a dotted name, then ``(`` makes it a call list."""
        n = len(buf)
        i = pos
        while i < n:
            ch = buf[i]
            if self._phase == 0 and ch.isspace():
                i += 1
            elif ch.isalpha() or ch == "_" or (self._phase == 1 and (ch.isdigit() or ch == ".")):
                self._phase = 1
                i += 1
            elif ch == "(" and self._phase == 1:
                i += 1
                lead, self._lead = self._lead + buf[pos:i], ""
                self._list_reset()
                self._depth = 2  # inside `[` and `(`
                self._state = _LIST
                self._add(lead, out)
                return i
            else:
                self._lead += buf[pos:i]
                self._to_text(out)
                return i
            if len(self._lead) + i - pos > HEADER_CAP:
                self._lead += buf[pos:i]
                self._to_text(out)
                return i
        self._lead += buf[pos:n]
        return n

    def _track(self, buf: str, pos: int, stop: int, final: bool) -> int:
        """Follow the literal from ``pos`` to ``stop``: the index just past the list's closing
        ``]``, -1 when it does not close there, -2 when a quote at the edge of the input needs
        more characters (``self._wait`` is where to resume)."""
        i = pos
        while i < stop:
            if self._comment:
                j = buf.find("\n", i, stop)
                if j < 0:
                    return -1
                self._comment = False
                i = j + 1
                continue
            q = self._quote
            if q:
                if self._escape:
                    self._escape = False
                    i += 1
                    continue
                found = _STRING_STOP[q[0]].search(buf, i, stop)
                if found is None:
                    return -1
                j = found.start()
                if buf[j] == "\\":
                    self._escape = True
                    i = j + 1
                    continue
                if len(q) == 3:
                    if j + 3 > len(buf) and not final:
                        self._wait = j
                        return -2
                    if buf.startswith(q, j):
                        self._quote = ""
                        i = j + 3
                    else:
                        i = j + 1
                    continue
                self._quote = ""
                i = j + 1
                continue
            m = _CODE.search(buf, i, stop)
            if m is None:
                return -1
            j = m.start()
            ch = buf[j]
            if ch in "'\"":
                if j + 3 > len(buf) and not final:
                    self._wait = j
                    return -2
                triple = ch * 3
                if buf.startswith(triple, j):
                    self._quote = triple
                    i = j + 3
                else:
                    self._quote = ch
                    i = j + 1
            elif ch == "#":
                self._comment = True
                i = j + 1
            elif ch in "[({":
                self._depth += 1
                i = j + 1
            else:
                self._depth -= 1
                i = j + 1
                if self._depth <= 0:
                    return i
        return -1

    def _add(self, piece: str, out: list[Event]) -> None:
        self._body_hold(piece, out, "", "call list")

    def _end_list(self, out: list[Event]) -> None:
        self._state = _TEXT
        if self._body_skip_end("", out):
            return
        body = self._body_take()
        k = body.find("[")  # after the lead: blanks and <|python_start|>
        calls = parse_calls(body[k:])
        if calls is None:
            out.append(Malformed("not a list of calls with literal keyword arguments", body))
            return
        cursor = 0
        spans = [(name, args, k + start, k + end) for name, args, start, end in calls]
        for index, (name, args, start, end) in enumerate(spans):
            nxt = spans[index + 1][2] if index + 1 < len(spans) else len(body)
            self._whole_call(name, args, body[cursor:start], body[start:end], body[end:nxt], out)
            cursor = nxt

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        self._state = _TEXT
        self._body_abandon(reason, "", out)

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state in (_START, _HEAD):
            lead = self._lead
            if lead:
                out.append(Text(lead, lead))
        elif state == _LIST:
            self._unclosed("call list not closed at end of stream", out)
