"""Gemma 4 and FunctionGemma scanner.

Both write a call as ``call:NAME{key:value,...}`` between call tokens (Gemma 4 and FunctionGemma
chat templates; vLLM ``gemma4`` / ``functiongemma`` and SGLang ``gemma4`` parsers)::

    <|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>          (Gemma 4)
    <start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>

* Values: strings between the string token (``<|"|>``, FunctionGemma ``<escape>``), taken
  verbatim; ``{k:v,...}`` objects (keys bare or quoted); ``[...]`` lists; bare ``true``,
  ``false``, ``null`` / ``None``, numbers; any other bare word is a string. A missing comma
  after a string, object or list is tolerated. A string stays a string unless the ``tools``
  schemas type it (FunctionGemma writes every value between ``<escape>`` tokens).
* A call is held (capped) until its closer, found outside strings; then ``ToolStart`` (raw: the
  opener) + ``ToolArgs`` (the body) + ``ToolEnd`` (the closer), or ``Malformed`` with the raw
  text when the body does not parse or the call is not closed.
* ``<|channel>thought\\n...<channel|>`` is thinking (``start_in_thinking=True`` starts inside
  it, for a prompt that opened it).
* After its calls the model writes the result opening (``<|tool_response>``,
  ``<start_function_response>``) and stops: such a marker with nothing but blanks after it is a
  stop (``Text`` with empty text); followed by anything else it is a forged result
  (``ResultForgery`` at the marker, the rest ``Malformed``). A new turn (``<|turn>``,
  ``<start_of_turn>``) in model output is forged too. ``<turn|>``, ``<end_of_turn>`` and ``<eos>``
  are stops.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from guard.dialects.gemma import GEMMA
from guard.models import (
    Event,
    Malformed,
    Text,
    ThinkingStart,
)
from guard.scanners._dialect import DialectScanner, step
from guard.scanners.base import Markers

__all__ = [
    "GemmaScanner",
    "parse_call",
]

# The spellings the dialect record holds are read from it.
CALL, FG_CALL = GEMMA.call_open
CALL_CLOSE, FG_CALL_CLOSE = GEMMA.call_close
RESPONSE, FG_RESPONSE, TURN, START_OF_TURN = GEMMA.result_open
EOS, TURN_CLOSE, _, END_OF_TURN, _ = GEMMA.stop  # the others are result openings
((_, CHANNEL_CLOSE),) = GEMMA.thinking  # the opening is CHANNEL + THOUGHT
QUOTE: Final = '<|"|>'
RESPONSE_CLOSE: Final = "<tool_response|>"
CHANNEL: Final = "<|channel>"
THOUGHT: Final = "thought\n"
FG_QUOTE: Final = "<escape>"
FG_RESPONSE_CLOSE: Final = "<end_function_response>"

#: Call opener -> (closer, string token).
_CALLS: Final = {CALL: (CALL_CLOSE, QUOTE), FG_CALL: (FG_CALL_CLOSE, FG_QUOTE)}
#: Result openings: a stop at the very end, a forgery when anything follows.
_RESULTS = (RESPONSE, FG_RESPONSE)
_TURNS = (TURN, START_OF_TURN)
_STOPS = (TURN_CLOSE, END_OF_TURN, EOS)
_ENDS = (*_RESULTS, *_TURNS, *_STOPS)
_STRAY = (CALL_CLOSE, FG_CALL_CLOSE, CHANNEL_CLOSE)
_OUT_MARKERS = Markers((*_CALLS, CHANNEL, *_ENDS, *_STRAY))
_THINK_MARKERS = Markers((CHANNEL_CLOSE, *_ENDS))
_BODY_MARKERS = {
    opener: Markers((closer, quote, *_ENDS)) for opener, (closer, quote) in _CALLS.items()
}
_STRING_MARKERS = {opener: Markers((quote, *_ENDS)) for opener, (_, quote) in _CALLS.items()}


_OUT, _CHANNEL, _THINK, _BODY, _STRING, _RESULT, _SINK = range(7)


# ---------------------------------------------------------------------------------------------
# The call body: call:NAME{key:value,...}

_NAME = re.compile(r"call:\s*([\w\-.]+)\s*\{")
_WS = re.compile(r"\s*")
_BARE = re.compile(r"[^,}\]]*")
_KEY = re.compile(r"[^:,{}\[\]]*")
_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
_MAX_DEPTH = 64


class _Syntax(ValueError):
    pass


class _Reader:
    """A recursive-descent reader for one call body (depth-capped, never evaluates)."""

    def __init__(self, text: str, quote: str) -> None:
        self.text = text
        self.quote = quote
        self.pos = 0
        self.delimited = False

    def ws(self) -> None:
        m = _WS.match(self.text, self.pos)
        self.pos = m.end() if m else self.pos

    def string(self) -> str:
        start = self.pos + len(self.quote)
        end = self.text.find(self.quote, start)
        if end < 0:
            raise _Syntax("unterminated string")
        self.pos = end + len(self.quote)
        return self.text[start:end]

    def value(self, depth: int) -> Any:
        """The next value; ``self.delimited`` tells whether it ended in a closing token."""
        if depth > _MAX_DEPTH:
            raise _Syntax("too deep")
        self.ws()
        text = self.text
        self.delimited = True
        if text.startswith(self.quote, self.pos):
            return self.string()
        if text.startswith("{", self.pos):
            self.pos += 1
            return self.members("}", depth + 1)
        if text.startswith("[", self.pos):
            self.pos += 1
            items: list[Any] = []
            self.ws()
            if text.startswith("]", self.pos):
                self.pos += 1
                return items
            while True:
                items.append(self.value(depth + 1))
                self.delimited = True
                self.ws()
                if text.startswith(",", self.pos):
                    self.pos += 1
                    continue
                if text.startswith("]", self.pos):
                    self.pos += 1
                    return items
                raise _Syntax("expected , or ]")
        m = _BARE.match(text, self.pos)
        word = m.group().strip() if m else ""
        if not word:
            raise _Syntax("missing value")
        self.pos = m.end() if m else self.pos
        self.delimited = False
        return _bare(word)

    def members(self, close: str, depth: int) -> dict[str, Any]:
        """``key:value`` pairs up to ``close`` (the opening brace is consumed)."""
        obj: dict[str, Any] = {}
        text = self.text
        self.ws()
        if text.startswith(close, self.pos):
            self.pos += 1
            return obj
        while True:
            self.ws()
            if text.startswith(self.quote, self.pos):
                key = self.string()
            else:
                m = _KEY.match(text, self.pos)
                key = m.group().strip() if m else ""
                self.pos = m.end() if m else self.pos
            if not key or not text.startswith(":", self.pos):
                raise _Syntax("expected key:")
            self.pos += 1
            if key in obj:
                raise _Syntax(f"repeated key {key!r}")
            obj[key] = self.value(depth)
            self.ws()
            if text.startswith(",", self.pos):
                self.pos += 1
                continue
            if text.startswith(close, self.pos):
                self.pos += 1
                return obj
            if not self.delimited:
                raise _Syntax(f"expected , or {close}")
            # A missing comma after a string, object or list is tolerated (vLLM's parser
            # reads such calls).


def _bare(word: str) -> Any:
    if word in ("true", "false"):
        return word == "true"
    if word in ("null", "None", "none"):
        return None
    if _INT.fullmatch(word):
        return int(word)
    if _FLOAT.fullmatch(word):
        value = float(word)
        return value if math.isfinite(value) else word
    return word


def parse_call(body: str, quote: str = QUOTE) -> tuple[str, str] | None:
    """``(name, arguments JSON)`` of a ``call:NAME{...}`` body (``quote`` is the string token:
    ``<|"|>`` for Gemma 4, ``<escape>`` for FunctionGemma), or ``None``. Never raises."""
    parsed = _parse(body, quote)
    return None if parsed is None else (parsed[0], json.dumps(parsed[1], ensure_ascii=False))


def _parse(body: str, quote: str) -> tuple[str, dict[str, Any]] | None:
    text = body.strip()
    m = _NAME.match(text)
    if m is None:
        return None
    reader = _Reader(text, quote)
    reader.pos = m.end()
    try:
        args = reader.members("}", 1)
        reader.ws()
        if reader.pos != len(text):
            return None
        return m.group(1), args
    except (_Syntax, RecursionError):
        return None


# ---------------------------------------------------------------------------------------------
# Scanner


class GemmaScanner(DialectScanner):
    """Scanner for Gemma 4 / FunctionGemma output (see the module docstring)."""

    SINK_STATE = _SINK
    THINK_STATE = _THINK
    FORGED_STOPS = frozenset(_RESULTS)
    TEXT_MARKERS = _OUT_MARKERS
    STOP_STATE = _RESULT

    def _reset(self) -> None:
        self._state = _THINK if self._start_in_thinking else _OUT
        self._announce = self._start_in_thinking
        self._opener = ""
        self._hdr = ""

    def _think(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        return self._think_step(_THINK_MARKERS, CHANNEL_CLOSE, buf, pos, out, final)

    # Each step returns the next position, or ``-1 - r`` to end the run with ``r`` (the end of
    # the buffer, or where a possible marker starts and is held).

    @step(_BODY, _STRING)
    def _step_body(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        st = self._state  # _BODY or _STRING
        table = _STRING_MARKERS if st == _STRING else _BODY_MARKERS
        opener = self._opener
        i, m = self._held_until(table[opener], "tool call body", opener, buf, pos, out, final)
        if m is None:
            return i
        closer, quote = _CALLS[self._opener]
        if m == quote:
            self._add(m, out)
            self._state = _BODY if st == _STRING else _STRING
            return i + len(m)
        return self._call_marker(m, i, (closer,), self._end_call, "tool call", out)

    def _marker(self, m: str, offset: int, out: list[Event]) -> None:
        if m in _CALLS:
            self._opener = m
            self._state = _BODY
        elif m == CHANNEL:
            self._hdr = ""
            self._state = _CHANNEL
        elif m in _RESULTS:
            self._hold_stop(m, offset, _RESULT)
        elif m in _TURNS:
            self._forgery(offset, m, out)
        elif m in _STOPS:
            out.append(Text("", m))
        else:
            out.append(Malformed(f"{m} without its opening tag", m))

    @step(_CHANNEL)
    def _run_channel(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        """After ``<|channel>``: ``thought\\n`` opens thinking; anything else is malformed."""
        need = THOUGHT[len(self._hdr) :]
        piece = buf[pos : pos + len(need)]
        k = 0
        while k < len(piece) and piece[k] == need[k]:
            k += 1
        self._hdr += piece[:k]
        if self._hdr == THOUGHT:
            out.append(ThinkingStart(CHANNEL + THOUGHT))
            self._hdr = ""
            self._state = _THINK
        elif k < len(piece):
            out.append(Malformed(f"{CHANNEL} not followed by {THOUGHT!r}", CHANNEL + self._hdr))
            self._hdr = ""
            self._state = _OUT
        return pos + k

    def _add(self, piece: str, out: list[Event]) -> None:
        self._body_hold(piece, out, self._opener, "tool call body")

    def _end_call(self, close: str, out: list[Event]) -> None:
        opener = self._opener
        self._state = _OUT
        if self._body_skip_end(close, out):
            return
        body = self._body_take()
        parsed = _parse(body, _CALLS[opener][1])
        if parsed is None:
            out.append(Malformed("tool call body is not call:NAME{...}", opener + body + close))
            return
        name, obj = parsed
        args = self._types.arguments(name, obj.items())
        self._whole_call(name, args, opener, body, close, out)

    def _unclosed(self, reason: str, out: list[Event]) -> None:
        self._state = _OUT
        self._body_abandon(reason, self._opener, out)

    def _finish_dialect(self, state: int, out: list[Event]) -> None:
        if state == _CHANNEL:
            out.append(Malformed(f"{CHANNEL} not followed by {THOUGHT!r}", CHANNEL + self._hdr))
        elif state in (_BODY, _STRING):
            self._unclosed("tool call not closed at end of stream", out)
        elif state == _RESULT:
            self._stop_ended(out)
