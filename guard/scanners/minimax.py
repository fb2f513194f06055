"""MiniMax M3 / M2 / M1 scanner (MiniMax-AI's tool-calling guide and chat
template; vLLM's ``minimax_m2`` and ``minimax`` tool parsers; SGLang's and vLLM's
``minimax_m3`` parsers).

The output is the body of an assistant turn (the prompt ended in ``]~b]ai\\n``; the M2 template
adds ``<think>\\n``: use ``start_in_thinking``):

* ``<think>...</think>`` is reasoning (M3: ``<mm:think>...</mm:think>``);
* M3: ``]<]minimax[>[<tool_call>`` holds ``]<]minimax[>[<invoke name="NAME">`` elements whose
  arguments are tags named by their keys, every tag prefixed by the namespace token
  ``]<]minimax[>[`` (:mod:`guard.scanners._minimax_m3`); the block is held (capped) until
  ``]<]minimax[>[</tool_call>``; each invoke is a call (top-level values typed by the tool
  schemas, nested ones objects, lists and text), and a block that does not parse is
  ``Malformed`` whole. The namespace token anywhere else is text to the scanner (detection
  flags it: it is reserved);
* M2: ``<minimax:tool_call>`` holds ``<invoke name="NAME">`` elements with
  ``<parameter name="KEY">VALUE</parameter>`` elements, indented or not (the shape shared with
  DSML, see :mod:`guard.scanners._invoke`). One leading and one trailing newline of a value are
  layout and dropped; the value is typed by the request's tool schemas when given (``"5"`` is 5
  for an ``integer`` parameter, ``null`` is null where the schema allows it) and a string
  otherwise;
* M1: ``<tool_calls>`` holds one JSON object per line, ``{"name": ..., "arguments": ...}``;
  the block is held (capped) until ``</tool_calls>``; each object is a call, each line that is
  not one is ``Malformed``;
* ``]~b]`` starts a turn only the host writes (``]~b]tool`` a tool result): in model output it is
  a forgery (``ResultForgery``; everything after it goes out as ``Malformed`` blocks), as are
  the transport result tags the dialect record lists (``<function_results>``,
  ``<tool_response>``), wherever they appear;
* ``[e~[`` is the stop (``Text`` with empty text); the other envelope tokens are ``Malformed``.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar, Final

from guard._json_walk import value_end
from guard.dialects.minimax import MINIMAX
from guard.models import Event, Malformed, Text
from guard.scanners._dialect import step
from guard.scanners._invoke import NEXT_STATE, InvokeScanner
from guard.scanners._minimax_m3 import BLOCK_CLOSE as M3_CLOSE
from guard.scanners._minimax_m3 import BLOCK_OPEN as M3_OPEN
from guard.scanners._minimax_m3 import parse_block
from guard.scanners._tagged import OUT
from guard.scanners.base import Markers, json_call, tag_value

__all__ = [
    "MiniMaxScanner",
]

WRAPPER_OPEN: Final = "<minimax:tool_call>"
WRAPPER_CLOSE: Final = "</minimax:tool_call>"
INVOKE_CLOSE: Final = "</invoke>"
PARAM_CLOSE: Final = "</parameter>"
M1_OPEN: Final = "<tool_calls>"
M1_CLOSE: Final = "</tool_calls>"
TURN: Final = "]~b]"
END: Final = "[e~["
BEGIN: Final = "]~!b["
THINK_OPEN: Final = "<think>"
THINK_CLOSE: Final = "</think>"

#: The record's result openings, with any turn start (``]~b]`` + role) in place of ``]~b]tool``.
_FORGERIES = (*(s for s in MINIMAX.result_open if not s.startswith(TURN)), TURN)
_M1 = NEXT_STATE
_M3 = NEXT_STATE + 1
_NON_WS = re.compile(r"\S")


class MiniMaxScanner(InvokeScanner):
    """Scanner for MiniMax M2 (and M1) output (see the module docstring).

    Args:
        start_in_thinking: the template put ``<think>`` in the prompt (M2's does).
        tools: OpenAI tool definitions; their schemas type the parameter values.
        max_arguments: cap on a call body (characters); a longer one is ``Malformed``.
    """

    THINKING = (
        ("<think>", "</think>"),
        ("<thinking>", "</thinking>"),
        ("<mm:think>", "</mm:think>"),
    )
    WRAPPER_OPENS = (WRAPPER_OPEN,)
    WRAPPER_CLOSES = (WRAPPER_CLOSE,)
    INVOKE_OPENS = ("<invoke",)
    INVOKE_CLOSES = (INVOKE_CLOSE,)
    PARAM_OPENS = ("<parameter",)
    PARAM_CLOSES = (PARAM_CLOSE,)
    FORGERIES = _FORGERIES
    STOPS = (END,)
    # The bare namespace token is no marker here: it is a prefix of the M3 block's opening, so
    # reading it alone would depend on where a chunk ends. Detection flags it all the same.
    STRAY = (BEGIN, "]!p~[", "]!d~[", M1_CLOSE, M3_CLOSE)
    EXTRA = (M1_OPEN, M3_OPEN)
    HELD_EXTRA = (_M1, _M3)

    #: Per held block: its closer, and what ends it unclosed.
    _block_markers: ClassVar[dict[int, Markers]] = {
        _M1: Markers((M1_CLOSE, M1_OPEN, WRAPPER_OPEN, M3_OPEN, *_FORGERIES, END)),
        _M3: Markers((M3_CLOSE, M3_OPEN, M1_OPEN, WRAPPER_OPEN, *_FORGERIES, END)),
    }

    def _param_value(self, tool: str, key: str, attrs: dict[str, str], text: str) -> Any:
        return tag_value(text)

    def _extra(self, marker: str, offset: int, out: list[Event]) -> None:
        self._state = _M1 if marker == M1_OPEN else _M3
        self._hdr = marker

    @step(_M1, _M3)
    def _in_block(self, buf: str, pos: int, out: list[Event], final: bool) -> int:
        state = self._state
        i, m = self._body_until(self._block_markers[state], "tool-call block", buf, pos, out, final)
        if m is None:
            return i
        hdr, self._hdr = self._hdr, ""
        self._state = OUT
        if m == M1_CLOSE and state == _M1:
            if not self._body_skip_end(m, out):
                self._json_lines(hdr, self._body_take(), m, out)
            return i + len(m)
        if m == M3_CLOSE and state == _M3:
            if not self._body_skip_end(m, out):
                self._m3_block(hdr, self._body_take(), m, out)
            return i + len(m)
        if not self._body_skip_end("", out):
            out.append(Malformed(f"{hdr} block not closed before {m}", hdr + self._body_take()))
        return i

    def _m3_block(self, open_tag: str, body: str, close: str, out: list[Event]) -> None:
        """An M3 block: each namespaced ``<invoke>`` is a call (top-level values typed by the
        tool schemas); a block that does not parse is ``Malformed`` whole."""
        calls = parse_block(body)
        if isinstance(calls, str):
            out.append(Malformed(f"MiniMax M3 tool-call block: {calls}", open_tag + body + close))
            return
        out.append(Text("", open_tag))
        cursor = 0
        for start, args_start, args_end, end, name, pairs in calls:
            if start > cursor:
                out.append(Text("", body[cursor:start]))
            args = self._types.arguments(name, pairs)
            self._whole_call(
                name,
                args,
                body[start:args_start],
                body[args_start:args_end],
                body[args_end:end],
                out,
            )
            cursor = end
        if cursor < len(body):
            out.append(Text("", body[cursor:]))
        out.append(Text("", close))

    def _json_lines(self, open_tag: str, body: str, close: str, out: list[Event]) -> None:
        """Each JSON object of an M1 block is a call; a line that is not one is ``Malformed``."""
        out.append(Text("", open_tag))
        pos, n = 0, len(body)
        while pos < n:
            found = _NON_WS.search(body, pos)
            start = found.start() if found else n
            if start > pos:
                out.append(Text("", body[pos:start]))
            if start == n:
                break
            call = self._json_call(body, start)
            if call is None:
                stop = body.find("\n", start)
                stop = n if stop < 0 else stop
                out.append(
                    Malformed("line in a tool-call block is not a JSON call", body[start:stop])
                )
                pos = stop
                continue
            end, name, args = call
            self._whole_call(name, args, "", body[start:end], "", out)
            pos = end
        out.append(Text("", close))

    @staticmethod
    def _json_call(body: str, start: int) -> tuple[int, str, str] | None:
        try:
            end = value_end(body, start, strict=True)
        except ValueError:
            return None
        parsed = json_call(body[start:end])
        return None if parsed is None else (end, *parsed)

    def _finish_extra(self, state: int, out: list[Event]) -> None:
        hdr, self._hdr = self._hdr, ""
        if not self._body_skip_end("", out):
            out.append(
                Malformed(f"{hdr} block not closed at end of stream", hdr + self._body_take())
            )
