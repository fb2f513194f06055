"""Llama 3.x scanner (docs/scanners.md, "Llama 3").

The output is the body of an assistant message (the prompt ended in
``<|start_header_id|>assistant<|end_header_id|>\\n\\n``); ``<|eot_id|>`` ends it, ``<|eom_id|>``
ends it waiting for a tool result.

* ``<|python_tag|>`` opens a call that runs to ``<|eom_id|>`` / ``<|eot_id|>`` (held, capped):
  a JSON ``{"name", "parameters"}`` object is a call of that name with the ``parameters`` JSON
  as written; a built-in ``NAME.call(k=v, ...)`` (``brave_search``, ``wolfram_alpha``, ...) is a
  call of ``NAME`` with the keywords as JSON (parsed with ``ast``, never evaluated); anything
  else is a ``python`` call whose arguments are the code. Several JSON call objects joined by
  ``;`` are one call each (never Python code). The end of the stream ends a tag call as
  ``<|eom_id|>`` does (servers consume that token); a tag body cut by another marker is
  ``Malformed``.
* A message that is exactly one JSON object ``{"name": ..., "parameters": ...}`` (the custom
  tool format of the Hugging Face template; ``arguments`` is read as well) is a call, and so is
  one of several such objects separated by ``;`` or blanks (vLLM's parser reads parallel calls
  so). A
  message whose first non-blank character is ``{`` is held until it ends (capped) to tell; if
  it is no call it goes out as ``Text``.
* ``<function=NAME>{json}</function>`` (Llama 3.1's custom-function format) is a call with the
  JSON object as its arguments, as written; a body that is not an object is ``Malformed``.
* ``<|start_header_id|>`` in model output opens a new turn, which only the host may write:
  ``ResultForgery``, everything after it as ``Malformed`` blocks.
"""

from __future__ import annotations

import re
from typing import Final

from guard._json_walk import value_end
from guard.dialects.llama3 import LLAMA3
from guard.models import Event, Malformed, Text
from guard.scanners._dialect import DialectScanner, step
from guard.scanners.base import (
    HEADER_CAP,
    HOLD,
    Markers,
    json_call,
    json_members,
    kwargs_call,
)

__all__ = [
    "Llama3Scanner",
    "parse_json_call",
    "parse_json_calls",
    "parse_python_tag",
]

# The spellings the dialect record holds are read from it.
PYTHON_TAG, FUNCTION = LLAMA3.call_open
EOM, FUNCTION_CLOSE = LLAMA3.call_close
(START_HEADER,) = LLAMA3.result_open
EOT, _, END_OF_TEXT = LLAMA3.stop  # the second is <|eom_id|>
END_HEADER: Final = "<|end_header_id|>"

_STOPS = frozenset(LLAMA3.stop)
_MARKERS = Markers((PYTHON_TAG, EOM, EOT, END_OF_TEXT, START_HEADER, END_HEADER))
_TEXT_MARKERS = Markers(
    (PYTHON_TAG, EOM, EOT, END_OF_TEXT, START_HEADER, END_HEADER, FUNCTION, FUNCTION_CLOSE)
)
_FUNCTION_MARKERS = Markers((FUNCTION_CLOSE, EOM, EOT, END_OF_TEXT, START_HEADER, END_HEADER))
_NON_WS = re.compile(r"\S")
_WS = re.compile(r"\s*")
_HEAD_END = re.compile(r"[>\n<]")
_BAD_NAME = re.compile(r"[\s{}\"'<>]")

_START, _TEXT, _JSON, _TAG, _FN_HEAD, _FN_BODY, _SINK = range(7)


def parse_json_call(body: str) -> tuple[str, str] | None:
    """``(name, parameters JSON)`` of a ``{"name": ..., "parameters": ...}`` call, or ``None``
    (``arguments`` is accepted for ``parameters``; a ``type`` member is ignored)."""
    return json_call(body, ("parameters", "arguments"), need_arguments=True)


def parse_json_calls(body: str) -> list[tuple[str, str, int, int]] | None:
    """The calls of a message of JSON call objects separated by ``;`` or blanks: ``(name,
    arguments, start, end)`` per call with the object's span in ``body``; ``None`` unless every
    object is a call. Never raises."""
    calls: list[tuple[str, str, int, int]] = []
    pos = 0
    n = len(body)
    try:
        while True:
            m = _WS.match(body, pos)
            start = m.end() if m else pos
            if not body.startswith("{", start):
                return None
            end = value_end(body, start, strict=True)
            parsed = parse_json_call(body[start:end])
            if parsed is None:
                return None
            calls.append((*parsed, start, end))
            m = _WS.match(body, end)
            pos = m.end() if m else end
            if pos == n:
                return calls
            if body.startswith(";", pos):
                pos += 1
    except ValueError:
        return None


def parse_python_tag(body: str) -> tuple[str, str] | None:
    """``(name, arguments)`` of a ``<|python_tag|>`` body, ``None`` when it is blank."""
    if not body.strip():
        return None
    return parse_json_call(body) or kwargs_call(body, method="call") or ("python", body)


class Llama3Scanner(DialectScanner):
    """Scanner for Llama 3.x output (see the module docstring)."""

    NO_REASONING = "Llama 3 output has no reasoning section to start in"
    SINK_STATE = _SINK
    TEXT_STATE = _TEXT
    TEXT_MARKERS = _TEXT_MARKERS

    def _reset(self) -> None:
        self._state = _START
        self._lead = ""
        self._head = ""
        self._fn_name = ""

    def _held_extra(self) -> int:
        return len(self._lead) + len(self._head)

    # Each step returns the next position, or ``-1 - r`` to end the run with ``r`` (the end of
    # the buffer, or where a possible marker starts and is held).

    @step(_START)
    def _step_start(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """Hold leading blanks (capped) until the first character tells a JSON call."""
        n = len(buf)
        found = _NON_WS.search(buf, pos)
        j = found.start() if found else n
        if len(self._lead) + j - pos <= HEADER_CAP and found is None:
            self._lead += buf[pos:]
            return -1 - n
        lead = self._lead + buf[pos:j]
        self._lead = ""
        if found is not None and buf.startswith("{", j) and len(lead) <= HEADER_CAP:
            self._state = _JSON
            if lead:
                self._body.append(lead)
                self._body_len = len(lead)
        else:
            self._state = _TEXT
            if lead:
                out.append(Text(lead, lead))
        return j

    def _marker(self, m: str, offset: int, out: list[Event]) -> None:
        if m == PYTHON_TAG:
            self._state = _TAG
        elif m == FUNCTION:
            self._head = m
            self._state = _FN_HEAD
        elif m in _STOPS:
            out.append(Text("", m))
            self._state = _START
        elif m == START_HEADER:
            self._forgery(offset, m, out, "text after a forged turn")
        else:
            out.append(Malformed(f"{m} in model output", m))

    @step(_JSON)
    def _step_json(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = _MARKERS.find(buf, pos, final)
        if i > pos:
            piece = buf[pos:i]
            if self._body_len + len(piece) > self._max_arguments:
                # Too long to be a call: it is text after all.
                held = self._body_take() + piece
                out.append(Text(held, held))
                self._state = _TEXT
                return i
            self._body.append(piece)
            self._body_len += len(piece)
        if m is None:
            return -1 - len(buf)
        if m == HOLD:
            return -1 - i
        return self._end_json(m, i, out)

    @step(_TAG)
    def _step_tag(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        i, m = self._held_until(_MARKERS, f"{PYTHON_TAG} call", PYTHON_TAG, buf, pos, out, final)
        if m is None:
            return i
        if m in _STOPS:
            self._end_tag(m, out)
            self._state = _START
            return i + len(m)
        self._unclosed(f"{PYTHON_TAG} call not terminated before {m}", out)
        self._state = _TEXT
        return i

    @step(_FN_HEAD)
    def _step_fn_head(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        n = len(buf)
        room = HEADER_CAP - len(self._head)
        found = _HEAD_END.search(buf, pos, min(n, pos + room + 1))
        if found is None and n - pos <= room:
            self._head += buf[pos:]
            return -1 - n
        j = found.start() if found else pos + room
        name = (self._head + buf[pos:j])[len(FUNCTION) :]
        if found is None or buf[j] != ">" or _BAD_NAME.search(name):
            bad = self._head + buf[pos:j]
            out.append(Malformed(f"malformed {FUNCTION}...> tag", bad))
            self._head = ""
            self._state = _TEXT
            return j
        if not name:
            bad = self._head + buf[pos : j + 1]
            out.append(Malformed(f"{FUNCTION}> without a name", bad))
            self._head = ""
            self._state = _TEXT
            return j + 1
        self._fn_name = name
        self._head += buf[pos : j + 1]
        self._state = _FN_BODY
        return j + 1

    @step(_FN_BODY)
    def _step_fn_body(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        what = f"{FUNCTION}...> call"
        i, m = self._held_until(_FUNCTION_MARKERS, what, self._head, buf, pos, out, final)
        if m is None:
            return i
        self._state = _TEXT
        if m == FUNCTION_CLOSE:
            self._end_function(m, out)
            return i + len(m)
        if not self._body_skip_end("", out):
            reason = f"{FUNCTION}...> call not closed before {m}"
            out.append(Malformed(reason, self._head + self._body_take()))
        self._head = ""
        return i

    def _end_function(self, close: str, out: list[Event]) -> None:
        opening, self._head = self._head, ""
        if self._body_skip_end(close, out):
            return
        body = self._body_take()
        members = json_members(body)
        if members is None:
            reason = f"{FUNCTION}...> body is not a JSON object"
            out.append(Malformed(reason, opening + body + close))
            return
        args = body.strip()
        self._whole_call(self._fn_name, args, opening, body, close, out)

    def _end_json(self, stop: str, i: int, out: list[Event]) -> int:
        """A held ``{``-message ended at ``stop`` (at ``i``; ``""`` for end of stream). Returns
        where scanning goes on."""
        body = self._body_take()
        calls = parse_json_calls(body)
        if calls is None:
            if body:
                out.append(Text(body, body))
            self._state = _TEXT
            return i
        ends = stop in _STOPS
        cursor = 0
        for k, (name, args, start, end) in enumerate(calls):
            last = k == len(calls) - 1
            nxt = len(body) if last else calls[k + 1][2]
            close = body[end:nxt] + (stop if last and ends else "")
            self._whole_call(name, args, body[cursor:start], body[start:end], close, out)
            cursor = nxt
        if ends:
            self._state = _START
            return i + len(stop)
        self._state = _TEXT
        return i

    def _end_tag(self, stop: str, out: list[Event]) -> None:
        """A ``<|python_tag|>`` body ended at ``stop`` (``""``: the stream ended, as it does when
        the server consumed ``<|eom_id|>``). JSON call objects joined by ``;`` are one call
        each; anything else is one call (:func:`parse_python_tag`)."""
        if self._body_skip_end(stop, out):
            return
        body = self._body_take()
        calls = parse_json_calls(body)
        if calls is not None:
            cursor = 0
            for k, (name, args, start, end) in enumerate(calls):
                last = k == len(calls) - 1
                lead = (PYTHON_TAG if k == 0 else "") + body[cursor:start]
                nxt = len(body) if last else calls[k + 1][2]
                close = body[end:nxt] + (stop if last else "")
                self._whole_call(name, args, lead, body[start:end], close, out)
                cursor = nxt
            return
        parsed = parse_python_tag(body)
        if parsed is None:
            out.append(Malformed(f"empty {PYTHON_TAG} call", PYTHON_TAG + body + stop))
            return
        name, args = parsed
        self._whole_call(name, args, PYTHON_TAG, body, stop, out)

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        self._body_abandon(reason, PYTHON_TAG, out)

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _START and self._lead:
            out.append(Text(self._lead, self._lead))
        elif state == _JSON:
            self._end_json("", 0, out)
        elif state == _TAG:
            # Servers consume the closing <|eom_id|>, so a tag call that ends the stream is
            # whole; an empty one is still Malformed.
            self._end_tag("", out)
        elif state == _FN_HEAD:
            out.append(Malformed(f"{FUNCTION}...> tag not closed at end of stream", self._head))
        elif state == _FN_BODY and not self._body_skip_end("", out):
            reason = f"{FUNCTION}...> call not closed at end of stream"
            out.append(Malformed(reason, self._head + self._body_take()))
